"""Write the CLI reference page from the parser itself:

    python docs/gen_cli_reference.py > docs/cli-reference.md

It walks `build_parser()` (from `tracecheck.cli.app`, or `tracecheck.cli` where the CLI is one
module) and its subcommands, and writes each command's usage, description, options and own
epilog. tests/test_docs_site.py fails when the page and the parser disagree.
"""

from __future__ import annotations

import argparse
import html
import importlib
import re
import sys
from collections.abc import Callable, Iterator

# Usage lines are wrapped at this width whatever the terminal, so that the page is the same
# on every machine.
WIDTH = 96


def find_build_parser() -> Callable[[], argparse.ArgumentParser]:
    """The CLI's parser builder: the package's `app` module, else the single-module CLI."""
    for name in ("tracecheck.cli.app", "tracecheck.cli"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        build = getattr(module, "build_parser", None)
        if build is not None:
            return build  # type: ignore[no-any-return]
    raise SystemExit("no build_parser() in tracecheck.cli.app or tracecheck.cli")


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog=parser.prog, width=WIDTH)


def usage(parser: argparse.ArgumentParser) -> str:
    formatter = _formatter(parser)
    formatter.add_usage(
        parser.usage,
        parser._actions,
        parser._mutually_exclusive_groups,
        prefix="",
    )
    return formatter.format_help().strip()


def _subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def _escape(text: str) -> str:
    """Markdown-safe prose: `<`, `>` and `&` as entities outside code spans, `|` escaped so
    that table cells stay cells."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(part)
        else:
            out.append(html.escape(part, quote=False).replace("*", r"\*"))
    return "".join(out).replace("|", r"\|")


def _paragraphs(text: str) -> str:
    """argparse descriptions are wrapped by hand: rejoin each paragraph's lines."""
    blocks = [" ".join(line.strip() for line in block.splitlines()) for block in text.split("\n\n")]
    return "\n\n".join(_escape(block) for block in blocks if block.strip())


def _argument(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and action.metavar is None:
        return ""  # the choices are listed in the description column
    formatter = _formatter(parser)
    default = action.dest.upper() if action.option_strings else action.dest
    return formatter._format_args(action, default)


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    text = _formatter(parser)._expand_help(action) if action.help else ""
    text = " ".join(text.split())
    if action.choices is not None and action.metavar is None:
        choices = ", ".join(f"`{choice}`" for choice in action.choices)
        text = f"{_escape(text)}; one of {choices}" if text else f"one of {choices}"
        return text.replace("|", r"\|")
    return _escape(text)


def options_table(parser: argparse.ArgumentParser) -> list[str]:
    lines: list[str] = []
    for group in parser._action_groups:
        actions = [
            action
            for action in group._group_actions
            if action.help is not argparse.SUPPRESS
            and not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
        ]
        if not actions:
            continue
        lines += [f"**{_escape(group.title or 'options')}**", ""]
        lines += ["| argument | value | required | description |", "|---|---|---|---|"]
        for action in actions:
            names = ", ".join(action.option_strings) or (action.metavar or action.dest)
            value = _argument(action, parser)
            required = "yes" if (action.required or not action.option_strings) else ""
            if not action.option_strings and action.nargs in ("?", "*"):
                required = ""
            lines.append(
                f"| `{names}` | {f'`{value}`' if value else ''} | {required} "
                f"| {_help(action, parser)} |"
            )
        lines.append("")
    return lines


def render() -> str:
    parser = find_build_parser()()
    shared_epilog = parser.epilog or ""
    commands = list(_subcommands(parser))
    lines = [
        "# CLI reference",
        "",
        "<!-- Generated from the parser by `python docs/gen_cli_reference.py >"
        " docs/cli-reference.md`: do not edit by hand; tests/test_docs_site.py keeps it in step."
        " -->",
        "",
        "Every command and option of `tracecheck`, as its parser defines them (the same text as",
        "`tracecheck COMMAND --help`). [Command line](cli.md) shows them at work;",
        "[Exit codes](exit-codes.md) lists what each exit status means.",
        "",
        "```text",
        usage(parser),
        "```",
        "",
        _paragraphs(parser.description or ""),
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    lines += [
        f"| [`{name}`](#{_anchor(name)}) | {_escape(summary)} |" for name, summary, _ in commands
    ]
    lines.append("")
    lines += options_table(parser)
    for name, summary, sub in commands:
        lines += command_section(f"tracecheck {name}", summary, sub, shared_epilog, "##")
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def command_section(
    title: str, summary: str, sub: argparse.ArgumentParser, shared_epilog: str, level: str
) -> list[str]:
    """A command's heading, usage, description, options and epilog, then its own commands
    (`fleet check`, `fleet summarize`) one level down."""
    lines = [f"{level} {title}", "", f"*{_escape(summary)}*" if summary else "", ""]
    lines += ["```text", usage(sub), "```", ""]
    if sub.description:
        lines += [_paragraphs(sub.description), ""]
    lines += options_table(sub)
    epilog = (sub.epilog or "").strip()
    if epilog.startswith(shared_epilog.strip()):
        # The exit codes every command shares are on their own page; keep what follows.
        epilog = epilog[len(shared_epilog.strip()) :].strip()
        if epilog:
            lines += [_paragraphs(epilog), ""]
    elif epilog:
        lines += ["```text", epilog, "```", ""]
    for name, help_text, nested in _subcommands(sub):
        lines += command_section(f"{title} {name}", help_text, nested, shared_epilog, level + "#")
    return lines


def _anchor(name: str) -> str:
    """The heading id Python-Markdown's toc gives `## tracecheck <name>`."""
    return "tracecheck-" + re.sub(r"[^\w-]", "", name.lower())


if __name__ == "__main__":
    sys.stdout.write(render())
