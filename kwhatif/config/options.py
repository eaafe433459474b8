"""How a what-if run behaves beyond the profiles of its configuration."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Options:
    """How a what-if run behaves beyond the profile."""

    preemption: bool = True
    explain_all_filters: bool = True  # evaluate every filter plugin on every node
    # Also filter the nodes a PreFilterResult leaves out, to show what they would have said.
    filter_excluded: bool = True
    # Keep per-node records only for the first pods that do not fit (many-pod runs: check,
    # capacity, drain); the others keep their verdict, message and reason counts.
    compact: bool = False
    # Reuse work across cycles (kwhatif.incremental): state kept up to date as pods come and go,
    # per-node results kept while their node is unchanged. Off, every cycle starts from scratch
    # (the reference the engine is tested against); the reports are the same either way.
    incremental: bool = True
