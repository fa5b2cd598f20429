"""The one place that decodes what an implementation writes: strict JSON, each message checked
against its own definition in schema/protocol.schema.json.

Nothing here raises on anything an implementation can write: every function returns a value,
or a `Breach` saying in one line what was wrong. Strings the implementation chose (rejection
and error messages) are kept as `escape.store` makes them: a lone surrogate or a control
character is written as its escape.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cardid_conformance import escape, schemas, strictjson
from cardid_conformance.answer import Answer, Answered, Crashed, CrashKind, Rejected
from cardid_conformance.cases import Role

#: How much of an implementation's text a message quotes.
QUOTE = 120
#: How many of the first bytes of output that is not JSON a message shows.
FIRST_BYTES = 80
#: Said of output that is not JSON: the usual cause is a log line or a debug print.
LOGS_TO_STDERR = "logs and debug output go to standard error (C-7)"
#: Persistent mode reads messages line by line: pretty-printed JSON arrives as fragments.
ONE_LINE = "write each message as one line of JSON, without indentation (C-5)"
#: How deep JSON an implementation writes may nest. Results nest four levels; deeper data
#: would only reach Python's recursion limit later (in a repr, a schema message, json.dumps).
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Breach:
    """Why bytes are not the message that was due: in words, and as a kind (what is done about
    it goes by the kind, never by the words, which quote what the implementation wrote)."""

    reason: str
    kind: CrashKind = CrashKind.OTHER


@dataclass(frozen=True, slots=True)
class NotJson(Breach):
    """Bytes that are no JSON text at all (a log line, a debug print), as opposed to JSON of the
    wrong shape: standard output holds more than the protocol's messages."""


@dataclass(frozen=True, slots=True)
class OverSeveralLines(NotJson):
    """A line that reads as the first line of JSON written over several lines (pretty-printed):
    persistent mode reads messages a line at a time."""


@dataclass(frozen=True, slots=True)
class Refused(Breach):
    """The `start` line answered with a start rejection (#/$defs/start-rejected): the
    implementation chose per-case mode, as it may."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """The implementation's answer to the persistent-mode handshake."""

    name: str
    version: str
    roles: tuple[Role, ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """A well-formed answer line to the request with this seq: `kind` is result, rejected or
    error, `value` what it holds."""

    seq: int
    kind: str
    value: Any


#: A surrogate escape (\\ud800-\\udfff) in JSON text: only then can a lone surrogate come out.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def first_bytes(data: bytes, size: int = FIRST_BYTES) -> str:
    """The first bytes of an implementation's output, quoted on one line: undecodable bytes
    and every character a terminal or a report cannot take shown as escapes."""
    text = data[:size].decode("utf-8", "backslashreplace")
    return '"' + escape.show(text) + '"' + ("..." if len(data) > size else "")


def quote(data: bytes | str, size: int = QUOTE) -> str:
    """A short quotation of an implementation's text, its escapes visible."""
    text = repr(data[:size]) if isinstance(data, bytes) else repr(escape.store(data[:size]))
    return text + ("..." if len(data) > size else "")


def _lone_surrogate(value: Any) -> str | None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"\\u{ord(item[exc.start]):04x}"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def decode(data: bytes, what: str = "output", *, scalars: bool = True) -> Any | Breach:
    """Strict JSON from UTF-8 bytes: no duplicate keys, no NaN or Infinity, and (`scalars`) no
    lone surrogate in any string; any depth and size without raising."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Breach(f"{what} is not UTF-8 (byte {exc.start})", CrashKind.NOT_UTF8)
    try:
        value = strictjson.loads(text)
    except strictjson.DuplicateKey as exc:
        return Breach(f"{what} is not strict JSON: duplicate key {quote(exc.key)}",
                       CrashKind.NOT_STRICT_JSON)
    except RecursionError:
        return Breach(f"{what} is not usable JSON: nested deeper than {MAX_DEPTH} levels",
                       CrashKind.TOO_DEEP)
    except ValueError as exc:  # JSONDecodeError, an integer of too many digits, NaN
        if not text.strip():
            return NotJson(f"{what} is not JSON: it is empty", CrashKind.EMPTY)
        if text.rstrip().endswith(("{", "[", ",")):  # a line of pretty-printed JSON
            return OverSeveralLines(
                f"{what} is not JSON: {first_bytes(data)} looks like the first line of JSON "
                f"written over several lines; {ONE_LINE}",
                CrashKind.SEVERAL_LINES,
            )
        return NotJson(
            f"{what} is not JSON ({escape.store(str(exc))[:200]}); its first bytes: "
            f"{first_bytes(data)}; {LOGS_TO_STDERR}",
            CrashKind.NOT_JSON,
        )
    except (MemoryError, OverflowError) as exc:  # pragma: no cover - defensive
        return Breach(f"{what} is not usable JSON: {type(exc).__name__}", CrashKind.TOO_DEEP)
    if (
        type(value) in (dict, list)
        and data.count(b"[") + data.count(b"{") > MAX_DEPTH
        and _deeper_than(value, MAX_DEPTH)
    ):
        return Breach(f"{what} is not usable JSON: nested deeper than {MAX_DEPTH} levels",
                       CrashKind.TOO_DEEP)
    if scalars:
        return _scalars_only(value, data, what)
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest deeper than `limit`: walked level by level, containers only."""
    level = [value]
    depth = 1
    while level:
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below += [child for child in children if type(child) is dict or type(child) is list]
        level = below
        depth += 1
    return False


def _scalars_only(value: Any, data: bytes, what: str) -> Any | Breach:
    """The value, or a Breach if one of its strings holds a lone surrogate (only a surrogate
    escape in the JSON text can put one there, so most texts are not walked)."""
    if _SURROGATE_ESCAPE.search(data):
        surrogate = _lone_surrogate(value)
        if surrogate is not None:
            return Breach(f"{what} holds a lone surrogate ({surrogate}), which is not Unicode",
                           CrashKind.LONE_SURROGATE)
    return value


def _type_name(value: Any) -> str:
    return {
        dict: "an object", list: "an array", str: "a string", bool: "a boolean",
        int: "a number", float: "a number", type(None): "null",
    }.get(type(value), type(value).__name__)


def parse_hello(line: bytes) -> Hello | Refused | Breach:
    """The handshake (protocol.schema.json#/$defs/handshake), or why persistent mode is off:
    a start rejection (#/$defs/start-rejected), a line that is no JSON (`NotJson`; pretty-printed
    JSON is `OverSeveralLines`), or JSON of the wrong shape (a `Breach`)."""
    message = decode(line, "the handshake")
    if isinstance(message, Breach):
        return message
    if isinstance(message, dict) and "rejected" in message and "protocol" not in message:
        problem = schemas.first_problem("protocol#start-rejected", message)
        if problem is None:
            return Refused(f"refused persistent mode: {escape.store(message['rejected'])[:300]}")
    problem = schemas.first_problem("protocol#handshake", message)
    if problem is not None:
        return Breach(
            f"the handshake does not match protocol.schema.json#/$defs/handshake at "
            f"{problem.where()}: {escape.store(problem.message)[:200]}: {quote(line)}",
            CrashKind.HANDSHAKE,
        )
    return Hello(
        name=escape.store(message["implementation"]["name"]),
        version=escape.store(message["implementation"]["version"]),
        roles=tuple(Role(role) for role in message["roles"]),
    )


_KINDS = ("result", "rejected", "error")


def parse_reply(line: bytes, expected: int) -> Reply | Breach:
    """One answer line (protocol.schema.json#/$defs/answer), or what is wrong with it. A
    well-formed reply may still carry another integer seq than `expected` (a second answer to
    an earlier request): the caller decides."""
    message = decode(line, "the answer line", scalars=False)  # messages are stored escaped
    if isinstance(message, Breach):
        return message
    if not isinstance(message, dict):
        return Breach(f"wrote {_type_name(message)} where an answer object was due: {quote(line)}",
                       CrashKind.NOT_AN_ANSWER)
    seq = message.get("seq")
    if "seq" not in message:
        return Breach(f"answered without seq: {quote(line)}", CrashKind.SEQ)
    if type(seq) is not int:
        shown = json.dumps(seq, ensure_ascii=False)
        shown = escape.store(shown[:40]) + ("..." if len(shown) > 40 else "")
        return Breach(f"answered seq {shown}, expected {expected} (the very integer sent)", CrashKind.SEQ)
    kinds = [kind for kind in _KINDS if kind in message]
    if not kinds:
        return Breach(f"answered without result, rejected or error: {quote(line)}", CrashKind.NOT_AN_ANSWER)
    if len(kinds) > 1:
        return Breach(f"answered with both {kinds[0]} and {kinds[1]}: one answer holds one of them",
                       CrashKind.NOT_AN_ANSWER)
    kind = kinds[0]
    value = message[kind]
    envelope = {**message, kind: {} if isinstance(value, dict) else value}  # the result is judged apart
    problem = schemas.first_problem(f"protocol#answer-{kind}", envelope)
    if problem is not None:
        return Breach(
            f"the answer does not match protocol.schema.json#/$defs/answer-{kind} at "
            f"{problem.where()}: {escape.store(problem.message)[:200]}",
            CrashKind.ANSWER_SCHEMA,
        )
    if kind == "result":
        checked = _scalars_only(value, line, "the result")
        if isinstance(checked, Breach):
            return checked
    return Reply(seq=seq, kind=kind, value=value)


def reply_answer(reply: Reply, stderr: str, seconds: float) -> Answer:
    """The answer a well-formed reply gives."""
    match reply.kind:
        case "result":
            return Answered(result=reply.value, stderr=stderr, seconds=seconds)
        case "rejected":
            return Rejected(message=escape.store(reply.value)[:500], stderr=stderr, seconds=seconds)
        case _:
            return Crashed(
                reason=f"reported an error: {escape.store(reply.value)[:300]}",
                kind=CrashKind.ERROR_REPORTED,
                stderr=stderr,
                seconds=seconds,
            )


#: What an exit status says beyond itself: a shell or `env` exits so when it cannot run a command.
_STATUS_MEANS = {
    126: " (what a shell or env gives for a command it cannot execute: see standard error)",
    127: " (what a shell or env gives for a command it cannot find: see standard error)",
}


#: A rejection object written with exit status 0: the status is the fix (C-2).
REJECTED_WITH_0 = (
    'a rejection object {"rejected": ...} with exit status 0: a rejection needs exit status 1 '
    "(C-2); exit 0 is for a result"
)


def per_case_answer(
    code: int, output: bytes, stderr: str, seconds: float, role: Role | None = None
) -> Answer:
    """A per-case process's answer from its exit status and standard output (C-1, C-2); `role`,
    the request's, tells a result written with the wrong status."""
    if code == 0:
        result = decode(output)
        if isinstance(result, Breach):
            return Crashed(reason=result.reason, kind=result.kind, output=output[:2000], stderr=stderr,
                           seconds=seconds)
        if schemas.is_valid("protocol#start-rejected", result):
            return Crashed(reason=REJECTED_WITH_0, kind=CrashKind.REJECTION_WITH_STATUS_0, exit_status=0,
                           output=output[:2000], stderr=stderr, seconds=seconds)
        return Answered(result=result, stderr=stderr, seconds=seconds)
    if code == 1:
        return _rejection(output, stderr, seconds, role)  # the message is stored escaped
    if code < 0:
        reason, kind = f"killed by signal {-code}", CrashKind.SIGNAL
    else:
        reason = f"exit status {code}{_STATUS_MEANS.get(code, '')}"
        kind = CrashKind.CANNOT_RUN if code in _STATUS_MEANS else CrashKind.EXIT_STATUS
    return Crashed(reason=reason, kind=kind, exit_status=code, output=output[:2000], stderr=stderr,
                   seconds=seconds)


def _rejection(output: bytes, stderr: str, seconds: float, role: Role | None) -> Rejected | Crashed:
    """Exit status 1: a rejection only with the rejection object on standard output (C-2).

    Exit status 1 is also what Python and Node.js give an uncaught exception, so the status alone
    would let a program that cannot even start pass every must-reject case.
    """
    message = decode(output, scalars=False)
    if not isinstance(message, Breach) and schemas.is_valid("protocol#start-rejected", message):
        return Rejected(message=escape.store(message["rejected"])[:500], stderr=stderr, seconds=seconds)
    roles = tuple(Role) if role is None else (role,)
    if isinstance(message, dict) and any(schemas.is_valid(f"{r}-output", message) for r in roles):
        reason = (
            "exit status 1 with a result on standard output: exit status 1 means a rejection "
            "(C-2); a result needs exit status 0"
        )
        kind = CrashKind.RESULT_WITH_STATUS_1
    else:
        reason = (
            'exit status 1 without a rejection object on standard output: a rejection is '
            'exit status 1 and {"rejected": "reason"} on standard output (C-2); this looks like '
            "an uncaught error"
        )
        kind = CrashKind.NO_REJECTION_OBJECT
        if isinstance(message, Breach) and output.strip():
            reason += f"; standard output is not JSON, its first bytes: {first_bytes(output)}; {LOGS_TO_STDERR}"
            kind = CrashKind.NOT_JSON  # what to fix first: logs on standard output
    return Crashed(reason=reason, kind=kind, exit_status=1, output=output[:2000], stderr=stderr,
                   seconds=seconds)
