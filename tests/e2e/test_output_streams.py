"""A standard output that is closed, whose reader went away, or that cannot be written (a full
disk): no traceback, the status of a broken pipe (141) or one line naming the write error."""

from __future__ import annotations

import os
import subprocess

from tests.e2e.conftest import ROOT, kwhatif_command

SCHEDULE = ["schedule", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "-o", "json", "--quiet"]
NOTE = "kwhatif: note: skipped objects kwhatif does not read: 1 ConfigMap\n"  # of samples/cluster.yaml


def run_with_stdout(stdout, *args: str, close_stdout: bool = False) -> tuple[int, str]:
    p = subprocess.run(
        [kwhatif_command(), *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
        timeout=120,
        text=True,
        preexec_fn=(lambda: os.close(1)) if close_stdout else None,
    )
    return p.returncode, p.stderr


def test_a_closed_stdout_ends_quietly_as_a_broken_pipe():
    code, err = run_with_stdout(None, *SCHEDULE, close_stdout=True)
    assert (code, err) == (141, NOTE)


def test_a_closed_stdout_does_not_matter_when_nothing_is_written_to_it(tmp_path):
    code, err = run_with_stdout(None, "completion", "bash", close_stdout=True)
    assert (code, err) == (141, "")
    # a snapshot to a file writes nothing to standard output, and the file is not descriptor 1
    from tests.e2e.fake_apiserver import FakeAPIServer
    from tests.e2e.test_live import cluster_objects

    with FakeAPIServer(cluster_objects()) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        code, err = run_with_stdout(None, "snapshot", str(tmp_path / "s.json"), "--kubeconfig", kc, close_stdout=True)
    assert code == 0, err
    assert err.startswith("kwhatif: saved 10 objects to")
    assert (tmp_path / "s.json").read_text().startswith('{"apiVersion": "v1", "kind": "List"')


def test_a_reader_that_went_away_is_a_broken_pipe():
    r, w = os.pipe()
    os.close(r)
    with os.fdopen(w, "w") as fh:
        code, err = run_with_stdout(fh, *SCHEDULE)
    assert (code, err) == (141, NOTE)


def test_a_full_disk_is_one_line():
    with open("/dev/full", "w") as fh:
        code, err = run_with_stdout(fh, *SCHEDULE)
    assert code == 2
    assert err == NOTE + "kwhatif: error: cannot write to standard output: No space left on device\n"


def test_a_snapshot_to_a_reader_that_went_away(tmp_path):
    from tests.e2e.fake_apiserver import FakeAPIServer
    from tests.e2e.test_live import cluster_objects

    with FakeAPIServer(cluster_objects()) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        r, w = os.pipe()
        os.close(r)
        with os.fdopen(w, "w") as fh:
            code, err = run_with_stdout(fh, "snapshot", "--kubeconfig", kc)
        assert (code, err) == (141, "")
        with open("/dev/full", "w") as fh:
            code, err = run_with_stdout(fh, "snapshot", "--kubeconfig", kc)
        assert code == 2
        assert err == "kwhatif: error: cannot write to standard output: No space left on device\n"


def test_every_format_of_a_schedule_fails_in_one_line_on_a_full_disk():
    """The streamed formats write while the pods are placed; the others at the end: a full disk
    is one line and exit 2 either way, never a partial report and exit 0."""
    for fmt in ("table", "wide", "yaml", "json", "markdown", "junit", "html"):
        args = [a if a != "json" else fmt for a in SCHEDULE]
        with open("/dev/full", "w") as fh:
            code, err = run_with_stdout(fh, *args)
        assert (fmt, code) == (fmt, 2)
        assert err == NOTE + "kwhatif: error: cannot write to standard output: No space left on device\n", fmt
