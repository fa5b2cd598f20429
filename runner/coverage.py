"""`cardid coverage`: each rule of the spec with the cases citing it and the mutants aimed at it.

For case authors: a MUST rule with fewer than two cases, or one no mutant is aimed at, is where
the corpus is thin. A mutant is aimed at a rule its docstring names (runner/mutantmatrix.py);
whether a case catches it is judged as `cardid mutants` judges it, up to the first catching case.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardid_conformance import suite
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.spec import Level, Rule, load_spec
from cardid_runner import options
from cardid_runner.mutants import columns, first_few
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import emit, show_line

if TYPE_CHECKING:
    from cardid_runner.mutantmatrix import Matrix

#: A MUST rule needs at least this many cases citing it.
MIN_CASES = 2
FEW_CASES = "fewer than two cases"
NO_MUTANT = "no mutant"

_EPILOG = """\
examples:
  cardid coverage                   every rule: level, cases, mutants (caught), flags
  cardid coverage --json            the same as JSON
  cardid coverage --cases my-cases/ the coverage of your own cases

--json prints {"rules": [{"rule", "level", "summary", "cases", "mutants", "caught", "flags"},
...], "contract": [{"rule", "mutants", "caught"}, ...], "few_cases": [rule IDs],
"no_mutant": [rule IDs]}: "cases" lists the IDs of the cases citing the rule, "mutants" the
names of the mutants aimed at it, "caught" those of them some case catches, "flags" any of
"fewer than two cases" and "no mutant" (MUST rules only); "contract" gives the same for the
adapter-contract rules (C-n) mutants name.

exit status: 0 every MUST rule has two cases or more, 1 some MUST rule has fewer (listed at the
end), 2 a bad option, 3 the suite's own files are broken
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleCoverage:
    """One rule: the cases citing it, the mutants aimed at it, and those of them caught."""

    rule: str
    level: Level | None
    summary: str
    cases: tuple[str, ...]
    mutants: tuple[str, ...]
    caught: tuple[str, ...]

    @property
    def flags(self) -> tuple[str, ...]:
        """What is thin about a MUST rule: fewer than two cases, no mutant aimed at it."""
        if self.level is not Level.MUST:
            return ()
        few = (FEW_CASES,) if len(self.cases) < MIN_CASES else ()
        return few + (() if self.mutants else (NO_MUTANT,))


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid coverage`: its parser."""
    parser = options.add_command(
        commands,
        "coverage",
        help="show each rule's cases and the mutants aimed at it",
        description=(
            "For each rule of the spec (spec/rules.yaml): its level, the cases citing it (how "
            "many, and the first few IDs), and the mutants aimed at it (those naming it: how "
            "many, how many of them some case catches, and their names). MUST rules with fewer "
            "than two cases, and MUST rules no mutant is aimed at, are flagged and listed at the "
            "end."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR, metavar="DIR",
                        help="the case directory (or file) whose citations are counted")
    parser.add_argument("--json", action="store_true", help="print the coverage as JSON")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return show_coverage(args.cases, in_json=args.json)


COMMAND = Command("coverage", _declare, _perform)


def show_coverage(cases: Path, *, in_json: bool) -> int:
    """Print each rule's coverage by the cases of `cases` (as JSON with `in_json`); 1 when a
    MUST rule has fewer than two cases."""
    from cardid_runner.mutantmatrix import Matrix, is_contract  # see mutants.show_mutants

    spec = load_spec()
    corpus = load_corpus(case_files(cases), spec)
    matrix = Matrix(spec, corpus.cases)
    aimed = aimed_at(matrix)
    rules = [coverage_of(rule, corpus.cases, aimed.get(rule.id, ()), matrix) for rule in spec.rules.values()]
    contract = [_contract(rule_id, names, matrix) for rule_id, names in aimed.items() if is_contract(rule_id)]
    if in_json:
        emit(json.dumps(as_json(rules, contract), indent=2))
    else:
        for line in table_lines(rules, contract):
            show_line(line)
    if corpus.bugs:
        emit(
            f"note: {len(corpus.bugs)} case file(s) could not be read, so their citations are "
            "not counted (`cardid lint` names them)",
            sys.stderr,
        )
    return 1 if any(FEW_CASES in rule.flags for rule in rules) else 0


def aimed_at(matrix: Matrix) -> Mapping[str, tuple[str, ...]]:
    """The mutants aimed at each rule (those naming it), by rule ID, contract rules included."""
    from cardid_reference.mutants import MUTANTS  # see mutants.show_mutants

    aimed: dict[str, list[str]] = {}
    for name in MUTANTS:
        for rule_id in matrix.rules(name):
            aimed.setdefault(rule_id, []).append(name)
    return {rule_id: tuple(names) for rule_id, names in aimed.items()}


def coverage_of(rule: Rule, cases: Sequence[Case], mutants: Sequence[str], matrix: Matrix) -> RuleCoverage:
    """One rule's coverage: the cases citing it, and which mutants aimed at it are caught."""
    return RuleCoverage(
        rule=rule.id,
        level=rule.level,
        summary=rule.summary,
        cases=tuple(case.id for case in cases if rule.id in case.rules),
        mutants=tuple(mutants),
        caught=matrix.caught(mutants),
    )


def _contract(rule_id: str, mutants: Sequence[str], matrix: Matrix) -> RuleCoverage:
    return RuleCoverage(
        rule=rule_id, level=None, summary="adapter contract (spec/adapter-contract.md)", cases=(),
        mutants=tuple(mutants), caught=matrix.caught(mutants),
    )


def table_lines(rules: Sequence[RuleCoverage], contract: Sequence[RuleCoverage]) -> list[str]:
    """One line per rule (then per contract rule mutants name), and the MUST rules flagged."""
    header = ("rule", "level", "cases", "mutants", "flags", "which")
    rows = [_cells(rule) for rule in [*rules, *contract]]
    lines = columns([header, *rows])
    few = [rule.rule for rule in rules if FEW_CASES in rule.flags]
    none = [rule.rule for rule in rules if NO_MUTANT in rule.flags]
    lines.append("")
    lines.append(f"MUST rules with fewer than two cases ({len(few)}): {', '.join(few) or 'none'}")
    lines.append(f"MUST rules no mutant is aimed at ({len(none)}): {', '.join(none) or 'none'}")
    return lines


def _cells(rule: RuleCoverage) -> tuple[str, ...]:
    mutants = f"{len(rule.mutants)} ({len(rule.caught)} caught)" if rule.mutants else "0"
    named = [f"{what}: {first_few(names)}" for what, names in (("cases", rule.cases), ("mutants", rule.mutants))
             if names]
    return (rule.rule, rule.level.name if rule.level else "contract", str(len(rule.cases)), mutants,
            "; ".join(rule.flags) or "-", "; ".join(named))


def as_json(rules: Sequence[RuleCoverage], contract: Sequence[RuleCoverage]) -> dict[str, Any]:
    """The coverage as the JSON `--json` prints (its shape is in the command's help)."""
    return {
        "rules": [_entry(rule) for rule in rules],
        "contract": [{"rule": rule.rule, "mutants": list(rule.mutants), "caught": list(rule.caught)}
                     for rule in contract],
        "few_cases": [rule.rule for rule in rules if FEW_CASES in rule.flags],
        "no_mutant": [rule.rule for rule in rules if NO_MUTANT in rule.flags],
    }


def _entry(rule: RuleCoverage) -> dict[str, Any]:
    return {
        "rule": rule.rule,
        "level": rule.level.name if rule.level else None,
        "summary": rule.summary,
        "cases": list(rule.cases),
        "mutants": list(rule.mutants),
        "caught": list(rule.caught),
        "flags": list(rule.flags),
    }
