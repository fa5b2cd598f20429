"""The verdict of a run: what its outcomes say about the implementation, in two parts that are
never confused (conforming to the spec; accepted, the gate an exit code follows), with the
sentence every report shows. conformance/report.py computes it for a run (`run_verdict`) and
writes it in the JSON report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cardid_conformance.cases import Case, Role
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
)
from cardid_conformance.spec import Level

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

