"""`cardid run`: the selected cases run against an implementation, from the command line.

Its options are read into a Run (runner/run.py), the Run is performed, and its Result shown
(runner/terminal.py), each case's lines as it finishes when standard output is a pipe or a
file (`cardid run | head`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance.cases import Corpus, Role, case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import load_known_failures
from cardid_conformance.outcome import Outcome
from cardid_conformance.selection import Selection
from cardid_conformance.spec import Spec, load_spec
from cardid_runner import options, writing
from cardid_runner.adapter import Launcher
from cardid_runner.process.stop import SIGNALS
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.progress import Progress
from cardid_runner.resume import resume
from cardid_runner.run import Outputs, Run, decided, perform
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import CaseLines, reader_watched, say, show_result


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid run`: its parser."""
    run = options.add_command(
        commands,
        "run",
        help="run the cases against an implementation",
        description=(
            "Run the selected cases (all by default) against an implementation, through its "
            "adapter command (spec/adapter-contract.md), compare its answers with the expected "
            "ones, print each failure and the verdict, and write the reports asked for. "
            "Selection options may be repeated: within one option any value matches, and "
            "every option given must match."
        ),
        epilog=(
            "examples:\n"
            "  cardid run                                    # the bundled reference\n"
            "  cardid run --impl \"node adapter.js\" --report-json report.json\n"
            "  cardid run --impl ./adapter --rule LIB --role writer --save-failures failures/\n"
            "  cardid run --impl ./adapter --expect known-failures.yaml --junit junit.xml \\\n"
            "             --markdown-append \"$GITHUB_STEP_SUMMARY\"\n"
            "\n"
            "exit codes:\n"
            "  0  accepted: no MUST failure beyond the listed known failures (SHOULD failures\n"
            "     are warnings)\n"
            "  1  a MUST case failed or errored that no known-failure entry lists, no case was\n"
            "     judged, the run stopped since the implementation fails at start-up, the\n"
            "     corpus has case bugs, or the known-failure file is wrong\n"
            "  2  usage error, or an output could not be written (the others were)\n"
            "  3  the suite's own files are broken\n"
            "  128+N  interrupted by signal N (130 Ctrl-C; 141 standard output's reader left,\n"
            "         as in `cardid run | head`): the partial report was written"
        ),
    )
    options.add_selection(run)
    options.add_implementation(run)
    options.add_source(run)
    options.add_jobs(run)
    run.add_argument("--report-json", type=options.output_file, metavar="PATH", help="write the JSON report")
    run.add_argument("--junit", type=options.output_file, metavar="PATH", help="write a JUnit XML report")
    run.add_argument("--markdown", type=options.output_file, metavar="PATH", help="write a Markdown summary")
    run.add_argument("--markdown-append", type=options.output_file, metavar="PATH",
                     help="append the Markdown summary to PATH (e.g. \"$GITHUB_STEP_SUMMARY\")")
    run.add_argument("--save-failures", type=options.output_dir, metavar="DIR",
                     help="keep the request, expected answer, raw output, stderr and diff of each failure in DIR/<case>/")
    options.add_known_failures(run)
    run.add_argument("--resume", type=options.input_file, metavar="PATH",
                     help="a partial JSON report of an interrupted run: run only the cases it lacks")
    run.add_argument("-q", "--quiet", action="store_true", help="no context lines under failures")
    options.add_generated(run)
    return run


def _perform(args: argparse.Namespace, context: Context) -> int:
    chosen = RunOptions(
        cases=args.cases,
        selection=Selection(
            cases=tuple(args.case),
            rules=tuple(args.rule),
            cr=tuple(args.cr_filter),
            tags=tuple(args.tag),
            levels=tuple(args.level),
            roles=tuple(Role(role) for role in args.role),
        ),
        impl=args.impl,
        isolate=args.isolate,
        multiplier=args.timeout_multiplier,
        jobs=args.jobs,
        source=args.source,
        known_failures=args.known_failures,
        outputs=Outputs(
            report_json=args.report_json,
            junit=args.junit,
            markdown=args.markdown,
            markdown_append=args.markdown_append,
            save_failures=args.save_failures,
        ),
        resume=args.resume,
        quiet=args.quiet,
        generated=args.generated,
    )
    with SIGNALS:  # from loading to the last report written
        return run(chosen, launcher=context.launcher, timing=context.timing)


COMMAND = Command("run", _declare, _perform)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """What `cardid run` was asked: the options as read, before the spec and the cases are
    loaded (the selection is checked against the spec then)."""

    cases: Path
    selection: Selection
    impl: str | None
    isolate: bool
    multiplier: float
    jobs: int
    source: str | None
    #: The known-failure file (--expect).
    known_failures: Path | None
    outputs: Outputs
    #: The partial report of an interrupted run to resume.
    resume: Path | None
    quiet: bool
    generated: int

    def named_outputs(self) -> list[tuple[str, Path | None]]:
        """The files named by option, as each option is written, in the order of the checks:
        the known-failure file, then each output."""
        outputs = self.outputs
        return [
            ("--expect", self.known_failures),
            ("--report-json", outputs.report_json),
            ("--junit", outputs.junit),
            ("--markdown", outputs.markdown),
            ("--markdown-append", outputs.markdown_append),
            ("--save-failures", outputs.save_failures),
        ]


def run(chosen: RunOptions, *, launcher: Launcher | None = None, timing: Timing = DEFAULT) -> int:
    """Load -> build the Run -> perform it -> print the Result. When an output goes to
    standard output (`--report-json -`), the console's text goes to standard error, so that
    standard output holds that output alone (`cardid run --report-json - | jq`)."""
    spec = load_spec()
    corpus = load_corpus(case_files(chosen.cases), spec)
    _check_outputs(chosen.named_outputs())
    outputs = chosen.outputs
    streamable = (outputs.report_json, outputs.junit, outputs.markdown, outputs.markdown_append)
    if any(path is not None and writing.descriptor(path) == 1 for path in streamable):
        with contextlib.redirect_stdout(sys.stderr):
            return _performed(chosen, spec, corpus, launcher, timing)
    return _performed(chosen, spec, corpus, launcher, timing)


def _performed(
    chosen: RunOptions, spec: Spec, corpus: Corpus, launcher: Launcher | None, timing: Timing
) -> int:
    chosen.selection.check(spec)
    the_run = Run(
        impl=chosen.impl,
        spec=spec,
        corpus=corpus,
        cases_dir=chosen.cases,
        selection=chosen.selection,
        isolate=chosen.isolate,
        multiplier=chosen.multiplier,
        jobs=chosen.jobs,
        known_failures=load_known_failures(chosen.known_failures) if chosen.known_failures else None,
        outputs=chosen.outputs,
        source=chosen.source,
        timing=timing,
        generated=chosen.generated,
    )
    if chosen.resume:
        earlier = resume(chosen.resume, the_run.command, spec, the_run.selected())
        the_run = dataclasses.replace(the_run, resumed=earlier.outcomes, resumed_from=chosen.resume)
        say(f"resumed: {len(earlier.outcomes)} result(s) from {chosen.resume}, not run again (they are only "
            "as trustworthy as that file; run without --resume to judge every case)")
        if earlier.changed:
            say(f"note: {len(earlier.changed)} case(s) changed since {chosen.resume} was written, "
                 f"so they run again: {', '.join(earlier.changed)}")
    selected = the_run.selected()
    progress = Progress(len([case for case in selected if case.id not in the_run.resumed]))
    # Into a pipe or a file, each case's lines go out as it finishes (`cardid run | head` ends
    # the run once head has its lines); on a terminal, where the progress line is, at the end.
    shown = None if sys.stdout.isatty() else CaseLines(the_run, quiet=chosen.quiet)
    if shown is not None:
        shown.expect([case.id for case in selected], decided(the_run, selected))

    def finished(outcome: Outcome) -> None:
        progress(outcome)
        if shown is not None:
            shown.add(outcome)

    try:
        with reader_watched(sys.stdout):
            result = perform(the_run, progress=finished, on_start=shown.started if shown else None,
                             launcher=launcher)
    finally:
        progress.close()
    return show_result(the_run, result, quiet=chosen.quiet, report_json=chosen.outputs.report_json, shown=shown)


def _check_outputs(named: Sequence[tuple[str, Path | None]]) -> None:
    """Two outputs never share a file (the second would silently replace the first), and no
    output replaces the known-failure file. (--resume may name the --report-json it resumes.)"""
    seen: dict[Path, str] = {}
    for option, path in named:
        if path is None:
            continue
        fd = writing.descriptor(path)
        key = Path(f"descriptor {fd}") if fd is not None else path.absolute().parent.resolve() / path.name
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} both name {path}: give each its own path")
        seen[key] = option
