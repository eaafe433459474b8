"""The AutoscaleReport under Karpenter: per pod where it lands (an existing or in-flight node, a
NodeClaim Karpenter would create, or nowhere with every NodePool's reason in Karpenter's words),
per planned NodeClaim its NodePool, requirements, candidate instance types (cheapest first),
pods, requests and launch price, and with --consolidation the disruption commands. Plain data
built from the engine's run, and its renderings (json/yaml through the shared formatters; table,
markdown and html here)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwhatif.errors import ExitCode
from kwhatif.escape import markdown_line, visible
from kwhatif.framework.types import PodOutcome
from kwhatif.release.versions import ChosenVersion
from kwhatif.report.base import ReportKind
from kwhatif.report.pod_outcomes import EXISTING, NONE, SCALE_UP, outcome_counts
from kwhatif.report.schedule import API_VERSION, version_fields

if TYPE_CHECKING:
    from kwhatif.autoscaler.karpenter.consolidation import Consolidation
    from kwhatif.whatif.karpenter import KarpenterRun

SHOWN_TYPES = 5  # the table names this many candidate types, as Karpenter's logs do


@dataclass(frozen=True, slots=True)
class PodEntry:
    namespace: str
    name: str
    outcome: str
    node: str | None
    node_claim: str | None
    node_pool: str | None
    in_flight: bool
    why: str | None
    reasons: tuple[tuple[str, str], ...]  # per NodePool, for outcome none
    relaxed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ClaimEntry:
    name: str
    node_pool: str
    zones: tuple[str, ...]
    capacity_types: tuple[str, ...]
    labels: tuple[tuple[str, str], ...]
    taints: tuple[str, ...]
    instance_types: tuple[str, ...]
    pods: tuple[str, ...]
    requests: tuple[tuple[str, str], ...]
    daemon_overhead: tuple[tuple[str, str], ...]
    price: float
    zone: str
    capacity_type: str
    min_values_relaxed: bool


@dataclass(frozen=True, slots=True)
class CandidateEntry:
    node: str
    node_pool: str
    action: str  # delete | replace
    reason: str  # empty | underutilized
    command: str
    kind: str  # single-node | multi-node | emptiness
    replacement: dict[str, Any] | None
    pods_to: tuple[tuple[str, str], ...]  # pod -> node or claim
    savings: float


@dataclass(frozen=True, slots=True)
class ConsolidationSection:
    candidates: tuple[CandidateEntry, ...]
    stays: tuple[tuple[str, str], ...]  # node -> why it stays
    budgets: tuple[tuple[str, int], ...]  # NodePool -> disruptions allowed now


@dataclass(frozen=True, slots=True)
class KarpenterReport:
    pods: tuple[PodEntry, ...]
    claims: tuple[ClaimEntry, ...]
    skipped_pools: tuple[tuple[str, str], ...]
    node_pools: tuple[str, ...]  # by weight, heaviest first
    instance_types: int
    notes: tuple[str, ...] = ()
    consolidation: ConsolidationSection | None = None
    scheduler_version: ChosenVersion | None = None
    options: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> ReportKind:
        return ReportKind.AUTOSCALE

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.UNSCHEDULABLE if any(p.outcome == NONE for p in self.pods) else ExitCode.OK

    def summary(self) -> dict[str, Any]:
        return {
            **outcome_counts(self.pods),
            "nodeClaims": len(self.claims),
            "pricePerHour": round(sum(c.price for c in self.claims), 6),
            **(
                {"consolidationCommands": len({c.command for c in self.consolidation.candidates})}
                if self.consolidation is not None
                else {}
            ),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind.value,
            "autoscaler": "karpenter",
            **version_fields(self.scheduler_version),
            "options": dict(self.options),
            "nodePools": list(self.node_pools),
            "pods": [
                {
                    "pod": {"namespace": p.namespace, "name": p.name},
                    "outcome": p.outcome,
                    "node": p.node,
                    "nodeClaim": p.node_claim,
                    "nodePool": p.node_pool,
                    "inFlight": p.in_flight,
                    "why": p.why,
                    "relaxed": list(p.relaxed),
                }
                for p in self.pods
            ],
            "scaleUp": {
                "nodeClaims": [
                    {
                        "name": c.name,
                        "nodePool": c.node_pool,
                        "requirements": {
                            "zones": list(c.zones),
                            "capacityTypes": list(c.capacity_types),
                            "labels": dict(c.labels),
                            "taints": list(c.taints),
                        },
                        "instanceTypes": list(c.instance_types),
                        "pods": list(c.pods),
                        "requests": dict(c.requests),
                        "daemonSetOverhead": dict(c.daemon_overhead),
                        "price": c.price,
                        "zone": c.zone,
                        "capacityType": c.capacity_type,
                        "minValuesRelaxed": c.min_values_relaxed,
                    }
                    for c in self.claims
                ],
                "noPool": [
                    {"pod": f"{p.namespace}/{p.name}", "why": p.why, "reasons": dict(p.reasons)}
                    for p in self.pods
                    if p.outcome == NONE
                ],
                "skipped": [{"nodePool": n, "reason": r} for n, r in self.skipped_pools],
            },
            "consolidation": _consolidation_dict(self.consolidation),
            "notes": list(self.notes),
            "summary": self.summary(),
        }


def _consolidation_dict(c: ConsolidationSection | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "candidates": [
            {
                "node": e.node,
                "nodePool": e.node_pool,
                "action": e.action,
                "reason": e.reason,
                "kind": e.kind,
                "command": e.command,
                "replacement": e.replacement,
                "podsTo": dict(e.pods_to),
                "savingsPerHour": e.savings,
            }
            for e in c.candidates
        ],
        "stays": [{"node": n, "why": w} for n, w in c.stays],
        "budgets": dict(c.budgets),
    }


def _rl(rl: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    from kwhatif.autoscaler.karpenter.instancetypes import fmt_quantity  # Karpenter's runs only

    return tuple((k, fmt_quantity(k, rl[k])) for k in sorted(rl))


def karpenter_report(
    run: KarpenterRun,
    chosen: ChosenVersion | None,
    notes: tuple[str, ...] = (),
    options: tuple[tuple[str, str], ...] = (),
) -> KarpenterReport:
    from kwhatif.autoscaler.karpenter.provisioner import summarize  # Karpenter's runs only
    from kwhatif.autoscaler.karpenter.requirements import taint_text

    results = run.results
    by_pod = {id(r.pod): r for r in results.pods} if results is not None else {}
    allow = run.well_known
    pods: list[PodEntry] = []
    pod_order = list(run.attempts.values())
    for att in pod_order:
        p = att.pod
        if att.result is PodOutcome.SCHEDULED:
            pool = run.node_pools.get(att.node or "")
            pods.append(PodEntry(p.namespace, p.name, EXISTING, att.node, None, pool, False, None, (), ()))
            continue
        r = by_pod.get(id(p))
        if r is None:
            pods.append(PodEntry(p.namespace, p.name, NONE, None, None, None, False, att.message or None, (), ()))
            continue
        if r.claim is not None:
            pods.append(
                PodEntry(
                    p.namespace,
                    p.name,
                    SCALE_UP,
                    None,
                    r.claim.name,
                    r.claim.template.pool.name,
                    False,
                    None,
                    (),
                    r.relaxed,
                )
            )
        elif r.node:
            if r.in_flight:
                pool = next((c.nodepool for c in run.claims if c.name == r.node), None)
                pods.append(PodEntry(p.namespace, p.name, EXISTING, r.node, r.node, pool, True, None, (), r.relaxed))
            else:
                why = (
                    f"Karpenter nominates existing node {r.node} and launches nothing, "
                    f"but kube-scheduler does not place it there: {att.message}"
                )
                pods.append(PodEntry(p.namespace, p.name, NONE, None, None, None, False, why, (), r.relaxed))
        else:
            reasons = tuple(sorted(r.pool_errors.items()))
            pods.append(
                PodEntry(p.namespace, p.name, NONE, None, None, None, False, r.error or None, reasons, r.relaxed)
            )
    claims: list[ClaimEntry] = []
    if results is not None:
        for c in results.claims:
            s = summarize(c, allow)
            claims.append(
                ClaimEntry(
                    c.name,
                    c.template.pool.name,
                    s.zones,
                    s.capacity_types,
                    s.labels,
                    tuple(taint_text(t) for t in c.taints),
                    tuple(it.name for it in c.instance_types),
                    tuple(f"{p.namespace}/{p.name}" for p in c.pods),
                    _rl(c.requests),
                    _rl(c.daemon_overhead),
                    s.price,
                    s.zone,
                    s.capacity_type,
                    c.min_values_relaxed,
                )
            )
    from kwhatif.autoscaler.karpenter.nodepools import order_by_weight

    section = consolidation_section(run.consolidation) if run.consolidation is not None else None
    return KarpenterReport(
        tuple(pods),
        tuple(claims),
        tuple(sorted(results.skipped_pools.items())) if results is not None else (),
        tuple(p.name for p in order_by_weight(run.pools)),
        len(run.catalog),
        tuple([*notes, *run.notes]),
        section,
        chosen,
        options,
    )


def consolidation_section(cons: Consolidation) -> ConsolidationSection:
    from kwhatif.autoscaler.karpenter.provisioner import summarize  # Karpenter's runs only

    """The report's view of the disruption controller's commands."""
    entries = []
    for i, cmd in enumerate(cons.commands, 1):
        cid = f"{cmd.method}-{i}"
        repl: dict[str, object] | None = None
        new_price = 0.0
        if cmd.replacement is not None:
            s = summarize(cmd.replacement, cons.allow)
            repl = {
                "nodePool": cmd.replacement.template.pool.name,
                "instanceTypes": [it.name for it in cmd.replacement.instance_types],
                "zone": s.zone,
                "capacityType": s.capacity_type,
                "price": s.price,
            }
            new_price = s.price
        savings = sum(c.price for c in cmd.candidates) - new_price
        for c in cmd.candidates:
            moved = tuple(
                sorted(
                    (k, v) for k, v in cmd.pods_to.items() if k in {f"{p.namespace}/{p.name}" for p in c.reschedulable}
                )
            )
            entries.append(
                CandidateEntry(
                    c.name,
                    c.pool.name,
                    cmd.action,
                    cmd.reason,
                    cid,
                    cmd.method,
                    repl,
                    moved,
                    round(savings, 6) if c is cmd.candidates[0] else 0.0,
                )
            )
    return ConsolidationSection(tuple(entries), tuple(sorted(cons.stays.items())), tuple(sorted(cons.budgets.items())))


# --- renderings ------------------------------------------------------------------------------------


def _types(names: tuple[str, ...]) -> str:
    """InstanceTypeList: the first five names and "and N other(s)"."""
    shown = ", ".join(names[:SHOWN_TYPES])
    return shown + (f" and {len(names) - SHOWN_TYPES} other(s)" if len(names) > SHOWN_TYPES else "")


def _where(p: PodEntry) -> str:
    if p.outcome == EXISTING:
        return f"in-flight NodeClaim {p.node}" if p.in_flight else f"node {p.node}"
    if p.outcome == SCALE_UP:
        return f"new NodeClaim {p.node_claim} (NodePool {p.node_pool})"
    return "nowhere"


def _price(v: float) -> str:
    return f"${v:.4f}/h"


def table(report: KarpenterReport) -> str:
    out: list[str] = []
    rows = [("POD", "OUTCOME", "WHERE")] + [(f"{p.namespace}/{p.name}", p.outcome, _where(p)) for p in report.pods]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for r in rows if report.pods else ():
        out.append(visible(f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]}".rstrip()))
    if report.claims:
        if out:
            out.append("")
        out.append("NodeClaims Karpenter would create:")
        for c in report.claims:
            req = ", ".join(f"{k}={v}" for k, v in c.requests)
            out.append(
                visible(
                    f"  {c.name}  NodePool {c.node_pool}: {len(c.pods)} pod(s), requests {req}; "
                    f"from {_price(c.price)} ({c.capacity_type} in {c.zone})"
                )
            )
            out.append(visible(f"    zones {', '.join(c.zones)}; capacity types {', '.join(c.capacity_types)}"))
            if c.taints:
                out.append(visible(f"    taints {', '.join(c.taints)}"))
            out.append(visible(f"    instance types (cheapest first): {_types(c.instance_types)}"))
            out.append(visible(f"    pods: {', '.join(c.pods)}"))
    nowhere = [p for p in report.pods if p.outcome == NONE]
    if nowhere:
        if out:
            out.append("")
        out.append("Pods Karpenter cannot place:")
        for p in nowhere:
            out.append(visible(f"  {p.namespace}/{p.name}"))
            if p.reasons:
                for pool, why in p.reasons:
                    out.append(visible(f"    {pool}: {why}"))
            elif p.why:
                out.append(visible(f"    {p.why}"))
    if report.skipped_pools:
        if out:
            out.append("")
        for name, why in report.skipped_pools:
            out.append(visible(f"NodePool {name}: {why}"))
    if report.consolidation is not None:
        if out:
            out.append("")
        out.extend(_consolidation_lines(report.consolidation))
    for n in report.notes:
        out.append(visible(f"note: {n}"))
    s = report.summary()
    out.append("")
    line = (
        f"karpenter: {s['pods']} pods: {s['existing']} on existing nodes, {s['scaleUp']} on "
        f"{s['nodeClaims']} new NodeClaim(s) ({_price(s['pricePerHour'])}), {s['none']} nowhere"
    )
    if "consolidationCommands" in s:
        line += f"; {s['consolidationCommands']} consolidation command(s)"
    out.append(line)
    return "\n".join(out) + "\n"


def _consolidation_lines(c: ConsolidationSection) -> list[str]:
    out = ["Consolidation (what Karpenter's disruption controller would do now):"]
    if not c.candidates:
        out.append("  nothing: every node stays")
    for e in c.candidates:
        what = "delete" if e.action == "delete" else "replace"
        line = f"  [{e.command}] {what} {e.node} (NodePool {e.node_pool}): {e.reason}, {e.kind}"
        if e.replacement is not None:
            r = e.replacement
            line += (
                f"; by a {r['capacityType']} NodeClaim of NodePool {r['nodePool']} in {r['zone']}, "
                f"{_types(tuple(r['instanceTypes']))}"
            )
        if e.savings:
            line += f"; saves {_price(e.savings)}"
        out.append(visible(line))
        for pod, to in e.pods_to:
            out.append(visible(f"      {pod} -> {to}"))
    for node, why in c.stays:
        out.append(visible(f"  {node} stays: {why}"))
    return out


def markdown(report: KarpenterReport) -> str:
    out = ["## kwhatif autoscale (Karpenter)", "", "| Pod | Outcome | Where |", "|---|---|---|"]
    for p in report.pods:
        out.append(f"| {markdown_line(p.namespace + '/' + p.name)} | {p.outcome} | {markdown_line(_where(p))} |")
    if report.claims:
        out += [
            "",
            "### NodeClaims",
            "",
            "| NodeClaim | NodePool | Pods | Requests | Price | Instance types |",
            "|---|---|---|---|---|---|",
        ]
        for c in report.claims:
            req = ", ".join(f"{k}={v}" for k, v in c.requests)
            out.append(
                f"| {markdown_line(c.name)} | {markdown_line(c.node_pool)} | {len(c.pods)} | {markdown_line(req)} | "
                f"{_price(c.price)} | {markdown_line(_types(c.instance_types))} |"
            )
    nowhere = [p for p in report.pods if p.outcome == NONE]
    if nowhere:
        out += ["", "### Pods Karpenter cannot place", ""]
        for p in nowhere:
            out.append(f"- `{markdown_line(p.namespace + '/' + p.name)}`")
            for pool, why in p.reasons or ((("", p.why or ""),)):
                out.append(f"  - {markdown_line(pool + ': ' if pool else '')}{markdown_line(why)}")
    if report.consolidation is not None:
        out += ["", "### Consolidation", ""]
        # a command's pods (indented deeper in the text) are nested items under it
        for line in _consolidation_lines(report.consolidation)[1:]:
            marker = "  - " if line.startswith("    ") else "- "
            out.append(f"{marker}{markdown_line(line.strip())}")
    for n in report.notes:
        out.append(f"\n> {markdown_line(n)}")
    s = report.summary()
    out += [
        "",
        f"**{s['pods']} pods: {s['existing']} existing, {s['scaleUp']} on {s['nodeClaims']} new NodeClaim(s), "
        f"{s['none']} nowhere**",
    ]
    return "\n".join(out) + "\n"


def html_page(report: KarpenterReport) -> str:
    e = html.escape
    s = report.summary()
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
        "<title>kwhatif AutoscaleReport (Karpenter)</title>\n",
        "<style>body{font:14px system-ui,sans-serif;margin:1rem 1.5rem}table{border-collapse:collapse;margin:.5rem 0}"
        "td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}"
        "section{border:1px solid #ccc;border-radius:8px;padding:.5rem 1rem;margin:.8rem 0}"
        ".none{color:#b42318}.scale-up{color:#9a6700}.existing{color:#1a7f37}</style>\n</head>\n<body>\n",
        "<h1>kwhatif AutoscaleReport (Karpenter)</h1>\n",
        f"<p><b>{s['pods']} pods: {s['existing']} on existing nodes, {s['scaleUp']} on {s['nodeClaims']} new "
        f"NodeClaim(s) ({e(_price(s['pricePerHour']))}), {s['none']} nowhere</b></p>\n",
        "<h2>Pods</h2>\n<table><tr><th>Pod</th><th>Outcome</th><th>Where</th><th>Why</th></tr>\n",
    ]
    for p in report.pods:
        why = "; ".join(f"{pool}: {w}" for pool, w in p.reasons) or (p.why or "")
        parts.append(
            f'<tr><td>{e(p.namespace)}/{e(p.name)}</td><td class="{p.outcome}">{p.outcome}</td>'
            f"<td>{e(_where(p))}</td><td>{e(why)}</td></tr>\n"
        )
    parts.append("</table>\n")
    if report.claims:
        parts.append("<h2>Planned NodeClaims</h2>\n")
        for c in report.claims:
            req = ", ".join(f"{k}={v}" for k, v in c.requests)
            parts.append(
                f"<section><h3>{e(c.name)} <small>NodePool {e(c.node_pool)}</small></h3>"
                f"<p>{len(c.pods)} pod(s), requests {e(req)}; from {e(_price(c.price))} "
                f"({e(c.capacity_type)} in {e(c.zone)})</p>"
                f"<p>zones {e(', '.join(c.zones))}; capacity types {e(', '.join(c.capacity_types))}"
                + (f"; taints {e(', '.join(c.taints))}" if c.taints else "")
                + f"</p><p>instance types (cheapest first): {e(', '.join(c.instance_types))}</p>"
                f"<p>carries: {e(', '.join(c.pods))}</p></section>\n"
            )
    if report.consolidation is not None:
        parts.append("<h2>Consolidation</h2>\n<ul>\n")
        # a command's pods (indented deeper in the text) are a list inside its item
        items: list[tuple[str, list[str]]] = []
        for line in _consolidation_lines(report.consolidation)[1:]:
            if line.startswith("    ") and items:
                items[-1][1].append(line.strip())
            else:
                items.append((line.strip(), []))
        for head, moves in items:
            inner = "".join(f"<li>{e(m)}</li>" for m in moves)
            parts.append(f"<li>{e(head)}" + (f"<ul>{inner}</ul>" if inner else "") + "</li>\n")
        parts.append("</ul>\n")
    for n in report.notes:
        parts.append(f"<p><i>note: {e(n)}</i></p>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)
