"""The AutoscaleReport in the formats for people: table (wide: every pod on its own row),
markdown and a self-contained HTML page (each group's nodes before and after). JSON and YAML
write its to_dict() as they write every report. The strings from the inputs arrive escaped for
the medium (Formatter.prepare) in table and markdown; the page escapes them itself."""

from __future__ import annotations

from collections import Counter

from kwhatif.escape import html_text, markdown_line, visible
from kwhatif.report.autoscale import WAITS, AutoscaleReport, PodLine, ScaleUpSection
from kwhatif.report.formats.columns import plain_table

# more pods than this are grouped by outcome, group and reason in the table (-o wide lists them all)
POD_ROWS = 20


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cpu(m: int) -> str:
    return f"{m // 1000}" if m % 1000 == 0 else f"{m}m"


def _mem(b: int) -> str:
    for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if b and b % size == 0:
            return f"{b // size}{unit}"
    return str(b)


def allocatable_text(alloc: dict[str, int] | object) -> str:
    assert isinstance(alloc, dict)
    parts = []
    for k, v in alloc.items():
        if not v and k not in ("cpu", "memory", "pods"):
            continue  # an extended resource the node offers none of (hugepages 0)
        if k == "cpu":
            parts.append(f"cpu {_cpu(v)}")
        elif k == "memory":
            parts.append(f"memory {_mem(v)}")
        else:
            parts.append(f"{k} {v}")
    return ", ".join(parts)


def _max(v: int | None) -> str:
    return "?" if v is None else str(v)


def _headline(r: AutoscaleReport) -> str:
    s = r.summary()
    parts = [f"{s['existing']} fit existing nodes", f"{s['scaleUp']} after scale-up"]
    if s["none"]:
        parts.append(f"{s['none']} get no node" + (f" ({s['waiting']} wait for a later loop)" if s["waiting"] else ""))
    added = ", ".join(f"{g} +{n}" for g, n in s["nodesAdded"].items()) or "no node added"
    return f"{r.autoscaler} ({r.expander}): {_plural(s['pods'], 'pod')}: {', '.join(parts)}; {added}"


def _pod_rows(pods: tuple[PodLine, ...], every: bool) -> tuple[list[list[str]], list[str]]:
    if every or len(pods) <= POD_ROWS:
        return (
            [[p.key, p.outcome, p.node_group or "", p.node or "", p.why or ""] for p in pods],
            ["POD", "OUTCOME", "GROUP", "NODE", "WHY"],
        )
    counts: Counter[tuple[str, str, str]] = Counter((p.outcome, p.node_group or "", p.why or "") for p in pods)
    first: dict[tuple[str, str, str], str] = {}
    for p in pods:
        first.setdefault((p.outcome, p.node_group or "", p.why or ""), p.key)
    rows = [[str(n), o, g, first[(o, g, w)], w] for (o, g, w), n in counts.items()]
    return rows, ["PODS", "OUTCOME", "GROUP", "FIRST POD", "WHY"]


def _scale_up_lines(s: ScaleUpSection, md: bool = False) -> list[str]:
    b = "- " if md else "  "
    lines = [f"Scale-up, loop {s.loop}:"]
    if s.chosen:
        for c in s.chosen:
            lines.append(f"{b}chosen: {c.node_group} +{c.node_count} ({c.before} -> {c.after}, max {c.max_size})")
    else:
        lines.append(f"{b}no scale-up")
    for o in s.options:
        similar = f", balanced with {', '.join(o.similar)}" if o.similar else ""
        debug = f" [{o.debug}]" if o.debug else ""
        lines.append(
            f"{b}option {o.node_group}: {_plural(o.node_count, 'node')} for {_plural(len(o.pods), 'pod')}{similar}{debug}"
        )
    for e, kept in s.steps:
        lines.append(f"{b}{e} kept {', '.join(kept) or 'none'}")
    if s.tie:
        lines.append(
            f"{b}random: a tie between {', '.join(s.tie)}; kwhatif picks {s.tie[0]} (upstream picks at random)"
        )
    for g, why in s.skipped.items():
        lines.append(f"{b}skipped {g}: {why}")
    # the pods no group can host, grouped by their reasons
    by_reasons: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for pod, per_group in s.no_group:
        by_reasons.setdefault(tuple(per_group.items()), []).append(pod)
    for grouped, pods in by_reasons.items():
        who = pods[0] if len(pods) == 1 else f"{pods[0]} and {len(pods) - 1} more"
        lines.append(f"{b}no group can host {who}:")
        for g, why in grouped:
            lines.append(f"{b}  {g}: {why}")
    for n in s.notes:
        lines.append(f"{b}note: {n}")
    return lines


def table(r: AutoscaleReport, every: bool = False) -> str:
    out = [_headline(r), ""]
    groups = [
        [
            g.name,
            str(g.min_size),
            _max(g.max_size),
            str(g.before),
            str(g.after),
            f"{g.template_origin}: {allocatable_text(dict(g.template_allocatable))}"
            + (f"; {_plural(len(g.template_pods), 'pod')} on every new node" if g.template_pods else "")
            if g.template_node
            else "none",
        ]
        for g in r.groups
    ]
    out.append(plain_table(groups, ["GROUP", "MIN", "MAX", "BEFORE", "AFTER", "TEMPLATE"]))
    out.append("")
    if r.pods:
        rows, headers = _pod_rows(r.pods, every)
        out.append(plain_table(rows, headers))
        out.append("")
    for s in r.scale_ups:
        out.extend(_scale_up_lines(s))
        out.append("")
    if every:
        for g in r.groups:
            if g.template_pods:
                out.append(f"Template of {g.name} runs: {', '.join(g.template_pods)}")
        out.append("")
    if r.scale_down is not None:
        sd = r.scale_down
        out.append(f"Scale-down (utilization below {sd.threshold:g}):")
        for rm in sd.removable:
            where = ", ".join(f"{p} -> {n}" for p, n in rm.pods_to.items()) or "no pods to move"
            out.append(f"  removable {rm.node} ({rm.node_group or 'no group'}, {rm.utilization:.2f}): {where}")
        for node, why in sd.not_removable:
            out.append(f"  stays {node}: {why}")
        out.append("")
    for n in r.notes:
        out.append(f"note: {n}")
    return "\n".join(out).rstrip("\n") + "\n"


def markdown(r: AutoscaleReport) -> str:
    def cell(s: str) -> str:
        return markdown_line(s).replace("|", "\\|")

    out = [f"### kwhatif autoscale: {cell(_headline(r))}", ""]
    out += ["| group | min | max | before | after | template |", "|---|---|---|---|---|---|"]
    for g in r.groups:
        tmpl = f"{g.template_origin}: {allocatable_text(dict(g.template_allocatable))}" if g.template_node else "none"
        out.append(f"| {cell(g.name)} | {g.min_size} | {_max(g.max_size)} | {g.before} | {g.after} | {cell(tmpl)} |")
    out.append("")
    if r.pods:
        rows, headers = _pod_rows(r.pods, False)
        out.append("| " + " | ".join(h.lower() for h in headers) + " |")
        out.append("|" + "---|" * len(headers))
        for row in rows:
            out.append("| " + " | ".join(cell(c) for c in row) + " |")
        out.append("")
    for s in r.scale_ups:
        lines = _scale_up_lines(s, md=True)
        out.append(f"**{lines[0]}**")
        out.append("")
        # list items: "- " (or the nested "-   ") stays a list marker, the text after it is escaped
        for x in lines[1:]:
            nested = x.startswith("-   ")
            text = x[4:] if nested else x[2:]
            out.append(f"{'  - ' if nested else '- '}{markdown_line(text)}")
        out.append("")
    if r.scale_down is not None:
        out.append(f"**Scale-down** (utilization below {r.scale_down.threshold:g}):")
        out.append("")
        for rm in r.scale_down.removable:
            out.append(f"- removable {markdown_line(rm.node)} ({rm.utilization:.2f})")
        for node, why in r.scale_down.not_removable:
            out.append(f"- stays {markdown_line(node)}: {markdown_line(why)}")
        out.append("")
    for n in r.notes:
        out.append(f"> {markdown_line(n)}")
    return "\n".join(out).rstrip("\n") + "\n"


def html(r: AutoscaleReport) -> str:
    """One page: the headline, each group's nodes before and after (a square per node, the new ones
    filled), the pods and the scale-up's reasoning."""

    def t(s: str) -> str:
        return html_text(visible(s))

    def lines_text(lines: list[str]) -> str:
        """Lines of a <pre>: each escaped on its own (a newline inside one stays visible as \\n)."""
        return "\n".join(t(line) for line in lines)

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>kwhatif autoscale</title>',
        "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}.n{display:inline-block;width:.9em;height:.9em;"
        "margin:1px;border:1px solid #444}.new{background:#4a8}.old{background:#ddd}.room{border-style:dashed}"
        "pre{background:#f6f6f6;padding:1em}</style></head><body>",
        f"<h1>kwhatif autoscale</h1><p>{t(_headline(r))}</p>",
        "<h2>Node groups</h2><table><tr><th>group</th><th>min</th><th>max</th><th>before</th><th>after</th>"
        "<th>nodes before and after</th><th>template</th></tr>",
    ]
    for g in r.groups:
        squares = '<span class="n old"></span>' * min(g.before, 200) + '<span class="n new"></span>' * min(
            max(g.after - g.before, 0), 200
        )
        tmpl = f"{g.template_origin}: {allocatable_text(dict(g.template_allocatable))}" if g.template_node else "none"
        parts.append(
            f"<tr><td>{t(g.name)}</td><td>{g.min_size}</td><td>{_max(g.max_size)}</td><td>{g.before}</td>"
            f"<td>{g.after}</td><td>{squares}</td><td>{t(tmpl)}</td></tr>"
        )
    parts.append(
        "</table><h2>Pods</h2><table><tr><th>pod</th><th>outcome</th><th>group</th><th>node</th><th>why</th></tr>"
    )
    for p in r.pods:
        parts.append(
            f"<tr><td>{t(p.key)}</td><td>{t(p.outcome)}</td><td>{t(p.node_group or '')}</td>"
            f"<td>{t(p.node or '')}</td><td>{t(p.why or '')}</td></tr>"
        )
    parts.append("</table>")
    for s in r.scale_ups:
        parts.append(f"<h2>Scale-up, loop {s.loop}</h2><pre>{lines_text(_scale_up_lines(s)[1:])}</pre>")
    if r.scale_down is not None:
        lines = [f"removable {rm.node} ({rm.utilization:.2f})" for rm in r.scale_down.removable]
        lines += [f"stays {n}: {why}" for n, why in r.scale_down.not_removable]
        parts.append(f"<h2>Scale-down</h2><pre>{lines_text(lines)}</pre>")
    if r.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{t(n)}</li>" for n in r.notes) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["WAITS", "html", "markdown", "table"]
