"""`cardid lint`: the case corpus checked (conformance/lint.py), and what was not checked said."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardid_conformance import suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.lint import lint
from cardid_conformance.spec import load_cr_numbers, load_spec
from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import Exit, emit, say


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid lint`: its parser."""
    linting = options.add_command(
        commands,
        "lint",
        help="check the case corpus",
        description=(
            "Check case files: schemas, rule IDs, unique case IDs, card sections, and that every "
            "rule is cited. With --cr, every CR number must exist in that Comprehensive Rules "
            "text or index; with --cards, every card fact (name, set, collector number, source "
            "ID) must agree with that card data CSV. Both files are your own copies: the suite "
            "ships neither. Without them those two checks are skipped, and the output says so."
        ),
        epilog=(
            "examples:\n"
            "  cardid lint\n"
            "  cardid lint --cases my-cases/ --cr MagicCompRules.txt --cards cards.csv\n"
            "\n"
            "exit codes: 0 clean, 1 problems found, 2 usage error, 3 the suite's own files are broken"
        ),
    )
    linting.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR)
    linting.add_argument("--cr", type=options.input_file, metavar="PATH", help="CR text or index to check citations against")
    linting.add_argument("--cards", type=options.input_file, metavar="PATH", help="card data CSV to check card facts against")
    return linting


def _perform(args: argparse.Namespace, context: Context) -> int:
    return lint_cases(args.cases, cr=args.cr, cards=args.cards)


COMMAND = Command("lint", _declare, _perform)


def lint_cases(cases: Path, *, cr: Path | None, cards: Path | None) -> int:
    """Lint the case files of `cases`, their CR numbers against `cr` and their card facts
    against `cards` when given; print the problems, or what was checked and what was not."""
    spec = load_spec()
    corpus = load_corpus(case_files(cases), spec)
    cr_numbers = load_cr_numbers(cr) if cr else None
    problems = lint(
        corpus,
        spec,
        cr_numbers=cr_numbers,
        cards_csv=cards,
        coverage=cases.resolve() == suite.CASES_DIR.resolve(),
    )
    for problem in problems:
        say(f"{problem}", sys.stderr)
    checked = ["schemas", "rule IDs", "unique IDs"]
    checked += ["CR numbers"] if cr_numbers else []
    checked += ["card facts"] if cards else []
    unchecked = [] if cr_numbers else ["CR numbers (no --cr)"]
    unchecked += [] if cards else ["card facts (no --cards)"]
    skipped = f"; not checked: {', '.join(unchecked)}" if unchecked else ""
    if problems:
        emit(f"lint: {len(problems)} problem(s) in {len(corpus.cases) + len(corpus.bugs)} case files", sys.stderr)
        return Exit.FAILED
    emit(f"lint: {len(corpus.cases)} cases clean ({', '.join(checked)} checked{skipped})")
    return Exit.OK
