"""-o github (kwhatif check): GitHub Actions workflow commands, annotations on the manifest lines."""

from __future__ import annotations

from kwhatif.escape import github_data, github_property
from kwhatif.report.base import OutputFormat
from kwhatif.report.check import CheckReport
from kwhatif.report.formats.formatter import Formatter


class GithubFormatter(Formatter):
    output_format = OutputFormat.GITHUB

    def check(self, report: CheckReport) -> str:
        """GitHub Actions workflow commands: an error annotation on the manifest line of every
        workload that does not fit or is refused, a warning on those kwhatif could not check or
        that have no eligible node (an error with --strict), and a notice summing up."""
        lines = []
        for w in report.workloads:
            file, line = w.file_and_line()
            if w.fits:
                # it fits as the API server leaves it (a field dropped, say): worth a look
                lines += [
                    f"::warning {_where(file, line)}title={github_property(f'{w.kind} {w.ref}')}::{github_data(n)}"
                    for n in w.verdict_notes
                ]
                continue
            level = "error" if w.failed or report.strict else "warning"
            msg = w.message or w.dominant_reason or (w.notes[-1] if w.notes else str(w.verdict))
            lines.append(f"::{level} {_where(file, line)}title={github_property(w.headline)}::{github_data(msg)}")
        summary = f"{report.summary_line()} on {report.schedule.num_nodes} nodes"
        lines.append(f"::notice title=kwhatif check::{github_data(summary)}")
        return "\n".join(lines) + "\n"


# the sources that name no file a workflow can annotate: manifests read from standard input
_NOT_A_FILE = frozenset({"", "-", "<stdin>"})


def _where(file: str, line: int) -> str:
    """The file= and line= properties of an annotation, none for standard input (the annotation
    is then shown on the run, not on a file that does not exist)."""
    if file in _NOT_A_FILE:
        return ""
    return f"file={github_property(file)},line={line},"
