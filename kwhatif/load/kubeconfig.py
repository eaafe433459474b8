"""Which kubeconfig files are read, and how they merge, as kubectl does (client-go's clientcmd
loading rules): --kubeconfig names one file; else $KUBECONFIG is a list of files separated by
os.pathsep (empty entries ignored, missing files skipped), merged so that the first file to set a
cluster, context or user by name wins and current-context comes from the first file that sets
one; else ~/.kube/config. The kubernetes client's KubeConfigMerger does the merge of the named
lists (keeping each entry's file, against which its relative paths resolve); current-context is
taken here, because the client lets the last file win."""

from __future__ import annotations

import copy
import os
from typing import Any

from kwhatif.errors import InputError

DEFAULT_KUBECONFIG = "~/.kube/config"

# The parts of a kubeconfig (clientcmd's v1 Config) the client walks, and their shapes.
_LISTS = ("clusters", "contexts", "users")
_ITEM = {"clusters": "cluster", "contexts": "context", "users": "user"}


# A kubeconfig holds a few contexts and their certificates: kilobytes. Past this it is another file.
MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024


def env_paths() -> list[str]:
    """The files of $KUBECONFIG, in order (empty entries ignored)."""
    return [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]


def kubeconfig_paths(kubeconfig: str | None) -> list[str]:
    """The files a live read looks at: --kubeconfig, else those of $KUBECONFIG, else ~/.kube/config."""
    if kubeconfig:
        return [kubeconfig]
    return env_paths() or [os.path.expanduser(DEFAULT_KUBECONFIG)]


def live_requested(kubeconfig: str | None, context: str | None) -> bool:
    """Whether a command without --cluster reads a live cluster: --kubeconfig, --context or $KUBECONFIG."""
    return bool(kubeconfig or context or env_paths())


def check_kubeconfig(path: str) -> bool:
    """A malformed kubeconfig is bad input named by its file, not a crash inside the client.
    False: the file is missing or empty (kubectl skips it)."""
    from kwhatif.config.reader import PlainLoader, os_errors, yaml_error_message, yaml_nesting_problem

    if not os.path.isfile(path):
        return False
    with os_errors(path):
        with open(path, "rb") as fh:
            data = fh.read(MAX_KUBECONFIG_BYTES + 1)
    if len(data) > MAX_KUBECONFIG_BYTES:
        raise InputError(f"not a kubeconfig: larger than {MAX_KUBECONFIG_BYTES >> 20} MiB", source=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not a kubeconfig: not UTF-8 text (byte {e.start})", source=path) from None
    import yaml

    problem = yaml_nesting_problem(text)
    if problem:
        raise InputError(problem, source=path)
    try:
        body = yaml.load(text, Loader=PlainLoader)
    except yaml.YAMLError as e:
        raise InputError(yaml_error_message(e, text), source=path) from None
    if body is None:
        return False
    if not isinstance(body, dict):
        raise InputError(
            f"not a kubeconfig: the file holds a {type(body).__name__}, not a mapping (apiVersion: v1, kind: Config)",
            source=path,
        )
    for key in _LISTS:
        items = body.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            raise InputError(f"not a kubeconfig: {key} must be a list, not a {type(items).__name__}", source=path)
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise InputError(
                    f"not a kubeconfig: {key}[{i}] must be a mapping with name and {_ITEM[key]}", source=path
                )
            inner = item.get(_ITEM[key])
            if inner is not None and not isinstance(inner, dict):
                raise InputError(f"not a kubeconfig: {key}[{i}].{_ITEM[key]} must be a mapping", source=path)
    return True


def merged_kubeconfig(kubeconfig: str | None) -> Any:
    """The merged configuration (the client's ConfigNode, for its KubeConfigLoader), or None when
    no file holds one. --kubeconfig must name an existing file, as kubectl wants."""
    from kubernetes.config import kube_config

    paths = kubeconfig_paths(kubeconfig)
    if kubeconfig and not os.path.exists(kubeconfig):
        raise FileNotFoundError(2, "no such file", kubeconfig)
    present = [p for p in paths if check_kubeconfig(p)]
    if not present:
        return None
    merger = _merger(kube_config, present)
    config = merger.config
    if config is None:
        return None
    current = next(
        (
            c
            for p in merger.paths
            if isinstance(c := (merger.config_files.get(p) or {}).get("current-context"), str) and c
        ),
        None,
    )
    config.value.pop("current-context", None)
    if current:
        config.value["current-context"] = current
    return config


def _merger(kube_config: Any, paths: list[str]) -> Any:
    """The client's KubeConfigMerger of these files. It takes one string that it splits at
    ':' as $KUBECONFIG is split; kubectl takes --kubeconfig as one path whatever it holds
    (clientcmd's ExplicitPath), so the files are handed over one by one instead."""

    class Merger(kube_config.KubeConfigMerger):  # type: ignore[misc]
        def _load_config_from_file_path(self, _: str) -> None:
            for path in paths:
                self.paths.append(path)
                self.load_config(path)
            self.config_saved = copy.deepcopy(self.config_files)

    return Merger("")


def contexts(kubeconfig: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The merged contexts (name and context) and the current context's name; empty when the
    files hold none or cannot be read (for completion and the default namespace)."""
    try:
        config = merged_kubeconfig(kubeconfig)
    except (InputError, OSError):
        return [], None
    if config is None:
        return [], None
    out = []
    for node in config.value.get("contexts") or []:
        value = node.value if hasattr(node, "value") else node
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            out.append(value)
    current = config.value.get("current-context")
    return out, current if isinstance(current, str) else None


def context_namespace(kubeconfig: str | None, context: str | None) -> str:
    """The namespace of the context (the current one unless named): kubectl's default namespace,
    else "default"."""
    items, current = contexts(kubeconfig)
    name = context or current
    chosen = next((c for c in items if c.get("name") == name), None)
    ns = ((chosen or {}).get("context") or {}).get("namespace")
    return ns if isinstance(ns, str) and ns else "default"
