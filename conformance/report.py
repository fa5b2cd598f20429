"""Run reports: summary, verdict, and the JSON form validated by schema/report.schema.json."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cardid_conformance import escape
from cardid_conformance.cases import Case, CaseChange, Role
from cardid_conformance.compare import Difference
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
    Status,
    status,
)
from cardid_conformance.spec import Level, Spec

#: The roles a case can test, in the order reports name them.
ROLES = tuple(Role)
#: The source formats a run can be declared for (--source), as reports spell them.
SOURCE_NAMES = {"arena": "Arena", "mtgo": "MTGO"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What a run says about the implementation, in two parts that are never confused.

    `conforming` is the claim: no MUST case fails (listed as a known failure or not), the
    corpus has no case bugs, and some case was judged. `accepted` is the gate the exit code
    follows: no MUST failure beyond the listed known failures, no case bug, some case judged,
    and a known-failure file without problems. Neither holds for a run that was interrupted,
    stopped early, or whose case files changed while it went on. A parser with known MUST bugs is accepted
    (exit 0) and not conforming, and every report says both. SHOULD failures are warnings:
    counted, shown, never failing the run.
    """

    conforming: bool
    accepted: bool
    #: MUST failures (failed or errored) that no known-failure entry lists.
    must_failures: int
    #: MUST failures that the known-failure file lists.
    known_must_failures: int = 0
    #: SHOULD failures, listed or not: warnings.
    should_failures: int = 0
    known_failures_used: tuple[str, ...] = ()
    #: Cases judged on an answer (passed or failed, known failures included): a run that judged
    #: none (every case skipped or errored) says nothing about conformance, and is not conforming.
    judged: int = 0
    #: Roles with a judged case: the roles the verdict speaks for.
    roles: tuple[Role, ...] = ()
    #: Roles whose selected cases were all skipped (the implementation does not support them).
    untested_roles: tuple[Role, ...] = ()
    skipped: int = 0
    case_bugs: int = 0
    known_failure_problems: int = 0
    #: (cases selected, cases in the corpus) when the run was a selection, else None.
    selection: tuple[int, int] | None = None
    #: The run was interrupted: it shows nothing about the cases it did not reach.
    interrupted: bool = False
    #: The folder the cases came from, when it is not the suite's own corpus.
    cases_from: str | None = None
    #: (results taken from an earlier report, that report's path), when a run resumed one.
    resumed: tuple[int, str] | None = None
    #: The source format the run was declared for (--source), and the cases it cannot express.
    source: str | None = None
    not_applicable: int = 0
    #: Cases the run stopped before (an implementation that fails at start-up): it shows
    #: nothing about them.
    not_run: int = 0
    #: (games played, disagreements) when the run added generated games (--generated).
    generated: tuple[int, int] | None = None
    #: The cases whose file changed while the run went on (`reader-x edited`): judged as they
    #: were, which is no longer the corpus.
    corpus_changed: tuple[str, ...] = ()

    def text(self, spec_version: str) -> str:
        """The verdict as one sentence, the same in every report."""
        against = f"against card-identity spec {spec_version}"
        notes: list[str] = []
        roles = _roles_phrase(self.roles, self.source)
        if self.conforming:
            head = f"CONFORMING as {roles} {against}"
            if self.should_failures:
                notes.append(f"{self.should_failures} SHOULD warning(s)")
        else:
            reasons: list[str] = []
            must = self.must_failures + self.known_must_failures
            if must:
                reason = f"{must} MUST case(s) fail"
                if self.known_must_failures:
                    reason += f", {self.known_must_failures} of them listed as known failures"
                reasons.append(reason)
            if self.judged == 0:
                reasons.append("no case was judged (every case was skipped or errored)")
            if self.interrupted:
                reasons.append("the run was interrupted before every selected case ran")
            if self.not_run:
                reasons.append(f"{self.not_run} case(s) not run: the run stopped early")
            if self.generated is not None and self.generated[1]:
                reasons.append(f"{self.generated[1]} of {self.generated[0]} generated games disagree")
            if self.case_bugs:
                reasons.append(f"the corpus has {self.case_bugs} case bug(s)")
            if self.corpus_changed:
                shown = ", ".join(self.corpus_changed[:3])
                more = f" and {len(self.corpus_changed) - 3} more" if len(self.corpus_changed) > 3 else ""
                reasons.append(f"the corpus changed during the run: {shown}{more}; run again")
            head = f"NOT CONFORMING {against}: " + "; ".join(reasons)
            if self.roles:
                notes.append(f"tested as {roles}")
        if self.untested_roles:
            roles = " and ".join(self.untested_roles)
            notes.append(f"{roles} role not tested: {self.skipped} case(s) skipped")
        if self.source is not None:
            shown = SOURCE_NAMES.get(self.source, self.source)
            notes.append(f"{self.not_applicable} case(s) not applicable: {shown} logs cannot express them")
        if self.selection is not None:
            notes.append(f"a selection of {self.selection[0]} of {self.selection[1]} cases")
        if self.cases_from is not None:
            notes.append(f"cases from {self.cases_from}, not the suite's corpus")
        if self.resumed is not None:
            notes.append(f"{self.resumed[0]} result(s) resumed from {self.resumed[1]}, not run again")
        if self.generated is not None and not self.generated[1]:
            notes.append(f"and {self.generated[0]} generated games, all agreeing")
        if self.accepted and not self.conforming:
            notes.append("accepted: every MUST failure is a listed known failure")
        if self.known_failure_problems:
            notes.append(f"the known-failure file has {self.known_failure_problems} problem(s)")
        return head + (f" ({'; '.join(notes)})" if notes else "")


def _roles_phrase(roles: Sequence[Role], source: str | None = None) -> str:
    """`a writer and a reader`; judged on one source's logs, `an Arena log reader and a
    card-table reader`."""
    if source is None:
        names = [f"a {role}" for role in roles]
    else:
        shown = SOURCE_NAMES.get(source, source)
        article = "an" if shown[0] in "AEIOUM" else "a"  # an Arena, an MTGO
        names = [f"{article} {shown} log reader" if role is Role.WRITER else "a card-table reader"
                 for role in roles]
    return " and ".join(names) if names else "no role"


class Mode(StrEnum):
    """How the implementation ran (adapter contract): one process per case, or one process
    answering request after request; as reports spell it (a StrEnum: each member equals its
    word)."""

    PER_CASE = "per-case"
    PERSISTENT = "persistent"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunInfo:
    """What was run: the implementation as the handshake described it, and the suite."""

    command: str
    spec_version: str
    cases_dir: str
    name: str | None = None
    version: str | None = None
    mode: Mode = Mode.PER_CASE
    interrupted: bool = False
    rerun: Mapping[str, str] = field(default_factory=dict)
    known_failures_file: str | None = None
    known_failure_problems: tuple[str, ...] = ()
    #: How many cases the corpus holds: a run of fewer is a selection, and its verdict says so.
    corpus_size: int | None = None
    suite_version: str | None = None
    suite_commit: str | None = None
    #: suite.cases_sha256 of the selected cases.
    cases_sha256: str | None = None
    #: Why persistent mode was not used, when the run fell back to one process per case.
    fallback_reason: str | None = None
    #: Whether the cases are the suite's own corpus (not a folder of the user's, --cases).
    suite_corpus: bool = True
    #: How many results were taken from an earlier report (--resume), not judged in this run,
    #: and that report: they are only as trustworthy as the file.
    resumed: int = 0
    resumed_from: str | None = None
    #: The source format the run was declared for (--source), if any.
    source: str | None = None
    #: The generated games the run added (--generated), and what they found.
    generated: Campaign | None = None
    #: The selected cases whose file changed while the run went on (read again at its end).
    cases_changed: tuple[CaseChange, ...] = ()

    def __post_init__(self) -> None:
        # A mode given as its word ("per-case") is the member, as a case's role is.
        object.__setattr__(self, "mode", Mode(self.mode))


def run_verdict(outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo) -> Verdict:
    """The verdict every report of this run shows."""
    return verdict(
        outcomes,
        cases,
        known_failure_problems=len(info.known_failure_problems),
        corpus_size=info.corpus_size,
        interrupted=info.interrupted,
        cases_from=None if info.suite_corpus else info.cases_dir,
        resumed=(info.resumed, info.resumed_from) if info.resumed and info.resumed_from else None,
        source=info.source,
        generated=None if info.generated is None else (len(info.generated.seeds), len(info.generated.disagreements)),
        corpus_changed=tuple(change.text() for change in info.cases_changed),
    )


def failure_level(outcome: Outcome) -> Level | None:
    """The level at which an outcome counts against the verdict, or None if it does not."""
    match outcome:
        case Failed(level=level) | Errored(level=level):
            return level
        case _:
            return None


def verdict(
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    *,
    known_failure_problems: int = 0,
    corpus_size: int | None = None,
    interrupted: bool = False,
    cases_from: str | None = None,
    resumed: tuple[int, str] | None = None,
    source: str | None = None,
    generated: tuple[int, int] | None = None,
    corpus_changed: tuple[str, ...] = (),
) -> Verdict:
    """Compute the verdict of a run's outcomes (`cases` gives each case's role); `generated`:
    the generated games played and the disagreements among them, each a MUST failure."""
    must = known_must = should = judged = skipped = bugs = not_applicable = not_run = 0
    judged_roles: set[Role] = set()
    run_roles: set[Role] = set()
    unskipped_roles: set[Role] = set()
    for outcome in outcomes:
        if isinstance(outcome, NotRun):  # shows nothing about its role either
            not_run += 1
            continue
        case = cases.get(outcome.case_id)
        role = case.role if case is not None else None
        if role is not None:
            run_roles.add(role)
        inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
        match inner:
            case CaseBug():
                bugs += 1
            case Skipped():
                skipped += 1
            case NotApplicable():
                not_applicable += 1
                continue
            case Failed(level=level) | Errored(level=level):
                if level is Level.MUST:
                    if isinstance(outcome, ExpectedFailure):
                        known_must += 1
                    else:
                        must += 1
                elif level is Level.SHOULD:
                    should += 1
        if not isinstance(inner, Skipped | CaseBug) and role is not None:
            unskipped_roles.add(role)
        if isinstance(inner, Passed | Failed):
            judged += 1
            if role is not None:
                judged_roles.add(role)
    selected = len(outcomes) - bugs
    partial = corpus_size is not None and selected < corpus_size
    complete = not interrupted and not_run == 0 and not corpus_changed
    agreed = generated is None or generated[1] == 0
    conforming = must == 0 and known_must == 0 and bugs == 0 and judged > 0 and complete and agreed
    return Verdict(
        conforming=conforming,
        accepted=must == 0 and bugs == 0 and judged > 0 and not known_failure_problems and complete and agreed,
        must_failures=must,
        known_must_failures=known_must,
        should_failures=should,
        known_failures_used=tuple(o.case_id for o in outcomes if isinstance(o, ExpectedFailure)),
        judged=judged,
        roles=tuple(role for role in ROLES if role in judged_roles),
        untested_roles=tuple(role for role in ROLES if role in run_roles - unskipped_roles),
        skipped=skipped,
        case_bugs=bugs,
        known_failure_problems=known_failure_problems,
        selection=(selected, corpus_size) if partial and corpus_size is not None else None,
        interrupted=interrupted,
        cases_from=cases_from,
        resumed=resumed,
        source=source,
        not_applicable=not_applicable,
        not_run=not_run,
        generated=generated,
        corpus_changed=corpus_changed,
    )


def summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Counts by status; `total` counts every case."""
    counts = Counter(status(outcome) for outcome in outcomes)
    return {
        "total": len(outcomes),
        "passed": counts[Status.PASSED],
        "failed": counts[Status.FAILED],
        "errored": counts[Status.ERRORED],
        "skipped": counts[Status.SKIPPED],
        "expected_failures": counts[Status.EXPECTED_FAILURE],
        "case_bugs": counts[Status.CASE_BUG],
        "not_applicable": counts[Status.NOT_APPLICABLE],
        "not_run": counts[Status.NOT_RUN],
    }


def to_json(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo, spec: Spec
) -> dict[str, Any]:
    """The report as JSON-ready data (schema/report.schema.json)."""
    result_list = []
    for outcome in outcomes:
        case = cases.get(outcome.case_id)
        entry: dict[str, Any] = {"case": outcome.case_id, "status": status(outcome)}
        if case is not None:
            entry.update(
                role=case.role, level=case.level.name, rules=list(case.rules), case_sha256=case.digest()
            )
        entry.update(_details(outcome, spec))
        again = rerun(outcome, info)
        if again is not None:
            entry["rerun"] = again
        result_list.append(entry)
    v = run_verdict(outcomes, cases, info)
    implementation: dict[str, Any] = {
        "command": info.command,
        "name": info.name,
        "version": info.version,
        "mode": info.mode,
    }
    if info.fallback_reason is not None:
        implementation["fallback_reason"] = info.fallback_reason
    if info.source is not None:
        implementation["source"] = info.source
    return {
        "suite": {
            "spec_version": info.spec_version,
            "cases": info.cases_dir,
            "version": info.suite_version,
            "commit": info.suite_commit,
            "cases_sha256": info.cases_sha256,
            "cases_changed": [
                {"case": c.case_id, "path": None if c.path is None else str(c.path), "change": c.change}
                for c in info.cases_changed
            ],
        },
        "implementation": implementation,
        "interrupted": info.interrupted,
        "summary": summary(outcomes),
        "verdict": verdict_json(v, info),
        "results": result_list,
        **({"generated": info.generated.to_json()} if info.generated is not None else {}),
    }


def to_json_text(data: Mapping[str, Any]) -> str:
    """The report as strict JSON text: no NaN or Infinity (`allow_nan=False`), and every lone
    surrogate written as visible text, so the file is valid UTF-8 for any reader."""
    return escape.json_document(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def verdict_json(v: Verdict, info: RunInfo) -> dict[str, Any]:
    """The verdict as a report's `verdict` member (and a certificate's) holds it."""
    return {
        "text": v.text(info.spec_version),
        "conforming": v.conforming,
        "accepted": v.accepted,
        "roles": list(v.roles),
        "untested_roles": list(v.untested_roles),
        "must_failures": v.must_failures,
        "known_must_failures": v.known_must_failures,
        "should_failures": v.should_failures,
        "not_applicable": v.not_applicable,
        "not_run": v.not_run,
        "known_failures_used": list(v.known_failures_used),
        "known_failures_file": info.known_failures_file,
        "known_failure_problems": list(info.known_failure_problems),
    }


# What a report shows of one outcome: the JSON report's result entry and report.html say the
# same, from these.


def message(outcome: Outcome) -> str:
    """What went wrong (a failure's first difference, an error's reason), or why the case was
    not judged; a known failure's says so. Empty for a pass."""
    match outcome:
        case Passed():
            return ""
        case Failed(differences=differences):
            return f"[{differences[0].rule}] {differences[0].message}"
        case (Errored(reason=reason) | Skipped(reason=reason) | CaseBug(reason=reason)
              | NotApplicable(reason=reason) | NotRun(reason=reason)):
            return reason
        case ExpectedFailure(failure=failure, reason=reason):
            return f"known failure ({reason}): {message(failure)}"


def shown_level(outcome: Outcome) -> Level | None:
    """The level a failure is shown at (a known failure: that of the failure it lists); None
    for an outcome that is no failure."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    return inner.level if isinstance(inner, Failed | Errored) else None


def differences(outcome: Outcome) -> tuple[tuple[Difference, Level], ...]:
    """A failure's differences, each with its level (a known failure: those of the failure it
    lists); none for any other outcome."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    if isinstance(inner, Failed):
        return tuple(zip(inner.differences, inner.levels, strict=True))
    return ()


def stderr(outcome: Outcome) -> str:
    """An error's standard error (a known failure: that of the error it lists), else ""."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    return inner.stderr if isinstance(inner, Errored) else ""


def rerun(outcome: Outcome, info: RunInfo) -> str | None:
    """The command that runs the case again, for a case that did not pass and was run."""
    if isinstance(outcome, Passed | Skipped | NotApplicable | NotRun):
        return None
    return info.rerun.get(outcome.case_id)


def _details(outcome: Outcome, spec: Spec) -> dict[str, Any]:
    match outcome:
        case Passed(seconds=seconds):
            return {"seconds": round(seconds, 6)}
        case Failed(level=level, seconds=seconds):
            return {
                "level": level.name,
                "message": message(outcome),
                "differences": [
                    {
                        "rule": d.rule,
                        "level": lv.name,
                        "message": d.message,
                        "observation": d.observation,
                        "context": list(d.context),
                        **({"cause": d.cause} if d.cause else {}),
                    }
                    for d, lv in differences(outcome)
                ],
                "seconds": round(seconds, 6),
            }
        case Errored(level=level, stderr=text, seconds=seconds):
            return {"level": level.name, "message": message(outcome), "stderr": text, "seconds": round(seconds, 6)}
        case Skipped() | CaseBug() | NotApplicable() | NotRun():
            return {"message": message(outcome)}
        case ExpectedFailure(failure=failure):
            return {**_details(failure, spec), "message": message(outcome)}


def outcomes_from_json(data: Mapping[str, Any]) -> dict[str, Outcome]:
    """The finished outcomes a (partial) report holds, by case ID, for resuming a run.

    Known failures and case bugs are left out: a resumed run decides those afresh.
    """
    outcomes: dict[str, Outcome] = {}
    for result in data["results"]:
        case_id, word = result["case"], result["status"]
        seconds = float(result.get("seconds", 0.0))
        match word:
            case "passed":
                outcomes[case_id] = Passed(case_id=case_id, seconds=seconds)
            case "failed":
                differences = tuple(
                    Difference(
                        rule=d["rule"],
                        message=d["message"],
                        observation=d.get("observation"),
                        context=tuple(d.get("context", ())),
                        cause=d.get("cause", ""),
                    )
                    for d in result["differences"]
                )
                levels = tuple(Level[d["level"]] for d in result["differences"])
                outcomes[case_id] = Failed(
                    case_id=case_id, differences=differences, levels=levels,
                    seconds=seconds,
                )
            case "errored":
                outcomes[case_id] = Errored(
                    case_id=case_id, level=Level[result["level"]], reason=result.get("message", ""),
                    stderr=result.get("stderr", ""), seconds=seconds,
                )
            case "skipped":
                outcomes[case_id] = Skipped(case_id=case_id, reason=result.get("message", ""))
            case "not-applicable":
                outcomes[case_id] = NotApplicable(case_id=case_id, reason=result.get("message", ""))
    return outcomes
