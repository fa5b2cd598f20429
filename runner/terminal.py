"""What the `cardid` commands print, and how: the documented exit codes, lines that may hold
an implementation's text, a run's Result shown with the exit code it gives (`cardid run`,
`cardid certify`), and a standard output whose reader may go away."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import signal
import sys
from collections.abc import Iterator
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO, cast

from cardid_conformance import console, escape
from cardid_conformance.outcome import Errored, NotRun
from cardid_runner.execute import StartupFailure
from cardid_runner.run import Result, Run
from cardid_runner.stop import SIGNALS


class Exit(IntEnum):
    """The documented exit codes."""

    OK = 0
    FAILED = 1
    USAGE = 2
    SUITE = 3
    INTERRUPTED = 130


def say(text: str, stream: TextIO | None = None) -> None:
    """Print lines whose text may come from an implementation or a case file: each line
    `escape.visible`, so none can repaint the terminal, forge a line or fail to encode."""
    for line in text.split("\n"):
        emit(escape.visible(line), stream)


def emit(line: str, stream: TextIO | None = None) -> None:
    """Print one line (already escaped)."""
    print(line, file=stream or sys.stdout)


#: How many cases that errored for one same reason the console shows in full (an adapter that
#: cannot start errs every case alike: one block each said nothing new).
ALIKE_SHOWN = 3


def show_result(the_run: Run, result: Result, *, quiet: bool, report_json: Path | None) -> int:
    """Show a Result as `cardid run` does, and give its exit code (`report_json`: where the
    partial report of an interrupted run went, to resume from)."""
    cases_by_id = {case.id: case for case in the_run.corpus.cases}
    for line in console.identity_lines(result.info):
        emit(line)  # already escaped
    alike: dict[str, list[str]] = {}  # an error reason -> the cases that errored so
    for outcome in result.outcomes:
        if isinstance(outcome, Errored):
            alike.setdefault(outcome.reason, []).append(outcome.case_id)
            if len(alike[outcome.reason]) > ALIKE_SHOWN:
                continue  # said once below, not once a case
        rerun = result.info.rerun.get(outcome.case_id)
        lines = console.failure_lines(
            outcome, rerun, case=cases_by_id.get(outcome.case_id), spec=the_run.spec, verbose=not quiet
        )
        for line in lines:
            emit(line)  # already escaped
    for reason, case_ids in alike.items():
        if len(case_ids) > ALIKE_SHOWN:
            say(f"... and {len(case_ids) - ALIKE_SHOWN} more case(s) errored the same way "
                f"({reason[:120]}{'...' if len(reason) > 120 else ''}): fix that first; the report lists every case")
    if result.startup_failure is not None:
        not_run = sum(1 for outcome in result.outcomes if isinstance(outcome, NotRun))
        say("\n".join(startup_lines(the_run, result.startup_failure, not_run)))
    for problem in result.known_failure_problems:
        say(f"KNOWN-FAILURE FILE: {problem}")
    for line in console.summary_lines(result.outcomes, cases_by_id, the_run.spec, result.info):
        emit(line)
    for message in result.unwritten:
        say(f"error: {message}", sys.stderr)
    if result.interrupted:
        report_failed = any(message.startswith("cannot write --report-json") for message in result.unwritten)
        where = (
            "; the partial report could not be written"
            if report_failed
            else f"; resume with --resume {shlex.quote(str(report_json))}"
            if report_json
            else "; pass --report-json next time to be able to resume"
        )
        say(f"interrupted: {result.finished} of {result.selected} cases finished{where}", sys.stderr)
    if result.unwritten:
        return Exit.USAGE
    if result.interrupted:
        return 128 + (SIGNALS.first or signal.SIGINT)
    return Exit.OK if result.accepted else Exit.FAILED


#: A line of standard error that says what went wrong, as runtimes word it.
_TELLING = re.compile(r"error|exception|cannot|can't|could not|not found|no such|denied|fatal|panic", re.IGNORECASE)


def telling_line(stderr: str) -> str | None:
    """The line of an implementation's standard error that says why it failed: the last one
    naming an error (`Error: Cannot find module '/x/adapter.js'`, `ModuleNotFoundError: ...`),
    else the last line written."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return next((line for line in reversed(lines) if _TELLING.search(line)), lines[-1] if lines else None)


def startup_lines(the_run: Run, failure: StartupFailure, not_run: int) -> list[str]:
    """What `cardid run` says when the implementation fails at start-up: that the run stopped,
    why it is sure, the line of standard error that tells, and the fix."""
    code = failure.exited.code
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    reason = failure.reason if len(failure.reason) <= 120 else failure.reason[:120] + "..."
    lines = [
        f"STOPPED: the implementation fails at start-up. Its first {failure.cases} case(s) errored "
        f"alike ({reason}), and started with no input at all it exits without waiting for any "
        f"({how})"
    ]
    told = telling_line(failure.exited.stderr)
    if told is not None:
        lines.append(f"      stderr: {told}")
    if not_run:
        lines.append(f"      {not_run} case(s) not run: they would all fail the same way")
    command = shlex.quote(the_run.command)
    lines.append(
        f"      fix: check --impl and the folder you run from: {command} runs in {os.getcwd()}, "
        "as your shell would run it there (a script's path is taken from there)"
    )
    impl = f" --impl {command}" if the_run.impl is not None else ""
    lines.append(f"      then: `cardid doctor{impl}` checks the adapter step by step")
    return lines


class _ReaderMayLeave:
    """Standard output for the length of a command, whose reader may go away (`cardid run |
    head`, `cardid rules | head`): from then on what is written is dropped, and the command
    goes on to its end (its reports written) and exits with its own status, as it would have.
    Every command prints through it, whichever module it is in."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._gone = False
        #: Why standard output could not be written, other than its reader leaving (a full
        #: disk, an I/O error): the command says so at its end, and exits 2.
        self.failure: str | None = None

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._leave()
            except OSError as exc:
                self._fail(exc)
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()
            except OSError as exc:
                self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        self.failure = self.failure or (exc.strerror or str(exc))
        self._leave()

    def _leave(self) -> None:
        """Point the stream at /dev/null, so that neither a later write nor the flush at
        exit fails again."""
        self._gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def reader_may_leave() -> Iterator[_ReaderMayLeave]:
    """Standard output as _ReaderMayLeave, for the length of a command; standard output and
    error written with backslash escapes where their encoding (PYTHONIOENCODING=ascii, a C
    locale) cannot hold a character, never a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    real = sys.stdout
    guarded = _ReaderMayLeave(real)
    sys.stdout = cast(TextIO, guarded)
    try:
        yield guarded  # its `failure` says why standard output could not be written
    finally:
        with contextlib.suppress(OSError):
            sys.stdout.flush()
        sys.stdout = real
