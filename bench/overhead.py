"""Benchmark 1, runner overhead in persistent mode: the runner's round trip to a null
implementation against a bare JSON-lines client's and the pipe's own (1a to 1f)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cardid_conformance.cases import Case
from cardid_conformance.judge import judge
from cardid_conformance.spec import Spec
from cardid_reference.adapter import answer
from cardid_reference.errors import RequestError
from cardid_runner import execute
from cardid_runner.adapter import Persistent, Request

from bench.common import ROOT, Figure, Settings, ms

NULL_IMPL = ROOT / "bench" / "null_impl.py"


def reply_bodies(cases: Sequence[Case]) -> list[bytes]:
    """The null implementation's canned replies: the reference's answers, computed beforehand."""
    bodies = []
    for case in cases:
        try:
            result = answer(json.loads(case.request_bytes()))
            body = (
                b'"result":'
                + json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode()
            )
        except RequestError as exc:
            body = b'"rejected":' + json.dumps(str(exc)).encode()
        bodies.append(body)
    return bodies


class _NullProcess:
    """The bare client's end of a null implementation: framed lines out, lines back."""

    def __init__(self, argv: Sequence[str]) -> None:
        self._popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._popen.stdin is not None and self._popen.stdout is not None
        self._stdin, self.readline = self._popen.stdin, self._popen.stdout.readline
        self.write(b'{"cmd":"start","protocol":1}\n')
        self.readline()

    def write(self, line: bytes) -> None:
        self._stdin.write(line)
        self._stdin.flush()

    def stop(self) -> None:
        self._stdin.close()
        self._popen.wait()


@contextmanager
def one_cpu() -> Iterator[bool]:
    """This thread, and the threads and processes it starts meanwhile, kept on one CPU.

    Yields whether that could be done (Linux); the CPUs allowed before are restored after.
    """
    if not hasattr(os, "sched_setaffinity"):
        yield False
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield True
    finally:
        os.sched_setaffinity(0, allowed)


def round_trips(
    cases: Sequence[Case], settings: Settings, canned: Path, repeats: int
) -> tuple[dict[str, float], list[Any]]:
    """Median seconds per case of the three clients (runner, bare, bytes), and the runner's answers.

    Each client has its own null implementation process, and the three take turns request by
    request, so that each round trip wakes a peer that has been idle as long (the others'
    turns) and none runs in a warmer regime than the others.
    """
    argv = (sys.executable, str(NULL_IMPL), str(canned))
    bare, pipe = _NullProcess(argv), _NullProcess(argv)
    session = Persistent(argv, start_timeout=30.0)
    session.start()
    dumps, loads, clock = json.dumps, json.loads, time.perf_counter
    payloads = [case.request_bytes() for case in cases]
    answers: list[Any] = [None] * len(cases)
    seq = 0
    timings: dict[str, list[float]] = {"bare": [], "runner": [], "bytes": []}
    for _ in range(repeats):
        spent = dict.fromkeys(timings, 0.0)
        for _ in range(settings.overhead_passes):
            for index, case in enumerate(cases):
                seq += 1
                began = clock()
                payload = dumps(case.request, ensure_ascii=False, separators=(",", ":")).encode()
                bare.write(b'{"cmd":"run","seq":%d,"request":%s}\n' % (seq, payload))
                loads(bare.readline())
                spent["bare"] += clock() - began
                began = clock()
                answers[index] = session.run(
                    Request(tag=case.id, role=case.role, payload=case.request_bytes(),
                            timeout=execute.DEFAULT_TIMEOUT)
                )
                spent["runner"] += clock() - began
                began = clock()
                pipe.write(b'{"cmd":"run","seq":%d,"request":%s}\n' % (seq, payloads[index]))
                pipe.readline()
                spent["bytes"] += clock() - began
        for name, total in spent.items():
            timings[name].append(total / (len(cases) * settings.overhead_passes))
    bare.stop()
    pipe.stop()
    session.close()
    return {name: statistics.median(values) for name, values in timings.items()}, answers


def figure_overhead(
    cases: Sequence[Case], spec: Spec, settings: Settings, tmp: Path
) -> list[Figure]:
    """(1) The runner's persistent-mode round trip against a bare JSON-lines round trip.

    Both start from the request as data and end with the answer decoded: the bare client
    encodes the request, frames it, writes it, reads the answer line and decodes it, which any
    JSON-lines client must do; what the runner does on top is its overhead. A bytes-only round
    trip (the same framed payload out, the answer line back, nothing encoded or decoded) is
    shown too, as the pipe's own cost.

    The target is judged with every process on one CPU: there a round trip costs what the two
    ends do and one switch between them. Free to move between CPUs, a round trip also costs a
    wake-up on another CPU, whose length depends on where the scheduler happened to put each
    process, run to run; that figure is shown too.
    """
    canned = tmp / "canned.jsonl"
    canned.write_bytes(b"\n".join(reply_bodies(cases)) + b"\n")
    with one_cpu() as pinned:
        medians, answers = round_trips(cases, settings, canned, settings.overhead_repeats)
    free, _ = round_trips(cases, settings, canned, settings.overhead_repeats)
    judged = []
    for _ in range(settings.overhead_repeats):
        began = time.perf_counter()
        for case, got in zip(cases, answers, strict=True):
            judge(case, got, spec)
        judged.append((time.perf_counter() - began) / len(cases))
    return overhead_figures(medians, free, statistics.median(judged), pinned=pinned)


def overhead_figures(
    medians: dict[str, float], free: dict[str, float], judging: float, *, pinned: bool
) -> list[Figure]:
    """1a to 1f from the seconds per case of each client (`runner`, `bare`, `bytes`), pinned to
    one CPU (`medians`) and free to move (`free`), and of judging."""
    runner, client, pipe_only = (medians[k] for k in ("runner", "bare", "bytes"))
    where = "one CPU" if pinned else "not pinned: no sched_setaffinity"
    return [
        Figure(
            key="1a",
            label=f"persistent mode, runner: per case (null impl; encode to decode; {where})",
            value=ms(runner),
        ),
        Figure(
            key="1b",
            label="bare JSON-lines client: per case (same payloads, same null impl, same CPU)",
            value=ms(client),
        ),
        Figure(
            key="1c",
            label="runner overhead: runner / bare client",
            value=f"{runner / client:.2f}x",
            target="<= 2x",
            met=runner / client <= 2.0,
        ),
        Figure(
            key="1d",
            label=f"pipe only, bytes out and back: per case ({runner / pipe_only:.1f}x under the runner)",
            value=ms(pipe_only),
        ),
        Figure(
            key="1e",
            label="judging per case (result schema + comparison), not in 1a",
            value=ms(judging),
        ),
        Figure(
            key="1f",
            label="processes free to move between CPUs: runner / bare client (runner, bare, pipe)",
            value=f"{free['runner'] / free['bare']:.2f}x "
            f"({ms(free['runner'])}, {ms(free['bare'])}, {ms(free['bytes'])})",
        ),
    ]
