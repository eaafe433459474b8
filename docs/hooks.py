"""MkDocs hooks of the kwhatif site.

- A page per command of the click app: ``commands/NAME.md`` when it exists (an introduction and
  examples), else a page made here; either way its reference (usage, description, every option
  with its help as ``--help`` prints it, exit statuses) is generated from the click command at
  build time, so the site cannot drift from ``--help``, and a command added to the app gets its
  page without a change here.
- The navigation: the pages of NAV that exist, the commands in the order the app adds them, then any other
  page of docs/ (so a new page is never left out).
"""

from __future__ import annotations

import inspect
import posixpath
import re
from pathlib import Path
from typing import Any

import click

DOCS = Path(__file__).resolve().parent
MARKER = "<!-- kwhatif:reference -->"

# title, page (or a list of them); pages that do not exist are left out
NAV: list[tuple[str, Any]] = [
    ("Home", "index.md"),
    ("Getting started", "getting-started.md"),
    ("Commands", "commands"),  # the overview, then one page per command of the app
    ("Python API", "api.md"),
    ("MCP server", "mcp.md"),
    (
        "CI recipes",
        [
            ("The CI gate", "ci.md"),
            ("GitHub Actions", "github-action.md"),
            ("GitLab CI", "gitlab-ci.md"),
            ("Argo CD PreSync hook", "argocd-presync.md"),
            ("pre-commit", "pre-commit.md"),
        ],
    ),
    (
        "Scheduling",
        [
            ("Dynamic resource allocation", "dra.md"),
            ("Gang scheduling", "gang.md"),
            ("Autoscaling", "autoscale.md"),
            ("Karpenter", "karpenter.md"),
            ("Comparing releases and configurations", "diff.md"),
            ("Scheduler configuration", "configuration.md"),
        ],
    ),
    ("Input formats", "input.md"),
    ("Output formats and the JSON schema", "output.md"),
    ("Exit codes", "exit-codes.md"),
    ("Reliability", [("Live reads", "live-reads.md"), ("Reliability", "reliability.md")]),
    ("Releases and feature gates", "releases.md"),
    ("Performance", "performance.md"),
    ("Architecture", "architecture.md"),
]


def commands() -> dict[str, click.Command]:
    """The app's commands, in the order it adds them (schedule first, completion last)."""
    from kwhatif.cli.main import cli

    return dict(cli.commands)


def _context(name: str, cmd: click.Command) -> click.Context:
    """The context --help is written in (the group's settings: -h, --help)."""
    from kwhatif.cli.main import cli

    root = click.Context(cli, info_name="kwhatif", **cli.context_settings)
    return click.Context(cmd, info_name=name, parent=root, **cmd.context_settings)


def _escape(text: str) -> str:
    """Help text as Markdown text: no markup of its own, but its `code` spans kept."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            out.append(p)
        else:
            out.append(p.replace("&", "&amp;").replace("<", "&lt;").replace("*", r"\*").replace("_", r"\_"))
    return "".join(out)


def _paragraphs(text: str) -> str:
    """click's help text (paragraphs; a paragraph after a \\b line kept as written) as Markdown."""
    out = []
    for para in re.split(r"\n\s*\n", inspect.cleandoc(text)):
        if para.startswith("\b"):
            out.append("```text\n" + para.lstrip("\b").strip("\n") + "\n```")
        else:
            out.append(_escape(" ".join(line.strip() for line in para.splitlines())))
    return "\n\n".join(out)


def reference(name: str, cmd: click.Command) -> str:
    """The generated reference of a command: what --help says, as Markdown."""
    ctx = _context(name, cmd)
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    lines = ["## Reference", "", "```text", f"kwhatif {name} {usage}".rstrip(), "```", ""]
    if cmd.help:
        lines += [_paragraphs(cmd.help), ""]
    args = [p for p in cmd.get_params(ctx) if isinstance(p, click.Argument)]
    if args:
        lines += ["### Arguments", ""]
        lines += [f"- `{p.make_metavar(ctx)}`" for p in args]
        lines.append("")
    opts = [
        rec for p in cmd.get_params(ctx) if isinstance(p, click.Option) and (rec := p.get_help_record(ctx)) is not None
    ]
    if opts:
        lines += ["### Options", ""]
        for names, help_text in opts:
            lines.append(f"- `{names}`: {_escape(help_text)}" if help_text else f"- `{names}`")
        lines.append("")
    if cmd.epilog:
        lines += ["### Exit status" if "Exit status" in cmd.epilog else "### More", ""]
        body = cmd.epilog.replace("\b\n", "").replace("Exit status:\n", "")
        lines += ["```text", inspect.cleandoc(body), "```", ""]
    return "\n".join(lines)


def _stub(name: str, cmd: click.Command) -> str:
    """The page of a command that has no page of its own: its reference, after a link to the
    topic page of the same name when there is one (docs/autoscale.md for autoscale)."""
    topic = f"The guide: [{name}](../{name}.md).\n\n" if (DOCS / f"{name}.md").exists() else ""
    return f"# kwhatif {name}\n\n{topic}{MARKER}\n"


def on_config(config: Any) -> Any:
    """The navigation from NAV, of the pages that exist, and the app's commands."""
    listed: set[str] = set()

    def entry(title: str, page: Any) -> dict[str, Any] | None:
        if page == "commands":
            items: list[dict[str, Any]] = []
            if (DOCS / "commands" / "index.md").exists():
                items.append({"Overview": "commands/index.md"})
                listed.add("commands/index.md")
            for name in commands():
                items.append({name: f"commands/{name}.md"})
                listed.add(f"commands/{name}.md")
            return {title: items}
        if isinstance(page, list):
            sub = [e for t, p in page if (e := entry(t, p)) is not None]
            return {title: sub} if sub else None
        if not (DOCS / page).exists():
            return None
        listed.add(page)
        return {title: page}

    nav = [e for t, p in NAV if (e := entry(t, p)) is not None]
    others = sorted(
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if p.relative_to(DOCS).as_posix() not in listed and not p.name.startswith("_")
    )
    if others:
        nav.append({"More": others})
    config["nav"] = nav
    return config


def on_files(files: Any, config: Any) -> Any:
    """A page for each command that has none."""
    from mkdocs.structure.files import File

    for name, cmd in commands().items():
        uri = f"commands/{name}.md"
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, content=_stub(name, cmd)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """A command's page gets its reference where it says (MARKER), else at its end."""
    uri = page.file.src_uri
    if posixpath.dirname(uri) != "commands":
        return markdown
    name = posixpath.splitext(posixpath.basename(uri))[0]
    cmd = commands().get(name)
    if cmd is None:
        return markdown
    ref = reference(name, cmd)
    if MARKER in markdown:
        return markdown.replace(MARKER, ref)
    return markdown.rstrip("\n") + "\n\n" + ref
