"""Fake implementations for the runner's own tests: `python fake_impl.py BEHAVIOUR [ARG]`.

Each behaviour wraps the reference's answers (so right answers stay right) and changes one
thing: the IDs it gives, or how it speaks the protocol. Run as a script, from any directory.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from reference.adapter import answer
from reference.errors import RequestError

BEHAVIOUR = sys.argv[1] if len(sys.argv) > 1 else "rename"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""


def rename(result: dict[str, Any]) -> dict[str, Any]:
    """Rename every ID consistently (c1 -> id-1-x, ...): a right answer in other words."""
    names = {entry["id"]: f"id-{entry['id'][::-1]}-x" for entry in result["card_table"]}
    for entry in result["card_table"]:
        entry["id"] = names[entry["id"]]
    result["assignments"] = [None if a is None else names[a] for a in result["assignments"]]
    return result


def merge(result: dict[str, Any]) -> dict[str, Any]:
    """Merge the last two instances into one ID (wrong whenever a case has two instances)."""
    ids = [entry["id"] for entry in result["card_table"]]
    if len(ids) >= 2:
        keep, drop = ids[-2], ids[-1]
        result["card_table"] = [e for e in result["card_table"] if e["id"] != drop]
        result["assignments"] = [keep if a == drop else a for a in result["assignments"]]
    return result


def split(result: dict[str, Any]) -> dict[str, Any]:
    """Give the last observation of a repeated instance a new ID (wrong when any ID repeats)."""
    assignments = result["assignments"]
    for index in range(len(assignments) - 1, -1, -1):
        current = assignments[index]
        if current is not None and assignments.count(current) > 1:
            entry = next(e for e in result["card_table"] if e["id"] == current)
            result["card_table"].append({**entry, "id": current + "-split"})
            assignments[index] = current + "-split"
            break
    return result


TRANSFORMS = {"rename": rename, "merge": merge, "split": split}


def respond(request: Any) -> dict[str, Any]:
    result = answer(request)
    if request.get("role") == "writer" and BEHAVIOUR in TRANSFORMS:
        result = TRANSFORMS[BEHAVIOUR](result)
    return result


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def persistent(first: dict[str, Any]) -> int:
    if BEHAVIOUR == "per-case-only":
        print("persistent mode not supported", file=sys.stderr)
        return 1
    if BEHAVIOUR == "slow-start":
        time.sleep(float(ARG))
    roles = ["writer"] if BEHAVIOUR == "writer-only" else ["writer", "reader"]
    emit({"protocol": 1, "implementation": {"name": f"fake-{BEHAVIOUR}", "version": "0"}, "roles": roles})
    served = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("cmd") == "stop":
            return 0
        served += 1
        if BEHAVIOUR == "leaky" and served == int(ARG or 3):
            return 3  # state left by earlier requests breaks this one; a fresh process is fine
        if BEHAVIOUR == "crash-always":
            return 3
        if BEHAVIOUR == "hang":
            time.sleep(3600)
        if BEHAVIOUR == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        seq = message["seq"]
        if BEHAVIOUR == "wrong-seq":
            seq = f"{seq}-wrong"
        if BEHAVIOUR == "stderr-noise":
            sys.stderr.write("warning: noise\n" * 1000)
        try:
            emit({"seq": seq, "result": respond(message["request"])})
        except RequestError as exc:
            emit({"seq": seq, "rejected": str(exc)})
    return 0


def per_case(raw: str) -> int:
    if BEHAVIOUR in ("crash-always",):
        return 3
    if BEHAVIOUR == "hang":
        time.sleep(3600)
    if BEHAVIOUR == "garbage":
        print("this is not json")
        return 0
    try:
        result = respond(json.loads(raw))
    except RequestError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


def main() -> int:
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    first = sys.stdin.readline()
    try:
        message = json.loads(first)
    except ValueError:
        message = None
    if isinstance(message, dict) and message.get("cmd") == "start":
        return persistent(message)
    return per_case(first + sys.stdin.read())


if __name__ == "__main__":
    raise SystemExit(main())
