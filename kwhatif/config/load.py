"""Reading a KubeSchedulerConfiguration file as the selected kube-scheduler release does
(cmd/kube-scheduler/app/options/configfile.go, then ValidateKubeSchedulerConfiguration). What
differs between releases (args kinds, default plugins, refused plugin names, message wording) is
read from the release's profile (kwhatif/versions.py).

Upstream's order is kept, because it decides which error a broken file reports: the document
(reader.py), strict decoding against the v1 types (decode.py), defaults (defaults.py), validation
(validation.py); then each plugin's args are converted into their typed form (convert.py).

The framework (runtime.py) rejects unknown plugins, duplicate registrations and a missing queue
sort or bind plugin later, as upstream does; NodeResourcesFit checks its args when it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kwhatif.bounded import DEFAULT_READ_TIMEOUT, read_bounded
from kwhatif.config.convert import convert_args
from kwhatif.config.decode import decode_document
from kwhatif.config.defaults import ProfileDraft, default_profile_draft
from kwhatif.config.reader import os_errors, read_strict_document
from kwhatif.config.types import DEFAULT_SCHEDULER_NAME, KIND, PluginArgs, Profile, SchedulerConfiguration
from kwhatif.config.validation import validate_configuration
from kwhatif.errors import ConfigError
from kwhatif.release.versions import SchedulerVersion, default_version

# Config files are small; this only keeps a wrong path (a disk image, a log) from being parsed.
MAX_CONFIG_BYTES = 16 * 1024 * 1024


def parse_configuration(text: str, source: str, version: SchedulerVersion | None = None) -> SchedulerConfiguration:
    """Decode, default and validate the text of a KubeSchedulerConfiguration file as the release
    (default: kwhatif's default release) does."""
    try:
        return _parse(text, source, version or default_version())
    except ConfigError as e:
        raise e.with_context(source=source) from None
    except RecursionError:
        raise ConfigError("nested too deeply", source=source) from None


def _parse(text: str, source: str, version: SchedulerVersion) -> SchedulerConfiguration:
    cfg = decode_document(read_strict_document(text, KIND), version)
    profiles = cfg.get("profiles") or [{}]  # no profiles: one default profile
    drafts = [default_profile_draft(p, version) for p in profiles]
    if len(drafts) == 1 and drafts[0].name is None:
        drafts[0].name = DEFAULT_SCHEDULER_NAME
    validate_configuration(cfg, drafts, version)
    if cfg.get("extenders"):
        # Extenders are HTTP services that take part in Filter, Score, preemption and binding; a
        # run without them would differ from the real scheduler without saying so.
        raise ConfigError(
            "scheduler extenders are not supported: kwhatif runs only the in-tree plugins "
            "(remove `extenders` to simulate the scheduler without them)",
            field="extenders",
        )
    return SchedulerConfiguration(
        profiles=tuple(_build_profile(d) for d in drafts),
        percentage_of_nodes_to_score=cfg.get("percentageOfNodesToScore", 0),
        source=source,
        version=version,
    )


def _build_profile(d: ProfileDraft) -> Profile:
    plugin_config: dict[str, PluginArgs] = {}
    unknown: dict[str, Mapping[str, Any]] = {}
    for name, args, typed in d.config:
        if typed:
            plugin_config[name] = convert_args(name, args)
        elif isinstance(args, dict):
            # Raw args of plugins without an args kind are kept when they are an object; no plugin
            # reads them (upstream hands such plugins a runtime.Unknown they ignore).
            unknown[name] = args
    return Profile(
        scheduler_name=d.name or "",
        plugins=d.plugins,
        plugin_config=plugin_config,
        percentage_of_nodes_to_score=d.percentage,
        unknown_args=unknown,
    )


def load_configuration(
    path: str, version: SchedulerVersion | None = None, read_timeout: float = DEFAULT_READ_TIMEOUT
) -> SchedulerConfiguration:
    """Read a KubeSchedulerConfiguration file (YAML or JSON) as the release reads it (a FIFO or
    pipe within ``read_timeout``)."""
    with os_errors(path, ConfigError):
        data = read_bounded(path, MAX_CONFIG_BYTES, read_timeout)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"file is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB: not a {KIND}", source=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"not UTF-8 text (byte {e.start})", source=path) from None
    return parse_configuration(text, path, version)
