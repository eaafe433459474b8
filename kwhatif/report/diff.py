"""DiffReport: what changes for each pod (and workload) between two schedulers, and its formats.

The model is built once from whatif.diff's result; ``to_dict`` is the documented document
(apiVersion kwhatif/v1, kind DiffReport). The formats (table, json, yaml, markdown, junit, github,
html) read the model and compute nothing about scheduling; strings from the inputs are escaped
for each medium as the other reports' formats escape them.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwhatif.errors import ExitCode
from kwhatif.escape import github_data, github_property, guard_commands, json_text, markdown, markdown_code, visible
from kwhatif.report.base import OutputFormat, ReportKind
from kwhatif.report.check import file_and_line
from kwhatif.report.diff_aspects import Aspect, FailOn
from kwhatif.report.formats.formatter import RenderOptions
from kwhatif.report.schedule import API_VERSION

if TYPE_CHECKING:
    # the engine's results, read as they are given (reports import no engine)
    from kwhatif.whatif.diff import Cause, DiffResult, PodDiff, PodValues

WORKLOAD_VERDICT = "verdict"
WORKLOAD_PLACED = "placed"


@dataclass(frozen=True, slots=True)
class WorkloadValues:
    verdict: str
    desired: int | None
    placed: int
    not_placed: int
    message: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "desired": self.desired,
            "placed": self.placed,
            "notPlaced": self.not_placed,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class WorkloadDiff:
    kind: str
    namespace: str
    name: str
    source: str
    changed: tuple[str, ...]  # "verdict", "placed"
    before: WorkloadValues | None  # None: not in that side's check
    after: WorkloadValues | None

    @property
    def title(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class DiffReport:
    before: Mapping[str, Any]  # the sides' fields (release, gates, configuration, profile)
    after: Mapping[str, Any]
    pods: tuple[PodDiff, ...]
    workloads: tuple[WorkloadDiff, ...]
    changes: tuple[Cause, ...]  # every cause the two sides offer
    fail_on: FailOn = FailOn.STATUS
    notes: tuple[str, ...] = ()
    num_nodes: int = 0

    @property
    def kind(self) -> ReportKind:
        return ReportKind.DIFF

    @property
    def changed_pods(self) -> list[PodDiff]:
        return [p for p in self.pods if p.changed]

    @property
    def changed_workloads(self) -> list[WorkloadDiff]:
        return [w for w in self.workloads if w.changed]

    def by_aspect(self) -> dict[str, int]:
        return {a.value: sum(1 for p in self.pods if a in p.changed) for a in Aspect}

    def fails(self, p: PodDiff) -> bool:
        return self.fail_on.fails(p.changed)

    def workload_fails(self, w: WorkloadDiff) -> bool:
        if self.fail_on is FailOn.STATUS:
            return WORKLOAD_VERDICT in w.changed
        return bool(w.changed)

    @property
    def exit_code(self) -> ExitCode:
        """0 when no pod's status (nor a workload's verdict) changes; --fail-on node also fails on
        a changed node (or placed count), --fail-on any on every difference."""
        if any(self.fails(p) for p in self.pods) or any(self.workload_fails(w) for w in self.workloads):
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pods": len(self.pods),
            "changed": len(self.changed_pods),
            "byAspect": self.by_aspect(),
        }
        if self.workloads:
            out["workloads"] = len(self.workloads)
            out["workloadsChanged"] = len(self.changed_workloads)
        return out

    def summary_line(self) -> str:
        s = self.summary()
        aspects = ", ".join(f"{a} {n}" for a, n in s["byAspect"].items() if n)
        line = f"{s['changed']} of {s['pods']} pods change" + (f" ({aspects})" if aspects else "")
        if self.workloads:
            line += f"; {s['workloadsChanged']} of {s['workloads']} workloads change"
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": ReportKind.DIFF.value,
            "from": dict(self.before),
            "to": dict(self.after),
            "pods": [pod_dict(p) for p in self.pods],
            "workloads": [workload_dict(w) for w in self.workloads],
            "changes": [c.to_dict() for c in self.changes],
            "failOn": self.fail_on.value,
            "notes": list(self.notes),
            "summary": self.summary(),
        }


# --- the documented dict form -------------------------------------------------------------------


def _filter(f: tuple[str, str, tuple[str, ...]] | None) -> dict[str, Any] | None:
    return None if f is None else {"plugin": f[0], "code": f[1], "reasons": list(f[2])}


def side_values(p: PodDiff, v: PodValues, other: PodValues) -> dict[str, Any]:
    """One side's values of a pod: status and node always, the other aspects' where they say
    something or differ (filters and scores: only the nodes that differ)."""
    out: dict[str, Any] = {"status": v.status, "node": v.node}
    if v.tie:
        out["tie"] = list(v.tie)
    if v.message is not None or Aspect.MESSAGE in p.changed:
        out["message"] = v.message
    if Aspect.FILTERS in p.changed:
        nodes = dict.fromkeys([*v.filters, *other.filters])
        out["filters"] = {n: _filter(v.filters.get(n)) for n in nodes if v.filters.get(n) != other.filters.get(n)}
    if Aspect.SCORES in p.changed:
        scores: dict[str, Any] = {}
        if v.feasible != other.feasible:
            scores["feasible"] = list(v.feasible)
        nodes = dict.fromkeys([*v.totals, *other.totals])
        scores["totals"] = {n: v.totals.get(n) for n in nodes if v.totals.get(n) != other.totals.get(n)}
        out["scores"] = scores
    if v.nominated_node or Aspect.PREEMPTION in p.changed:
        out["preemption"] = (
            {"nominatedNode": v.nominated_node, "victims": list(v.victims)} if v.nominated_node else None
        )
    return out


def pod_dict(p: PodDiff) -> dict[str, Any]:
    return {
        "pod": {"namespace": p.namespace, "name": p.name},
        "changed": [a.value for a in p.changed],
        "from": side_values(p, p.before, p.after),
        "to": side_values(p, p.after, p.before),
        "plugins": list(p.plugins),
        "causes": [c.to_dict() for c in p.causes],
    }


def workload_dict(w: WorkloadDiff) -> dict[str, Any]:
    return {
        "kind": w.kind,
        "namespace": w.namespace,
        "name": w.name,
        "changed": list(w.changed),
        "from": w.before.to_dict() if w.before else None,
        "to": w.after.to_dict() if w.after else None,
    }


# --- building -----------------------------------------------------------------------------------


def _workloads(result: DiffResult) -> tuple[WorkloadDiff, ...]:
    """With --check: each workload's verdict and placed count on both sides."""
    if result.before.check is None or result.after.check is None:
        return ()
    sides = []
    for run in (result.before, result.after):
        from kwhatif.report.check import check_report
        from kwhatif.report.groups import group_entries
        from kwhatif.report.schedule import schedule_report

        sched = run.scheduler
        schedule = schedule_report(
            run.attempts,
            sched.snapshot.num_nodes,
            run.side.profile or "",
            groups=group_entries(run.attempts, sched.gang),
        )
        entries = check_report(run.check, schedule).workloads
        sides.append(
            {
                (w.kind, w.namespace, w.name): (
                    w.source,
                    WorkloadValues(str(w.verdict), w.desired, w.placed, w.not_placed, w.message),
                )
                for w in entries
            }
        )
    a, b = sides
    out = []
    for key in dict.fromkeys([*a, *b]):
        wa, wb = a.get(key), b.get(key)
        va, vb = (wa[1] if wa else None), (wb[1] if wb else None)
        changed = []
        if (va.verdict if va else None) != (vb.verdict if vb else None):
            changed.append(WORKLOAD_VERDICT)
        if (va.placed if va else None) != (vb.placed if vb else None):
            changed.append(WORKLOAD_PLACED)
        source = (wa or wb)[0] if (wa or wb) else ""  # type: ignore[index]
        out.append(WorkloadDiff(key[0], key[1], key[2], source, tuple(changed), va, vb))
    return tuple(out)


def diff_report(result: DiffResult, fail_on: FailOn = FailOn.STATUS, notes: tuple[str, ...] = ()) -> DiffReport:
    return DiffReport(
        before=result.before.side.fields(),
        after=result.after.side.fields(),
        pods=tuple(result.pods),
        workloads=_workloads(result),
        changes=result.causes.all,
        fail_on=fail_on,
        notes=notes,
        num_nodes=result.before.scheduler.snapshot.num_nodes,
    )


# --- formats --------------------------------------------------------------------------------------


def render(report: DiffReport, output: str, options: RenderOptions | None = None, *, summary: bool = False) -> str:
    """The report in format ``output`` (one of ReportKind.DIFF.formats); ``summary`` (--detail
    summary): the table and Markdown list each changed pod and its causes, not its per-node values."""
    fmt = OutputFormat(output)
    if fmt not in ReportKind.DIFF.formats:
        raise TypeError(f"no {fmt} rendering for {ReportKind.DIFF}")
    if fmt is OutputFormat.JSON:
        from kwhatif.report.formats.json import dumps_indented

        return json_text(dumps_indented(report.to_dict()))
    if fmt is OutputFormat.YAML:
        from kwhatif.report.formats.yaml import dump_block

        return dump_block(report.to_dict())
    if fmt is OutputFormat.MARKDOWN:
        return guard_commands(markdown_text(report, summary))
    if fmt is OutputFormat.JUNIT:
        return guard_commands(junit_text(report), "&#58;", "&#35;")
    if fmt is OutputFormat.GITHUB:
        return github_text(report)
    if fmt is OutputFormat.HTML:
        return html_page(report)
    if fmt is OutputFormat.SARIF:
        return sarif_text(report)
    return guard_commands(table_text(report, summary))


def side_title(side: Mapping[str, Any]) -> str:
    """``kube-scheduler 1.36.2 (gates A=true) config sched.yaml profile x``."""
    out = f"kube-scheduler {side['schedulerVersion']}"
    gates = side.get("featureGates") or {}
    if gates:
        out += " with " + ",".join(f"{k}={str(v).lower()}" for k, v in gates.items())
    if side.get("config"):
        out += f", configuration {side['config']}"
    if side.get("profile"):
        out += f", profile {side['profile']}"
    return out


def _short(v: Mapping[str, Any]) -> str:
    if v["status"] == "Scheduled":
        tie = f" (tie: {', '.join(v['tie'])})" if v.get("tie") else ""
        return f"Scheduled on {v['node']}{tie}"
    pre = v.get("preemption")
    return str(v["status"]) + (f", nominated {pre['nominatedNode']}" if pre else "")


def _filter_text(f: Mapping[str, Any] | None) -> str:
    if f is None:
        return "passes"
    reasons = "; ".join(f["reasons"])
    return f"{f['plugin']} {f['code']}" + (f": {reasons}" if reasons else "")


def aspect_lines(d: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Each changed aspect of a pod's dict as (aspect, from, to) texts, for the text formats."""
    a, b = d["from"], d["to"]
    out: list[tuple[str, str, str]] = []
    for aspect in d["changed"]:
        if aspect == Aspect.STATUS:
            out.append((aspect, a["status"], b["status"]))
        elif aspect == Aspect.NODE:
            out.append((aspect, _short(a) if a["node"] else "-", _short(b) if b["node"] else "-"))
        elif aspect == Aspect.MESSAGE:
            out.append((aspect, a.get("message") or "-", b.get("message") or "-"))
        elif aspect == Aspect.FILTERS:
            for node in dict.fromkeys([*a["filters"], *b["filters"]]):
                out.append(
                    (f"filters {node}", _filter_text(a["filters"].get(node)), _filter_text(b["filters"].get(node)))
                )
        elif aspect == Aspect.SCORES:
            sa, sb = a["scores"], b["scores"]
            if "feasible" in sa:
                out.append(("feasible", ", ".join(sa["feasible"]) or "-", ", ".join(sb["feasible"]) or "-"))
            for node in dict.fromkeys([*sa["totals"], *sb["totals"]]):
                ta, tb = sa["totals"].get(node), sb["totals"].get(node)
                out.append((f"score {node}", "-" if ta is None else str(ta), "-" if tb is None else str(tb)))
        elif aspect == Aspect.PREEMPTION:

            def pre(v: Mapping[str, Any]) -> str:
                p = v.get("preemption")
                if not p:
                    return "none"
                return f"nominated {p['nominatedNode']}, victims {', '.join(p['victims']) or '-'}"

            out.append((aspect, pre(a), pre(b)))
    return out


def cause_text(c: Mapping[str, Any]) -> str:
    if "earlierPod" in c:
        return f"pod {c['earlierPod']}, placed before it, moved from {c['from'] or 'no node'} to {c['to'] or 'no node'}"
    if "gate" in c:
        return f"feature gate {c['gate']} {str(c['from']).lower()} -> {str(c['to']).lower()}"
    if "config" in c:
        return f"configuration: {c['config']}"
    prs = f" ({', '.join(c['pr'])})" if c["pr"] else ""
    when = "from" if c["inForce"] == "to" else "until"
    return f"[{', '.join(c['plugins'])}] {c['change']} {when} {c['release']}{prs}"


# both sides' values of an aspect on one line when they are this short together
ONE_LINE = 60

# at most this many differing nodes of one pod in the text formats (JSON and YAML have them all)
TEXT_NODES = 10


def _capped(lines: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    per_node = [x for x in lines if x[0].startswith(("filters ", "score "))]
    if len(per_node) <= TEXT_NODES:
        return lines
    kept = set(map(id, per_node[:TEXT_NODES]))
    out = [x for x in lines if not x[0].startswith(("filters ", "score ")) or id(x) in kept]
    out.append(("...", f"and {len(per_node) - TEXT_NODES} more nodes differ (-o json lists them)", ""))
    return out


def _aspect_text(aspect: str, a: str, b: str) -> str:
    """One aspect on one line (JUnit, GitHub annotations, SARIF); the cap's closing line has no
    two sides."""
    if aspect == "...":
        return f"... {a}"
    return f"{aspect}: {a} -> {b}"


def table_text(report: DiffReport, summary: bool = False) -> str:
    doc = report.to_dict()
    lines = [f"from: {visible(side_title(doc['from']))}", f"to:   {visible(side_title(doc['to']))}", ""]
    changed = [p for p in doc["pods"] if p["changed"]]
    if changed:
        rows = [("POD", "CHANGED", "FROM", "TO")]
        for p in changed:
            pod = f"{p['pod']['namespace']}/{p['pod']['name']}"
            rows.append((visible(pod), ",".join(p["changed"]), visible(_short(p["from"])), visible(_short(p["to"]))))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines += ["  ".join(c.ljust(widths[i]) if i < 3 else c for i, c in enumerate(r)).rstrip() for r in rows]
        for p in changed:
            lines += ["", f"{visible(p['pod']['namespace'])}/{visible(p['pod']['name'])}:"]
            for aspect, a, b in [] if summary else _capped(aspect_lines(p)):
                if aspect == "...":
                    lines.append(f"  ... {a}")
                    continue
                if len(a) + len(b) <= ONE_LINE:
                    lines.append(f"  {visible(aspect)}: {visible(a)} -> {visible(b)}")
                    continue
                lines.append(f"  {visible(aspect)}: {visible(a)}")
                lines.append(f"  {' ' * len(visible(aspect))}  -> {visible(b)}")
            for c in p["causes"]:
                lines.append(f"  because: {visible(cause_text(c))}")
            if not p["causes"]:
                lines.append("  because: no recorded change names these plugins")
    else:
        lines.append("no pod changes")
    wchanged = [w for w in doc["workloads"] if w["changed"]]
    if wchanged:
        lines += ["", "WORKLOAD  CHANGED  FROM  TO"]
        for w in wchanged:
            lines.append(
                f"{visible(w['kind'])} {visible(w['namespace'])}/{visible(w['name'])}  {','.join(w['changed'])}  "
                f"{_workload_short(w['from'])}  ->  {_workload_short(w['to'])}"
            )
    for n in doc["notes"]:
        lines.append(f"note: {visible(n)}")
    lines += ["", report.summary_line()]
    return "\n".join(lines) + "\n"


def _workload_short(v: Mapping[str, Any] | None) -> str:
    if v is None:
        return "-"
    desired = "?" if v["desired"] is None else v["desired"]
    return f"{v['verdict']} ({v['placed']}/{desired} placed)"


def markdown_text(report: DiffReport, summary: bool = False) -> str:
    doc = report.to_dict()
    out = [
        "## kwhatif diff",
        "",
        f"**from** {markdown(side_title(doc['from']))}  ",
        f"**to** {markdown(side_title(doc['to']))}",
        "",
        f"**{markdown(report.summary_line())}**",
        "",
    ]
    changed = [p for p in doc["pods"] if p["changed"]]
    if changed:
        out += ["| Pod | Changed | From | To |", "|---|---|---|---|"]
        for p in changed:
            pod = f"{p['pod']['namespace']}/{p['pod']['name']}"
            out.append(
                f"| {markdown_code(pod, table=True)} | {', '.join(p['changed'])} | "
                f"{markdown(_short(p['from']))} | {markdown(_short(p['to']))} |"
            )
        for p in changed:
            pod = f"{p['pod']['namespace']}/{p['pod']['name']}"
            out += ["", f"### {markdown_code(pod)}"]
            if not summary:
                out += ["", "| Aspect | From | To |", "|---|---|---|"]
                out += [f"| {markdown(a)} | {markdown(x)} | {markdown(y)} |" for a, x, y in _capped(aspect_lines(p))]
            if p["causes"]:
                out.append("")
                out += [f"- {markdown(cause_text(c))}" for c in p["causes"]]
    wchanged = [w for w in doc["workloads"] if w["changed"]]
    if wchanged:
        out += ["", "| Workload | Changed | From | To |", "|---|---|---|---|"]
        for w in wchanged:
            title = f"{w['kind']} {w['namespace']}/{w['name']}"
            out.append(
                f"| {markdown_code(title, table=True)} | {', '.join(w['changed'])} | "
                f"{markdown(_workload_short(w['from']))} | {markdown(_workload_short(w['to']))} |"
            )
    if doc["notes"]:
        out.append("")
        out += [f"> {markdown(n)}  " for n in doc["notes"]]
    return "\n".join(out) + "\n"


def junit_text(report: DiffReport) -> str:
    """A test case per pod (and per workload): a failure where the difference is one --fail-on
    names, the differences of the others in their system-out."""
    doc = report.to_dict()
    cases = [(p, report.fails(pd)) for p, pd in zip(doc["pods"], report.pods, strict=True)]
    wcases = [(w, report.workload_fails(wd)) for w, wd in zip(doc["workloads"], report.workloads, strict=True)]
    failures = sum(1 for _, f in cases if f) + sum(1 for _, f in wcases if f)
    suite = ET.Element(
        "testsuite",
        {
            "name": "kwhatif diff",
            "tests": str(len(cases) + len(wcases)),
            "failures": str(failures),
            "errors": "0",
            "skipped": "0",
        },
    )
    for p, fail in cases:
        name = visible(f"{p['pod']['namespace']}/{p['pod']['name']}")
        case = ET.SubElement(suite, "testcase", {"classname": "pods", "name": name})
        body = "\n".join(
            [visible(_aspect_text(a, x, y)) for a, x, y in _capped(aspect_lines(p))]
            + [f"because: {visible(cause_text(c))}" for c in p["causes"]]
        )
        if fail:
            f = ET.SubElement(case, "failure", {"message": visible(f"changed: {', '.join(p['changed'])}")})
            f.text = body
        elif p["changed"]:
            ET.SubElement(case, "system-out").text = body
    for w, fail in wcases:
        name = visible(f"{w['kind']} {w['namespace']}/{w['name']}")
        case = ET.SubElement(suite, "testcase", {"classname": "workloads", "name": name})
        text = visible(f"{_workload_short(w['from'])} -> {_workload_short(w['to'])}")
        if fail:
            ET.SubElement(case, "failure", {"message": f"changed: {', '.join(w['changed'])}"}).text = text
        elif w["changed"]:
            ET.SubElement(case, "system-out").text = text
    from kwhatif.report.formats.junit import junit_document

    return junit_document(suite)


def github_text(report: DiffReport) -> str:
    """GitHub Actions workflow commands: an error on the manifest line of each pod (or workload)
    whose difference --fail-on names, a warning for the other changes, and a notice summing up."""
    lines = []
    for pd in report.pods:
        if not pd.changed:
            continue
        level = "error" if report.fails(pd) else "warning"
        d = pod_dict(pd)
        msg = "; ".join(_aspect_text(a, x, y) for a, x, y in _capped(aspect_lines(d)))
        causes = "; ".join(cause_text(c) for c in d["causes"])
        where = ""
        source = pd.after.source or pd.before.source
        if source:
            file, line = file_and_line(source)
            where = f"file={github_property(file)},line={line},"
        title = github_property(f"pod {pd.key}: {', '.join(pd.changed)} changed")
        lines.append(
            f"::{level} {where}title={title}::{github_data(msg + (f' (because: {causes})' if causes else ''))}"
        )
    for w in report.workloads:
        if not w.changed:
            continue
        level = "error" if report.workload_fails(w) else "warning"
        file, line = file_and_line(w.source)
        msg = f"{_workload_short(workload_dict(w)['from'])} -> {_workload_short(workload_dict(w)['to'])}"
        lines.append(
            f"::{level} file={github_property(file)},line={line},title={github_property(w.title + ' changes')}"
            f"::{github_data(msg)}"
        )
    lines.append(f"::notice title=kwhatif diff::{github_data(report.summary_line())}")
    return "\n".join(lines) + "\n"


def sarif_text(report: DiffReport) -> str:
    """A SARIF 2.1.0 log: a result per changed pod (at its manifest's line when it came from one)
    and per changed workload, an error where the difference is one --fail-on names, a warning
    otherwise; the rule is the most telling aspect that changed."""
    from kwhatif.report.formats.sarif import Rule, _location, _Log

    rules = {
        "status": Rule(
            "diff/status",
            "DiffStatus",
            "A pod's status changes under the other scheduler",
            "The pod is Scheduled under one scheduler and not under the other (or fails differently).",
            "Read the causes: the recorded upstream changes, gates or configuration that differ.",
            "error",
        ),
        "node": Rule(
            "diff/node",
            "DiffNode",
            "A pod lands on another node under the other scheduler",
            "The chosen node differs (each side breaks ties by node name; the tie is named).",
            "Read the causes; a pod moved earlier changes what later pods meet.",
            "warning",
        ),
        "other": Rule(
            "diff/answer",
            "DiffAnswer",
            "The scheduler's answer for a pod differs",
            "The FitError message, some node's first failing filter, some feasible node's total or the "
            "preemption differs.",
            "Read the causes: the recorded upstream changes, gates or configuration that differ.",
            "note",
        ),
        "workload": Rule(
            "diff/workload",
            "DiffWorkload",
            "A workload's verdict or placed count changes under the other scheduler",
            "kwhatif check's verdict or placed count for the workload differs between the two schedulers.",
            "Read the changed pods of the workload and their causes.",
            "error",
        ),
    }
    log = _Log()
    for pd in report.pods:
        if not pd.changed:
            continue
        key = "status" if Aspect.STATUS in pd.changed else "node" if Aspect.NODE in pd.changed else "other"
        d = pod_dict(pd)
        text = "; ".join(_aspect_text(a, x, y) for a, x, y in _capped(aspect_lines(d)))
        causes = [cause_text(c) for c in d["causes"]]
        level = "error" if report.fails(pd) else "warning"
        location = _location(pd.after.source or pd.before.source, "Pod", pd.namespace, pd.name)
        log.add(rules[key], level, text, location, {"changed": d["changed"], "causes": causes})
    for w in report.workloads:
        if not w.changed:
            continue
        wd = workload_dict(w)
        text = f"{_workload_short(wd['from'])} -> {_workload_short(wd['to'])}"
        level = "error" if report.workload_fails(w) else "warning"
        log.add(
            rules["workload"], level, text, _location(w.source, w.kind, w.namespace, w.name), {"changed": wd["changed"]}
        )
    return log.document(report.summary_line())


def html_page(report: DiffReport) -> str:
    """One self-contained page: the two schedulers side by side, a row per changed aspect of each
    pod, the differing cells marked; the JSON document embedded for tools."""
    from kwhatif.report.formats.html import embed_json

    doc = report.to_dict()

    def esc(text: str) -> str:
        return html.escape(visible(text)).replace("##[", "#&#35;[")

    rows = []
    for p in doc["pods"]:
        pod = esc(f"{p['pod']['namespace']}/{p['pod']['name']}")
        if not p["changed"]:
            rows.append(
                f'<tr class="same"><th>{pod}</th><td>status, node</td>'
                f"<td>{esc(_short(p['from']))}</td><td>{esc(_short(p['to']))}</td></tr>"
            )
            continue
        lines = _capped(aspect_lines(p))
        causes = "".join(f"<li>{esc(cause_text(c))}</li>" for c in p["causes"])
        for i, (aspect, a, b) in enumerate(lines):
            head = f'<th rowspan="{len(lines)}">{pod}<ul class="causes">{causes}</ul></th>' if i == 0 else ""
            rows.append(
                f'<tr class="diff">{head}<td>{esc(aspect)}</td><td class="a">{esc(a)}</td><td class="b">{esc(b)}</td></tr>'
            )
    wrows = [
        f'<tr class="{"diff" if w["changed"] else "same"}"><th>{esc(w["kind"] + " " + w["namespace"] + "/" + w["name"])}</th>'
        f'<td>{esc(", ".join(w["changed"]) or "-")}</td><td class="a">{esc(_workload_short(w["from"]))}</td>'
        f'<td class="b">{esc(_workload_short(w["to"]))}</td></tr>'
        for w in doc["workloads"]
    ]
    workloads = (
        "<h2>Workloads</h2><table><thead><tr><th>Workload</th><th>Changed</th><th>From</th><th>To</th></tr></thead>"
        f"<tbody>{''.join(wrows)}</tbody></table>"
        if wrows
        else ""
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in doc["notes"])
    title = f"kwhatif DiffReport: {side_title(doc['from'])} -> {side_title(doc['to'])}"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f'<body data-kind="{ReportKind.DIFF.value}">\n'
        f'<header><h1>kwhatif diff</h1><p class="summary">{esc(report.summary_line())}</p></header>\n'
        "<main><table><thead><tr><th>Pod</th><th>Aspect</th>"
        f'<th class="a">{esc(side_title(doc["from"]))}</th><th class="b">{esc(side_title(doc["to"]))}</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{workloads}"
        + (f'<ul class="notes">{notes}</ul>' if notes else "")
        + "</main>\n"
        f'<script type="application/json" id="kwhatif-report">{embed_json(doc)}</script>\n'
        "</body>\n</html>\n"
    )


_CSS = """
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d6dae0;--panel:#f5f7fa;--a:#fde0dc;--b:#d4f3dc}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa4af;--line:#30363d;
--panel:#161b22;--a:#4a1513;--b:#133d21}}
body{margin:0;padding:1rem 1.5rem;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
h1{font-size:1.25rem;margin:.2rem 0}.summary{font-weight:600}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
th,td{border:1px solid var(--line);padding:.2rem .45rem;text-align:left;vertical-align:top}
thead th{background:var(--panel);position:sticky;top:0}
tr.diff td.a{background:var(--a)}tr.diff td.b{background:var(--b)}
tr.same{color:var(--muted)}ul.causes{font-weight:400;font-size:.85em;margin:.3rem 0 0 1rem;padding:0}
"""
