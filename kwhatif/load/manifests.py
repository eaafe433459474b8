"""The manifests of -f/--filename, -R/--recursive and -k/--kustomize, as kubectl takes them.

-f names a file, a directory or '-' (standard input). A directory gives its own files with a
.json, .yaml or .yml extension, in name order; with -R the files of its subdirectories too (a
named file is read whatever its extension). -k DIR is rendered with `kubectl kustomize DIR`, else
`kustomize build DIR`, whichever is on PATH first in that order; the rendered stream's errors
name DIR as their source, and the renderer's standard error is shown as it goes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator

from kwhatif.bounded import OutputTooLarge, run_bounded
from kwhatif.errors import InputError
from kwhatif.load.files import Document, Limits, parse_text

EXTENSIONS = (".json", ".yaml", ".yml")


def expand_filenames(filenames: Iterable[str], recursive: bool) -> list[str]:
    """The files of -f: files and '-' as given, directories expanded."""
    out: list[str] = []
    for name in filenames:
        if name == "-" or not os.path.isdir(name):
            out.append(name)  # a missing file is reported when it is read
            continue
        found: list[str] = []
        if recursive:
            for root, dirs, files in os.walk(name):
                dirs.sort()
                found.extend(os.path.join(root, f) for f in sorted(files) if f.lower().endswith(EXTENSIONS))
        else:
            with os.scandir(name) as it:
                found = sorted(e.path for e in it if e.is_file() and e.name.lower().endswith(EXTENSIONS))
        if not found:
            what = "directory or its subdirectories" if recursive else "directory"
            hint = "" if recursive else " (-R reads its subdirectories)"
            raise InputError(f"the {what} holds no .json, .yaml or .yml file{hint}", source=name)
        # kubectl passes over a file of a directory that holds no object (empty, or only
        # comments and document markers); a file named on its own is read, and refused, as it is
        kept = [f for f in found if not _holds_nothing(f)]
        if not kept:
            raise InputError("no Kubernetes objects: every file of the directory is empty", source=name)
        out.extend(kept)
    return out


_NOTHING_MAX_BYTES = 1 << 20


def _holds_nothing(path: str) -> bool:
    """Whether a (small) file holds no YAML or JSON content: blank lines, comments, --- and ...
    only. Anything else, and a file that cannot be read here, is left to the reader."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > _NOTHING_MAX_BYTES:
            return False  # a FIFO or device is read (bounded) as a named file is
        with open(path, "rb") as fh:
            data = fh.read(_NOTHING_MAX_BYTES + 1)
    except OSError:
        return False
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    # a line of nothing but a comment, or a document marker and a comment, holds nothing
    return all(line.split("#", 1)[0].strip() in ("", "---", "...") for line in text.splitlines())


def renderer() -> list[str]:
    """The command that renders a kustomization: kubectl's built-in kustomize first."""
    kubectl = shutil.which("kubectl")
    if kubectl:
        return [kubectl, "kustomize"]
    kustomize = shutil.which("kustomize")
    if kustomize:
        return [kustomize, "build"]
    raise InputError(
        "neither kubectl nor kustomize is on PATH: -k renders with `kubectl kustomize DIR` or `kustomize build DIR`",
        field="-k/--kustomize",
    )


def render_kustomization(directory: str, limits: Limits = Limits()) -> Iterator[Document]:
    """The documents `kubectl kustomize DIR` (or `kustomize build DIR`) renders."""
    if not os.path.isdir(directory):
        raise InputError("no such directory (-k takes a kustomization directory)", source=directory)
    command = renderer()
    tool = " ".join([os.path.basename(command[0]), *command[1:]])
    limit = max(limits.max_yaml_bytes, limits.max_json_bytes)
    try:
        # its output read as it comes and bounded (the renderer is stopped past the limit); its
        # standard error shown as it goes
        returncode, stdout = run_bounded([*command, directory], max_stdout=limit, timeout=0)
    except OutputTooLarge:
        raise InputError(f"{tool} rendered more than the limit (--max-input-size)", source=directory) from None
    except OSError as e:
        raise InputError(f"cannot run {tool}: {e.strerror or e}", source=directory) from None
    if returncode != 0:
        raise InputError(f"{tool} failed with exit status {returncode} (its errors are above)", source=directory)
    try:
        text = stdout.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{tool} rendered text that is not UTF-8 (byte {e.start})", source=directory) from None
    return parse_text(text, directory, limits.max_yaml_bytes)
