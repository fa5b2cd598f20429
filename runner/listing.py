"""`cardid list`: the selected cases, one per line, without running them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardid_conformance import escape
from cardid_conformance.cases import Role, case_files, load_corpus
from cardid_conformance.selection import Selection
from cardid_conformance.spec import load_spec
from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import Exit, emit, say


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid list`: its parser."""
    listing = options.add_command(
        commands,
        "list",
        help="list the selected cases without running them",
        description="Print the selected cases, one per line: ID, role, level, rules, description (tab-separated).",
        epilog=(
            "examples:\n"
            "  cardid list --rule LIB-2\n"
            "  cardid list --cr 701.24 --role writer | cut -f1\n"
            "\n"
            "exit codes: 0 listed, 1 the corpus has case bugs (listed on standard error), 2 usage error"
        ),
    )
    options.add_selection(listing)
    return listing


def _perform(args: argparse.Namespace, context: Context) -> int:
    selection = Selection(
        cases=tuple(args.case),
        rules=tuple(args.rule),
        cr=tuple(args.cr_filter),
        tags=tuple(args.tag),
        levels=tuple(args.level),
        roles=tuple(Role(role) for role in args.role),
    )
    return list_cases(args.cases, selection)


COMMAND = Command("list", _declare, _perform)


def list_cases(cases: Path, selection: Selection) -> int:
    """Print the cases of `cases` the selection chooses, one per line; 1 when a case file is
    broken (each said on standard error)."""
    spec = load_spec()
    corpus = load_corpus(case_files(cases), spec)
    for bug in corpus.bugs:
        say(f"BUG IN CASE: {bug.message}", sys.stderr)
    selection.check(spec)
    for case in selection.apply(corpus.cases):
        fields = (case.id, case.role, case.level.name, ",".join(case.rules), case.description)
        emit("\t".join(escape.show(field) for field in fields))
    return Exit.FAILED if corpus.bugs else Exit.OK
