"""-o table (default): what a person reads (formats/wide.py adds the score breakdowns).

A schedule, per pod: a header line with the verdict and the chosen node (with the tie set) or upstream's
"0/N nodes are available" message, the node table (feasible nodes first by total score, then
infeasible ones with every failing filter and its reasons; the failure upstream reports is marked
with "*"), and hints. Large clusters get their infeasible nodes grouped by reason. A pod attempted
more than once shows each attempt in order, as a cluster's events would: the FitError and the
preemption of its first attempt, then the retry. A check, capacity or drain report: its table of
workloads, nodes or pods, the reasons, notes and a summary line.
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Iterable

from kwhatif.escape import escape_strings, guard_commands, visible
from kwhatif.report.base import OutputFormat
from kwhatif.report.capacity import CapacityReport, NodeUsage
from kwhatif.report.check import CheckReport
from kwhatif.report.drain import DrainReport
from kwhatif.report.formats import bars
from kwhatif.report.formats.columns import plain_table, tabulate
from kwhatif.report.formats.formatter import AnyReport, Formatter
from kwhatif.report.groups import GroupEntry
from kwhatif.report.plugin_info import COLUMNS
from kwhatif.report.schedule import NodeEntry, PodResult, ScheduleReport, ScoreEntry, version_suffix
from kwhatif.report.verdict import Verdict

# Short column headings for upstream score plugins (each plugin names its own).
SHORT = COLUMNS
# Feasible nodes whose details (the devices DynamicResources would allocate) are listed; past
# this many only the chosen node's, unless -o wide or --explain all.
MAX_DETAILED_NODES = 8
# groups of infeasible nodes a compact result lists (report/digest.py)
MAX_GROUPS = 10

_COLORS = {"green": "32", "red": "31", "yellow": "33", "bold": "1", "dim": "2"}


class TableFormatter(Formatter):
    output_format = OutputFormat.TABLE

    def prepare(self, report: AnyReport) -> AnyReport:
        """Every string from the inputs on one line with its control characters visible (kubectl's
        ^[ for ESC, \\n, \\r, \\t, \\xNN): a cell never starts a line or moves the cursor."""
        return escape_strings(report, visible)

    def finish(self, text: str) -> str:
        return guard_commands(text)

    def _c(self, text: str, color: str) -> str:
        if not self.options.color:
            return text
        return f"\x1b[{_COLORS[color]}m{text}\x1b[0m"

    def schedule(self, report: ScheduleReport) -> str:
        parts = [self.format_pod(r, report.num_nodes) for r in report.results]
        parts += ["\n".join(group_lines(g)) for g in report.groups]
        parts.append(self.score_legend(report))
        parts.append(self.summary_line(report))
        for note in report.notes:
            parts.append(f"note: {note}")
        return "\n\n".join(p for p in parts if p) + "\n"

    def summary_line(self, report: ScheduleReport) -> str:
        s = report.summary
        bits = [f"{s.scheduled}/{_n(s.pods, 'pod')} scheduled"]
        if s.unschedulable:
            bits.append(self._c(f"{s.unschedulable} unschedulable", "red"))
        if s.gated:
            bits.append(f"{s.gated} gated")
        if s.errors:
            bits.append(self._c(_n(s.errors, "error"), "red"))
        if s.preempted:
            bits.append(f"{_n(s.preempted, 'pod')} preempted")
        return ", ".join(bits) + (
            f" (profile {report.profile}, {_n(report.num_nodes, 'node')}{version_suffix(report.scheduler_version)})"
        )

    # --- check, capacity, drain ------------------------------------------------------------------

    def check(self, report: CheckReport) -> str:
        out = []
        if report.workloads:
            rows = []
            for w in report.workloads:
                unknown = not w.checked
                rows.append(
                    [
                        w.kind,
                        w.ref,
                        w.desired_text,
                        "-" if unknown else str(w.placed),
                        "-" if unknown else str(w.not_placed),
                        str(w.verdict),
                        w.dominant_reason or "",
                    ]
                )
            out.append(
                tabulate(
                    rows,
                    headers=["KIND", "WORKLOAD", "DESIRED", "PLACED", "NOT PLACED", "VERDICT", "DOMINANT REASON"],
                    tablefmt="plain",
                    disable_numparse=True,
                )
            )
        for w in report.workloads:
            if (w.failed or w.verdict is Verdict.UNKNOWN) and w.message:
                block = [
                    f"{w.kind} {w.ref} ({w.source}): {w.headline.split(': ', 1)[1]}",
                    f"  {w.message}",
                ]
                first = next((r for r in w.results if not r.fits), None)
                if first is not None:
                    block.extend(f"  hint: {h}" for h in first.hints)
                out.append("\n".join(block))
        out += ["\n".join(group_lines(g)) for g in report.schedule.groups]
        notes = [f"preemption: {w.kind} {w.ref} evicts {', '.join(w.evicts)}" for w in report.workloads if w.evicts]
        notes += [f"note: {w.kind} {w.ref}: {n}" for w in report.workloads for n in w.notes]
        notes += [f"note: {n}" for n in dict.fromkeys((*report.notes, *report.schedule.notes))]
        if notes:
            out.append("\n".join(notes))
        out.append(
            f"{report.summary_line()} (profile {report.schedule.profile}, {report.schedule.num_nodes} nodes"
            f"{version_suffix(report.schedule.scheduler_version)})"
        )
        return "\n\n".join(out) + "\n"

    def capacity(self, report: CapacityReport) -> str:
        lines = [
            f"{report.fits} more cop{'y' if report.fits == 1 else 'ies'} of {report.namespace}/{report.name} fit "
            f"(profile {report.profile}, {report.num_nodes} nodes{version_suffix(report.scheduler_version)})"
        ]
        if report.usage:
            lines.append(self.capacity_usage(report))
        elif report.per_node:
            rows = [[n, str(c)] for n, c in sorted(report.per_node.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines.append(
                "\n".join("  " + ln for ln in tabulate(rows, headers=["NODE", "COPIES"], tablefmt="plain").splitlines())
            )
        if report.first_failure:
            lines.append(f"the next copy does not fit:\n  {report.first_failure}")
        if report.reasons:
            rows = [[str(n), r] for r, n in sorted(report.reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines.append(
                "\n".join(
                    "  " + ln for ln in tabulate(rows, headers=["NODES", "REASON"], tablefmt="plain").splitlines()
                )
            )
        if report.failure is not None and report.failure.hints:
            lines.append("\n".join(f"  hint: {h}" for h in report.failure.hints))
        if report.ties:
            lines.append(
                f"note: {report.ties} copies went to one of several equally scored nodes; upstream picks at random, "
                "kwhatif takes the first by name (the count of copies does not depend on it in most clusters)"
            )
        for n in report.notes:
            lines.append(f"note: {n}")
        if report.minimum is not None:
            ok = "meets" if report.fits >= report.minimum else "does NOT meet"
            lines.append(f"{ok} the minimum of {report.minimum}")
        return "\n\n".join(lines) + "\n"

    def drain(self, report: DrainReport) -> str:
        rows = []
        for e in report.entries:
            owner = f"{e.controller[0]}/{e.controller[1]}" if e.controller else "-"
            if e.action == "blocked":
                outcome = f"eviction refused by PodDisruptionBudget {e.pdb_blocked}: drain cannot finish"
            elif e.action == "refused":
                outcome = f"drain refuses: cannot delete {e.refusal}"
            elif e.action != "evict":
                outcome = {
                    "skip-daemonset": "stays (DaemonSet pod)",
                    "skip-mirror": "stays (static pod)",
                    "not-evicted": "stays (drain refused its node)",
                }[e.action]
            elif e.lost:
                outcome = "deleted: a bare pod, nothing recreates it"
            elif e.node:
                outcome = f"-> {e.node}"
                if e.result is not None and e.result.victims:
                    victims = ", ".join(f"{v.namespace}/{v.name}" for v in e.result.victims)
                    outcome += f" (attempt {e.result.attempt}, after preempting {victims})"
            else:
                outcome = "DOES NOT FIT: " + (e.message or "")
            flags = "emptyDir data lost" if e.empty_dir and e.action == "evict" else ""
            rows.append([f"{e.namespace}/{e.name}", e.from_node, owner, outcome, flags])
        s = report.summary()
        head = (
            f"drain {', '.join(report.nodes)}: {s['evicted']} pods evicted, {s['placed']} replacements placed, "
            f"{s['notPlaced']} do not fit, {s['pdbBlocked']} blocked by PodDisruptionBudgets, {s['skipped']} stay"
        )
        if report.refusals:
            refused = sorted({n for n, _ in report.refusals}, key=list(report.nodes).index)
            head += f"; drain refuses {', '.join(refused)}"
        if report.scheduler_version is not None:
            head += f" ({report.scheduler_version.describe()})"
        body = tabulate(
            rows, headers=["POD", "FROM", "CONTROLLER", "OUTCOME", ""], tablefmt="plain", disable_numparse=True
        )
        out = head + "\n\n" + "\n".join("  " + ln for ln in body.splitlines()) + "\n"
        if report.refusals:
            out += "\n" + "\n".join(f"error: node {n}: {m}" for n, m in report.refusals) + "\n"
        if report.usage:
            out += "\n" + self.drain_usage(report) + "\n"
        if report.notes:
            out += "\n" + "\n".join(f"note: {n}" for n in report.notes) + "\n"
        return out

    # --- utilisation bars (capacity, drain) -----------------------------------------------------------

    def _glyphs(self) -> bars.Glyphs:
        return bars.UNICODE if self.options.unicode else bars.ASCII

    def _all_nodes(self, count: int) -> bool:
        """Every node gets a row in a small cluster; a large one lists those the what-if changed."""
        return self.options.explain_all or count <= self.options.group_threshold

    def capacity_usage(self, report: CapacityReport) -> str:
        """The nodes with their copies and their requests before and after them."""
        usage = sorted(report.usage, key=lambda u: (-report.per_node.get(u.name, 0), u.name))
        if not self._all_nodes(len(usage)):
            usage = [u for u in usage if report.per_node.get(u.name, 0)]
        rows = [([u.name, str(report.per_node.get(u.name, 0))], u) for u in usage]
        out = []
        if rows:
            glyphs = self._glyphs()
            out.append(
                bars.usage_table(rows, ["NODE", "COPIES"], self.options.width, glyphs, self._c, align=("left", "right"))
            )
            out.append(self._wrap(bars.legend(glyphs, "the copies"), "  ", "        "))
        rest = len(report.usage) - len(rows)
        if rest:
            out.append(f"  {rest} more node(s) take no copy (-o json lists every node)")
        return "\n".join(out)

    def drain_usage(self, report: DrainReport) -> str:
        """The drained nodes, the nodes that take replacements, and (a small cluster) the others,
        with their requests before and after the drain."""
        drained = set(report.nodes)
        moved_in: dict[str, int] = {}
        for e in report.entries:
            if e.action == "evict" and e.node and not e.lost:
                moved_in[e.node] = moved_in.get(e.node, 0) + 1
        everyone = self._all_nodes(len(report.usage))

        def order(u: NodeUsage) -> tuple[int, str]:
            return (0 if u.name in drained else 1 if u.name in moved_in else 2, u.name)

        usage = [
            u
            for u in sorted(report.usage, key=order)
            if everyone or u.name in drained or u.name in moved_in or u.before != u.after
        ]
        # kubectl drain cordons a node, then refuses to go on: it stays cordoned with its pods
        refused = {n for n, _ in report.refusals}
        rows = []
        for u in usage:
            change = (
                "refused (cordoned)"
                if u.name in refused
                else "drained"
                if u.name in drained
                else f"+{_n(moved_in[u.name], 'pod')}"
                if u.name in moved_in
                else ""
            )
            rows.append(([u.name, change], u))
        glyphs = self._glyphs()
        out = [
            bars.usage_table(rows, ["NODE", "CHANGE"], self.options.width, glyphs, self._c),
            self._wrap(bars.legend(glyphs, "the drain"), "  ", "        "),
        ]
        rest = len(report.usage) - len(rows)
        if rest:
            out.append(f"  {rest} more node(s) unchanged (-o json lists every node)")
        return "\n".join(out)

    # --- one pod ----------------------------------------------------------------------------------

    def _wrap(self, text: str, indent: str, subsequent: str | None = None) -> str:
        if not self.options.width:
            return indent + text
        return textwrap.fill(
            text,
            width=max(40, self.options.width),
            initial_indent=indent,
            subsequent_indent=indent if subsequent is None else subsequent,
            break_on_hyphens=False,
            break_long_words=False,
        )

    def header(self, r: PodResult, of: int = 1) -> str:
        pod = f"{r.pod}"
        if of > 1:
            pod += f" (attempt {r.attempt} of {of})"
        elif r.attempt > 1:
            pod += f" (attempt {r.attempt})"
        if r.fits:
            line = f"{self._c('FITS', 'green')} {pod} -> {self._c(r.node or '', 'bold')}"
            if r.best_score is not None:
                line += f" (score {r.best_score})"
            if r.tie:
                line += (
                    f"\n  tie: {', '.join(r.tie)} share the best score; upstream picks one at random, "
                    "kwhatif takes the first by name"
                )
            if r.preemption:
                line += f"\n  preemption: {preemption_text(r)}"
            if r.nominated_node:
                line += f"\n  {nominated_text(r)}"
            return line
        if r.gated:
            return f"{self._c('GATED', 'yellow')} {pod}: {r.message}"
        if r.errored:
            return f"{self._c('ERROR', 'red')} {pod}: {r.message}"
        line = f"{self._c('DOES NOT FIT', 'red')} {pod}\n{self._wrap(r.message or '', '  ')}"
        if r.nominated_node:
            line += f"\n  {nominated_text(r)}"
        if r.preemption:
            line += f"\n  preemption: {preemption_text(r)}"
        return line

    def format_pod(self, r: PodResult, num_nodes: int) -> str:
        """A pod's attempts, each in full; a pod tried once is its result."""
        attempts = r.all_attempts
        if len(attempts) == 1:
            return self.format_result(r, num_nodes)
        parts = []
        for i, a in enumerate(attempts):
            prev = attempts[i - 1] if i else None
            if prev is not None and dataclasses.replace(a, attempt=prev.attempt) == prev:
                # a retry that saw nothing new answers as the attempt before: say so, once
                parts.append(f"{self.header(a, len(attempts))}\n  the same answer as attempt {prev.attempt}")
            else:
                parts.append(self.format_result(a, num_nodes, of=len(attempts)))
        return "\n\n".join(parts)

    def format_result(self, r: PodResult, num_nodes: int, of: int = 1) -> str:
        lines = [self.header(r, of)]
        if r.gated:
            for f in r.pre_filter:
                for d in f.details:
                    lines.append(self._wrap(d, "  ", "    "))
            return "\n".join(lines)
        if r.pre_filter and any(n.at_pre_filter for n in r.nodes):
            for f in r.pre_filter:
                lines.append(f"  PreFilter {f.plugin}: {f.code}: {'; '.join(f.reasons)}")
                for d in f.details:
                    lines.append(self._wrap(d, "    ", "      "))
        nodes = list(r.nodes)
        if self.options.nodes:
            wanted = {visible(n) for n in self.options.nodes}  # as the report's names are printed
            nodes = [n for n in nodes if n.name in wanted]
            missing = sorted(wanted - {n.name for n in nodes})
            if missing:
                lines.append(f"  no such node: {', '.join(missing)}")
        table = self.node_table(r, nodes)
        if table:
            lines.append(table)
        for hint in r.hints:
            lines.append(self._wrap(f"hint: {hint}", "  ", "        "))
        for note in r.notes:
            lines.append(self._wrap(f"note: {note}", "  ", "        "))
        if r.binding is not None and r.binding.settled:
            # --apply: what the cluster did (a failed binding is the ERROR line's message)
            color = "yellow" if r.binding.skipped else "green"
            lines.append(self._wrap(f"{self._c('binding:', color)} {r.binding.text}", "  ", "           "))
        return "\n".join(lines)

    def node_table(self, r: PodResult, nodes: list[NodeEntry]) -> str:
        feasible = sorted((n for n in nodes if n.feasible), key=lambda n: (-(n.total or 0), n.name))
        infeasible = [n for n in nodes if not n.feasible]
        plugins = score_plugins(r, nodes)
        headers = ["NODE", "VERDICT"] + [SHORT.get(p, p) for p in plugins] + ["TOTAL"]
        rows: list[list[str]] = []
        # a node's score cells follow from its score entries alone, which nodes share (the
        # report's records): worked out once per distinct tuple of entries
        cells_of: dict[tuple[int, ...], list[str]] = {}
        for n in feasible:
            key = tuple(map(id, n.scores))  # n.scores holds its entries while the table is made
            cells = cells_of.get(key)
            if cells is None:
                by_plugin = {s.plugin: s for s in n.scores}
                cells = []
                for p in plugins:
                    s = by_plugin.get(p)
                    cells.append("-" if s is None else self.score_cell(s))
                cells_of[key] = cells
            verdict = "best" if r.node == n.name else "fits"
            rows.append([n.name, verdict, *cells, str(n.total if n.total is not None else "")])
        out = []
        if rows:
            out.append(_indent(plain_table(rows, headers)))
            if r.digest is not None and r.digest.feasible > len(rows):
                more = r.digest.feasible - len(rows)
                out[-1] += f"\n  ... {_n(more, 'more feasible node')} (--explain all lists every node)"
        detailed = [n for n in feasible if n.details]
        if detailed:
            shown = self.devices_shown(r, detailed)
            lines = [f"  devices ({'per feasible node' if len(shown) > 1 else 'on ' + shown[0].name}):"]
            for n in shown:
                for d in n.details:
                    lines.append(self._wrap(f"{n.name}: {d}" if len(shown) > 1 else d, "    ", "      "))
            if len(shown) < len(detailed):
                lines.append(f"    ({len(detailed) - len(shown)} more node(s); -o wide lists each)")
            out.append("\n".join(lines))
        if r.digest is not None:
            if r.digest.groups:
                out.append(self.digest_groups(r, {n.name: n for n in nodes}))
        elif infeasible:
            group = (
                not self.options.explain_all
                and not self.options.nodes
                and len(infeasible) > self.options.group_threshold
            )
            out.append(self.infeasible_table(infeasible, group))
        return "\n\n".join(out)

    def digest_groups(self, r: PodResult, by_name: dict[str, NodeEntry]) -> str:
        """A compact result's infeasible nodes: each group of them with its count and first nodes,
        the largest first, then the nodes closest to fitting."""
        d = r.digest
        assert d is not None
        lines = [
            f"  {_n(d.infeasible, 'node')} do not fit, grouped by reason (* = reported by upstream; --explain all lists each):"
        ]
        for g in d.groups[:MAX_GROUPS]:
            node = by_name.get(g.node)
            text = _failure_text(node, width=10_000) if node is not None else ""
            shown = ", ".join(g.examples) + (
                f", ... (+{g.count - len(g.examples)})" if g.count > len(g.examples) else ""
            )
            lines.append(f"  {g.count:>5} x {text}")
            lines.append(f"          {shown}")
        rest = d.groups[MAX_GROUPS:]
        if rest:
            lines.append(f"  ... {_n(len(rest), 'more group')} of {_n(sum(g.count for g in rest), 'node')}")
        if d.closest:
            lines.append(f"  closest to fitting (fewest failing filters): {', '.join(d.closest)}")
        return "\n".join(lines)

    def score_legend(self, report: ScheduleReport) -> str:
        """What the score cells mean: nothing for the table's weighted scores (-o wide explains its own)."""
        return ""

    def legend(self, plugins: Iterable[str]) -> str:
        """The legend of tables whose score columns are ``plugins`` (a streamed report's)."""
        return ""

    def score_cell(self, s: ScoreEntry) -> str:
        """A feasible node's score for one plugin: its weighted score."""
        return str(s.weighted)

    def devices_shown(self, r: PodResult, detailed: list[NodeEntry]) -> list[NodeEntry]:
        """The feasible nodes whose devices are listed: past MAX_DETAILED_NODES only the chosen
        node's, unless --explain all."""
        if len(detailed) > MAX_DETAILED_NODES and not self.options.explain_all:
            return [n for n in detailed if n.name == r.node] or detailed[:1]
        return detailed

    def infeasible_table(self, nodes: list[NodeEntry], group: bool) -> str:
        # Wrap to the terminal; into a file or a pipe, lines stay whole (width 0).
        width: int | None = max(40, self.options.width - 34) if self.options.width else None
        if group:
            groups: dict[str, list[str]] = {}
            for n in nodes:
                groups.setdefault(_failure_text(n, width=10_000), []).append(n.name)
            lines = [
                f"  {len(nodes)} nodes do not fit, grouped by reason (* = reported by upstream; --explain all lists each):"
            ]
            for key, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                shown = ", ".join(names[:4]) + (f", ... (+{len(names) - 4})" if len(names) > 4 else "")
                lines.append(f"  {len(names):>5} x {key}")
                lines.append(f"          {shown}")
            return "\n".join(lines)
        rows = []
        for n in nodes:
            verdict = "excluded" if n.excluded else "no"
            rows.append([n.name, verdict, _failure_text(n, width)])
        body = tabulate(
            rows,
            headers=["NODE", "FITS", "WHY NOT (* = reported by upstream)"],
            tablefmt="plain",
            maxcolwidths=[None, None, width],
            disable_numparse=True,
        )
        return _indent(body)


def score_plugins(r: PodResult, nodes: list[NodeEntry] | None = None) -> list[str]:
    """The score plugins of a result's node table: those that scored a feasible node of ``nodes``
    (the result's, unless given), in profile order."""
    scored = {s.plugin for n in (r.nodes if nodes is None else nodes) if n.feasible for s in n.scores}
    return [p for p in r.weights if p in scored]


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def preemption_text(r: PodResult) -> str:
    """'evicts ns/a (priority 0), ns/b (priority 0, violates its PodDisruptionBudget) on node-1'"""
    assert r.preemption is not None
    victims = ", ".join(
        f"{v.namespace}/{v.name} (priority {v.priority}{', violates its PodDisruptionBudget' if v.pdb_violation else ''})"
        for v in r.preemption.victims
    )
    return f"evicts {victims} on {r.preemption.nominated_node}"


def nominated_text(r: PodResult) -> str:
    """What an attempt made of the node its status named (status.nominatedNodeName)."""
    if r.fast_path:
        return (
            f"nominated node {r.nominated_node} was tried first and the pod fits there "
            "(upstream looks no further; kwhatif shows every node)"
        )
    return f"nominated node {r.nominated_node} was tried first and the pod no longer fits there"


def _failure_text(n: NodeEntry, width: int | None = None) -> str:
    if n.at_pre_filter:
        return "rejected at PreFilter for every node"
    first = n.upstream_failure
    parts = []
    for f in n.failures:
        mark = "*" if f is first else ""
        detail = f" ({'; '.join(f.details)})" if f.details else ""
        # one line: prepare() made every line break of a reason (a CEL error's source excerpt) visible
        reasons = "; ".join(f.reasons)
        parts.append(f"{mark}{f.plugin}: {reasons}{detail}")
    text = " | ".join(parts)
    if n.excluded:
        text = "not in the PreFilter node set" + (f" ({text})" if text else "")
    if n.with_nominated:
        text += " (counting pods nominated to this node)"
    return text


def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())


def group_lines(g: GroupEntry) -> list[str]:
    """The table's lines for one group."""
    head = f"pod group {g.pod_group}"
    if g.workload:
        head += f" (Workload {g.workload}"
        head += f", template {g.template})" if g.template else ")"
    kind = f"gang, minCount {g.min_count}" if g.policy == "gang" else (g.policy or "no PodGroup object")
    lines = [f"{head}: {g.verdict} [{kind}], {g.placed}/{g.pods} pods placed"]
    if g.nodes:
        lines.append("  placed: " + ", ".join(f"{n} ({c})" for n, c in g.nodes))
    if g.message:
        lines.append(f"  {g.message}")
    if g.placements is not None:
        lines.extend(placement_lines(g))
    if g.lacks:
        lines.append(f"  closest placement lacks: {g.lacks}")
    if g.why:
        lines.append("  why, per node (members that did not fit):")
        for node, reasons in g.why:
            lines.append(f"    {node}: " + ", ".join(f"{r} ({c} pod{'s' if c != 1 else ''})" for r, c in reasons))
    return lines


def placement_lines(g: GroupEntry) -> list[str]:
    """The placements (topology domains) the group's last pod-group cycle tried."""
    if not g.placements:
        return []
    lines = [f"  placements tried: {len(g.placements)}"]
    for p in g.placements:
        name = p.name or "(every node)"
        if p.feasible:
            text = f"feasible, {p.placed} pod(s)" + (f", score {p.score}" if p.score is not None else "")
        else:
            text = f"not feasible ({p.placed} pod(s) fit): {p.message}"
        lines.append(f"    {'*' if p.chosen else ' '} {name} ({p.nodes} node(s)): {text}")
    return lines
