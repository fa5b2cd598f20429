"""A run as one value: what to run (`Run`) in, what came of it (`Result`) out.

`perform` selects, executes and concludes; `conclude` is the part after execution (known
failures, verdict, RunInfo, the output files), which the pytest plugin calls on the outcomes
its items gathered. The CLI and the plugin print a Result; neither computes one itself.
"""

from __future__ import annotations

import dataclasses
import datetime
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardid_conformance import report, suite
from cardid_conformance.answer import Answer
from cardid_conformance.cases import Case, Corpus, changed_since
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import KnownFailures, apply_known_failures
from cardid_conformance.generate.campaign import Campaign
from cardid_conformance.junit import to_junit
from cardid_conformance.markdown import to_markdown
from cardid_conformance.outcome import CaseBug, NotApplicable, Outcome
from cardid_conformance.selection import Selection
from cardid_conformance.sources.profile import not_applicable
from cardid_conformance.spec import Spec
from cardid_conformance.verdict import Verdict
from cardid_runner import execute, provenance
from cardid_runner.adapter import Hello, Launcher
from cardid_runner.failures import save_failures
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.writing import OutputError, append_to, write_output


@dataclass(frozen=True, slots=True, kw_only=True)
class Outputs:
    """The files a run writes; None for each one not asked for."""

    report_json: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    #: A file the Markdown summary is appended to (a CI step summary).
    markdown_append: Path | None = None
    save_failures: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """What to run: the implementation, the cases, how, and where the results go."""

    #: The --impl text as given; None runs the bundled reference.
    impl: str | None
    spec: Spec
    corpus: Corpus
    cases_dir: Path = suite.CASES_DIR
    selection: Selection = field(default_factory=Selection)
    isolate: bool = False
    multiplier: float = 1.0
    jobs: int = 1
    known_failures: KnownFailures | None = None
    outputs: Outputs = field(default_factory=Outputs)
    #: Outcomes of an earlier, interrupted run (--resume): these cases are not run again.
    resumed: Mapping[str, Outcome] = field(default_factory=dict)
    #: The report they were read from (--resume).
    resumed_from: Path | None = None
    #: The source format the implementation reads (--source): cases it cannot express are
    #: not applicable, never run.
    source: str | None = None
    #: The waits of process handling (runner/process/timing.py), scaled with the multiplier.
    timing: Timing = DEFAULT
    #: Generated games to play after the corpus (--generated): seeds 0 to N - 1.
    generated: int = 0

    @property
    def argv(self) -> tuple[str, ...]:
        """The command the implementation is started with."""
        return execute.implementation_argv(self.impl)

    @property
    def command(self) -> str:
        """The implementation as the report names it."""
        return self.impl or "cardid reference"

    def options(self) -> execute.Invocation:
        return execute.Invocation.scaled(
            self.argv, multiplier=self.multiplier, isolate=self.isolate, jobs=self.jobs,
            timing=self.timing,
        )

    def selected(self) -> list[Case]:
        return self.selection.apply(self.corpus.cases)

    def rerun_command(self, case_id: str) -> str:
        """The `cardid run` line that runs one case again, as this run did."""
        parts = ["cardid", "run"]
        if self.impl:
            parts += ["--impl", self.impl]
        if self.cases_dir.resolve() != suite.CASES_DIR.resolve():
            parts += ["--cases", str(self.cases_dir)]
        if self.isolate:
            parts.append("--isolate")
        if self.multiplier != 1.0:
            parts += ["--timeout-multiplier", f"{self.multiplier:g}"]
        if self.source is not None:
            parts += ["--source", self.source]
        parts += ["--case", case_id]
        return shlex.join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """What came of a run: case bugs first, then the selected cases' outcomes in order."""

    outcomes: tuple[Outcome, ...]
    verdict: Verdict
    info: report.RunInfo
    #: Every way the known-failure file is wrong (a listed pass, an unknown case, an expiry).
    known_failure_problems: tuple[str, ...]
    #: One message per output that could not be written (the others were).
    unwritten: tuple[str, ...]
    selected: int
    fallback_reason: str | None = None
    #: The implementation's handshake (None in per-case mode): its name, version and roles.
    hello: Hello | None = None
    #: The implementation fails at start-up: the run stopped after its first cases.
    startup_failure: execute.StartupFailure | None = None

    @property
    def interrupted(self) -> bool:
        return self.info.interrupted

    @property
    def finished(self) -> int:
        """Selected cases with an outcome (case bugs not counted)."""
        return sum(1 for o in self.outcomes if not isinstance(o, CaseBug))

    @property
    def accepted(self) -> bool:
        """The exit-code gate (Verdict.accepted): no MUST failure beyond the known failures,
        and the known-failure file (if any) is right."""
        return self.verdict.accepted


def decided(run: Run, selected: Sequence[Case]) -> dict[str, Outcome]:
    """The outcomes of selected cases known without running them: those resumed (--resume),
    and those the declared source cannot express (--source)."""
    known = {case.id: run.resumed[case.id] for case in selected if case.id in run.resumed}
    if run.source is not None:
        for case in selected:
            reason = not_applicable(case, run.source)
            if reason is not None and case.id not in known:
                known[case.id] = NotApplicable(case_id=case.id, reason=reason)
    return known


def identity(run: Run, hello: Hello | None, mode: report.Mode) -> report.RunInfo:
    """What a run's first console lines name (console.identity_lines): the implementation as its
    handshake described it, the mode, and the suite. `conclude` completes it."""
    return report.RunInfo(
        command=run.command,
        spec_version=run.spec.version,
        cases_dir=str(run.cases_dir),
        name=hello.name if hello else None,
        version=hello.version if hello else None,
        mode=mode,
        suite_version=suite.version(),
        suite_commit=provenance.commit(),
    )


def perform(
    run: Run,
    progress: Callable[[Outcome], None] | None = None,
    *,
    on_start: Callable[[Hello | None, report.Mode], None] | None = None,
    launcher: Launcher | None = None,
) -> Result:
    """Select, run what was not resumed, and conclude. `progress` is given each case's outcome as
    it finishes, `on_start` the handshake and the mode before the first case runs. `launcher`
    runs the implementation (by default, real processes of the Run's command:
    `Invocation.launcher`)."""
    selected = run.selected()
    if not selected and not run.corpus.bugs:
        raise UsageError("the selection matches no case", hint="try `cardid list` with the same options")
    known = decided(run, selected)
    fresh = {case_id: outcome for case_id, outcome in known.items() if case_id not in run.resumed}
    to_run = [case for case in selected if case.id not in known]
    execution = execute.run_cases(to_run, run.options(), run.spec, progress=progress, on_start=on_start,
                                  launcher=launcher)
    fresh.update((outcome.case_id, outcome) for outcome in execution.outcomes)
    done = [run.resumed.get(case.id) or fresh.get(case.id) for case in selected]
    campaign = None
    if run.generated and not execution.interrupted and execution.startup_failure is None:
        campaign = play_generated(run, launcher)
    return conclude(
        run,
        [outcome for outcome in done if outcome is not None],
        selected=len(selected),
        hello=execution.hello,
        mode=execution.mode,
        interrupted=execution.interrupted,
        answers=execution.answers,
        fallback_reason=execution.fallback_reason,
        startup_failure=execution.startup_failure,
        generated=campaign,
    )


def play_generated(run: Run, launcher: Launcher | None) -> Campaign:
    """The run's generated games (`cardid fuzz`'s campaign), asked of the implementation in a
    session of their own, after the corpus."""
    from cardid_runner import fuzz
    from cardid_runner.session import Session

    session = Session(run.options(), launcher)
    try:
        return fuzz.campaign(list(range(run.generated)), session, run.spec)
    finally:
        session.close()


def conclude(
    run: Run,
    outcomes: Sequence[Outcome],
    *,
    selected: int,
    hello: Hello | None,
    mode: report.Mode,
    interrupted: bool = False,
    answers: Mapping[str, Answer] | None = None,
    fallback_reason: str | None = None,
    today: datetime.date | None = None,
    startup_failure: execute.StartupFailure | None = None,
    generated: Campaign | None = None,
    judged: Mapping[str, str] | None = None,
) -> Result:
    """The outcomes of the selected cases made a Result: case bugs added, known failures
    applied, the verdict taken and every output written (one that cannot be written stops
    none of the others). Each selected case's file is read again: one that no longer holds the
    case as judged (`judged`, each case's digest as it was judged; by default the Run's corpus,
    loaded before the run) is named, and the verdict is then neither conforming nor accepted."""
    cases_by_id = {case.id: case for case in run.corpus.cases}
    digests = judged if judged is not None else {case.id: case.digest() for case in run.corpus.cases}
    changed = changed_since(
        {o.case_id: (cases_by_id[o.case_id].path if o.case_id in cases_by_id else None, digests[o.case_id])
         for o in outcomes if o.case_id in digests},
        run.spec,
        cases_by_id,
    )
    bugs: list[Outcome] = [CaseBug(case_id=str(bug.path), reason=bug.message) for bug in run.corpus.bugs]
    marked: Sequence[Outcome] = [*bugs, *outcomes]
    problems: tuple[str, ...] = ()
    if run.known_failures is not None:
        applied = apply_known_failures(
            run.known_failures, marked, cases_by_id.keys(), today or datetime.date.today()
        )
        marked, problems = applied.outcomes, applied.problems
    rerun = {outcome.case_id: run.rerun_command(outcome.case_id) for outcome in outcomes}
    info = dataclasses.replace(
        identity(run, hello, mode),
        interrupted=interrupted,
        rerun=rerun,
        known_failures_file=str(run.known_failures.path) if run.known_failures else None,
        known_failure_problems=problems,
        corpus_size=len(run.corpus.cases),
        suite_corpus=Path(run.cases_dir).resolve() == suite.CASES_DIR.resolve(),
        fallback_reason=fallback_reason,
        source=run.source,
        resumed=sum(1 for outcome in outcomes if outcome.case_id in run.resumed),
        resumed_from=None if run.resumed_from is None else str(run.resumed_from),
        generated=generated,
        cases_sha256=suite.cases_sha256(
            (o.case_id, cases_by_id[o.case_id].digest()) for o in outcomes if o.case_id in cases_by_id
        ),
        cases_changed=changed,
    )
    out = run.outputs
    renderers: list[tuple[str, Path | None, Callable[[], bytes]]] = [
        ("--report-json", out.report_json,
         lambda: report.to_json_text(report.to_json(marked, cases_by_id, info, run.spec)).encode()),
        ("--junit", out.junit, lambda: to_junit(marked, cases_by_id, rerun)),
        ("--markdown", out.markdown, lambda: to_markdown(marked, cases_by_id, info, run.spec).encode()),
    ]
    unwritten: list[str] = []
    for option, path, render in renderers:
        if path is not None:
            try:
                write_output(path, render(), what=option)
            except OutputError as exc:
                unwritten.append(exc.message)
    if out.markdown_append is not None:
        try:
            text = to_markdown(marked, cases_by_id, info, run.spec)
            append_to(out.markdown_append, text.encode(), what="--markdown-append")
        except OutputError as exc:
            unwritten.append(exc.message)
    if out.save_failures is not None:
        unwritten += save_failures(out.save_failures, marked, cases_by_id, answers or {}, rerun)
    return Result(
        outcomes=tuple(marked),
        verdict=report.run_verdict(marked, cases_by_id, info),
        info=info,
        known_failure_problems=problems,
        unwritten=tuple(unwritten),
        selected=selected,
        fallback_reason=fallback_reason,
        hello=hello,
        startup_failure=startup_failure,
    )
