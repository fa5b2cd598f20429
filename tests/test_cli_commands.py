"""The `cardid` commands, of one shape (runner/subcommand.py): each module exports its Command, and
runner/cli.py lists them in one tuple, which builds the parser and dispatches by name."""

from __future__ import annotations

import argparse
import ast

from cardid_runner import cli

from tests.conftest import ROOT

#: The commands in the order `cardid --help` lists them.
ORDER = ["run", "list", "lint", "reference", "certify", "verify-certificate", "doctor", "rules", "mutants",
         "coverage", "new", "shrink", "known-failures", "render", "import", "adapter", "fuzz"]


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    actions = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    assert len(actions) == 1
    return list(actions[0].choices)


def test_the_parser_is_built_from_the_one_tuple_of_commands_in_help_order() -> None:
    names = [command.name for command in cli.COMMANDS]
    assert names == ORDER
    assert _subcommands(cli._parser()) == names  # each declares the parser of its own name


def test_each_parser_is_declared_by_its_command() -> None:
    """Each Command's `declare` adds exactly the parser named as the Command is."""
    for command in cli.COMMANDS:
        parser = argparse.ArgumentParser(prog="cardid")
        declared = command.declare(parser.add_subparsers())
        assert _subcommands(parser) == [command.name]
        assert declared.prog == f"cardid {command.name}"


def test_no_command_is_dispatched_another_way() -> None:
    """No `set_defaults(handler=...)` and no `match` on a command's name: a command is performed
    through its Command, by name."""
    found = []
    for path in sorted((ROOT / "runner").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "set_defaults":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: set_defaults")
            if isinstance(node, ast.Match) and "command" in ast.unparse(node.subject):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: match {ast.unparse(node.subject)}")
    assert not found, found


def test_commands_write_to_the_terminal_through_one_module() -> None:
    """What a command prints goes through runner/terminal.py (`say`, `show_line`, `emit`,
    `put`), which escapes what may come from an implementation or a case file: no other module
    of the runner calls print or writes to sys.stdout or sys.stderr itself."""
    found = []
    for path in sorted((ROOT / "runner").rglob("*.py")):
        if path == ROOT / "runner" / "terminal.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = ast.unparse(node.func)
            if called == "print" or called in ("sys.stdout.write", "sys.stderr.write"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {called}")
    assert not found, found
