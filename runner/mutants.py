"""`cardid mutants [NAME ...]`: the catalogue of deliberately wrong implementations, against the
corpus: which cases catch each one, honestly (runner/mutantmatrix.py says what catching is).

For case authors: a mutant no case catches is a wrong behaviour the corpus lets through, and a
case that catches one proves something.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardid_conformance import suite
from cardid_conformance.cases import Corpus, case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.spec import load_spec
from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import emit, show_line

if TYPE_CHECKING:
    from cardid_runner.mutantmatrix import Matrix, MutantRow

#: Case IDs a table row names before it says how many more there are.
SHOWN = 3

_EPILOG = """\
examples:
  cardid mutants                          every mutant, caught or not, and by which cases
  cardid mutants renew-every-move         one mutant
  cardid mutants --cases my-cases/ --json the matrix of your own cases, as JSON

A mutant is caught by a case when the case fails it at a rule the mutant names (its docstring's
parentheses; an ending event E<n> stands for its rule), or errors on it when the mutant names a
contract rule (C-<n>); a case the reference does not pass catches nothing.

--json prints {"mutants": [{"name", "role", "summary", "rules", "caught", "caught_by",
"cited_instead", "errored"}, ...], "not_caught": [names], "totals": {"mutants", "caught",
"not_caught", "cases"}}; "caught_by" lists every catching case's ID, "cited_instead" the rules
its failures cite that it does not name, "errored" how many of its cases errored.

exit status: 0 every mutant shown is caught, 1 some are not (listed after the table), 2 an
unknown mutant or a bad option, 3 the suite's own files are broken
"""


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid mutants`: its parser."""
    parser = options.add_command(
        commands,
        "mutants",
        help="list the deliberately wrong implementations and the cases that catch each",
        description=(
            "Judge each mutant (a deliberately wrong implementation, cardid_reference.mutants: "
            "the reference with one behaviour broken) on every case of the role it breaks, "
            "in-process, and print one line per mutant: its name, role, the rules it names, "
            "whether a case catches it, and how many cases do (with the first few IDs). A "
            "mutant is caught only by a failure citing a rule it names. The last line gives "
            "the totals."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="mutants to show (default: all)")
    parser.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR, metavar="DIR",
                        help="the case directory (or file) to judge the mutants on")
    parser.add_argument("--json", action="store_true", help="print the matrix as JSON")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return show_mutants(args.names, args.cases, in_json=args.json)


COMMAND = Command("mutants", _declare, _perform)


def show_mutants(wanted: Sequence[str], cases: Path, *, in_json: bool) -> int:
    """Judge the mutants asked for (all when none is) on the cases of `cases` and print their
    rows (as JSON with `in_json`); 1 when some are not caught."""
    # Imported here, as `cardid reference` imports the reference: the other commands reach it
    # only through the adapter contract, and never load it.
    from cardid_runner.mutantmatrix import Matrix

    names = checked_names(wanted)
    spec = load_spec()
    corpus = load_corpus(case_files(cases), spec)
    matrix = Matrix(spec, corpus.cases)
    rows = [matrix.row(name) for name in names]
    if in_json:
        emit(json.dumps(as_json(rows, len(corpus.cases)), indent=2))
    else:
        for line in table_lines(rows, len(corpus.cases)):
            show_line(line)
    notes(corpus, matrix)
    return 0 if all(row.caught for row in rows) else 1


def checked_names(wanted: Sequence[str]) -> list[str]:
    """The mutants named (all when none is), each known; an unknown one is a usage error."""
    from cardid_reference.mutants import MUTANTS  # see show_mutants()

    for name in wanted:
        if name not in MUTANTS:
            close = difflib.get_close_matches(name, list(MUTANTS), n=3)
            maybe = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(
                f"cardid mutants: unknown mutant {name!r}{maybe}",
                hint="`cardid mutants` with no name shows every mutant",
            )
    return list(dict.fromkeys(wanted)) if wanted else list(MUTANTS)


def table_lines(rows: Sequence[MutantRow], cases: int) -> list[str]:
    """One line per mutant, the mutants not caught with why, and a line of totals."""
    header = ("mutant", "role", "rules", "caught", "cases")
    cells = [(row.name, row.role, ", ".join(row.rules), "yes" if row.caught else "NO", _cases(row))
             for row in rows]
    lines = columns([header, *cells])
    missed = [row for row in rows if not row.caught]
    if missed:
        lines += ["", f"not caught ({len(missed)}): no case fails them at a rule they name"]
        lines += [f"  {row.name} ({', '.join(row.rules) or 'no rule named'}): {why_not(row)}" for row in missed]
    lines.append(f"{len(rows)} mutant{'' if len(rows) == 1 else 's'}: {len(rows) - len(missed)} caught, "
                 f"{len(missed)} not caught ({cases} cases)")
    return lines


def columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as aligned lines: each column as wide as its widest cell, the last one
    left as it is."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)), row[-1]])
            for row in rows]


def _cases(row: MutantRow) -> str:
    return f"{len(row.caught_by)}: {first_few(row.caught_by)}" if row.caught_by else "0"


def first_few(names: Sequence[str]) -> str:
    """The first SHOWN names, and how many more there are."""
    more = f", ... (+{len(names) - SHOWN})" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def why_not(row: MutantRow) -> str:
    """What a mutant's outcomes show, when no case catches it."""
    parts = []
    if row.cited_instead:
        parts.append(f"its failures cite only {', '.join(row.cited_instead)}")
    if row.errored:
        parts.append(f"it errors on {row.errored} case(s), which catches only a contract (C-n) mutant")
    return "; ".join(parts) or f"it passes every {row.role} case"


def as_json(rows: Sequence[MutantRow], cases: int) -> dict[str, Any]:
    """The rows as the JSON `--json` prints (its shape is in the command's help)."""
    missed = [row.name for row in rows if not row.caught]
    return {
        "mutants": [
            {
                "name": row.name,
                "role": row.role.value,
                "summary": row.summary,
                "rules": list(row.rules),
                "caught": row.caught,
                "caught_by": list(row.caught_by),
                "cited_instead": list(row.cited_instead),
                "errored": row.errored,
            }
            for row in rows
        ],
        "not_caught": missed,
        "totals": {"mutants": len(rows), "caught": len(rows) - len(missed), "not_caught": len(missed),
                   "cases": cases},
    }


def notes(corpus: Corpus, matrix: Matrix) -> None:
    """Say on standard error what the matrix left out: unreadable case files, and cases the
    reference does not pass (which catch nothing)."""
    if corpus.bugs:
        emit(
            f"note: {len(corpus.bugs)} case file(s) could not be read and were left out "
            "(`cardid lint` names them)",
            sys.stderr,
        )
    unsound = matrix.unsound()
    if unsound:
        emit(
            f"note: the reference does not pass {len(unsound)} case(s), which catch no mutant: "
            + ", ".join(case.id for case in unsound),
            sys.stderr,
        )
