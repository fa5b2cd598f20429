"""`cardid rules [RULE]`: the spec's rules, one per line, or one rule (or family) in full.

The list comes from the index (spec/rules.yaml); a rule's text from the prose that states it
(spec/*.md, conformance/prose.py), and the cases citing it from the corpus.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from cardid_conformance import escape, suite
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.prose import RuleText, rule_texts
from cardid_conformance.spec import Rule, Spec, load_spec
from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import emit, show_line

_EPILOG = """\
examples:
  cardid rules                 every rule: ID, level, family, summary
  cardid rules LIB-2           one rule: its text, level, CR numbers and the cases citing it
  cardid rules NAME            every rule of the NAME family, in full

exit status: 0 shown, 2 unknown rule or family (or a bad option), 3 the suite's own files
are broken
"""


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid rules`: its parser."""
    parser = options.add_command(
        commands,
        "rules",
        help="list the spec's rules, or show one with its text and the cases citing it",
        description=(
            "Without RULE, list every rule of the spec (spec/rules.yaml) on one line: "
            "ID, level, family and summary. With a rule ID (ID-3) or a family (LIB), show each "
            "such rule in full: its level, decision 0002 item, Comprehensive Rules numbers, its "
            "text from the spec prose, and the cases that cite it (ID, role, file)."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("rule", nargs="?", metavar="RULE", help="a rule ID (ID-3) or family (LIB)")
    parser.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR, metavar="DIR",
                        help="the case directory (or file) whose citations are listed")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return show_rules(args.rule, args.cases)


COMMAND = Command("rules", _declare, _perform)


def show_rules(wanted: str | None, cases: Path) -> int:
    """List the rules, or show the one (or the family) asked for, with the cases of `cases`
    citing each."""
    spec = load_spec()
    if wanted is None:
        for line in list_lines(spec):
            emit(line)
        return 0
    chosen = select(spec, wanted)
    corpus = load_corpus(case_files(cases), spec)
    texts = rule_texts()
    lines: list[str] = []
    if len(chosen) > 1 or chosen[0].family == wanted.upper():
        family = chosen[0].family
        lines += [f"family {family}: {spec.families.get(family, '')} ({len(chosen)} rules)", ""]
    for index, rule in enumerate(chosen):
        if index:
            lines.append("")
        lines += rule_lines(spec, rule, texts.get(rule.id), corpus.cases)
    for line in lines:
        show_line(line)
    if corpus.bugs:
        emit(
            f"note: {len(corpus.bugs)} case file(s) could not be read, so their citations are "
            "not listed (`cardid lint` names them)",
            sys.stderr,
        )
    return 0


def list_lines(spec: Spec) -> list[str]:
    """One line per rule, in the index's order: ID, level, family, summary."""
    width = max(len(rule_id) for rule_id in spec.rules)
    family_width = max(len(family) for family in spec.families)
    return [
        escape.show(f"{rule.id:<{width}}  {rule.level.name:<6}  {rule.family:<{family_width}}  {rule.summary}")
        for rule in spec.rules.values()
    ]


def select(spec: Spec, wanted: str) -> list[Rule]:
    """The rule with this ID, or every rule of this family (letters' case ignored)."""
    key = wanted.upper()
    if key in spec.rules:
        return [spec.rules[key]]
    family = [rule for rule in spec.rules.values() if rule.family == key]
    if family:
        return family
    raise UsageError(
        f"cardid rules: unknown rule {wanted}; rules are {', '.join(spec.rules)}; "
        f"families are {', '.join(spec.families)}",
        hint="`cardid rules` lists every rule with its summary",
    )


def rule_lines(spec: Spec, rule: Rule, text: RuleText | None, cases: Sequence[Case]) -> list[str]:
    """One rule in full: what the index says, the prose, and the cases citing it."""
    lines = [
        f"{rule.id} · {rule.level.name} · family {rule.family} ({spec.families.get(rule.family, '')})",
        f"level {rule.level.name}; decision 0002 item {rule.item}; CR {', '.join(rule.cr) or 'none'}",
    ]
    if text is None:
        lines += ["", f"  {rule.summary}", "", "  (the spec prose does not state this rule: only its summary is known)"]
    else:
        lines += [f"stated in {_shown(text.path)}:{text.line}", ""]
        lines += [f"  {line}" if line else "" for line in text.text.splitlines()]
    citing = [case for case in cases if rule.id in case.rules]
    lines.append("")
    if not citing:
        lines.append("cited by no case")
        return lines
    lines.append(f"cited by {len(citing)} case(s):")
    id_width = max(len(case.id) for case in citing)
    for case in citing:
        lines.append(f"  {case.id:<{id_width}}  {case.role:<6}  {_shown(case.path)}")
    return lines


def _shown(path: Path) -> str:
    """A path as the suite's files are named (spec/..., cases/...), else as given."""
    try:
        return str(path.resolve().relative_to(suite.ROOT.resolve()))
    except ValueError:
        return str(path)
