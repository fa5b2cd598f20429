"""Fake implementations for the runner's own tests: `python fake_impl.py BEHAVIOUR [ARG]`.

Each behaviour wraps the reference's answers (so right answers stay right) and changes one
thing: the IDs it gives, or how it speaks the protocol. Run as a script, from any directory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
import zlib
from typing import Any

from cardid_reference.adapter import answer
from cardid_reference.errors import RequestError

BEHAVIOUR = sys.argv[1] if len(sys.argv) > 1 else "rename"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
#: Targeted faults hit only the request holding this text (case reader-unknown-name).
TARGET = "#u1 ? owner=P2"
#: What `hostile-text` puts in its name, messages and stderr: terminal escapes, characters XML
#: forbids, a carriage return, bidirectional and line-separator controls, lone surrogates, markup,
#: and characters that show as nothing (default-ignorable ones, a blank braille pattern).
HOSTILE = (
    "\x1b[31mRED\x1b[2J\x00NUL\x07\rCR\u202eevil\u2028LS\udfffX\ud800 </failure>]]> & | `x` <b>[l](u)"
    " ALM\u061c CGJ\u034f VS\ufe0f HF\u3164 BR\u2800 WJ\u2060 BOM\ufeff TAG\U000e0041"
)
HOSTILE_NAME = HOSTILE.replace("\udfff", "").replace("\ud800", "")
HOSTILE_STDERR = b"\x1b[2J\x1b[31mred\x00nul\rcr\xff\xfe\xe2\x80\xae bidi\n"


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


TRANSFORMS = {"rename": rename, "merge": merge, "split": split, "xdist-mix": split}


def edit_case_once() -> None:
    """`edit-case HOW`: on the run's first request (whichever process gets it), change the case
    file FAKE_EDIT_CASE names while the run goes on: `description` edits its description,
    `comment` adds a comment only, `remove` removes it."""
    try:
        os.close(os.open(os.environ["FAKE_EDIT_CASE"] + ".edited", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    path = os.environ["FAKE_EDIT_CASE"]
    if ARG == "remove":
        os.unlink(path)
        return
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if ARG == "comment":
        text = "# edited while the run went on\n" + text
    else:
        text = text.replace("description: ", "description: Edited while the run went on. ", 1)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def respond(request: Any) -> dict[str, Any]:
    if BEHAVIOUR == "edit-case":
        edit_case_once()
    if BEHAVIOUR == "slow-case" and os.environ.get("FAKE_SLOW", "1") != "0":  # FAKE_SLOW=0: at full speed
        time.sleep(float(ARG))
    result = answer(request)
    if "FAKE_SERVED_FILE" in os.environ:
        with open(os.environ["FAKE_SERVED_FILE"], "a", encoding="utf-8") as handle:
            handle.write("served\n")
    if request.get("role") == "writer" and BEHAVIOUR in TRANSFORMS:
        result = TRANSFORMS[BEHAVIOUR](result)
    return result


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def out(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def answer_twice_later(line: bytes) -> None:
    """The right answer `line`, and 50 ms later the same again (before the next request is read)."""
    out(line)
    time.sleep(0.05)
    out(line)


def targeted(request: Any) -> bool:
    return TARGET in json.dumps(request, ensure_ascii=False)


def fault(line: bytes) -> int | None:
    """Misbehave on the target request, whose right answer is `line`.

    Returns an exit status to die with, or None to go on. The same code serves both modes:
    `line` is a bare result in per-case mode and a `{"seq": ..., "result": ...}` line otherwise.
    """
    match BEHAVIOUR:
        case "crash-mid-run":
            return 3
        case "kill-parent":  # takes down the process that runs it (a pytest-xdist worker)
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(3600)
        case "exit0-no-output":
            return 0
        case "exit1-on-valid":
            out(json.dumps({"rejected": "refused a valid request"}).encode() + b"\n")
            return 1
        case "exit1-with-result":  # the right result, with the status of a rejection
            out(line)
            return 1
        case "logs-on-stdout":  # a debug print before the right answer
            out(b"loading model from ./model.bin \x1b[32mok\x1b[0m\n" + line)
            return None
        case "exit1-no-object":  # an uncaught exception: Python's and Node's exit status
            sys.stderr.write("Traceback (most recent call last):\nTypeError: boom\n")
            return 1
        case "partial-line-hang":
            out(line[:20])
            time.sleep(3600)
        case "hang":
            time.sleep(3600)
        case "just-past-timeout":
            time.sleep(float(ARG))
            out(line)
        case "garbage":
            out(b"Traceback (most recent call last): oops\n")
        case "invalid-utf8":
            out(b"\xff\xfe" + line)
        case "split-writes":
            for start in range(0, len(line), 7):
                out(line[start:start + 7])
                time.sleep(0.001)
        case "answers-twice-one-write":
            out(line + line)
        case "answers-twice-later":
            answer_twice_later(line)
        case "wrong-seq-target":
            out(line.replace(b'"seq": ', b'"seq": "other-', 1).replace(b', "result"', b'", "result"', 1))
        case "huge-stdout":
            chunk = b"x" * (1 << 20)
            for _ in range(300):
                out(chunk)
            out(b"\n")
        case "orphan-child":
            import subprocess

            child = subprocess.Popen(["sleep", "300"])
            with open(os.environ["FAKE_PID_FILE"], "a", encoding="utf-8") as handle:
                handle.write(f"{child.pid}\n")
            out(line)
        case "setsid-grandchild":  # a grandchild in its own session: out of the process group
            import subprocess

            child = subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True
            )
            with open(os.environ["FAKE_PID_FILE"], "a", encoding="utf-8") as handle:
                handle.write(f"{child.pid}\n")
            if ARG == "hang":
                time.sleep(3600)
            out(line)
        case "blank-flood":  # endless blank lines: no answer, ever
            while True:
                out(b"\n" * 4096)
        case "repeat-flood":  # endless second answers to the first request
            while True:
                out(b'{"seq": 1, "rejected": "again"}\n' * 64)
        case "mess-workdir":  # in its scratch folder (TMPDIR): a folder without permissions,
            # the scratch folder itself moved away and replaced by a link to /
            here = os.environ.get("TMPDIR", "")
            if not os.path.basename(here).startswith("cardid-impl-"):
                return 3  # never anyone else's folder (the working directory is the user's)
            locked = os.path.join(here, "locked")
            os.makedirs(os.path.join(locked, "deeper"))
            with open(os.path.join(locked, "deeper", "file"), "w", encoding="utf-8") as handle:
                handle.write("x")
            os.chmod(os.path.join(locked, "deeper"), 0)
            os.chmod(locked, 0)
            os.rename(here, here + "-moved")
            os.symlink("/", here)
            out(line)
        case "pad":  # the right answer, padded with spaces to 16 MiB + ARG bytes before its newline
            body = line.rstrip(b"\n")
            out(body + b" " * ((16 << 20) + int(ARG or 0) - len(body)) + b"\n")
        case "close-stdout-and-stay":
            sys.stdout.flush()
            os.close(1)
            time.sleep(3600)
        case "close-stdin":
            out(line)
            sys.stdin.close()
            os.close(0)
            return 0
    return None


def hostile(message: dict[str, Any]) -> None:
    """`hostile-text`: an error for the target request, a rejection of every other reader
    request, each carrying HOSTILE; writer requests are answered rightly. Stderr gets junk."""
    sys.stderr.buffer.write(HOSTILE_STDERR)
    sys.stderr.buffer.flush()
    request = message["request"]
    if request.get("role") == "writer":
        reply: dict[str, Any] = {"seq": message["seq"], "result": respond(request)}
    elif targeted(request):
        reply = {"seq": message["seq"], "error": HOSTILE}
    else:
        reply = {"seq": message["seq"], "rejected": HOSTILE}
    sys.stdout.write(json.dumps(reply) + "\n")  # ASCII: the surrogates travel as JSON escapes
    sys.stdout.flush()


def persistent(first: dict[str, Any]) -> int:
    if BEHAVIOUR in ("per-case-only", "noise-per-case"):
        print("persistent mode not supported", file=sys.stderr)
        return 1
    if BEHAVIOUR == "slow-start":  # busy for ARG seconds (a slow start uses CPU, or it is
        until = time.monotonic() + float(ARG)  # taken for a per-case adapter: runner/process/idle.py)
        while time.monotonic() < until:
            pass
    if BEHAVIOUR == "unflushed":  # output to a pipe, block-buffered and never flushed (even
        # where PYTHONUNBUFFERED=1 makes sys.stdout unbuffered): no line ever leaves
        with open(1, "w", buffering=1 << 16, encoding="utf-8", closefd=False) as buffered:
            buffered.write(json.dumps({"protocol": 1, "implementation": {"name": "fake-unflushed",
                                       "version": "0"}, "roles": ["writer", "reader"]}) + "\n")
            for line in sys.stdin:
                message = json.loads(line)
                if message.get("cmd") == "run":
                    try:
                        reply = {"seq": message["seq"], "result": respond(message["request"])}
                    except RequestError as exc:
                        reply = {"seq": message["seq"], "rejected": str(exc)}
                    buffered.write(json.dumps(reply) + "\n")
        return 0
    if BEHAVIOUR == "noise-before-handshake":
        out(b"adapter v0 starting up\n")
    if BEHAVIOUR == "stderr-flood":
        sys.stderr.write("x" * (20 << 20) + "\n")
    roles = ["writer"] if BEHAVIOUR == "writer-only" else ["writer", "reader"]
    # The handshake is strict JSON (a lone surrogate in it is refused, falling back to per-case
    # mode), so the name carries every other hostile character.
    name = HOSTILE_NAME if BEHAVIOUR == "hostile-text" else f"fake-{BEHAVIOUR}"
    emit({"protocol": 1, "implementation": {"name": name, "version": "0"}, "roles": roles})
    if BEHAVIOUR == "stop-reading":
        time.sleep(3600)  # reads nothing after the handshake
    served = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("cmd") == "stop":
            if BEHAVIOUR == "ignore-stop":
                with open(os.environ["FAKE_STOP_FILE"], "a", encoding="utf-8") as handle:
                    handle.write("stop\n")
                time.sleep(3600)
            return 0
        served += 1
        if BEHAVIOUR == "hostile-text":
            hostile(message)
            continue
        if BEHAVIOUR == "xdist-mix" and mixed(message):
            continue
        if targeted(message.get("request")) and BEHAVIOUR in FAULTS:
            if BEHAVIOUR == "exit1-on-valid":
                emit({"seq": message["seq"], "rejected": "refused a valid request"})
                continue
            answer_line = {"seq": message["seq"], "result": respond(message["request"])}
            status = fault(json.dumps(answer_line, ensure_ascii=False).encode() + b"\n")
            if status is not None:
                return status
            continue
        if BEHAVIOUR == "hostile-lines" and (attack := hostile_line()) is not None:
            out(attack.replace(b"SEQ", str(message["seq"]).encode()) + b"\n")
            continue
        if BEHAVIOUR == "leaky" and served == int(ARG or 3):
            return 3  # state left by earlier requests breaks this one; a fresh process is fine
        if BEHAVIOUR == "crash-always":
            return 3
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


FAULTS = {
    "crash-mid-run", "exit0-no-output", "partial-line-hang", "hang", "just-past-timeout", "garbage",
    "invalid-utf8", "split-writes", "answers-twice-one-write", "answers-twice-later",
    "wrong-seq-target", "huge-stdout", "orphan-child", "close-stdin", "exit1-on-valid",
    "exit1-no-object", "close-stdout-and-stay", "setsid-grandchild", "blank-flood",
    "repeat-flood", "mess-workdir", "pad", "exit1-with-result", "logs-on-stdout", "kill-parent",
}

#: What "hostile-lines" writes, one line after another, for every second request of a run (see
#: hostile_line): each must err its case, none may break the runner.
HOSTILE_LINES = [
    b'{"seq": [SEQ], "result": {}}',
    b"[" * 200_000 + b"]" * 200_000,
    b'{"seq": SEQ, "error": "boom \\ud800"}',
    b'{"seq": true, "result": {}}',
    b'{"seq": SEQ.0, "result": {}}',
    b'{"seq": SEQ, "result": {"card_table": [], "card_table": []}}',
    b'{"seq": SEQ, "result": {}, "error": "x"}',
    b"\xff\xfe not utf-8",
    b'{"seq": 1' + b"0" * 5000 + b"}",
    b"[]",
]


def hostile_line() -> bytes | None:
    """For `hostile-lines`: None (answer as usual) for the run's odd requests; for the 2k-th, the
    k-th of HOSTILE_LINES (round again after the last). Requests are counted in FAKE_COUNT_FILE,
    one byte each, across the processes of the run: each breach ends a process, and a count
    kept in one would start again at every restart (and meet the same line every time)."""
    fd = os.open(os.environ["FAKE_COUNT_FILE"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, b".")
        count = os.fstat(fd).st_size
    finally:
        os.close(fd)
    return None if count % 2 else HOSTILE_LINES[(count // 2 - 1) % len(HOSTILE_LINES)]


#: What `xdist-mix` answers twice, the second time later: the request of reader-quoted-owner.
LATE = "RandomOpp13"


def mixed(message: dict[str, Any]) -> bool:
    """`xdist-mix`, the fake of the project's one `-n 2` session (tests/test_xdist.py), does to
    requests of their own what three fakes do: split's writer answers (in respond); LATE's
    request answered twice, the second time later (answers-twice-later); and a hostile line
    (hostile-lines) for each other reader request whose text hashes even, except TARGET's.
    Each request is met the same way in any process, worker or run. Returns whether it wrote
    the answer; False: answer as usual."""
    request = message["request"]
    text = json.dumps(request, sort_keys=True)
    if request.get("role") == "writer" or TARGET in text:
        return False
    if LATE in text:
        answer_twice_later(json.dumps({"seq": message["seq"], "result": respond(request)}).encode() + b"\n")
        return True
    index = zlib.crc32(text.encode())
    if index % 2:
        return False
    out(HOSTILE_LINES[(index // 2) % len(HOSTILE_LINES)].replace(b"SEQ", str(message["seq"]).encode()) + b"\n")
    return True


def per_case(raw: str) -> int:
    if BEHAVIOUR in ("crash-always",):
        return 3
    if BEHAVIOUR == "hostile-lines" and (attack := hostile_line()) is not None:
        out(attack.replace(b"SEQ", b"1"))
        return 0
    request = json.loads(raw) if raw.strip() else None
    if BEHAVIOUR == "stderr-flood":
        sys.stderr.write("x" * (20 << 20) + "\n")
    if request is not None and targeted(request) and BEHAVIOUR in FAULTS:
        status = fault(json.dumps(respond(request), ensure_ascii=False).encode() + b"\n")
        return 0 if status is None else status
    try:
        result = respond(request)
    except RequestError as exc:
        print(exc, file=sys.stderr)
        print(json.dumps({"rejected": str(exc)}))
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


def spy() -> None:
    """Record what the implementation was given: argv, working directory, environment, stdin."""
    record = {"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    data = sys.stdin.read()
    record["stdin"] = data
    with open(os.environ["FAKE_SPY_FILE"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    print(json.dumps(respond(json.loads(data))))


def main() -> int:
    if BEHAVIOUR == "crash-at-start":
        return 3
    for variable, make in (("FAKE_MAKE_DIR", "dir"), ("FAKE_MAKE_FILE", "file")):
        # Change what an output path names while the run goes on (after the runner checked it).
        for target in filter(None, os.environ.get(variable, "").split(os.pathsep)):
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target)
            elif os.path.lexists(target):
                os.unlink(target)
            if make == "dir":
                os.makedirs(target)
            else:
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write("in the way\n")
    if BEHAVIOUR == "spy":
        spy()
        return 0
    if "FAKE_PID_FILE" in os.environ:
        with open(os.environ["FAKE_PID_FILE"], "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    if BEHAVIOUR == "stop-reading-per-case":
        time.sleep(3600)  # never reads its request
    if BEHAVIOUR == "reads-to-eof":  # per-case only: whatever comes, read to end of input
        return per_case(sys.stdin.read())
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
