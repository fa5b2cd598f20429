"""Adapters with one first-time mistake each, for `cardid doctor`'s tests:
`python doctor_adapters.py MISTAKE`. Each answers rightly (the reference's answers) apart from
its mistake, which is about how it speaks the contract, never about what it answers.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cardid_reference.adapter import answer
from cardid_reference.errors import RequestError

MISTAKE = sys.argv[1]
HELLO: dict[str, Any] = {"protocol": 1, "implementation": {"name": "toy", "version": "0.1"}, "roles": ["writer", "reader"]}


def write(message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def respond(request: Any) -> dict[str, Any]:
    result = answer(request)
    if MISTAKE == "wrong-answers":  # valid for the schema, and wrong: for cardid run to find
        for entry in result["card_table"]:
            entry["name"] = "Wrong Name"
    return result


def per_case(raw: str) -> int:
    try:
        result = respond(json.loads(raw))
    except RequestError as exc:
        if MISTAKE == "exit1-no-object":
            print(f"rejected: {exc}", file=sys.stderr)  # the reason on stderr only
        else:
            write({"rejected": str(exc)})
        return 0 if MISTAKE == "rejected-exit-0" else 1
    write(result)
    return 1 if MISTAKE == "exit1-with-result" else 0


def persistent() -> int:
    if MISTAKE == "handshake-without-implementation":
        write({"protocol": 1, "roles": ["writer", "reader"]})
    elif MISTAKE == "unflushed":
        sys.stdout = open(1, "w", buffering=1 << 16, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout.write(json.dumps(HELLO) + "\n")  # never flushed: stays in the buffer
    else:
        write(HELLO)
    for served, line in enumerate(sys.stdin, start=1):
        message = json.loads(line)
        if message.get("cmd") == "stop":
            return 2 if MISTAKE == "stop-exits-2" else 0
        seq = served if MISTAKE == "own-seq" else message["seq"]  # counts instead of echoing
        try:
            reply = {"seq": seq, "result": respond(message["request"])}
        except RequestError as exc:
            reply = {"seq": seq, "rejected": str(exc)}
        if MISTAKE == "unflushed":
            sys.stdout.write(json.dumps(reply) + "\n")
        else:
            write(reply)
        if MISTAKE == "log-after-answer" and served == 2:
            print("answered in 0 ms", flush=True)  # on stdout, after the last (reader) answer
    return 0


def main() -> int:
    if MISTAKE == "logs-on-stdout":
        print("toy adapter 0.1 starting", flush=True)  # a banner where only JSON may go (C-7)
    if MISTAKE == "reads-to-eof":  # per-case only, and rightly so: reads to end of input (C-1)
        return per_case(sys.stdin.read())
    first = sys.stdin.readline()
    if '"cmd": "start"' in first or '"cmd":"start"' in first:
        if MISTAKE in ("exit1-no-object", "exit1-with-result", "logs-on-stdout"):
            return 1  # no persistent mode: per-case only, by exiting at `start`
        return persistent()
    return per_case(first + sys.stdin.read())


if __name__ == "__main__":
    raise SystemExit(main())
