"""What the `cardid` commands print, and how: the documented exit codes, lines that may hold
an implementation's text, a run's Result shown with the exit code it gives (`cardid run`,
`cardid certify`), and a standard output whose reader may go away. Every command prints
through it (`say`, `show_line`, `emit`, `put`)."""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import re
import select
import shlex
import signal
import stat
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO, cast

from cardid_conformance import console, escape
from cardid_conformance.cases import CaseChange
from cardid_conformance.expect import apply_known_failures
from cardid_conformance.outcome import CaseBug, Errored, NotRun, Outcome
from cardid_conformance.report import Mode
from cardid_runner.adapter import Hello
from cardid_runner.execute import StartupFailure
from cardid_runner.process.stop import SIGNALS
from cardid_runner.run import Result, Run, identity


class Exit(IntEnum):
    """The documented exit codes."""

    OK = 0
    FAILED = 1
    USAGE = 2
    SUITE = 3
    INTERRUPTED = 130


def say(text: str, stream: TextIO | None = None) -> None:
    """Print lines whose text may come from an implementation or a case file: each line
    `escape.show`, so none can repaint the terminal, forge a line or fail to encode."""
    for line in text.split("\n"):
        emit(escape.show(line), stream)


def show_line(text: str, stream: TextIO | None = None, *, flush: bool = False) -> None:
    """Print text that may come from an implementation or a case file (a path, a name) as one
    line, `escape.show`n whole: a newline in it is shown as `\\x0a`, never starts a line."""
    emit(escape.show(text), stream, flush=flush)


def emit(line: str, stream: TextIO | None = None, *, flush: bool = False) -> None:
    """Print one line (already escaped: JSON, lines `escape.show`n by their renderer); with
    `flush`, at once (a line that says what is going on while the command waits)."""
    print(line, file=stream or sys.stdout, flush=flush)


def put(text: str, stream: TextIO | None = None) -> None:
    """Write a document as it is, adding nothing (a rendered log, for a program or a file to
    read: `cardid render arena CASE > Player.log`)."""
    (stream or sys.stdout).write(text)


#: How many cases that errored for one same reason the console shows in full (an adapter that
#: cannot start errs every case alike: one block each said nothing new).
ALIKE_SHOWN = 3


class CaseLines:
    """The console's lines for each case of a run, in the run's order, and the lines that count
    the errors shown once for many. Given the whole Result at the end (`finish`), or each
    outcome as its case finishes (`add`, `cardid run | head`): then each case's lines go out as
    soon as every case before it has finished, so the output is the same whichever thread ran
    which case, and the same as at the end but for what the end alone knows (a breach found
    after its case finished, shown at the end)."""

    def __init__(self, the_run: Run, *, quiet: bool, stream: TextIO | None = None) -> None:
        self._run = the_run
        self._quiet = quiet
        self._stream = stream
        self._cases = {case.id: case for case in the_run.corpus.cases}
        self._alike: dict[str, list[str]] = {}  # an error reason -> the cases that errored so
        #: What was shown for each case (its outcome, known failures applied).
        self._shown: dict[str, Outcome] = {}
        self._identity: list[str] | None = None
        self._identity_shown = False
        self._order: list[str] = []
        self._next = 0
        self._waiting: dict[str, Outcome] = {}
        self._today = datetime.date.today()

    def expect(self, order: Sequence[str], known: Mapping[str, Outcome]) -> None:
        """The cases in the order they are shown (their IDs), case bugs first, and the outcomes
        known before the run (case bugs, resumed cases, cases the source cannot express)."""
        bugs = [CaseBug(case_id=str(bug.path), reason=bug.message) for bug in self._run.corpus.bugs]
        self._order = [bug.case_id for bug in bugs] + list(order)
        self._waiting.update((bug.case_id, bug) for bug in bugs)
        self._waiting.update(known)

    def started(self, hello: Hello | None, mode: Mode) -> None:
        """The handshake and the mode are known: the identity lines, shown with the first case."""
        self._identity = console.identity_lines(identity(self._run, hello, mode))

    def add(self, outcome: Outcome) -> None:
        """One case finished: show it, and any after it that finished before it."""
        self._waiting[outcome.case_id] = outcome
        if self._identity is None:
            return
        while self._next < len(self._order) and self._order[self._next] in self._waiting:
            case_id = self._order[self._next]
            self._show(self._mark(self._waiting.pop(case_id)))
            self._next += 1
        self._flush()

    def finish(self, result: Result) -> None:
        """Show what was not shown yet, in the Result's order: everything, when nothing was shown
        as it came; else the cases cut short by an interruption, and a case whose outcome changed
        at the end. Then how many more errored alike."""
        if not self._identity_shown:
            self._identity = console.identity_lines(result.info)
        for outcome in result.outcomes:
            if self._shown.get(outcome.case_id) != outcome:
                self._show(outcome)
        self._show_identity()  # when no case had a line
        for reason, case_ids in self._alike.items():
            if len(case_ids) > ALIKE_SHOWN:
                self._emit([escape.show(
                    f"... and {len(case_ids) - ALIKE_SHOWN} more case(s) errored the same way "
                    f"({reason[:120]}{'...' if len(reason) > 120 else ''}): fix that first; the "
                    "report lists every case"
                )])
        self._flush()

    def _mark(self, outcome: Outcome) -> Outcome:
        """The outcome as the Result will hold it: a listed failure is a known one."""
        known = self._run.known_failures
        if known is None:
            return outcome
        return apply_known_failures(known, [outcome], self._cases.keys(), self._today).outcomes[0]

    def _show_identity(self) -> None:
        if not self._identity_shown and self._identity is not None:
            self._identity_shown = True
            self._emit(self._identity)

    def _show(self, outcome: Outcome) -> None:
        self._show_identity()
        self._shown[outcome.case_id] = outcome
        if isinstance(outcome, Errored):
            alike = self._alike.setdefault(outcome.reason, [])
            alike.append(outcome.case_id)
            if len(alike) > ALIKE_SHOWN:
                return  # said once at the end, not once a case
        rerun = None if isinstance(outcome, CaseBug) else self._run.rerun_command(outcome.case_id)
        self._emit(console.failure_lines(
            outcome, rerun, case=self._cases.get(outcome.case_id), spec=self._run.spec,
            verbose=not self._quiet,
        ))

    def _emit(self, lines: Sequence[str]) -> None:
        for line in lines:
            try:
                emit(line, self._stream)  # already escaped
            except BrokenPipeError:  # a stream other than standard output (it was redirected)
                SIGNALS.reader_left()
                return

    def _flush(self) -> None:
        with contextlib.suppress(BrokenPipeError):
            (self._stream or sys.stdout).flush()


def show_result(
    the_run: Run, result: Result, *, quiet: bool, report_json: Path | None, shown: CaseLines | None = None
) -> int:
    """Show a Result as `cardid run` does, and give its exit code (`report_json`: where the
    partial report of an interrupted run went, to resume from; `shown`: the lines of the cases
    shown as they finished, if they were)."""
    cases_by_id = {case.id: case for case in the_run.corpus.cases}
    (shown or CaseLines(the_run, quiet=quiet)).finish(result)
    if result.startup_failure is not None:
        not_run = sum(1 for outcome in result.outcomes if isinstance(outcome, NotRun))
        say("\n".join(startup_lines(the_run, result.startup_failure, not_run)))
    if result.info.cases_changed:
        say("\n".join(changed_lines(result.info.cases_changed)))
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
        if SIGNALS.first != signal.SIGPIPE:  # after `| head`, as a program killed by SIGPIPE: quiet
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


def changed_lines(changes: Sequence[CaseChange]) -> list[str]:
    """What a run says when case files changed while it went on: which, and that each case was
    judged as it was loaded."""
    lines = [
        f"CORPUS CHANGED: {len(changes)} case file(s) changed while the run went on; each case was "
        "judged as it was when the run began, which is no longer the corpus"
    ]
    for change in changes[:CHANGES_SHOWN]:
        where = f" ({change.path})" if change.path is not None else ""
        lines.append(f"      {change.case_id}: {change.change}{where}")
    if len(changes) > CHANGES_SHOWN:
        lines.append(f"      ... and {len(changes) - CHANGES_SHOWN} more (the JSON report has every one)")
    lines.append("      run again to judge the cases as they are now")
    return [escape.show(line) for line in lines]


#: How many changed case files the console names.
CHANGES_SHOWN = 10


class _ReaderMayLeave:
    """Standard output for the length of a command, whose reader may go away (`cardid rules |
    head`, `cardid run | head`): from then on what is written is dropped, without a traceback.
    A command goes on to its end and exits with its own status, as it would have; but a run
    (`cardid run`, `cardid certify`) stops, as SIGPIPE would stop it (SIGNALS.reader_left):
    no more cases, its processes ended, exit status 141. Every command prints through it,
    whichever module it is in."""

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
                self._reader_left()
            except OSError as exc:
                self._fail(exc)
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_left()
            except OSError as exc:
                self._fail(exc)

    def _reader_left(self) -> None:
        self._leave()
        SIGNALS.reader_left()

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
def reader_watched(stream: TextIO) -> Iterator[None]:
    """For the length of a run: when `stream` is a pipe, a thread that sees its reader go away
    (`cardid run | head` once head has its lines) even while nothing is written, and stops the
    run as SIGPIPE would (SIGNALS.reader_left). Elsewhere (a terminal, a file) nothing."""
    try:
        fd = stream.fileno()
        pipe = stat.S_ISFIFO(os.fstat(fd).st_mode)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pipe = False
    if not pipe:
        yield
        return
    wake, woken = os.pipe()

    def watch() -> None:
        poller = select.poll()
        poller.register(fd, 0)  # a pipe's write end reports POLLERR once no reader is left
        poller.register(wake, select.POLLIN)
        while True:
            events = dict(poller.poll())
            if wake in events or events.get(fd, 0) & select.POLLNVAL:
                return
            if events.get(fd, 0) & (select.POLLERR | select.POLLHUP):
                SIGNALS.reader_left()
                return

    thread = threading.Thread(target=watch, name="cardid-reader-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        os.write(woken, b"!")
        thread.join()
        os.close(wake)
        os.close(woken)


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
