"""`cardid shrink --impl CMD CASE`: a failing case reduced to a smallest one that fails the same way.

Delta debugging (ddmin, Zeller and Hildebrandt 2002: conformance/minimise.py) over a writer request's observations, then
over its card facts; over the lines of a reader's card table text. Each candidate is a request
with some of them left out, kept only while it is still a valid case:
- it validates against the role's input schema (schema/writer-input.schema.json, ...);
- the bundled reference takes it as the original case expects: answers it (rejects it, for a
  case that expects a rejection): a candidate the reference rejects as inconsistent (the REQ
  rules) is no smaller version of a case it answers;
- its expectation is the reference's answer to it (the original expectation is for the whole
  request, and says nothing about a part of it);
and the implementation fails it THE SAME WAY as the original case (`Way`).

Candidates run through the run's own machinery (runner/session.py `CaseRunner`): one persistent
process for the whole shrink when the implementation has persistent mode, one process per
candidate otherwise (or with --isolate).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import schemas, suite
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected
from cardid_conformance.cases import (
    Case,
    Rejection,
    Role,
    WriterExpectation,
    case_files,
    case_from_data,
    load_case,
    load_corpus,
)
from cardid_conformance.errors import CaseError, UsageError
from cardid_conformance.minimise import ddmin
from cardid_conformance.outcome import Errored, Failed, Outcome, Skipped
from cardid_conformance.report import Mode
from cardid_conformance.spec import Spec, load_spec
from cardid_runner import draft, execute, options
from cardid_runner.adapter import Launcher
from cardid_runner.draft import DraftError, Metadata
from cardid_runner.session import CaseRunner, Ran
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import say, show_line

SAME_WAY = """\
"the same way": a failed case fails with the same rule at its first difference (the rule its
FAIL or WARN line names, such as [LIB-2]); an errored case errors with the same kind of error:
timed out; killed by signal N (the same N); exit status N (the same N); a result that does not
match the role's result schema; or output that is no usable answer (not JSON or not UTF-8, a
protocol breach, more than the output limit). A crash that a fresh process does not repeat
(state left by earlier requests) is not the same way as one it repeats."""

_EPILOG = f"""\
examples:
  cardid shrink --impl ./my-adapter shuffle-ends-id-of-legendary-card
  cardid shrink --impl "python -m myparser.adapter" cases/writer/long-game.yaml --id long-game-min
  cardid shrink --impl ./my-adapter my-case --out mycases --isolate

{SAME_WAY}

The written case's expectation is the bundled reference's answer to the smaller request: it
starts with a # REVIEW comment and carries the needs-review tag, which `cardid lint` reports
until someone has checked it.

exit status: 0 written, 1 nothing written: the case does not fail, cannot be made smaller, or
fails against the reference's answer differently from against its own expectation, 2 usage
error (an unknown case, a taken ID, a command that cannot start), 3 the suite's own files are
broken
"""


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid shrink`: its parser."""
    parser = options.add_command(
        commands,
        "shrink",
        help="reduce a failing case to a smallest one that still fails the same way",
        description=(
            "Reduce CASE, which the implementation fails, to a smallest case that it "
            "still fails the same way, by delta debugging over the writer request's observations "
            "(then its card facts), or over the lines of a reader's card table text, and write it "
            "as a new case (ID <case>-shrunk unless --id says otherwise, beside CASE unless --out "
            "says otherwise). Each candidate must validate against the role's input schema and be "
            "taken by the bundled reference as CASE is (answered, or rejected for a case that "
            "expects a rejection); its expectation is the reference's answer to it."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("case", metavar="CASE", help="a case ID (of --cases) or a case file")
    parser.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR, metavar="DIR",
                        help="the case directory a case ID is looked up in")
    parser.add_argument("--out", type=options.output_dir, metavar="DIR",
                        help="the folder to write the shrunk case in (default: CASE's folder)")
    parser.add_argument("--id", dest="new_id", type=draft.case_id, metavar="NEW_ID",
                        help="the shrunk case's ID (default: <case>-shrunk)")
    options.add_implementation(
        parser, required=True, impl_help="the implementation command, which fails CASE",
        isolate="one process per candidate",
    )
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return shrink_case(args.case, cases=args.cases, out=args.out, new_id=args.new_id, impl=args.impl,
                       isolate=args.isolate, multiplier=args.timeout_multiplier)


COMMAND = Command("shrink", _declare, _perform)


@dataclass(frozen=True, slots=True)
class Way:
    """How a case fails, as "the same way" compares it (SAME_WAY)."""

    status: str
    detail: str

    def __str__(self) -> str:
        if self.status == "failed":
            return f"fails with [{self.detail}] at its first difference"
        return f"errors: {self.detail}"


#: A crash a fresh process does not repeat: state left by earlier requests, nothing to shrink.
ONLY_AFTER_OTHERS = Way("errored", "a crash only after other requests in one process")


def way(outcome: Outcome, answer: Answer, *, fresh_passed: bool = False) -> Way | None:
    """How `outcome` fails (None: it does not), from it, the implementation's first answer and
    whether a fresh process passed the case after that answer's crash (runner/session.py `Ran`):
    by the crash's status, never by the words of a reason, which quote the implementation."""
    match outcome:
        case Failed(differences=differences):
            return Way("failed", differences[0].rule)
        case Errored():
            if fresh_passed:
                return ONLY_AFTER_OTHERS
            if isinstance(answer, Answered):
                return Way("errored", "a result that does not match the result schema")
            if isinstance(answer, Crashed):
                if answer.timed_out:
                    return Way("errored", "timed out")
                if answer.exit_status is not None and answer.exit_status < 0:
                    return Way("errored", f"killed by signal {-answer.exit_status}")
                if answer.exit_status is not None:
                    return Way("errored", f"exit status {answer.exit_status}")
            return Way("errored", "output that is no usable answer")
        case _:
            return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Shrunk:
    """The smallest case found, and what the shrink did to get there."""

    data: Mapping[str, Any]
    case: Case
    way: Way
    #: What was reduced, as (what, kept, of) triples: ("observations", 8, 45).
    removed: tuple[tuple[str, int, int], ...]
    tried: int
    seconds: float
    reference: str
    mode: Mode
    fallback_reason: str | None = None


class NoFailure(Exception):
    """The case cannot be shrunk: it does not fail, or not the same way against the reference."""


@dataclass
class _Parts:
    """A request taken apart into the pieces candidates keep or leave out."""

    request: dict[str, Any]
    observations: list[Any]
    hints: list[str | None]
    cards: list[Any]
    lines: list[str]


class Shrinker:
    """Runs candidates of one case against the implementation and the reference."""

    def __init__(
        self,
        case: Case,
        opts: execute.Invocation,
        spec: Spec,
        *,
        path: Path,
        new_id: str,
        launcher: Launcher | None = None,
        reference: draft.Reference | None = None,
    ) -> None:
        self.case, self.spec, self.path = case, spec, path
        self.meta = Metadata(id=new_id, description=case.description, role=case.role, level=case.level.name,
                             rules=case.rules, cr=case.cr, tags=case.tags)
        self.expects_rejection = isinstance(case.expectation, Rejection)
        self._launcher = launcher or opts.launcher()
        self._opts = opts
        self._reference = reference or draft.Reference(timeout=opts.timeout)
        self._runner: CaseRunner | None = None
        self.mode = Mode.PER_CASE if opts.isolate else Mode.PERSISTENT
        self.fallback_reason: str | None = None
        self.tried = 0
        #: Why the last candidate refused was no valid case.
        self.refused = ""

    def __enter__(self) -> Shrinker:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            self._runner.close()
        self._reference.close()

    def _case_runner(self) -> CaseRunner:
        if self._runner is None:
            self._runner = CaseRunner.started(self._opts, self.spec, self._launcher)
            self.mode, self.fallback_reason = self._runner.mode.name, self._runner.mode.fallback_reason
        return self._runner

    def run(self, case: Case) -> Ran:
        """One case against the implementation."""
        self.tried += 1
        return self._case_runner().ran(case)

    def way(self, case: Case) -> Way | None:
        """How one case fails against the implementation (None: it passes)."""
        return self._way(self.run(case))

    @staticmethod
    def _way(ran: Ran) -> Way | None:
        return way(ran.outcome, ran.answer, fresh_passed=ran.fresh_passed)

    def candidate(self, request: dict[str, Any], hints: Sequence[str | None]) -> tuple[dict[str, Any], Case] | None:
        """The candidate case for `request`, or None when it is no valid smaller case."""
        problem = schemas.first_problem(f"{self.case.role}-input", request)
        if problem is not None:
            self.refused = f"schema/{self.case.role}-input.schema.json: {problem.where()}: {problem.message}"
            return None
        answer = self._reference.ask(request)
        if isinstance(answer, Rejected) and not self.expects_rejection:
            self.refused = f"the reference rejects it: {answer.message}"
            return None
        if isinstance(answer, Answered) and self.expects_rejection:
            self.refused = "the reference answers it, and the case expects a rejection"
            return None
        try:
            data = draft.case_data(self.meta, request, answer, hints=hints)
            return data, case_from_data(self.path, data, self.spec)
        except DraftError as exc:
            self.refused = exc.message
        except CaseError as exc:
            self.refused = f"the drafted case is not valid: {exc.reason}"
        return None

    def shrink(self) -> Shrunk:
        """Reduce the case; NoFailure when there is nothing to reduce."""
        began = time.monotonic()
        ran = self.run(self.case)
        if isinstance(ran.outcome, Skipped):
            raise UsageError(f"the implementation does not support the {self.case.role} role: {ran.outcome.reason}")
        target = self._way(ran)
        if target is None:
            raise NoFailure(f"{self.case.id} passes: there is no failure to shrink")
        if target == ONLY_AFTER_OTHERS:
            raise NoFailure(
                f"{self.case.id} crashes only after other requests in the same process (a fresh "
                "process passes it): shrinking needs a failure the case shows on its own; try --isolate"
            )
        parts = self._parts()
        whole = self.candidate(parts.request, parts.hints)
        if whole is None:
            raise NoFailure(
                f"{self.case.id}'s whole request is no valid candidate ({self.refused}), so no "
                "smaller one can be judged by the reference's answers"
            )
        against = self.way(whole[1])
        if against != target:
            raise NoFailure(
                f"{self.case.id} {target} against its own expectation, but against the reference's "
                f"answer to the same request it {against or 'passes'}: candidates are judged by the "
                "reference's answers, so this failure cannot be shrunk (is the case's expectation, "
                "or the reference, wrong?)"
            )
        removed: list[tuple[str, int, int]] = []
        if self.case.role is Role.WRITER:
            observations, hints, cards = parts.observations, parts.hints, parts.cards
            found = {(tuple(range(len(observations))), tuple(range(len(cards)))): whole}

            def keep(kept_obs: tuple[int, ...], kept_cards: tuple[int, ...]) -> bool:
                request = {**parts.request, "cards": [cards[i] for i in kept_cards],
                           "observations": [observations[i] for i in kept_obs]}
                candidate = self.candidate(request, [hints[i] for i in kept_obs])
                if candidate is None or self.way(candidate[1]) != target:
                    return False
                found[kept_obs, kept_cards] = candidate
                return True

            every_card = tuple(range(len(cards)))
            kept_obs = ddmin(range(len(observations)), lambda kept: keep(kept, every_card))
            kept_cards = every_card
            if cards:
                kept_cards = () if keep(kept_obs, ()) else ddmin(every_card, lambda kept: keep(kept_obs, kept))
            removed += [("observations", len(kept_obs), len(observations)), ("card facts", len(kept_cards), len(cards))]
            best = found[kept_obs, kept_cards]
        else:
            lines = parts.lines
            found_lines = {tuple(range(len(lines))): whole}

            def keep_lines(kept: tuple[int, ...]) -> bool:
                candidate = self.candidate({**parts.request, "text": "".join(lines[i] for i in kept)}, [])
                if candidate is None or self.way(candidate[1]) != target:
                    return False
                found_lines[kept] = candidate
                return True

            kept_lines = ddmin(range(len(lines)), keep_lines)
            removed.append(("lines", len(kept_lines), len(lines)))
            best = found_lines[kept_lines]
        data, case = best
        return Shrunk(
            data=data, case=case, way=target, removed=tuple(removed), tried=self.tried,
            seconds=time.monotonic() - began, reference=self._reference.name, mode=self.mode,
            fallback_reason=self.fallback_reason,
        )

    def _parts(self) -> _Parts:
        request = dict(self.case.request)
        expectation = self.case.expectation
        observations = list(request.get("observations", ()))
        hints: list[str | None] = (
            list(expectation.rule_hints) if isinstance(expectation, WriterExpectation) else [None] * len(observations)
        )
        text = request.get("text", "")
        lines = re.findall(r"[^\n]*\n|[^\n]+$", text) if isinstance(text, str) else []
        return _Parts(request=request, observations=observations, hints=hints,
                      cards=list(request.get("cards", ())), lines=lines)


def find_case(text: str, cases: Path, spec: Spec) -> Case:
    """CASE as given: a case file, or the ID of a case under `cases`."""
    path = Path(text)
    if text.endswith(".yaml") or "/" in text:
        try:
            return load_case(path, spec)
        except CaseError as exc:
            raise UsageError(f"cardid shrink: CASE {exc.message}", hint=exc.hint or "fix the case (`cardid lint`)") from None
    candidates = [p for p in case_files(cases) if p.stem == text]
    corpus = load_corpus(candidates, spec)
    if corpus.bugs:
        bug = corpus.bugs[0]
        raise UsageError(f"cardid shrink: CASE {bug.message}", hint=bug.hint or "fix the case (`cardid lint`)")
    if not corpus.cases:
        raise UsageError(
            f"cardid shrink: no case {text!r} in {cases}",
            hint="give a case ID that `cardid list` shows, or the path of a case file",
        )
    return corpus.cases[0]


def shrink_case(
    wanted: str, *, cases: Path, out: Path | None, new_id: str | None, impl: str, isolate: bool, multiplier: float
) -> int:
    """Shrink the case `wanted` names (an ID of `cases`, or a case file) against `impl` and
    write the smallest case found, as `new_id` (default: <case>-shrunk) in `out` (default: the
    case's folder)."""
    spec = load_spec()
    case = find_case(wanted, cases, spec)
    named = new_id or f"{case.id}-shrunk"
    if new_id is None and len(named) > draft.CASE_ID_MAX:
        raise UsageError(f"{named} is longer than a case ID may be ({draft.CASE_ID_MAX})", hint="pass --id NEW_ID")
    path = draft.target(named, out, case.path.parent)
    argv = execute.implementation_argv(impl)
    opts = execute.Invocation.scaled(argv, multiplier=multiplier, isolate=isolate)
    show_line(f"shrink: running {case.id} against {impl}", flush=True)
    try:
        with Shrinker(case, opts, spec, path=path, new_id=named) as shrinker:
            result = shrinker.shrink()
    except NoFailure as exc:
        show_line(f"shrink: {exc}")
        return 1
    if result.fallback_reason:
        show_line(f"note: persistent mode unavailable ({result.fallback_reason}); one process per candidate")
    if all(kept == of for _, kept, of in result.removed):
        what = " or ".join(what.removesuffix("s") for what, _, _ in result.removed if what != "card facts")
        show_line(
            f"shrink: {case.id} {result.way}, and is as small as shrinking makes it: no {what} "
            f"can go without changing that ({result.tried} runs); nothing written"
        )
        return 1
    for line in report_lines(result, case):
        show_line(line)
    try:
        draft.write(path, result.data, comments(result, case, impl), what="the shrunk case")
    except DraftError as exc:
        say(exc.render(), sys.stderr)
        return 1
    show_line(f"wrote {path}")
    return 0


def report_lines(result: Shrunk, case: Case) -> list[str]:
    """What the shrink did, for the console."""
    parts = [f"{of - kept} of {of} {what}" for what, kept, of in result.removed]
    return [
        f"shrink: {case.id} {result.way}; removed {' and '.join(parts)} "
        f"({result.tried} runs of the implementation, {result.mode} mode, {result.seconds:.1f} s)",
        f"shrink: the shrunk case {result.way} too; its expectation is the answer of "
        f"{result.reference}, tagged needs-review",
    ]


def comments(result: Shrunk, case: Case, impl: str) -> list[str]:
    """The comment block the shrunk case starts with."""
    kept = ", ".join(f"{kept} of {of} {what}" for what, kept, of in result.removed)
    return [
        *draft.review_comment(result.reference, "cardid shrink"),
        f"Fails: {impl}, which {result.way} (shrunk by `cardid shrink` from case {case.id}, "
        f"keeping {kept}).",
    ]
