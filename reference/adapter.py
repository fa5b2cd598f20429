"""The adapter (adapter-contract.md): per-case and persistent JSON-lines modes on stdin/stdout."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from . import __version__
from .errors import RequestError
from .reader import read
from .writer import write

Write = Callable[[dict[str, Any]], dict[str, Any]]
Read = Callable[[str], dict[str, Any]]

#: Exit statuses (C-2): answered, rejected as invalid, and the reference's own failure.
ANSWERED, REJECTED, CRASHED = 0, 1, 3


def answer(
    request: Any, *, write: Write = write, read: Read = read, scalars_known: bool = False
) -> dict[str, Any]:
    """The result for one request, or RequestError when the request is invalid.

    `scalars_known`: the caller has made sure that no string in the request is a lone surrogate
    (`no_surrogate_escape` on the JSON text it was decoded from), so its strings are not walked.
    """
    if not isinstance(request, dict):
        raise RequestError("a request is a JSON object")
    if not scalars_known:
        _check_scalars(request)
    role = request.get("role")
    if role == "writer":
        return write(request)
    if role == "reader":
        if not isinstance(request.get("text"), str):
            raise RequestError("a reader request needs a string `text`")
        return read(request["text"])
    raise RequestError(f"unknown role {role!r}: expected writer or reader")


def no_surrogate_escape(text: bytes) -> bool:
    """Whether JSON text, decoded as strict UTF-8, surely yields no lone surrogate.

    Strict UTF-8 cannot carry a surrogate, so the only way one gets into a decoded string is an
    escape from \\uD800 to \\uDFFF. An escaped backslash followed by the text `uD800` also
    counts as one: such a request has its strings checked, and passes.
    """
    return _SURROGATE_ESCAPE.search(text) is None


def _check_scalars(value: Any) -> None:
    """JSON may carry lone surrogates, which are no Unicode scalar values and cannot be UTF-8."""
    try:
        # One pass in C over the whole request, rather than a Python loop over every character.
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON data (a caller's own objects): walk it instead
        _walk_scalars(value)
        return
    if _SURROGATE.search(text):
        raise RequestError(
            "the request holds a lone surrogate, which is not a Unicode scalar value"
        )


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _walk_scalars(value: Any) -> None:
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise RequestError(
                "the request holds a lone surrogate, which is not a Unicode scalar value"
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk_scalars(key)
            _walk_scalars(item)
    elif isinstance(value, list):
        for item in value:
            _walk_scalars(item)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RequestError(f"the request is not UTF-8: {exc}") from None
    except ValueError as exc:
        raise RequestError(f"the request is not JSON: {exc}") from None


def _emit(stdout: BinaryIO, message: Any) -> None:
    stdout.write(json.dumps(message, ensure_ascii=False).encode("utf-8"))
    stdout.write(b"\n")  # not `+ b"\n"`: that copies a long game's answer once more
    stdout.flush()


def _start_command(line: bytes) -> dict[str, Any] | None:
    """The `start` command, when the first line is one."""
    try:
        message = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is a ValueError too
        return None
    return message if isinstance(message, dict) and message.get("cmd") == "start" else None


def main(
    *,
    write: Write = write,
    read: Read = read,
    name: str = "cardid-reference",
    version: str = __version__,
    roles: Sequence[str] = ("writer", "reader"),
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> int:
    """Run the adapter; the first line of input decides the mode. Returns the exit status."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    first = stdin.readline()
    start = _start_command(first)
    if start is None:
        return per_case(first + stdin.read(), stdout, write=write, read=read)
    if start.get("protocol") != 1:
        print(
            f"unsupported protocol {start.get('protocol')!r}; this adapter speaks 1",
            file=sys.stderr,
        )
        return REJECTED
    hello = {
        "protocol": 1,
        "implementation": {"name": name, "version": version},
        "roles": list(roles),
    }
    _emit(stdout, hello)
    return persistent(stdin, stdout, write=write, read=read)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Answer one request without the cycle collector, and turn it back on after.

    A long game's request, its state and its answer are millions of objects that all live
    until the answer is written, so each pass of the collector over them finds nothing to free;
    at 100,000 observations those passes were a fifth of the answer's time, and made it grow
    faster than the game (docs/performance.md, figure 3e). What a request leaves in reference
    cycles is freed by the collector once it is back on."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def per_case(raw: bytes, stdout: BinaryIO, *, write: Write, read: Read) -> int:
    """C-1, C-2: one request in, one result out; 1 for a rejection, 3 for a failure."""
    try:
        with _collector_paused():
            request = _decode(raw)
            result = answer(request, write=write, read=read, scalars_known=no_surrogate_escape(raw))
    except RequestError as exc:
        print(f"rejected: {exc}", file=sys.stderr)
        _emit(stdout, {"rejected": str(exc)})  # C-2: the status and the rejection object
        return REJECTED
    except Exception:  # noqa: BLE001 - any other failure is a crash, never a rejection (C-2)
        traceback.print_exc()
        return CRASHED
    _emit(stdout, result)
    return ANSWERED


def persistent(stdin: BinaryIO, stdout: BinaryIO, *, write: Write, read: Read) -> int:
    """C-5, C-6: `run` messages answered one line each, until `stop` or end of input."""
    while line := stdin.readline():
        with _collector_paused():
            if not line.strip():
                continue
            try:
                message = _decode(line)
                scalars_known = no_surrogate_escape(line)
                del line  # a long game's request line: not kept while it is answered
            except RequestError as exc:
                _emit(stdout, {"seq": None, "error": f"bad protocol line: {exc}"})
                continue
            if not isinstance(message, dict):
                _emit(stdout, {"seq": None, "error": "bad protocol line: not a JSON object"})
                continue
            command, seq = message.get("cmd"), message.get("seq")
            if command == "stop":
                return ANSWERED
            if command != "run":
                _emit(stdout, {"seq": seq, "error": f"unknown command {command!r}"})
                continue
            try:
                reply: dict[str, Any] = {
                    "seq": seq,
                    "result": answer(
                        message.get("request"), write=write, read=read, scalars_known=scalars_known
                    ),
                }
            except RequestError as exc:
                reply = {"seq": seq, "rejected": str(exc)}
            except Exception as exc:  # noqa: BLE001 - reported as `error`; the process carries on
                traceback.print_exc()
                reply = {"seq": seq, "error": f"{type(exc).__name__}: {exc}"}
            _emit(stdout, reply)
            del message, reply  # not kept alive while the next request is read and decoded
    return ANSWERED
