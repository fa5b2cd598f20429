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
from cardid_runner.process.timing import Timing
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
    with SIGNALS:  # from loading to the last report written
        return _run(args, context.launcher, context.timing)


COMMAND = Command("run", _declare, _perform)


def corpus_of(args: argparse.Namespace, spec: Spec) -> Corpus:
    return load_corpus(case_files(args.cases), spec)


def selection_of(args: argparse.Namespace, spec: Spec) -> Selection:
    selection = Selection(
        cases=tuple(args.case),
        rules=tuple(args.rule),
        cr=tuple(args.cr_filter),
        tags=tuple(args.tag),
        levels=tuple(args.level),
        roles=tuple(Role(role) for role in args.role),
    )
    selection.check(spec)
    return selection


#: The options that name an output a stream may take (runner/writing.py).
_STREAMABLE = ("report_json", "junit", "markdown", "markdown_append")


def _run(args: argparse.Namespace, launcher: Launcher | None, timing: Timing) -> int:
    """Parse options -> build the Run -> perform it -> print the Result. When an output goes to
    standard output (`--report-json -`), the console's text goes to standard error, so that
    standard output holds that output alone (`cardid run --report-json - | jq`)."""
    spec = load_spec()
    corpus = corpus_of(args, spec)
    _check_outputs(args)
    named = [getattr(args, option) for option in _STREAMABLE]
    if any(path is not None and writing.descriptor(path) == 1 for path in named):
        with contextlib.redirect_stdout(sys.stderr):
            return _performed(args, spec, corpus, launcher, timing)
    return _performed(args, spec, corpus, launcher, timing)


def _performed(
    args: argparse.Namespace, spec: Spec, corpus: Corpus, launcher: Launcher | None, timing: Timing
) -> int:
    the_run = Run(
        impl=args.impl,
        spec=spec,
        corpus=corpus,
        cases_dir=args.cases,
        selection=selection_of(args, spec),
        isolate=args.isolate,
        multiplier=args.timeout_multiplier,
        jobs=args.jobs,
        known_failures=load_known_failures(args.known_failures) if args.known_failures else None,
        outputs=Outputs(
            report_json=args.report_json,
            junit=args.junit,
            markdown=args.markdown,
            markdown_append=args.markdown_append,
            save_failures=args.save_failures,
        ),
        source=args.source,
        timing=timing,
        generated=args.generated,
    )
    if args.resume:
        earlier = resume(args.resume, the_run.command, spec, the_run.selected())
        the_run = dataclasses.replace(the_run, resumed=earlier.outcomes, resumed_from=args.resume)
        say(f"resumed: {len(earlier.outcomes)} result(s) from {args.resume}, not run again (they are only "
            "as trustworthy as that file; run without --resume to judge every case)")
        if earlier.changed:
            say(f"note: {len(earlier.changed)} case(s) changed since {args.resume} was written, "
                 f"so they run again: {', '.join(earlier.changed)}")
    selected = the_run.selected()
    progress = Progress(len([case for case in selected if case.id not in the_run.resumed]))
    # Into a pipe or a file, each case's lines go out as it finishes (`cardid run | head` ends
    # the run once head has its lines); on a terminal, where the progress line is, at the end.
    shown = None if sys.stdout.isatty() else CaseLines(the_run, quiet=args.quiet)
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
    return show_result(the_run, result, quiet=args.quiet, report_json=args.report_json, shown=shown)


#: Invocation whose destination is not their name: --expect names the known-failure file.
_DEST = {"--expect": "known_failures"}


def _check_outputs(args: argparse.Namespace) -> None:
    """Two outputs never share a file (the second would silently replace the first), and no
    output replaces the known-failure file. (--resume may name the --report-json it resumes.)"""
    seen: dict[Path, str] = {}
    for option in ("--expect", "--report-json", "--junit", "--markdown", "--markdown-append", "--save-failures"):
        path = getattr(args, _DEST.get(option, option.lstrip("-").replace("-", "_")))
        if path is None:
            continue
        fd = writing.descriptor(path)
        key = Path(f"descriptor {fd}") if fd is not None else path.absolute().parent.resolve() / path.name
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} both name {path}: give each its own path")
        seen[key] = option
