"""`cardid doctor`: checks that an adapter is written correctly, apart from whether it conforms.

It starts the command as `cardid run` would (runner/process/, runner/adapter.py), and checks
the adapter contract (spec/adapter-contract.md) on a few small requests taken from real cases:
the command starts; in persistent mode the handshake is valid, `seq` is echoed, each answer is
one line, `stop` makes it exit 0; in per-case mode a valid request gets exit status 0 and a
result valid for the role's schema, a must-reject request exit status 1 and the rejection
object; nothing but protocol messages on standard output. It never compares an answer with
the expected one: that is `cardid run`'s work. Each check is one line, `ok:`, `problem:` (with
one hint) or `note:` (something that is allowed, said because it matters).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass

from cardid_conformance import escape, protocol, schemas, suite
from cardid_conformance.answer import Answer, Answered, Crashed, CrashKind, Rejected, Unsupported
from cardid_conformance.cases import Case, Rejection, Role, load_case
from cardid_conformance.errors import CaseError, SuiteError, UsageError
from cardid_conformance.protocol import Breach, Hello, NotJson, OverSeveralLines, Refused
from cardid_conformance.spec import load_spec
from cardid_runner import execute, options
from cardid_runner.adapter import STOP_GRACE, PerCase, Request, Spawn, real_processes, start_process
from cardid_runner.exchange import (
    Closed,
    Malformed,
    Repeated,
    Replied,
    WrongSeq,
    read_reply,
    run_line,
    stop,
)
from cardid_runner.handshake import Exited, Handshake
from cardid_runner.process import idle
from cardid_runner.process.reads import TimedOut, TooLong
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.process.transport import Process
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import emit, show_line

#: The requests checked, from real cases: the plainest valid and must-reject one of each role.
SAMPLES = {
    (Role.WRITER, False): "keep-through-public-zones",
    (Role.WRITER, True): "reject-control-change-of-card-not-on-battlefield",
    (Role.READER, False): "reader-quoted-owner",
    (Role.READER, True): "reader-rejects-missing-owner",
}
#: The `seq` values sent, in this order: not 1, 2, 3, so that a counter of its own is seen.
SEQS = (7, 3, 12, 5)

#: The hints for standard output that is no JSON: pretty-printed JSON, and anything else.
ONE_LINE_HINT = ("write each message as one line of JSON, without indentation: JSON.stringify(x), "
                 "json.dumps(x) with no indent (C-5)")
LOGS_HINT = ("print logs and debug output to standard error: standard output holds only protocol "
             "messages (C-7)")
HANDSHAKE = '{"protocol": 1, "implementation": {"name": "...", "version": "..."}, "roles": ["writer", "reader"]}'
#: The kind of a crash or of a message that is not the one due (given where its reason is
#: written: conformance/protocol.py, runner/adapter.py) -> the one hint for it; any other kind
#: gets _STDERR_HINT.
_HINTS = {
    CrashKind.RESULT_WITH_STATUS_1: "exit with status 0 after writing a result; exit status 1 goes only "
    'with {"rejected": "reason"} (C-2)',
    CrashKind.REJECTION_WITH_STATUS_0: 'after writing {"rejected": "reason"}, exit with status 1 (C-2): '
    "exit status 0 says the output is a result",
    CrashKind.EMPTY: "write the JSON answer on standard output before exiting; nothing was written there "
    "(C-1)",
    CrashKind.SEVERAL_LINES: ONE_LINE_HINT,
    CrashKind.NOT_JSON: LOGS_HINT,
    CrashKind.NO_REJECTION_OBJECT: 'a rejection is exit status 1 and {"rejected": "reason"} on standard '
    "output (C-2); an uncaught error exits 1 too: see its standard error",
    CrashKind.NOT_UTF8: "write UTF-8 on standard output, and logs to standard error (C-7)",
    CrashKind.SEQ: "echo each run's seq exactly as received, as an integer (C-6)",
    CrashKind.TIMED_OUT: "read the request to end of input, write one JSON result, and exit (C-1)",
    CrashKind.CANNOT_RUN: "the command or its interpreter could not be run: see its standard error",
    CrashKind.SIGNAL: "it died of a signal: see its standard error",
    CrashKind.ANSWER_SCHEMA: 'an answer is one line: {"seq": N, "result": {...}} (or "rejected": '
    '"reason", or "error": "message"), nothing else (C-7)',
}
_STDERR_HINT = "see its standard error (cardid run --save-failures DIR keeps it)"


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's outcome: `kind` is ok, problem or note."""

    kind: str
    text: str
    hint: str | None = None
    stderr: str = ""

    def lines(self) -> list[str]:
        """The finding as printed: its line, then its hint and the last line of standard error."""
        lines = [f"{self.kind}: {self.text}"]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        said = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        telling = next((line for line in said if _TELLING.search(line)), None)
        if telling is not None and telling != said[-1]:
            lines.append(f"  its standard error says: {telling[:200]}")
        lines += [f"  its standard error ends: {line[:200]}" for line in said[-1:]]
        return [escape.show(line) for line in lines]


#: A line of standard error that says what went wrong, where the last line often does not
#: (Node.js ends with its version, after `Error: Cannot find module ...` and a stack).
_TELLING = re.compile(r"\b\w*(Error|Exception)\b|\b(error|fatal|panic|cannot|not found)\b", re.IGNORECASE)


def ok(text: str) -> Finding:
    return Finding("ok", text)


def problem(text: str, hint: str | None = None, stderr: str = "", kind: CrashKind = CrashKind.OTHER) -> Finding:
    """A problem: its text, and `hint`, or else the hint for its `kind` (never found in the text,
    which may quote what the implementation wrote)."""
    return Finding("problem", text, hint or _hint(kind), stderr)


def note(text: str, stderr: str = "") -> Finding:
    return Finding("note", text, stderr=stderr)


def _hint(kind: CrashKind) -> str:
    return _HINTS.get(kind, _STDERR_HINT)


@dataclass(frozen=True, slots=True)
class Sample:
    """One request to check with: a real case's request, valid or to be rejected."""

    case: Case

    @property
    def role(self) -> Role:
        return self.case.role

    @property
    def rejects(self) -> bool:
        return isinstance(self.case.expectation, Rejection)

    def __str__(self) -> str:
        kind = "a must-reject" if self.rejects else "a valid"
        return f"{kind} {self.role} request (case {self.case.id})"


def samples() -> list[Sample]:
    """The SAMPLES cases, loaded from the suite's own corpus."""
    spec = load_spec()
    loaded = []
    for (role, _), case_id in SAMPLES.items():
        path = suite.CASES_DIR / role.value / f"{case_id}.yaml"
        try:
            loaded.append(Sample(load_case(path, spec)))
        except CaseError as exc:
            raise SuiteError(f"the doctor's sample case is broken: {exc.message}") from None
    return loaded


class Doctor:
    """The checks of one command, as findings, in order."""

    def __init__(
        self, argv: Sequence[str], *, role: str | None = None, multiplier: float = 1.0,
        spawn: Spawn | None = None, timing: Timing = DEFAULT,
    ) -> None:
        self.argv = list(argv)
        self.role = None if role is None else Role(role)
        limits = execute.Invocation.scaled(tuple(argv), multiplier=multiplier, timing=timing)
        self.timeout, self.start_timeout = limits.timeout, limits.start_timeout
        self.quiet = limits.timing.quiet
        self.stop_grace = STOP_GRACE * max(1.0, multiplier)
        self._spawn = spawn or real_processes(limits.timing)
        self._samples = samples()
        self._stderr_seen = False

    def findings(self) -> Iterator[Finding]:
        try:
            proc = start_process(self._spawn, self.argv)
        except UsageError as exc:
            yield problem(f"the command does not start: {exc.message}", exc.hint or _STDERR_HINT)
            return
        yield ok(f"the command starts (in {os.getcwd()}, as your shell would run it)")
        try:
            hello = yield from self._persistent(proc)
        finally:
            proc.kill()
        roles = yield from self._roles(hello)
        yield from self._per_case(roles)
        if self._stderr_seen:
            yield note("it writes to standard error: that is free for diagnostics (the runner keeps "
                       "the last 8 KiB for reports)")

    # Persistent mode.

    def _persistent(self, proc: Process) -> Generator[Finding, None, Hello | None]:
        hello = yield from self._handshake(proc)
        if hello is None:
            return None
        roles = [r for r in hello.roles if self.role is None or r is self.role]
        answered: set[int] = set()
        for sample, seq in zip([s for s in self._samples if s.role in roles], SEQS, strict=False):
            if not (yield from self._persistent_request(proc, sample, seq, answered)):
                return hello  # the process is lost, or its state unknown: stop here
            answered.add(seq)
        yield from self._stop(proc)
        return hello

    def _handshake(self, proc: Process) -> Generator[Finding, None, Hello | None]:
        """The handshake as the run reads and judges it (runner/handshake.py), as a finding."""
        shake = Handshake(proc, timeout=self.start_timeout, quiet=self.quiet, grace=self.stop_grace)
        match shake.read():
            case Hello() as hello:
                yield ok(f"persistent mode: the handshake is valid for "
                         f"protocol.schema.json#/$defs/handshake: {hello.name} {hello.version}, "
                         f"roles {', '.join(hello.roles)}")
                return hello
            case idle.Waiting():
                yield self._waiting(shake)
            case Exited(code=code):
                status = "" if code is None else f" with status {code}"
                yield note(f"persistent mode: none: it exited at the start line{status} (fine: the "
                           "runner runs one process per case)", stderr=proc.stderr_tail())
            case TimedOut():
                yield problem(f"persistent mode: no handshake within {self.start_timeout:g} s, and it "
                              "is not seen waiting for input either",
                              "answer the start line with the handshake and flush it, or refuse it "
                              'with {"rejected": "reason"}, or exit; --isolate skips the handshake')
            case TooLong():
                yield problem("persistent mode: a handshake line of more than 16 MiB",
                              f"the handshake is one line: {HANDSHAKE}")
            case Refused(reason=reason):
                yield note(f"persistent mode: none: it {reason} (fine: the runner runs one process "
                           "per case)")
            case OverSeveralLines(reason=reason):
                yield problem(f"persistent mode: {reason}", ONE_LINE_HINT)
            case NotJson(reason=reason):
                yield problem(f"persistent mode: {reason}", LOGS_HINT)
            case Breach(reason=reason):
                yield problem(f"persistent mode: {reason}", f"the handshake is {HANDSHAKE}")
        return None

    def _waiting(self, shake: Handshake) -> Finding:
        """It read `start` and waits: a per-case adapter, or a persistent one whose handshake
        sits in its output buffer. Its input is closed to tell them apart (`Handshake.late`): a
        persistent adapter exits at end of input (flushing its buffer), a per-case one answers
        `start` as a request."""
        if shake.late() is not None:
            return problem("persistent mode: the handshake came only when its input was closed: "
                           "it does not flush its output, or it sat idle before answering longer "
                           f"than the {self.quiet:g} s the runner waits",
                           "flush standard output after each line (in Python print(..., flush=True), "
                           "in C fflush(stdout)); if it flushes and is only slow to start, give it "
                           "more time with --timeout-multiplier; else the runner falls back to one "
                           "process per case")
        return note("persistent mode: none: it read the start line and waits for more input, as a "
                    "per-case adapter does (fine: the runner runs one process per case)")

    def _persistent_request(
        self, proc: Process, sample: Sample, seq: int, answered: set[int]
    ) -> Generator[Finding, None, bool]:
        what = f"persistent mode: {sample}"
        began = time.monotonic()
        if not proc.send(*run_line(seq, sample.case.request_bytes())):
            yield problem(f"{what}: it closed its standard input",
                          "read request after request until stop or end of input (C-5)")
            return False
        read = read_reply(proc, seq, began + self.timeout, answered=answered, quiet=self.quiet,
                          exit_grace=self.stop_grace)
        stderr = self._stderr(proc)
        match read:
            case Replied(reply=reply):
                yield self._judge(what, protocol.reply_answer(reply, stderr, 0.0), sample, f"seq {seq} echoed, ")
                return True
            case idle.Waiting():
                yield problem(f"{what}: no answer came, and it waits for more input",
                              "write each answer as one line ending in \\n, and flush it (C-5)", stderr)
            case TimedOut():
                yield problem(f"{what}: no answer within {self.timeout:g} s",
                              "write each answer as one line ending in \\n, and flush it (C-5)", stderr)
            case Closed(rest=rest, code=code):
                status = "" if code is None else f" (status {code})"
                unended = f", after {len(rest)} bytes without a newline" if rest.strip() else ""
                yield problem(f"{what}: it exited during the request{status}{unended}",
                              "in persistent mode, answer run after run until stop or end of input",
                              stderr)
            case TooLong():
                yield problem(f"{what}: an answer line of more than 16 MiB", None, stderr, CrashKind.TOO_LONG)
            case Malformed(breach=breach):
                yield problem(f"{what}: {breach.reason}", None, stderr, breach.kind)
            case Repeated(seq=repeated):
                yield problem(f"{what}: a second answer to seq {repeated}",
                              "answer each run with exactly one line (C-5)", stderr)
            case WrongSeq(seq=wrong):
                yield problem(f"{what}: answered seq {wrong} to seq {seq}", None, stderr, CrashKind.SEQ)
        return False

    def _stop(self, proc: Process) -> Iterator[Finding]:
        after = stop(proc, time.monotonic() + self.stop_grace)
        wrote = next((line.strip() for line in after.lines if line.strip()), b"")
        hint = 'on {"cmd": "stop"} (or at end of input), exit with status 0, writing nothing'
        if wrote:
            yield problem("persistent mode: it wrote more than its answers on standard output (read "
                          f"at stop): {protocol.first_bytes(wrote)}",
                          "write one line per answer and nothing else; logs go to standard error (C-7)")
        if after.code is None:
            yield problem(f"persistent mode: it did not exit within {self.stop_grace:g} s of stop", hint)
        elif after.code != 0:
            yield problem(f"persistent mode: it exited with status {after.code} after stop", hint,
                          proc.stderr_tail())
        elif not wrote:
            yield ok("persistent mode: stop makes it exit with status 0")

    # Per-case mode.

    def _roles(self, hello: Hello | None) -> Generator[Finding, None, list[Role]]:
        if self.role is not None:
            if hello is not None and self.role not in hello.roles:
                yield problem(f"the handshake does not declare the {self.role} role (--role "
                              f"{self.role}): cardid run would skip its cases",
                              "list it in the handshake's roles, or check the other role")
            return [self.role]
        if hello is not None:
            return list(hello.roles)
        yield note("per-case mode: no handshake declares its roles, so both are checked; with "
                   "`--role` (here and in cardid run) only that one is")
        return list(Role)

    def _per_case(self, roles: list[Role]) -> Iterator[Finding]:
        adapter = PerCase(self.argv, spawn=self._spawn)
        for sample in self._samples:
            if sample.role in roles:
                request = Request(tag=sample.case.id, role=sample.role,
                                  payload=sample.case.request_bytes(), timeout=self.timeout)
                answer = adapter.run(request)
                yield self._judge(f"per-case mode: {sample}", answer, sample, "")

    # Judging the form of an answer (never its content).

    def _judge(self, what: str, answer: Answer, sample: Sample, echoed: str) -> Finding:
        """An answer's form: `echoed` is what persistent mode showed of the seq ("" per case)."""
        stderr = "" if isinstance(answer, Unsupported) else answer.stderr
        self._stderr_seen = self._stderr_seen or bool(stderr.strip())
        persistent = bool(echoed)
        match answer:
            case Answered(result=result):
                schema = f"{sample.role}-output"
                found = schemas.first_problem(schema, result)
                if found is not None:
                    return problem(f"{what}: the result does not match schema/{schema}.schema.json at "
                                   f"{found.where()}: {escape.store(found.message)[:200]}",
                                   f"the {sample.role} result is defined in spec/adapter-contract.md "
                                   f"(Roles) and schema/{schema}.schema.json", stderr)
                status = "" if persistent else "exit status 0, "
                if sample.rejects:
                    return note(f"{what}: answered ({status}{echoed}a result valid for "
                                f"schema/{schema}.schema.json) where the case expects a rejection: "
                                "whether that is right is for cardid run to judge")
                return ok(f"{what}: {status}{echoed}a result valid for schema/{schema}.schema.json")
            case Rejected(message=message):
                form = f'{echoed}"rejected"' if persistent else 'exit status 1 and {"rejected": ...}'
                if sample.rejects:
                    return ok(f"{what}: rejected ({form})")
                return problem(f"{what}: rejected a valid request: {message[:200]}",
                               "a valid request gets a result; read the request as "
                               "spec/observations.md (writer) or spec/card-table.md (reader) define it",
                               stderr)
            case Crashed(reason=reason, kind=kind):
                return problem(f"{what}: {reason}", None, stderr, kind)
            case Unsupported():  # pragma: no cover - PerCase never gives it
                return note(f"{what}: not supported")

    def _stderr(self, proc: Process) -> str:
        stderr = proc.stderr_tail()
        self._stderr_seen = self._stderr_seen or bool(stderr.strip())
        return stderr


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid doctor`: its parser."""
    parser = options.add_command(
        commands,
        "doctor",
        help="check that an adapter is written correctly (not whether it conforms)",
        description=(
            "Check that an adapter follows the adapter contract (spec/adapter-contract.md), apart "
            "from whether its answers are right: the command starts; in persistent mode the "
            "handshake, the seq echo, one flushed line per answer, exit 0 at stop; in per-case "
            "mode exit status 0 and a schema-valid result for a valid request of each role, exit "
            "status 1 and {\"rejected\": reason} for a must-reject one; nothing but protocol "
            "messages on standard output. Each check prints one line (ok:, problem: with a hint, "
            "or note:). Answers are never compared with the expected ones: cardid run does that."
        ),
        epilog=(
            "examples:\n"
            "  cardid doctor --impl \"node adapter.js\"\n"
            "  cardid doctor --impl \"python -m mypkg.adapter\" --role reader\n"
            "  cardid doctor --impl ./target/release/adapter --timeout-multiplier 3\n"
            "\n"
            "exit status: 0 no problem found, 1 problems found, 2 usage error,\n"
            "3 the suite's own files are broken"
        ),
    )
    options.add_implementation(
        parser, required=True, impl_help="the implementation command, as for cardid run", isolate=None
    )
    parser.add_argument("--role", choices=[role.value for role in Role],
                        help="check this role only (a per-case adapter cannot declare its roles)")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return main(args.impl, role=args.role, multiplier=args.timeout_multiplier, timing=context.timing)


COMMAND = Command("doctor", _declare, _perform)


def main(impl: str, *, role: str | None = None, multiplier: float = 1.0, timing: Timing = DEFAULT) -> int:
    """Run the checks of the command `impl` and print them; 0 when no problem was found, 1
    otherwise."""
    doctor = Doctor(execute.implementation_argv(impl), role=role, multiplier=multiplier, timing=timing)
    problems = 0
    for finding in doctor.findings():
        problems += finding.kind == "problem"
        for text in finding.lines():
            emit(text, flush=True)
    again = ["--impl", impl, *(["--role", role] if role else [])]
    if problems:
        show_line(
            f"{problems} problem(s): fix them, then run `cardid doctor "
            f"{shlex.join(again)}` again"
        )
        return 1
    show_line(f"adapter looks right: run `cardid run {shlex.join(again)}`")
    return 0
