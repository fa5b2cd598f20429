"""The console report: one line per failure, a summary by rule family and level, the verdict.

Every line is `escape.show`: what an implementation wrote can neither repaint the terminal
nor forge a line.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from cardid_conformance import escape
from cardid_conformance.cases import Case
from cardid_conformance.causes import root_causes
from cardid_conformance.generate.campaign import Campaign
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    NotApplicable,
    NotRun,
    Outcome,
    Passed,
    Skipped,
    status,
)
from cardid_conformance.report import RunInfo, run_verdict, summary
from cardid_conformance.spec import Level, Spec
from cardid_conformance.verdict import failure_level

#: How many root causes the summary lists, largest first.
ROOT_CAUSES_SHOWN = 8
#: How many of the last lines of an implementation's standard error a failure shows (a Node.js
#: or Java stack trace puts the exception's name well above its last line).
STDERR_LINES = 20


def failure_lines(
    outcome: Outcome,
    rerun: str | None,
    *,
    case: Case | None = None,
    spec: Spec | None = None,
    verbose: bool = True,
) -> list[str]:
    """The lines for one case that did not pass (none for passes and skips): the first line
    names the case and what went wrong; with `case` and `spec` the lines under it name the
    rule's summary and the case file."""
    rule_id: str | None = None
    match outcome:
        case Failed(level=level, differences=differences):
            head = "FAIL" if level is Level.MUST else "WARN"
            rule_id = differences[0].rule
            lines = [f"{head} [{level.name}] {outcome.case_id}: [{rule_id}] {differences[0].message}"]
            if verbose:
                for line in differences[0].context:
                    lines.append(f"      {line}")
                for extra in differences[1:]:
                    lines.append(f"      also [{extra.rule}] {extra.message}")
        case Errored(level=level, reason=reason, stderr=stderr):
            head = "ERROR" if level is Level.MUST else "WARN"
            lines = [f"{head} [{level.name}] {outcome.case_id}: " + ("" if level is Level.MUST else "errored: ") + reason]
            if verbose and stderr.strip():
                kept = stderr.strip().splitlines()
                tail = kept[-STDERR_LINES:]
                if len(kept) > len(tail):
                    lines.append(f"      stderr (last {len(tail)} of {len(kept)} lines; the report keeps more):")
                lines += [f"      stderr: {line}" for line in tail]
        case CaseBug(reason=reason):
            lines = [f"BUG IN CASE {outcome.case_id}: {reason}"]
        case ExpectedFailure(reason=reason, failure=failure):
            lines = [f"XFAIL {outcome.case_id}: known failure: {reason}"]
            # What it does today, so that a changed failure under an old entry is seen.
            if isinstance(failure, Failed):
                rule_id = failure.differences[0].rule
                lines.append(f"      now: [{rule_id}] {failure.differences[0].message}")
            elif isinstance(failure, Errored):
                lines.append(f"      now: errored: {failure.reason}")
        case Passed() | Skipped() | NotApplicable() | NotRun():
            return []
    if verbose and case is not None and spec is not None and not isinstance(outcome, CaseBug):
        rid = rule_id if rule_id in spec.rules else next((r for r in case.rules if r in spec.rules), None)
        if rid is not None:
            rule = spec.rule(rid)
            lines.append(f"      rule {rid} ({rule.level.name}): {rule.summary}")
        lines.append(f"      case file: {_shown(case.path)}")
    if rerun and not isinstance(outcome, CaseBug):
        lines.append(f"      rerun: {rerun}")
    return [escape.show(line) for line in lines]


def _shown(path: Path) -> str:
    """A path as short as it can be: relative to the current directory when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return str(path)


def _family_cells(outcome: Outcome, case: Case, spec: Spec) -> dict[tuple[str, str], str]:
    """Where a case counts in the family table, and as what: a failure (listed as known or
    not) under the family and level of each rule it broke, as report.html's matrix counts it;
    any other case under those of each rule it cites."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    if isinstance(inner, Failed):
        broken = {(spec.rule(d.rule).family, spec.rule(d.rule).level.name) for d in inner.differences}
        known = isinstance(outcome, ExpectedFailure)
        return {
            key: "expected-failure" if known else ("failing" if key[1] == Level.MUST.name else "warning")
            for key in broken
        }
    level = failure_level(outcome)
    word = {None: status(outcome), Level.MUST: "failing", Level.SHOULD: "warning"}.get(level, "other")
    return {(spec.rule(rule).family, spec.rule(rule).level.name): word for rule in case.rules}


def identity_lines(info: RunInfo) -> list[str]:
    """What was tested and with which suite: the first thing a reader of a run needs."""
    name = f"{info.name} {info.version}" if info.name else "(no handshake: name and version unknown)"
    suite_text = f"cardid {info.suite_version or 'unknown'}"
    if info.suite_commit:
        suite_text += f" (commit {info.suite_commit[:12]}{'+modified' if info.suite_commit.endswith('+modified') else ''})"
    lines = [
        f"implementation: {name}, {info.mode} mode, command: {info.command}",
        f"suite: {suite_text}, card-identity spec {info.spec_version}, cases {info.cases_dir}",
    ]
    return [escape.show(line) for line in lines]


#: How many disagreements of the generated games the console shows (the JSON report has all).
GENERATED_SHOWN = 5


def generated_lines(campaign: Campaign, command: str) -> list[str]:
    """The generated games (--generated), apart from the corpus: how many, and the first
    disagreements, each with the command that replays it."""
    lines = [f"generated: {campaign.headline()}"]
    for disagreement in campaign.disagreements[:GENERATED_SHOWN]:
        lines.append(f"  {disagreement.line()}")
    if len(campaign.disagreements) > GENERATED_SHOWN:
        lines.append(f"  ... and {len(campaign.disagreements) - GENERATED_SHOWN} more (the JSON report has every one)")
    if campaign.disagreements:
        impl = [] if command == "cardid reference" else ["--impl", command]
        replay = shlex.join(["cardid", "fuzz", *impl, "--seed", str(campaign.disagreements[0].seed), "--games", "1"])
        lines.append(f"  replay the first: {replay}; --out DIR writes each as a shrunk case (docs/generated-games.md)")
    return lines


def summary_lines(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec, info: RunInfo
) -> list[str]:
    """Counts by status, a table of cases by the rule family and level they cite, and the
    verdict."""
    counts = dict(summary(outcomes))
    v = run_verdict(outcomes, cases, info)
    # A SHOULD failure (failed or errored) is a warning, counted apart from the failures.
    for outcome in outcomes:
        if isinstance(outcome, Failed | Errored) and outcome.level is not Level.MUST:
            counts["failed" if isinstance(outcome, Failed) else "errored"] -= 1
            counts["warnings"] = counts.get("warnings", 0) + 1
    lines = [
        ", ".join(
            f"{counts.get(key, 0)} {word}"
            for key, word in (
                ("passed", "passed"),
                ("failed", "failed"),
                ("warnings", "SHOULD warnings"),
                ("errored", "errored"),
                ("skipped", "skipped"),
                ("not_applicable", "not applicable"),
                ("not_run", "not run"),
                ("expected_failures", "known failures"),
                ("case_bugs", "case bugs"),
            )
            if counts.get(key) or key in ("passed", "failed")
        )
        + f" ({counts['total']} cases)"
    ]
    causes = root_causes(outcomes)
    if len(causes) > 1 or (causes and len(causes[0].cases) > 1):
        lines.append("failures by root cause (each case's first difference):")
        lines += [f"  {cause.text()}" for cause in causes[:ROOT_CAUSES_SHOWN]]
        if len(causes) > ROOT_CAUSES_SHOWN:
            lines.append(f"  ... and {len(causes) - ROOT_CAUSES_SHOWN} more (the JSON report has every difference)")
    table: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for outcome in outcomes:
        case = cases.get(outcome.case_id)
        if case is None:
            continue
        for key, word in _family_cells(outcome, case, spec).items():
            table[key][word] += 1
            table[key]["total"] += 1
    if table:
        lines.append(
            "cases by rule family and level: a failure under the rules it broke, any other case "
            "under the rules it cites (as in report.html; a case may count in several rows):"
        )
        for (family, level_name), row in sorted(table.items()):
            extra = ", ".join(
                f"{row[word]} {label}"
                for word, label in (
                    ("failing", "failing"),
                    ("warning", "SHOULD warnings"),
                    ("errored", "errored"),
                    ("skipped", "skipped"),
                    ("not-applicable", "not applicable"),
                    ("not-run", "not run"),
                    ("expected-failure", "known failures"),
                )
                if row[word]
            )
            lines.append(
                f"  {family:<6} {level_name:<6} {row['passed']:>3} of {row['total']:<3} cases passed"
                + (f", {extra}" if extra else "")
            )
    if info.fallback_reason is not None:
        lines.append(
            f"note: every case ran in a process of its own (slower), since persistent mode was not "
            f"used: {info.fallback_reason}"
        )
    if info.generated is not None:
        lines += generated_lines(info.generated, info.command)
    lines.append(f"verdict: {v.text(spec.version)}")
    if v.known_failures_used:
        lines.append(f"known failures used: {', '.join(v.known_failures_used)}")
    return [escape.show(line) for line in lines]
