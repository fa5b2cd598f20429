"""The Markdown report: a short summary suited to a CI job's summary page.

Text from the implementation or a case file goes through `escape.markdown_cell`: no control
character, and nothing Markdown or HTML would act on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from cardid_conformance import escape
from cardid_conformance.cases import Case
from cardid_conformance.console import summary_lines
from cardid_conformance.outcome import CaseBug, Errored, ExpectedFailure, Failed, Outcome
from cardid_conformance.report import RunInfo, run_verdict, summary
from cardid_conformance.spec import Spec


def _cell(text: str) -> str:
    return escape.markdown_cell(text)


def _case(case_id: str) -> str:
    """A case ID as code; a case bug's path, which may hold anything, as escaped text."""
    return f"`{case_id}`" if re.fullmatch(r"[a-z0-9-]+", case_id) else _cell(case_id)


def to_markdown(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo, spec: Spec
) -> str:
    """Render the run as Markdown: verdict, counts, and a table of cases that did not pass."""
    v = run_verdict(outcomes, cases, info)
    counts = summary(outcomes)
    name = info.name or info.command
    icon = "✅" if v.conforming and v.accepted else "⚠️" if v.accepted else "❌"
    lines = [
        f"## {icon} card-identity conformance: {_cell(name)}"
        + (f" {_cell(info.version)}" if info.version else ""),
        "",
        f"**{_cell(v.text(spec.version))}**",
        "",
        f"Spec {spec.version}, suite {_cell(info.suite_version or 'unknown')}"
        + (f" ({_cell(info.suite_commit[:12])})" if info.suite_commit else "")
        + f", {counts['total']} cases, {info.mode} mode, command {_cell(info.command)}"
        + (" (interrupted)" if info.interrupted else "")
        + (f" ({counts['not_run']} not run: the run stopped early)" if counts["not_run"] else "")
        + ".",
        "",
        "| passed | failed | errored | skipped | not applicable | known failures | case bugs |",
        "|---|---|---|---|---|---|---|",
        (
            f"| {counts['passed']} | {counts['failed']} | {counts['errored']} | {counts['skipped']} "
            f"| {counts['not_applicable']} | {counts['expected_failures']} | {counts['case_bugs']} |"
        ),
        "",
    ]
    if info.generated is not None:
        lines += [f"Generated games: {_cell(info.generated.headline())}.", ""]
        lines += [f"- {_cell(d.line())}" for d in info.generated.disagreements[:20]]
        lines += [""] if info.generated.disagreements else []
    rows = []
    for outcome in outcomes:
        match outcome:
            case Failed(level=level, differences=differences):
                first = differences[0]
                rows.append((outcome.case_id, level.name, first.rule, first.message))
            case Errored(level=level, reason=reason):
                rows.append((outcome.case_id, level.name, "errored", reason))
            case CaseBug(reason=reason):
                rows.append((outcome.case_id, "-", "case bug", reason))
            case ExpectedFailure(reason=reason):
                rows.append((outcome.case_id, "-", "known failure", reason))
    if rows:
        lines += ["| case | level | rule | what |", "|---|---|---|---|"]
        lines += [
            f"| {_case(case_id)} | {level} | {_cell(rule)} | {_cell(what)} |"
            for case_id, level, rule, what in rows
        ]
        lines.append("")
    for problem in info.known_failure_problems:
        lines.append(f"- ❌ known-failure file: {_cell(problem)}")
    lines += ["```", *summary_lines(outcomes, cases, spec, info), "```", ""]
    return "\n".join(lines)
