"""Validation of a defaulted configuration (pkg/scheduler/apis/config/validation: validation.go,
validation_pluginargs.go) in upstream's order, every error found reported together as upstream's
aggregate prints them. Plugin args are judged on their defaulted v1 data, before their conversion, as
upstream judges them with the values as given.

NodeResourcesFit's args are keyed "NodeResourcesFitArgs" in upstream's table, so only the plugin's
constructor checks them (``validate_node_resources_fit_args``, called by the plugin factory).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.api.resources import is_extended
from kwhatif.config.defaults import ProfileDraft
from kwhatif.config.errors import aggregate, duplicate, forbidden, go_str_slice, invalid, not_supported, required
from kwhatif.config.types import (
    API_VERSION,
    BALANCED_ALLOCATION,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    PLUGIN_SET_FIELDS,
    POD_TOPOLOGY_SPREAD,
    REQUESTED_TO_CAPACITY_RATIO,
    SCORING_STRATEGIES,
    VOLUME_BINDING,
    NodeResourcesFitArgs,
    PluginSet,
)
from kwhatif.errors import ConfigError
from kwhatif.gocompat import format_go_duration, go_json_string, go_quote
from kwhatif.release.versions import SchedulerVersion

_INT64 = (-(1 << 63), (1 << 63) - 1)
MAX_CUSTOM_PRIORITY_SCORE = 10  # the highest score of a RequestedToCapacityRatio shape point


def _validate_leader_election(le: Mapping[str, Any], errs: list[ConfigError]) -> None:
    # RecommendedDefaultLeaderElectionConfiguration and the scheduler's own defaults, then
    # ValidateLeaderElectionConfiguration.
    lease = le.get("leaseDuration") or 15_000_000_000
    renew = le.get("renewDeadline") or 10_000_000_000
    retry = le.get("retryPeriod") or 2_000_000_000
    lock = le.get("resourceLock") or "leases"
    if not le.get("leaderElect", True):
        return
    path = "leaderElection"
    if lease <= 0:
        errs.append(invalid(f"{path}.leaseDuration", None, "must be greater than zero", format_go_duration(lease)))
    if renew <= 0:
        errs.append(invalid(f"{path}.renewDeadline", None, "must be greater than zero", format_go_duration(renew)))
    if retry <= 0:
        errs.append(invalid(f"{path}.retryPeriod", None, "must be greater than zero", format_go_duration(retry)))
    if lease <= renew:
        errs.append(
            invalid(
                f"{path}.leaseDuration",
                None,
                "LeaseDuration must be greater than RenewDeadline",
                format_go_duration(renew),
            )
        )
    if lock != "leases":
        errs.append(invalid(f"{path}.resourceLock", lock, 'resourceLock value must be "leases"'))


def _validate_percentage(path: str, value: int | None, errs: list[ConfigError]) -> None:
    if value is not None and not 0 <= value <= 100:
        errs.append(invalid(path, value, "not in valid range [0-100]"))


def _validate_label_name(path: str, name: str, errs: list[ConfigError]) -> None:
    errs.extend(invalid(path, name, msg) for msg in is_qualified_name(name))


def _validate_default_preemption(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    pct, absolute = a["minCandidateNodesPercentage"], a["minCandidateNodesAbsolute"]
    pct_path, abs_path = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
    if not 0 <= pct <= 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))


def _validate_inter_pod_affinity(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    w = a["hardPodAffinityWeight"]
    if not 0 <= w <= 100:
        errs.append(invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]"))


_NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _validate_requirements(path: str, exprs: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    """nodeSelectorRequirementsAsSelector with labels.NewRequirement's checks."""
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values")
        if op not in _NODE_SELECTOR_OPERATORS:
            errs.append(not_supported(f"{p}.operator", op, _NODE_SELECTOR_OPERATORS))
            continue
        key_errs = is_qualified_name(key)
        if key_errs:
            errs.append(invalid(f"{p}.key", key, "; ".join(key_errs)))
        vals = values or []
        if op in ("In", "NotIn") and not vals:
            errs.append(
                invalid(
                    f"{p}.values", None, "for 'in', 'notin' operators, values set can't be empty", go_str_slice(values)
                )
            )
        elif op in ("Exists", "DoesNotExist") and vals:
            errs.append(
                invalid(
                    f"{p}.values", None, "values set must be empty for exists and does not exist", go_str_slice(values)
                )
            )
        elif op in ("Gt", "Lt"):
            if len(vals) != 1:
                errs.append(
                    invalid(
                        f"{p}.values",
                        None,
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                        go_str_slice(values),
                    )
                )
            for j, v in enumerate(vals):
                if not re.fullmatch(r"[+-]?[0-9]+", v) or not _INT64[0] <= int(v) <= _INT64[1]:
                    errs.append(
                        invalid(f"{p}.values[{j}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                    )
        for j, v in enumerate(vals):
            value_errs = is_valid_label_value(v)
            if value_errs:
                errs.append(invalid(f"{p}.values[{j}][{key}]", v, "; ".join(value_errs)))


def _validate_field_requirements(path: str, exprs: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    """nodeSelectorRequirementsAsFieldSelector: the key is not checked here."""
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        op, values = expr.get("operator", ""), expr.get("values")
        if op in ("In", "NotIn"):
            if len(values or []) != 1:
                errs.append(invalid(f"{p}.values", None, "must have one element", go_str_slice(values)))
        else:
            errs.append(not_supported(f"{p}.operator", op, ("In", "NotIn")))


def _validate_term(path: str, term: Mapping[str, Any], errs: list[ConfigError]) -> None:
    if term.get("matchExpressions"):
        _validate_requirements(f"{path}.matchExpressions", term["matchExpressions"], errs)
    if term.get("matchFields"):
        _validate_field_requirements(f"{path}.matchFields", term["matchFields"], errs)


def _is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def _validate_node_affinity(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    # nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms: only what the parser rejects
    # (no weight range, no "at least one term"), empty terms skipped.
    added = a.get("addedAffinity")
    if added is None:
        return
    required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        p = f"{path}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(required.get("nodeSelectorTerms") or ()):
            if not _is_empty_term(term):
                _validate_term(f"{p}[{i}]", term, errs)
    p = f"{path}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(added.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
        term = pref.get("preference") or {}
        if pref.get("weight", 0) == 0 or _is_empty_term(term):
            continue
        _validate_term(f"{p}[{i}]", term, errs)


def _validate_balanced_allocation(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    seen: set[str] = set()
    for i, r in enumerate(a["resources"]):
        p = f"{path}.resources[{i}]"
        if r["name"] in seen:
            errs.append(duplicate(f"{p}.name", go_quote(r["name"])))
        seen.add(r["name"])
        if r["weight"] != 1:
            errs.append(invalid(f"{p}.weight", r["weight"], "must be 1"))


def _validate_pod_topology_spread(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    defaulting, constraints = a["defaultingType"], a["defaultConstraints"]
    if defaulting not in ("System", "List"):
        errs.append(not_supported(f"{path}.defaultingType", defaulting, ("System", "List")))
    elif defaulting == "System" and constraints:
        errs.append(invalid(f"{path}.defaultingType", defaulting, "when .defaultConstraints are not empty"))
    seen: list[tuple[str, str]] = []
    for i, c in enumerate(constraints):
        p = f"{path}.defaultConstraints[{i}]"
        skew = c.get("maxSkew", 0)
        if skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey", "")
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            _validate_label_name(f"{p}.topologyKey", key, errs)
        when = c.get("whenUnsatisfiable", "")
        if not when:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(f"{p}.whenUnsatisfiable", when, ("DoNotSchedule", "ScheduleAnyway")))
        if "labelSelector" in c:
            errs.append(
                forbidden(f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod")
            )
        if (key, when) in seen:
            errs.append(duplicate(f"{path}.defaultConstraints[{i}]", go_quote(f"{{{key}, {when}}}")))
        seen.append((key, when))


def _go_shape(points: list[dict[str, Any]], version: SchedulerVersion) -> str:
    """A []config.UtilizationShapePoint as field.Invalid prints it: fmt's %#v, encoding/json's
    text from 1.34."""
    if version.behaviour.field_error_values_as_json:
        return "[" + ",".join(f'{{"Utilization":{p["utilization"]},"Score":{p["score"]}}}' for p in points) + "]"
    items = ", ".join(
        f"config.UtilizationShapePoint{{Utilization:{p['utilization']}, Score:{p['score']}}}" for p in points
    )
    return "[]config.UtilizationShapePoint{" + items + "}"


def _validate_volume_binding(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    if a["bindTimeoutSeconds"] < 0:
        errs.append(
            invalid(
                f"{path}.bindTimeoutSeconds",
                a["bindTimeoutSeconds"],
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if "shape" in a and not version.gate("StorageCapacityScoring"):
        errs.append(
            invalid(
                f"{path}.shape",
                None,
                f"unexpected field `shape`, remove it or turn on the feature gate {_capacity_scoring_gate(version)}",
                _go_shape(a["shape"], version),
            )
        )


def _capacity_scoring_gate(version: SchedulerVersion) -> str:
    """The gate that allows VolumeBindingArgs.shape: VolumeCapacityPriority, renamed in 1.33."""
    return "VolumeCapacityPriority" if version.has_gate("VolumeCapacityPriority") else "StorageCapacityScoring"


def _validate_dynamic_resources(
    path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion
) -> None:
    """ValidateDynamicResourcesArgs (1.34+): each timeout is checked while its gate is on, and
    refused while it is off."""
    timeout = a.get("filterTimeout")
    if version.gate("DRASchedulerFilterTimeout"):
        if timeout is not None and timeout < 0:
            # a *metav1.Duration: encoding/json's text of it is its quoted string
            errs.append(
                invalid(
                    f"{path}.filterTimeout", None, "must be zero or positive", go_quote(format_go_duration(timeout))
                )
            )
    elif timeout is not None:
        errs.append(forbidden(f"{path}.filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled"))
    if not version.behaviour.dynamic_resources_binding_timeout:
        return
    binding = a.get("bindingTimeout")
    if version.gate("DRADeviceBindingConditions") and version.gate("DRAResourceClaimDeviceStatus"):
        if binding is not None and binding < 1_000_000_000:
            errs.append(
                invalid(
                    f"{path}.bindingTimeout", None, "must be at least 1 second", go_quote(format_go_duration(binding))
                )
            )
    elif binding is not None:
        errs.append(
            forbidden(
                f"{path}.bindingTimeout",
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
            )
        )


# validatePluginConfig's table. NodeResourcesFit is keyed "NodeResourcesFitArgs" upstream, so its
# args are never checked here, only by the plugin constructor.
_ARGS_VALIDATORS: dict[str, Callable[[str, Mapping[str, Any], list[ConfigError], SchedulerVersion], None]] = {
    DYNAMIC_RESOURCES: _validate_dynamic_resources,
    DEFAULT_PREEMPTION: _validate_default_preemption,
    INTER_POD_AFFINITY: _validate_inter_pod_affinity,
    NODE_AFFINITY: _validate_node_affinity,
    BALANCED_ALLOCATION: _validate_balanced_allocation,
    POD_TOPOLOGY_SPREAD: _validate_pod_topology_spread,
    VOLUME_BINDING: _validate_volume_binding,
}


def _go_plugin_set(ps: PluginSet, version: SchedulerVersion) -> str:
    """A config.PluginSet as field.Invalid prints it (weights 0 where none was given): fmt's %#v,
    encoding/json's text from 1.34."""
    if version.behaviour.field_error_values_as_json:

        def plugins_json(refs: Iterable[tuple[str, int]]) -> str:
            items = [f'{{"Name":{go_json_string(n)},"Weight":{w}}}' for n, w in refs]
            return "[" + ",".join(items) + "]" if items else "null"

        return (
            f'{{"Enabled":{plugins_json((r.name, r.weight or 0) for r in ps.enabled)},'
            f'"Disabled":{plugins_json((n, 0) for n in ps.disabled)}}}'
        )

    def plugins(refs: Iterable[tuple[str, int]]) -> str:
        items = [f"config.Plugin{{Name:{go_quote(n)}, Weight:{w}}}" for n, w in refs]
        return "[]config.Plugin{" + ", ".join(items) + "}" if items else "[]config.Plugin(nil)"

    return (
        f"config.PluginSet{{Enabled:{plugins((r.name, r.weight or 0) for r in ps.enabled)}, "
        f"Disabled:{plugins((n, 0) for n in ps.disabled)}}}"
    )


def _queue_sort_key(ps: PluginSet) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    # Compared as upstream's internal PluginSet: a missing weight is 0, disabled entries carry no weight.
    return tuple((r.name, r.weight or 0) for r in ps.enabled), ps.disabled


def _validate_common_queue_sort(drafts: list[ProfileDraft], errs: list[ConfigError], version: SchedulerVersion) -> None:
    canon = drafts[0].plugins["queueSort"]
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(
            invalid(
                "profiles[0].plugins.queueSort.Enabled", len(canon.enabled), "only one queue sort plugin can be enabled"
            )
        )
    args: Any = None
    for n, a, _ in drafts[0].config:
        if name and n == name:
            args = a
    for i, d in enumerate(drafts[1:], start=1):
        curr = d.plugins["queueSort"]
        if _queue_sort_key(curr) != _queue_sort_key(canon):
            errs.append(
                invalid(
                    f"profiles[{i}].plugins.queueSort",
                    None,
                    version.behaviour.queue_sort_mismatch_detail,
                    _go_plugin_set(curr, version),
                )
            )
        for n, a, _ in d.config:
            if n == name and a != args:
                errs.append(
                    invalid(f"profiles[{i}].pluginConfig.args", a, "queueSort must be the same for all profiles")
                )


def _validate_extenders(extenders: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        p = f"extenders[{i}]"
        if ext.get("prioritizeVerb") and ext.get("weight", 0) <= 0:
            errs.append(invalid(f"{p}.weight", ext.get("weight", 0), "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or ()):
            rp = f"{p}.managedResources[{j}].name"
            name = res.get("name", "")
            name_errs = [invalid(rp, name, m) for m in is_qualified_name(name)]
            if not name_errs and (not is_extended(name) or is_qualified_name("requests." + name)):
                name_errs.append(invalid(rp, name, "is an invalid extended resource name"))
            errs.extend(name_errs)
            if name in managed:
                errs.append(invalid(rp, name, "duplicate extender managed resource name"))
            managed.add(name)
    if binders > 1:
        errs.append(
            invalid("extenders", f"found {binders} extenders implementing bind", "only one extender can implement bind")
        )


def _invalid_plugin(path: str, name: str) -> ConfigError:
    """isPluginInvalid: a plugin the v1 API removed (the in-tree volume-limit plugins, from 1.31)."""
    return invalid(
        path, name, f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")'
    )


def _validate_invalid_plugins(path: str, d: ProfileDraft, errs: list[ConfigError], version: SchedulerVersion) -> None:
    """validatePluginSetForInvalidPlugins over every extension point's enabled plugins, multiPoint
    excepted (upstream walks a map of the points; kwhatif takes them in field order)."""
    invalid = version.behaviour.config_invalid_plugins
    if not invalid:
        return
    for point in PLUGIN_SET_FIELDS:
        if point == "multiPoint":
            continue
        for k, ref in enumerate(d.plugins[point].enabled):
            if ref.name in invalid:
                errs.append(_invalid_plugin(f"{path}.plugins.{point}.enabled[{k}]", ref.name))


def validate_configuration(cfg: Mapping[str, Any], drafts: list[ProfileDraft], version: SchedulerVersion) -> None:
    """ValidateKubeSchedulerConfiguration, after defaulting; raises the aggregate of its errors."""
    errs: list[ConfigError] = []
    burst = (cfg.get("clientConnection") or {}).get("burst", 100) or 100
    if burst < 0:
        errs.append(invalid("clientConnection.burst", burst, "must be non-negative"))
    _validate_leader_election(cfg.get("leaderElection") or {}, errs)
    parallelism = cfg.get("parallelism", 16)
    if parallelism <= 0:
        errs.append(invalid("parallelism", parallelism, "should be an integer value greater than zero"))
    if not drafts:
        errs.append(required("profiles"))
    else:
        names: dict[str, int] = {}
        for i, d in enumerate(drafts):
            path = f"profiles[{i}]"
            name = d.name or ""
            if not name:
                errs.append(required(f"{path}.schedulerName"))
            _validate_percentage(f"{path}.percentageOfNodesToScore", d.percentage, errs)
            _validate_invalid_plugins(path, d, errs, version)
            seen: set[str] = set()
            for j, (n, args, typed) in enumerate(d.config):
                pc_path = f"{path}.pluginConfig[{j}]"
                if n in seen:
                    errs.append(duplicate(pc_path, go_quote(n)))
                seen.add(n)
                check = _ARGS_VALIDATORS.get(n)
                if n in version.behaviour.config_invalid_plugins:
                    errs.append(_invalid_plugin(pc_path, n))
                elif check is not None and typed:
                    check(f"{pc_path}.args", args, errs, version)
            if name in names:
                # Upstream's value is the other *field.Path: fmt's %#v of it (a struct and a pointer
                # address) before 1.34, whose path is what that means; encoding/json's text of it
                # from 1.34, {} (its fields are unexported)
                other = (
                    "{}" if version.behaviour.field_error_values_as_json else f"profiles[{names[name]}].schedulerName"
                )
                errs.append(duplicate(f"{path}.schedulerName", other))
            names[name] = i
        _validate_common_queue_sort(drafts, errs, version)
    _validate_percentage("percentageOfNodesToScore", cfg.get("percentageOfNodesToScore"), errs)
    initial = cfg.get("podInitialBackoffSeconds", 1)
    maximum = cfg.get("podMaxBackoffSeconds", 10)
    if initial <= 0:
        errs.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if maximum < initial:
        errs.append(
            invalid("podMaxBackoffSeconds", maximum, "must be greater than or equal to PodInitialBackoffSeconds")
        )
    _validate_extenders(cfg.get("extenders") or [], errs)
    if errs:
        raise aggregate(errs)


# --- NodeResourcesFit, at construction ---------------------------------------------------------


_SHAPE_ORDER = "utilization values must be sorted in increasing order"


def node_resources_fit_args_errors(
    args: NodeResourcesFitArgs, shape_order_detail: str = _SHAPE_ORDER
) -> list[ConfigError]:
    """ValidateNodeResourcesFitArgs: every error, in upstream's order, paths relative to the args
    (the release's wording of the shape-order error is ``shape_order_detail``)."""
    errs: list[ConfigError] = []
    for i, res in enumerate(args.ignored_resources):
        _validate_label_name(f"ignoredResources[{i}]", res, errs)
    for i, g in enumerate(args.ignored_resource_groups):
        if "/" in g:
            errs.append(invalid(f"ignoredResourceGroups[{i}]", g, "resource group name can't contain '/'"))
        _validate_label_name(f"ignoredResourceGroups[{i}]", g, errs)
    ss = args.scoring_strategy
    if ss.type not in SCORING_STRATEGIES:
        errs.append(not_supported("scoringStrategy.type", ss.type, SCORING_STRATEGIES))
    for i, r in enumerate(ss.resources):
        if r.weight <= 0 or r.weight > 100:
            errs.append(
                invalid(
                    f"scoringStrategy.resources[{i}].weight",
                    r.weight,
                    f"resource weight of {r.name} not in valid range (0, 100]",
                )
            )
    rtcr = ss.requested_to_capacity_ratio
    if rtcr is not None:
        shape = rtcr.shape
        if not shape:
            errs.append(required("scoringStrategy.shape", "at least one point must be specified"))
        for i in range(1, len(shape)):
            if shape[i - 1].utilization >= shape[i].utilization:
                errs.append(
                    invalid(f"scoringStrategy.shape[{i}].utilization", shape[i].utilization, shape_order_detail)
                )
                break
        for i, p in enumerate(shape):
            if not 0 <= p.utilization <= 100:
                errs.append(
                    invalid(f"scoringStrategy.shape[{i}].utilization", p.utilization, "not in valid range [0, 100]")
                )
            if not 0 <= p.score <= MAX_CUSTOM_PRIORITY_SCORE:
                errs.append(invalid(f"scoringStrategy.shape[{i}].score", p.score, "not in valid range [0, 10]"))
    return errs


def validate_node_resources_fit_args(args: NodeResourcesFitArgs, shape_order_detail: str = _SHAPE_ORDER) -> None:
    """What NewFit checks of its args: raises the aggregate of their errors."""
    errs = node_resources_fit_args_errors(args, shape_order_detail)
    if errs:
        raise aggregate(errs)
    ss = args.scoring_strategy
    if ss.requested_to_capacity_ratio is None and ss.type == REQUESTED_TO_CAPACITY_RATIO:
        # Upstream validation lets this through and kube-scheduler then dies on a nil pointer.
        raise required(
            "scoringStrategy.requestedToCapacityRatio",
            "scoringStrategy.requestedToCapacityRatio with a shape is needed for the "
            "RequestedToCapacityRatio strategy (kube-scheduler would crash on this configuration)",
        )
