"""The `cardid` command line: run, list, lint, and start the reference implementation.

Exit codes (documented in README.md):
    0  conforming (run), clean (lint), listed (list)
    1  a MUST case failed or errored, no case was judged, the corpus has case bugs, or lint
       found problems
    2  usage error: bad option, unreadable file, implementation command that cannot start,
       or an output that could not be written (the others are still written)
    3  the suite's own files (spec index, schemas) are broken
  128 + N  interrupted by signal N during `cardid run`: 130 SIGINT, 143 SIGTERM, 129 SIGHUP;
           141 when standard output's reader went away (`cardid run | head`), as SIGPIPE would
  130  interrupted (Ctrl-C outside a run)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

from cardid_conformance import escape, suite
from cardid_conformance.cases import Corpus, Role, case_files, load_corpus
from cardid_conformance.errors import CardidError, SuiteError, UsageError
from cardid_conformance.expect import load_known_failures
from cardid_conformance.lint import lint
from cardid_conformance.outcome import Outcome
from cardid_conformance.selection import Selection
from cardid_conformance.spec import Spec, load_cr_numbers, load_spec
from cardid_runner import (
    certify,
    coverage,
    doctor,
    fuzz,
    harness,
    knownfailures,
    logs,
    mutants,
    newcase,
    options,
    provenance,
    rules,
    shrink,
    writing,
)
from cardid_runner.adapter import Launcher
from cardid_runner.process.stop import SIGNALS
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.progress import Progress
from cardid_runner.resume import resume
from cardid_runner.run import Outputs, Run, decided, perform
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import (
    CaseLines,
    Exit,
    emit,
    reader_may_leave,
    reader_watched,
    say,
    show_result,
)


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are UsageErrors: one line, exit 2, returned by `main` (not raised
    as SystemExit), like every other usage error."""

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # Python 3.11's argparse drops a `--` given as an option's value (`--jobs=--`) and
        # leaves the option an empty list, which no type function has seen: take the value as
        # written, so that it is checked like any other.
        if action.nargs is None and action.option_strings and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)

    def error(self, message: str) -> NoReturn:
        if message.endswith(": expected one argument"):
            message += " (write a value that starts with '-' as --option=VALUE)"
        raise UsageError(f"{self.prog}: {message}")


class _VersionAsked(Exception):
    """`cardid --version`: answered by `main`, which returns rather than exits."""


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the suite's version, its spec's and its cases'")

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise _VersionAsked


def _version_line() -> str:
    spec = load_spec()
    count = len(case_files(suite.CASES_DIR))
    commit = provenance.commit()
    where = f", commit {commit}" if commit else ""
    return f"cardid {suite.version()} (card-identity spec {spec.version}, {count} cases in {suite.CASES_DIR}{where})"


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cardid", description="Conformance suite for card identity in Magic replay files."
    )
    parser.add_argument("--version", action=_VersionAction)
    # Each command's parser is a _Parser too (argparse makes them of the parser's class).
    commands = cast("Subcommands", parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    for command in COMMANDS:
        command.declare(commands)
    return parser


def _declare_run(commands: Subcommands) -> argparse.ArgumentParser:
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


def _declare_list(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid list`: its parser."""
    listing = options.add_command(
        commands,
        "list",
        help="list the selected cases without running them",
        description="Print the selected cases, one per line: ID, role, level, rules, description (tab-separated).",
        epilog=(
            "examples:\n"
            "  cardid list --rule LIB-2\n"
            "  cardid list --cr 701.24 --role writer | cut -f1\n"
            "\n"
            "exit codes: 0 listed, 1 the corpus has case bugs (listed on standard error), 2 usage error"
        ),
    )
    options.add_selection(listing)
    return listing


def _declare_lint(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid lint`: its parser."""
    linting = options.add_command(
        commands,
        "lint",
        help="check the case corpus",
        description=(
            "Check case files: schemas, rule IDs, unique case IDs, card sections, and that every "
            "rule is cited. With --cr, every CR number must exist in that Comprehensive Rules "
            "text or index; with --cards, every card fact (name, set, collector number, source "
            "ID) must agree with that card data CSV. Both files are your own copies: the suite "
            "ships neither. Without them those two checks are skipped, and the output says so."
        ),
        epilog=(
            "examples:\n"
            "  cardid lint\n"
            "  cardid lint --cases my-cases/ --cr MagicCompRules.txt --cards cards.csv\n"
            "\n"
            "exit codes: 0 clean, 1 problems found, 2 usage error, 3 the suite's own files are broken"
        ),
    )
    linting.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR)
    linting.add_argument("--cr", type=options.input_file, metavar="PATH", help="CR text or index to check citations against")
    linting.add_argument("--cards", type=options.input_file, metavar="PATH", help="card data CSV to check card facts against")
    return linting


def _declare_reference(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid reference`: its parser."""
    return options.add_command(
        commands,
        "reference",
        help="start the bundled reference implementation as an adapter",
        description=(
            "Start the bundled reference implementation as an adapter: it reads requests on "
            "standard input and answers on standard output, in per-case or persistent mode "
            "(spec/adapter-contract.md). `cardid run` uses it when no --impl is given."
        ),
        epilog='example:\n  echo \'{"role": "reader", "text": "#c1 \\"Island\\" owner=P1"}\' | cardid reference',
    )


def _perform_run(args: argparse.Namespace, context: Context) -> int:
    with SIGNALS:  # from loading to the last report written
        return _run(args, context.launcher, context.timing)


def _perform_list(args: argparse.Namespace, context: Context) -> int:
    return _list(args)


def _perform_lint(args: argparse.Namespace, context: Context) -> int:
    return _lint(args)


def _perform_reference(args: argparse.Namespace, context: Context) -> int:
    from cardid_reference.adapter import main as reference_main  # started as an adapter only

    return reference_main()


#: Every `cardid` command, in the order `cardid --help` lists them: the parser is built from
#: them, and a command is performed by its name.
COMMANDS: tuple[Command, ...] = (
    Command("run", _declare_run, _perform_run),
    Command("list", _declare_list, _perform_list),
    Command("lint", _declare_lint, _perform_lint),
    Command("reference", _declare_reference, _perform_reference),
    *certify.COMMANDS,
    doctor.COMMAND,
    rules.COMMAND,
    mutants.COMMAND,
    coverage.COMMAND,
    newcase.COMMAND,
    shrink.COMMAND,
    knownfailures.COMMAND,
    *logs.COMMANDS,
    harness.COMMAND,
    fuzz.COMMAND,
)
_BY_NAME = {command.name: command for command in COMMANDS}


def _check_working_folder() -> None:
    """Implementations run in the folder `cardid` runs in: one deleted since is a usage error
    said at once, not a traceback from the first command that asks for it."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise UsageError(
            "the current folder no longer exists (it was deleted after this shell entered it)",
            hint="cd to a folder that exists, then run the command again",
        ) from None


def main(
    argv: Sequence[str] | None = None, *, launcher: Launcher | None = None, timing: Timing = DEFAULT
) -> int:
    """Entry point of `cardid` and `python -m cardid_runner`. `launcher` and `timing` are
    given to the command as its Context (runner/subcommand.py): the project's tests pass
    in-memory implementations and shorter waits."""
    with reader_may_leave() as stdout:  # flushed as it ends: a failure to write is known then
        code = _main(argv, launcher, timing)
    if stdout.failure is not None:
        say(f"error: cannot write standard output: {stdout.failure}", sys.stderr)
        return Exit.USAGE  # an output that could not be written, as for --report-json
    return code


def _main(argv: Sequence[str] | None, launcher: Launcher | None, timing: Timing) -> int:
    try:
        args = _parser().parse_args(argv)
        _check_working_folder()
        return _BY_NAME[args.command].perform(args, Context(launcher=launcher, timing=timing))
    except _VersionAsked:
        emit(_version_line())
        return Exit.OK
    except KeyboardInterrupt:
        say("interrupted", sys.stderr)
        return Exit.INTERRUPTED
    except SuiteError as exc:
        say(exc.render(), sys.stderr)
        return Exit.SUITE
    except CardidError as exc:
        say(exc.render(), sys.stderr)
        return Exit.USAGE


def _corpus(args: argparse.Namespace, spec: Spec) -> Corpus:
    return load_corpus(case_files(args.cases), spec)


def _selection(args: argparse.Namespace, spec: Spec) -> Selection:
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
        say(f"{problem}", sys.stderr)
    checked = ["schemas", "rule IDs", "unique IDs"]
    checked += ["CR numbers"] if cr_numbers else []
    checked += ["card facts"] if args.cards else []
    unchecked = [] if cr_numbers else ["CR numbers (no --cr)"]
    unchecked += [] if args.cards else ["card facts (no --cards)"]
    skipped = f"; not checked: {', '.join(unchecked)}" if unchecked else ""
    if problems:
        emit(f"lint: {len(problems)} problem(s) in {len(corpus.cases) + len(corpus.bugs)} case files", sys.stderr)
        return Exit.FAILED
    emit(f"lint: {len(corpus.cases)} cases clean ({', '.join(checked)} checked{skipped})")
    return Exit.OK


def _list(args: argparse.Namespace) -> int:
    spec = load_spec()
    corpus = _corpus(args, spec)
    for bug in corpus.bugs:
        say(f"BUG IN CASE: {bug.message}", sys.stderr)
    for case in _selection(args, spec).apply(corpus.cases):
        fields = (case.id, case.role, case.level.name, ",".join(case.rules), case.description)
        emit("\t".join(escape.show(field) for field in fields))
    return Exit.FAILED if corpus.bugs else Exit.OK


#: The options that name an output a stream may take (runner/writing.py).
_STREAMABLE = ("report_json", "junit", "markdown", "markdown_append")


def _run(args: argparse.Namespace, launcher: Launcher | None, timing: Timing) -> int:
    """Parse options -> build the Run -> perform it -> print the Result. When an output goes to
    standard output (`--report-json -`), the console's text goes to standard error, so that
    standard output holds that output alone (`cardid run --report-json - | jq`)."""
    spec = load_spec()
    corpus = _corpus(args, spec)
    _check_outputs(args)
    named = [getattr(args, option) for option in _STREAMABLE]
    if any(path is not None and writing.descriptor(path) == 1 for path in named):
        with contextlib.redirect_stdout(sys.stderr):
            return _perform(args, spec, corpus, launcher, timing)
    return _perform(args, spec, corpus, launcher, timing)


def _perform(
    args: argparse.Namespace, spec: Spec, corpus: Corpus, launcher: Launcher | None, timing: Timing
) -> int:
    the_run = Run(
        impl=args.impl,
        spec=spec,
        corpus=corpus,
        cases_dir=args.cases,
        selection=_selection(args, spec),
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
