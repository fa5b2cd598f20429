"""The console report: one line per failure, a summary by rule family and level, the verdict.

Every line is `escape.visible`: what an implementation wrote can neither repaint the terminal
nor forge a line.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from cardid_conformance import escape
from cardid_conformance.cases import Case
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    Outcome,
    Passed,
    Skipped,
    status,
)
from cardid_conformance.report import failure_level, summary, verdict
from cardid_conformance.spec import Level, Spec


def failure_lines(outcome: Outcome, rerun: str | None, *, verbose: bool = True) -> list[str]:
    """The lines for one case that did not pass (none for passes and skips)."""
    match outcome:
        case Failed(level=level, differences=differences):
            head = "FAIL" if level is Level.MUST else "WARN"
            lines = [f"{head} [{level.name}] {outcome.case_id}: [{differences[0].rule}] {differences[0].message}"]
            if verbose:
                for line in differences[0].context:
                    lines.append(f"      {line}")
                for extra in differences[1:]:
                    lines.append(f"      also [{extra.rule}] {extra.message}")
        case Errored(level=level, reason=reason, stderr=stderr):
            lines = [f"ERROR [{level.name}] {outcome.case_id}: {reason}"]
            if verbose and stderr.strip():
                tail = stderr.strip().splitlines()[-3:]
                lines += [f"      stderr: {line}" for line in tail]
        case CaseBug(reason=reason):
            lines = [f"BUG IN CASE {outcome.case_id}: {reason}"]
        case ExpectedFailure(reason=reason):
            lines = [f"XFAIL {outcome.case_id}: known failure: {reason}"]
        case Passed() | Skipped():
            return []
    if rerun and not isinstance(outcome, CaseBug):
        lines.append(f"      rerun: {rerun}")
    return [escape.visible(line) for line in lines]


def summary_lines(outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec) -> list[str]:
    """Counts by status, a table by rule family and level, and the verdict."""
    counts = summary(outcomes)
    lines = [
        ", ".join(
            f"{counts[key]} {word}"
            for key, word in (
                ("passed", "passed"),
                ("failed", "failed"),
                ("errored", "errored"),
                ("skipped", "skipped"),
                ("expected_failures", "known failures"),
                ("case_bugs", "case bugs"),
            )
            if counts[key] or key in ("passed", "failed")
        )
        + f" ({counts['total']} cases)"
    ]
    table: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for outcome in outcomes:
        case = cases.get(outcome.case_id)
        if case is None:
            continue
        level = failure_level(outcome)
        word = {None: status(outcome), Level.MUST: "failing", Level.SHOULD: "warning"}.get(level, "other")
        for key in sorted({(rule.split("-", 1)[0], spec.rule(rule).level.name) for rule in case.rules}):
            table[key][word] += 1
            table[key]["total"] += 1
    if table:
        lines.append("by rule family and level (cases citing a rule of that family and level):")
        for (family, level_name), row in sorted(table.items()):
            extra = ", ".join(
                f"{row[word]} {word}"
                for word in ("failing", "warning", "errored", "skipped", "expected-failure")
                if row[word]
            )
            lines.append(
                f"  {family:<6} {level_name:<6} {row['passed']:>3}/{row['total']:<3} passed"
                + (f", {extra}" if extra else "")
            )
    v = verdict(outcomes)
    if v.conforming:
        word = "CONFORMING"
        if v.should_failures:
            word += f" (with {v.should_failures} SHOULD warnings)"
    else:
        reasons = [f"{v.must_failures} MUST case(s) failed"] if v.must_failures or v.judged else []
        if v.judged == 0:
            reasons.append("no case was judged (every case was skipped or errored)")
        if any(isinstance(o, CaseBug) for o in outcomes):
            reasons.append("the corpus has case bugs")
        word = "NOT CONFORMING: " + "; ".join(reasons)
    if counts["skipped"] and v.conforming:
        word += f" ({counts['skipped']} case(s) skipped: roles the implementation does not support)"
    lines.append(f"verdict: {word} against card-identity spec {spec.version}")
    if v.known_failures_used:
        lines.append(f"known failures used: {', '.join(v.known_failures_used)}")
    return [escape.visible(line) for line in lines]
