"""The `cardid` command line: run, list, lint, and start the reference implementation.

Exit codes (documented in README.md):
    0  conforming (run), clean (lint), listed (list)
    1  a MUST case failed or errored, no case was judged, the corpus has case bugs, or lint
       found problems
    2  usage error: bad option, unreadable file, implementation command that cannot start
    3  the suite's own files (spec index, schemas) are broken
  128 + N  interrupted by signal N during `cardid run`: 130 SIGINT, 143 SIGTERM, 129 SIGHUP
  130  interrupted (Ctrl-C outside a run)
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import signal
import sys
import threading
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, Self

from conformance import console, report, schemas, suite
from conformance.cases import Corpus, case_files
from conformance.errors import CardidError, SuiteError, UsageError
from conformance.junit import to_junit
from conformance.known import apply_known_failures, load_known_failures
from conformance.lint import lint
from conformance.markdown import to_markdown
from conformance.outcome import CaseBug, Outcome
from conformance.selection import Selection
from conformance.spec import Spec, load_cr_numbers, load_spec
from runner import execute
from runner.failures import save_failures
from runner.loading import load_cases, usable_cpus
from runner.process import split_command
from runner.progress import Progress
from runner.stop import STOP


class Exit(IntEnum):
    """The documented exit codes."""

    OK = 0
    FAILED = 1
    USAGE = 2
    SUITE = 3
    INTERRUPTED = 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardid", description="Conformance suite for card identity in Magic replay files."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def selection_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--cases", type=Path, default=suite.CASES_DIR, help="case directory or file")
        sub.add_argument("--case", action="append", default=[], metavar="ID", help="case ID or glob")
        sub.add_argument("--rule", action="append", default=[], metavar="RULE", help="rule ID (ID-3) or family (LIB)")
        sub.add_argument("--cr", dest="cr_filter", action="append", default=[], metavar="NUMBER", help="CR number, e.g. 701.24")
        sub.add_argument("--tag", action="append", default=[])
        sub.add_argument("--level", action="append", default=[], choices=["MUST", "SHOULD", "MAY"])
        sub.add_argument("--role", action="append", default=[], choices=["writer", "reader"])

    run = commands.add_parser("run", help="run the cases against an implementation")
    selection_options(run)
    run.add_argument("--impl", metavar="COMMAND", help="implementation command (default: the bundled reference)")
    run.add_argument("--isolate", action="store_true", help="one process per case")
    run.add_argument("--timeout-multiplier", type=float, default=1.0, metavar="X")
    run.add_argument("-j", "--jobs", default="1", metavar="N", help="parallel workers, or 'auto'")
    run.add_argument("--report-json", type=Path, metavar="PATH", help="write the JSON report")
    run.add_argument("--junit", type=Path, metavar="PATH", help="write a JUnit XML report")
    run.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown summary")
    run.add_argument("--save-failures", type=Path, metavar="DIR",
                     help="keep the request, raw output and diff of each failure in DIR/<case>/")
    run.add_argument("--expect", type=Path, metavar="PATH", help="known-failure file for this implementation")
    run.add_argument("--resume", type=Path, metavar="PATH",
                     help="a partial JSON report of an interrupted run: run only the cases it lacks")
    run.add_argument("-q", "--quiet", action="store_true", help="no context lines under failures")

    listing = commands.add_parser("list", help="list the selected cases without running them")
    selection_options(listing)

    linting = commands.add_parser("lint", help="check the case corpus")
    linting.add_argument("--cases", type=Path, default=suite.CASES_DIR)
    linting.add_argument("--cr", type=Path, metavar="PATH", help="CR text or index to check citations against")
    linting.add_argument("--cards", type=Path, metavar="PATH", help="card data CSV to check card facts against")

    commands.add_parser("reference", help="start the bundled reference implementation as an adapter")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `cardid` and `python -m runner`."""
    args = _parser().parse_args(argv)
    try:
        match args.command:
            case "reference":
                from reference.adapter import main as reference_main  # started as an adapter only

                return reference_main()
            case "lint":
                return _lint(args)
            case "list":
                return _list(args)
            case "run":
                with _SIGNALS:  # from loading to the last report written
                    return _run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    except SuiteError as exc:
        print(exc.render(), file=sys.stderr)
        return Exit.SUITE
    except CardidError as exc:
        print(exc.render(), file=sys.stderr)
        return Exit.USAGE
    return Exit.USAGE


def _corpus(args: argparse.Namespace, spec: Spec) -> Corpus:
    if not args.cases.exists():
        raise UsageError(f"no such case directory or file: {args.cases}")
    return load_cases(case_files(args.cases), spec)


def _selection(args: argparse.Namespace) -> Selection:
    return Selection(
        cases=tuple(args.case),
        rules=tuple(args.rule),
        cr=tuple(args.cr_filter),
        tags=tuple(args.tag),
        levels=tuple(args.level),
        roles=tuple(args.role),
    )


def _lint(args: argparse.Namespace) -> int:
    spec = load_spec()
    corpus = _corpus(args, spec)
    cr_numbers = load_cr_numbers(args.cr) if args.cr else None
    problems = lint(
        corpus,
        spec,
        cr_numbers=cr_numbers,
        cards_csv=args.cards,
        coverage=args.cases.resolve() == suite.CASES_DIR.resolve(),
    )
    for problem in problems:
        print(f"{problem}", file=sys.stderr)
    checked = ["schemas", "rule IDs", "unique IDs"]
    checked += ["CR numbers"] if cr_numbers else []
    checked += ["card facts"] if args.cards else []
    if problems:
        print(f"lint: {len(problems)} problem(s) in {len(corpus.cases) + len(corpus.bugs)} case files", file=sys.stderr)
        return Exit.FAILED
    print(f"lint: {len(corpus.cases)} cases clean ({', '.join(checked)} checked)")
    return Exit.OK


def _list(args: argparse.Namespace) -> int:
    spec = load_spec()
    corpus = _corpus(args, spec)
    for bug in corpus.bugs:
        print(f"BUG IN CASE: {bug.message}", file=sys.stderr)
    for case in _selection(args).apply(corpus.cases):
        print(f"{case.id}\t{case.role}\t{case.level.name}\t{','.join(case.rules)}\t{case.description}")
    return Exit.FAILED if corpus.bugs else Exit.OK


def _jobs(value: str) -> int:
    if value == "auto":
        return max(1, usable_cpus())
    try:
        jobs = int(value)
    except ValueError:
        raise UsageError(f"-j takes a number or 'auto', not {value!r}") from None
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    return jobs


def _run(args: argparse.Namespace) -> int:
    spec = load_spec()
    corpus = _corpus(args, spec)
    argv = tuple(split_command(args.impl)) if args.impl else execute.REFERENCE_ARGV
    if args.timeout_multiplier <= 0:
        raise UsageError("--timeout-multiplier must be positive")
    known = load_known_failures(args.expect) if args.expect else None
    options = execute.Options.scaled(
        argv, multiplier=args.timeout_multiplier, isolate=args.isolate, jobs=_jobs(args.jobs)
    )
    selected = _selection(args).apply(corpus.cases)
    if not selected and not corpus.bugs:
        raise UsageError("the selection matches no case", hint="try `cardid list` with the same options")
    cases_by_id = {case.id: case for case in corpus.cases}
    rerun = {case.id: _rerun_command(args, case.id) for case in selected}
    command = args.impl or "cardid reference"
    resumed = _resumed(args.resume, command, spec) if args.resume else {}
    to_run = [case for case in selected if case.id not in resumed]
    progress = Progress(len(to_run))
    try:
        execution = execute.run_cases(to_run, options, spec, progress=progress)
    finally:
        progress.close()
    fresh = {outcome.case_id: outcome for outcome in execution.outcomes}
    done = [resumed.get(case.id) or fresh.get(case.id) for case in selected]
    bugs: list[Outcome] = [CaseBug(case_id=str(bug.path), reason=bug.message) for bug in corpus.bugs]
    outcomes: Sequence[Outcome] = [*bugs, *(outcome for outcome in done if outcome is not None)]
    problems: tuple[str, ...] = ()
    if known is not None:
        applied = apply_known_failures(known, outcomes, cases_by_id.keys(), datetime.date.today())
        outcomes, problems = applied.outcomes, applied.problems
    if execution.fallback_reason:
        print(f"note: persistent mode unavailable ({execution.fallback_reason}); one process per case")
    for outcome in outcomes:
        for line in console.failure_lines(outcome, rerun.get(outcome.case_id), verbose=not args.quiet):
            print(line)
    for problem in problems:
        print(f"KNOWN-FAILURE FILE: {problem}")
    for line in console.summary_lines(outcomes, cases_by_id, spec):
        print(line)
    info = report.RunInfo(
        command=command,
        spec_version=spec.version,
        cases_dir=str(args.cases),
        name=execution.hello.name if execution.hello else None,
        version=execution.hello.version if execution.hello else None,
        mode=execution.mode,
        interrupted=execution.interrupted,
        rerun=rerun,
        known_failures_file=str(args.expect) if args.expect else None,
        known_failure_problems=problems,
    )
    if args.report_json:
        data = report.to_json(outcomes, cases_by_id, info, spec)
        _write_atomically(args.report_json, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if args.junit:
        _write_atomically(args.junit, to_junit(outcomes, cases_by_id, rerun).decode())
    if args.markdown:
        _write_atomically(args.markdown, to_markdown(outcomes, cases_by_id, info, spec))
    if args.save_failures:
        save_failures(args.save_failures, outcomes, cases_by_id, execution.answers, rerun)
    if execution.interrupted:
        finished = len(outcomes) - len(bugs)
        where = (
            f"; resume with --resume {shlex.quote(str(args.report_json))}"
            if args.report_json
            else "; pass --report-json next time to be able to resume"
        )
        print(f"interrupted: {finished} of {len(selected)} cases finished{where}", file=sys.stderr)
        return 128 + (_SIGNALS.first or signal.SIGINT)
    conforming = report.verdict(outcomes).conforming
    return Exit.OK if conforming and not problems else Exit.FAILED


class _Signals:
    """SIGINT, SIGTERM and SIGHUP during `cardid run`: the first one stops the run (STOP, seen
    by every wait at once); it and any later one are only recorded, never raised, so that no
    signal can cut the writing of the reports short. The run then exits 128 + the first
    signal's number."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.first: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Self:
        self.first = None
        STOP.clear()
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum: int, frame: object) -> None:
        if self.first is None:
            self.first = signum
        STOP.set()

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
        STOP.clear()


_SIGNALS = _Signals()


def _resumed(path: Path, command: str, spec: Spec) -> dict[str, Outcome]:
    """The finished outcomes of an earlier run of the same implementation and spec version."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the report to resume from, {path}: {exc}") from None
    problem = schemas.first_problem("report", data)
    if problem is not None:
        raise UsageError(f"{path} is not a run report: {problem.where()}: {problem.message}")
    if data["implementation"]["command"] != command:
        raise UsageError(
            f"{path} is a run of {data['implementation']['command']!r}, not of {command!r}",
            hint="resume with the same --impl",
        )
    if data["suite"]["spec_version"] != spec.version:
        raise UsageError(f"{path} was run against spec {data['suite']['spec_version']}, not {spec.version}")
    return report.outcomes_from_json(data)


def _rerun_command(args: argparse.Namespace, case_id: str) -> str:
    parts = ["cardid", "run"]
    if args.impl:
        parts += ["--impl", args.impl]
    if args.cases.resolve() != suite.CASES_DIR.resolve():
        parts += ["--cases", str(args.cases)]
    if args.isolate:
        parts.append("--isolate")
    if args.timeout_multiplier != 1.0:
        parts += ["--timeout-multiplier", f"{args.timeout_multiplier:g}"]
    parts += ["--case", case_id]
    return shlex.join(parts)


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.partial")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise UsageError(f"cannot write report {path}: {exc.strerror}") from None
