"""What the report formats show of a plugin, from the plugin's own record
(kwhatif.plugins.info.PluginInfo, read through kwhatif.plugins.registry): the formats import this
module, never the plugins."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from kwhatif.plugins import registry


class _Columns(Mapping[str, str]):
    """Plugin name -> the short heading of its score column, for the plugins that have one."""

    def __getitem__(self, name: str) -> str:
        record = registry.info(name)
        if record is None or record.column is None:
            raise KeyError(name)
        return record.column

    def __iter__(self) -> Iterator[str]:
        return (name for name in registry.names() if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        record = registry.info(name)
        return record is not None and record.column is not None


# Short column headings for upstream score plugins.
COLUMNS: Mapping[str, str] = _Columns()


def sarif_help(plugin: str) -> str | None:
    """What to change when ``plugin`` turns the nodes away (None: the plugin says nothing)."""
    record = registry.info(plugin)
    return None if record is None else record.sarif_help
