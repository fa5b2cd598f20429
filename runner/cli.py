"""The `cardid` command line: the top-level parser, the one tuple of commands it is built from
(each a Command of its module, runner/subcommand.py), a command performed by its name, and
the errors every command ends with, as exit codes.

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
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, cast

from cardid_conformance import suite
from cardid_conformance.cases import case_files
from cardid_conformance.errors import CardidError, SuiteError, UsageError
from cardid_conformance.spec import load_spec
from cardid_runner import (
    bundled,
    certify,
    coverage,
    doctor,
    fuzz,
    harness,
    knownfailures,
    linting,
    listing,
    logs,
    mutants,
    newcase,
    provenance,
    rules,
    running,
    shrink,
)
from cardid_runner.adapter import Launcher
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import (
    Exit,
    emit,
    reader_may_leave,
    say,
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


#: Every `cardid` command, in the order `cardid --help` lists them: the parser is built from
#: them, and a command is performed by its name.
COMMANDS: tuple[Command, ...] = (
    running.COMMAND,
    listing.COMMAND,
    linting.COMMAND,
    bundled.COMMAND,
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
