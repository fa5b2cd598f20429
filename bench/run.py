"""The performance benchmark: every figure of docs/performance.md, with its target and verdict.

Run from anywhere as `python bench/run.py`; `--quick` is a short smoke run (smaller inputs, one
repeat: its figures are not for the record), `--strict` exits 1 when a target is missed.
Figures are medians over repeated runs. Every target is a ratio between figures of the same run
(or a memory size): absolute times on a shared machine move by more than any margin.

Each benchmark measures (`measure_*`), then turns its measurements into figures (`*_figures`,
pure functions, which tests/test_bench.py checks on given numbers).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `bench` is not an installed package; the suite's packages are
    sys.path.insert(0, str(ROOT))

from cardid_conformance import schemas, suite
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Passed
from cardid_conformance.spec import Spec, load_spec
from cardid_reference.adapter import answer
from cardid_reference.errors import RequestError
from cardid_runner import execute
from cardid_runner.adapter import Persistent, Request

from bench import workload

NULL_IMPL = ROOT / "bench" / "null_impl.py"
#: Every figure key the benchmark prints, in order (tests/test_bench.py checks them all).
KEYS = (
    *("1a", "1b", "1c", "1d", "1e", "1f"),
    *("2a", "2b", "2c", "2d", "2e", "2f", "2g"),
    *("3a", "3b", "3c", "3d", "3e", "3f", "3g"),
    *("4a", "4b", "4c", "4d", "4e", "4f", "4g"),
    *("5a", "5b", "5c", "5d", "5e"),
    *("6a", "6b", "6c", "6d", "6e", "6f", "6g"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Figure:
    """One printed figure: a measured value and, when it is a target, the limit and verdict."""

    key: str
    label: str
    value: str
    target: str = ""
    met: bool | None = None

    def status(self, quick: bool) -> str:
        if self.met is None:
            return ""
        if quick:
            return "(quick)"  # smaller inputs: the verdict would mean nothing
        return "MET" if self.met else "MISSED"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """How much to measure: the full run, or the quick smoke run."""

    quick: bool
    overhead_repeats: int
    overhead_passes: int
    corpus_repeats: int
    corpus_cases: int | None
    sizes: tuple[int, int, int]
    growth_turns: int
    growth_repeats: tuple[int, int, int]  # per size and turn: short games are noisier
    generated_cases: int
    load_repeats: int
    corpus_load_repeats: int
    tool_repeats: int
    generated_games: int


FULL = Settings(
    quick=False,
    overhead_repeats=15,
    overhead_passes=5,
    corpus_repeats=3,
    corpus_cases=None,
    sizes=(1_000, 10_000, 100_000),
    growth_turns=10,
    growth_repeats=(5, 2, 1),
    generated_cases=10_000,
    load_repeats=3,
    corpus_load_repeats=15,
    tool_repeats=5,
    generated_games=1_000,
)
QUICK = Settings(
    quick=True,
    overhead_repeats=3,
    overhead_passes=1,
    corpus_repeats=1,
    corpus_cases=8,
    sizes=(100, 1_000, 10_000),
    growth_turns=1,
    growth_repeats=(1, 1, 1),
    generated_cases=200,
    load_repeats=1,
    corpus_load_repeats=1,
    tool_repeats=1,
    generated_games=100,
)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def say(text: str) -> None:
    """Progress goes to standard error, so standard output holds the report only."""
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- the machine


def machine() -> list[str]:
    """What the figures were measured on."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    if shutil.which("free"):
        lines = subprocess.run(
            ["free", "-h"], capture_output=True, text=True, check=False
        ).stdout.splitlines()
        if len(lines) > 1:
            memory = lines[1].split()[1]
    return [
        f"cpus: {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))}), model: {model}",
        f"memory: {memory}; python {platform.python_version()} ({sys.executable}); {platform.platform()}",
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]


# ---------------------------------------------------------------------- 1. runner overhead


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


# ---------------------------------------------------------------------- 2. the corpus


def run_corpus(cases: Sequence[Case], spec: Spec, options: execute.Invocation) -> tuple[float, float]:
    """Whole-run seconds, and seconds per case from first to last finished case (start-up excluded)."""
    stamps: list[float] = []
    began = time.perf_counter()
    execution = execute.run_cases(
        cases, options, spec, progress=lambda _: stamps.append(time.perf_counter())
    )
    total = time.perf_counter() - began
    failed = [o.case_id for o in execution.outcomes if not isinstance(o, Passed)]
    if failed:
        raise SystemExit(f"the reference failed {failed} in the benchmark run")
    return total, (stamps[-1] - stamps[0]) / (len(stamps) - 1)


def figure_corpus(cases: Sequence[Case], spec: Spec, settings: Settings) -> list[Figure]:
    """(2) The corpus against the reference: persistent against --isolate, -j 1 against -j 2."""
    argv = execute.REFERENCE_ARGV
    persistent = execute.Invocation(argv=argv)
    isolate1 = execute.Invocation(argv=argv, isolate=True)
    isolate2 = execute.Invocation(argv=argv, isolate=True, jobs=2)
    runs: dict[str, list[tuple[float, float]]] = {"p": [], "i1": [], "i2": []}
    for _ in range(settings.corpus_repeats):
        for name, options in (("p", persistent), ("i1", isolate1), ("i2", isolate2)):
            runs[name].append(run_corpus(cases, spec, options))
    return corpus_figures(runs, len(cases))


def corpus_figures(runs: dict[str, list[tuple[float, float]]], count: int) -> list[Figure]:
    """2a to 2g from (whole run, per case) seconds of each repeat: persistent (`p`), --isolate
    -j 1 (`i1`) and -j 2 (`i2`), over `count` cases."""

    def median(name: str, index: int) -> float:
        return statistics.median(run[index] for run in runs[name])

    per_p, per_i = median("p", 1), median("i1", 1)
    total_p = median("p", 0)
    total_i1, total_i2 = median("i1", 0), median("i2", 0)
    return [
        Figure(
            key="2a",
            label=f"persistent: per case ({count} cases, judging included)",
            value=ms(per_p),
        ),
        Figure(
            key="2b",
            label="persistent: fixed start-up (probe, process start, handshake)",
            value=ms(total_p - per_p * count),
        ),
        Figure(key="2c", label="--isolate: per case (a process per case)", value=ms(per_i)),
        Figure(
            key="2d",
            label="per-case cost: --isolate / persistent",
            value=f"{per_i / per_p:.0f}x",
            target=">= 50x",
            met=per_i / per_p >= 50,
        ),
        Figure(key="2e", label="--isolate -j 1: whole run", value=f"{total_i1:.2f} s"),
        Figure(key="2f", label="--isolate -j 2: whole run", value=f"{total_i2:.2f} s"),
        Figure(
            key="2g",
            label="--isolate speed-up: -j 1 / -j 2",
            value=f"{total_i1 / total_i2:.2f}x",
            target=">= 1.6x",
            met=total_i1 / total_i2 >= 1.6,
        ),
    ]


# ---------------------------------------------------------------------- 3. growth with game length


def serve_game(path: Path) -> None:
    """One game length, in its own process (so peak memory is this size's own).

    Builds the case, starts the reference, answers and judges the game once as a warm-up (both
    processes first touch their memory) and reports the peak memory of that first run; then,
    for each line `run N` on standard input, runs the game N times and reports the timings.
    """
    data = json.loads(path.read_bytes())
    case = workload.game_case(path, data["request"], data["labels"], data["instances"])
    del data
    spec = load_spec()
    session = Persistent(execute.REFERENCE_ARGV, start_timeout=60.0)
    session.start()
    gc.collect()
    reset_peak(os.getpid())  # the peak from here on: handling the game, not building this test

    def run_once() -> tuple[float, float]:
        began = time.perf_counter()
        got = session.run(
            Request(tag=case.id, role="writer", payload=case.request_bytes(), timeout=600.0)
        )
        answered = time.perf_counter()
        outcome = judge(case, got, spec)
        judged = time.perf_counter()
        if not isinstance(outcome, Passed):
            raise SystemExit(f"the generated game did not pass: {outcome}")
        return answered - began, judged - answered

    run_once()
    # One game per process: later runs would only add allocator leftovers to the peak.
    print(json.dumps({"runner_mb": peak_mb(os.getpid()), "impl_mb": peak_mb(session.pid)}), flush=True)
    for line in sys.stdin:
        timings = [run_once() for _ in range(int(line.split()[1]))]
        print(json.dumps({"impl": [i for i, _ in timings], "judge": [j for _, j in timings]}), flush=True)
    session.close()


class _GameProcess:
    """The benchmark's end of a `serve_game` process: one game length, run on request."""

    def __init__(self, path: Path) -> None:
        self._popen = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve-game", str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.peaks = self._reply()

    def run(self, times: int) -> dict[str, list[float]]:
        assert self._popen.stdin is not None
        self._popen.stdin.write(f"run {times}\n")
        self._popen.stdin.flush()
        return self._reply()

    def close(self) -> None:
        assert self._popen.stdin is not None
        self._popen.stdin.close()
        self._popen.wait()

    def _reply(self) -> dict[str, Any]:
        assert self._popen.stdout is not None
        line = self._popen.stdout.readline()
        if not line:
            raise SystemExit(f"a game process failed (status {self._popen.wait()})")
        return json.loads(line)  # type: ignore[no-any-return]


def reset_peak(pid: int) -> None:
    """Start VmHWM afresh (Linux: `5` to clear_refs), where the kernel allows it."""
    with suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def peak_mb(pid: int | None) -> float:
    """A process's peak resident memory (VmHWM), in MiB.

    Not getrusage's ru_maxrss: Linux carries that over exec from the forking parent, so a
    child of a large process would report its parent's size.
    """
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def figure_growth(settings: Settings, tmp: Path) -> list[Figure]:
    """(3) Generated games of three lengths through the reference and the comparison.

    Each size has its own process (and reference); the sizes take turns, a few runs
    each, so that a slow spell of the machine weighs on every size alike rather than on the one
    measured during it. Each size's times are the medians over all its runs; each ratio is the
    median, over the turns, of the ratio within a turn.
    """
    cards = workload.card_pool()
    paths = {}
    for size in settings.sizes:
        request = workload.writer_request(size, seed=size, cards=cards)
        labels, instances = workload.expected_instances(request)
        paths[size] = tmp / f"game-{size}.json"
        paths[size].write_text(
            json.dumps({"request": request, "labels": labels, "instances": instances})
        )
        del request, labels, instances
    settle()  # the games just written (17 MB) go to disk now, not during the first turn
    games = {size: _GameProcess(paths[size]) for size in settings.sizes}
    runs: dict[int, dict[str, list[float]]] = {size: {"impl": [], "judge": []} for size in paths}
    per_turn: list[dict[int, float]] = []  # each turn's median total per size
    for turn in range(settings.growth_turns):
        medians = {}
        for size, repeats in zip(settings.sizes, settings.growth_repeats, strict=True):
            got = games[size].run(repeats)
            runs[size]["impl"] += got["impl"]
            runs[size]["judge"] += got["judge"]
            medians[size] = statistics.median(
                i + j for i, j in zip(got["impl"], got["judge"], strict=True)
            )
        per_turn.append(medians)
        say(
            f"  turn {turn + 1} of {settings.growth_turns}, seconds: "
            + ", ".join(f"{size:,}: {t:.3f}" for size, t in medians.items())
        )
    for game in games.values():
        game.close()
    for path in paths.values():
        path.unlink()
    for size in settings.sizes[:-1]:
        peaks = games[size].peaks
        say(f"  {size:,}: peak {peaks['runner_mb']:.0f} + {peaks['impl_mb']:.0f} MB")
    return growth_figures(settings.sizes, runs, per_turn, games[settings.sizes[-1]].peaks)


def growth_figures(
    sizes: tuple[int, int, int],
    runs: dict[int, dict[str, list[float]]],
    per_turn: Sequence[dict[int, float]],
    peaks: dict[str, float],
) -> list[Figure]:
    """3a to 3g from each size's runs (`impl` and `judge` seconds, run by run), each turn's
    median total per size, and the largest size's peak memory (`runner_mb`, `impl_mb`)."""
    results = {
        size: {
            "impl": statistics.median(r["impl"]),
            "judge": statistics.median(r["judge"]),
            "total": statistics.median(i + j for i, j in zip(r["impl"], r["judge"], strict=True)),
        }
        for size, r in runs.items()
    }
    small, middle, large = sizes
    figures = []
    for key, size in (("3a", small), ("3b", middle), ("3c", large)):
        r = results[size]
        figures.append(
            Figure(
                key=key,
                label=f"{size:,} observations: time (implementation + judging)",
                value=f"{r['total']:.3f} s ({r['impl']:.3f} + {r['judge']:.3f})",
            )
        )
    peak = peaks["runner_mb"] + peaks["impl_mb"]
    # Judging's share, run by run: the same game, judged seconds after it was answered.
    share = statistics.median(
        j / i for i, j in zip(runs[large]["impl"], runs[large]["judge"], strict=True)
    )
    # Each ratio pairs the two sizes within a turn, seconds apart, then takes the median over
    # the turns: a slow spell of the machine then moves one turn's ratio, not the figure.
    ratio_small, ratio_large = (
        statistics.median(turn[middle] / turn[small] for turn in per_turn),
        statistics.median(turn[large] / turn[middle] for turn in per_turn),
    )
    figures += [
        Figure(
            key="3d",
            label=f"time ratio {middle:,} / {small:,} (median over turns)",
            value=f"{ratio_small:.1f}x",
        ),
        Figure(
            key="3e",
            label=f"time ratio {large:,} / {middle:,} (median over turns; linear: 10x)",
            value=f"{ratio_large:.1f}x",
            target="<= 12x",
            met=ratio_large <= 12,
        ),
        Figure(
            key="3f",
            label=f"{large:,} observations: judging / implementation (median over runs)",
            value=f"{share:.1%}",
            target="<= 10%",
            met=share <= 0.10,
        ),
        Figure(
            key="3g",
            label=f"{large:,} observations: peak memory (runner + implementation)",
            value=f"{peak:.0f} MB ({peaks['runner_mb']:.0f} + {peaks['impl_mb']:.0f})",
            target="<= 300 MB",
            met=peak <= 300,
        ),
    ]
    return figures


# ---------------------------------------------------------------------- 4. loading cases


def bare_libraries(paths: Sequence[Path]) -> int:
    """What the libraries alone do with the case files: read each, parse it with PyYAML's
    libyaml loader (CSafeLoader), validate it against the case schema and its request against
    the input schema with jsonschema-rs. Returns how many were valid (all, or the figure means
    nothing)."""
    case_schema = schemas._fast_validator("case")
    inputs = {role: schemas._fast_validator(f"{role}-input") for role in ("writer", "reader")}
    valid = 0
    for path in paths:
        data = yaml.load(path.read_bytes().decode("utf-8"), Loader=yaml.CSafeLoader)
        request = {"role": data["role"], **data["input"]}
        if data["role"] == "writer":
            request["observations"] = [
                {k: v for k, v in obs.items() if k not in ("expect", "rule")}
                for obs in request["observations"]
            ]
        valid += case_schema.is_valid(data) and inputs[data["role"]].is_valid(request)
    return valid


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadTimes:
    """Seconds to load one set of files: the first load, then load and bare libraries turn by turn."""

    first: float
    load: tuple[float, ...]
    bare: tuple[float, ...]


def timed_loads(root: Path, spec: Spec, repeats: int) -> LoadTimes:
    """The first load (schemas compiled on the way), then `repeats` turns of a load as cardid
    does it followed by the bare libraries on the same files."""
    paths = case_files(root)
    loads: list[float] = []
    bares: list[float] = []
    for _turn in range(repeats + 1):
        began = time.perf_counter()
        corpus = load_corpus(paths, spec)
        loads.append(time.perf_counter() - began)
        if corpus.bugs or len(corpus.cases) != len(paths):
            raise SystemExit(f"loading {root}: {len(corpus.cases)} cases, bugs {corpus.bugs[:3]}")
        del corpus
        began = time.perf_counter()
        valid = bare_libraries(paths)
        bares.append(time.perf_counter() - began)
        if valid != len(paths):
            raise SystemExit(f"bare libraries on {root}: {valid} of {len(paths)} valid")
    return LoadTimes(first=loads[0], load=tuple(loads[1:]), bare=tuple(bares[1:]))


def figure_loading(spec: Spec, settings: Settings, tmp: Path) -> list[Figure]:
    """(4) Loading and validating the corpus, and many generated cases like the corpus' own,
    as `cardid run` and `pytest conformance` load them (conformance.cases.load_corpus), against
    the bare libraries on the same files."""
    corpus = timed_loads(suite.CASES_DIR, spec, settings.corpus_load_repeats)
    folder = tmp / "generated"
    count = settings.generated_cases
    say(f"  writing {count:,} generated cases")
    size = workload.write_cases(folder, count, seed=2026)
    generated = timed_loads(folder, spec, settings.load_repeats)
    shutil.rmtree(folder)
    return loading_figures(len(case_files(suite.CASES_DIR)), corpus, count, size, generated)


def loading_figures(
    corpus_size: int, corpus: LoadTimes, count: int, size: int, generated: LoadTimes
) -> list[Figure]:
    """4a to 4g. A ratio is taken within each turn (a load, then the bare libraries on the same
    files), the figure being the median over the turns."""

    def ratio(times: LoadTimes) -> float:
        return statistics.median(a / b for a, b in zip(times.load, times.bare, strict=True))

    bare_label = "bare libraries on the same files (read, libyaml parse, jsonschema-rs)"
    return [
        Figure(
            key="4a",
            label=f"corpus: load and validate {corpus_size} cases",
            value=f"{statistics.median(corpus.load) * 1000:.1f} ms",
        ),
        Figure(
            key="4b",
            label=f"corpus: {bare_label}",
            value=f"{statistics.median(corpus.bare) * 1000:.1f} ms",
        ),
        Figure(
            key="4c",
            label="corpus: load and validate / bare libraries (median over turns)",
            value=f"{ratio(corpus):.2f}x",
        ),
        Figure(
            key="4d",
            label=f"{count:,} generated cases ({size / count / 1024:.1f} KB each): first load",
            value=f"{generated.first:.2f} s",
        ),
        Figure(
            key="4e",
            label=f"{count:,} generated cases: load and validate, as cardid does",
            value=f"{statistics.median(generated.load):.2f} s",
        ),
        Figure(
            key="4f",
            label=f"{count:,} generated cases: {bare_label}",
            value=f"{statistics.median(generated.bare):.2f} s",
        ),
        Figure(
            key="4g",
            label=f"{count:,} generated cases: load and validate / bare libraries (median over turns)",
            value=f"{ratio(generated):.2f}x",
            target="<= 1.5x",
            met=ratio(generated) <= 1.5,
        ),
    ]


# ---------------------------------------------------------------------- 5. pytest plugin and CLI

_CLI_TIMER = """
import json, sys, time
from cardid_runner.cli import main
began = time.perf_counter()
code = main(["run", "-q"])
print(json.dumps({"session": time.perf_counter() - began, "code": code}), file=sys.stderr)
"""


def _wall(
    argv: Sequence[str], env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    return time.perf_counter() - began, done


def figure_tools(settings: Settings, tmp: Path) -> list[Figure]:
    """(5) `pytest conformance` against `cardid run`, on the same corpus and implementation."""
    times_file = tmp / "pytest-times.json"
    env = {**os.environ, "CARDID_BENCH_TIMES": str(times_file)}
    # Without the hypothesis plugin, which this project's test extras install: it imports
    # hypothesis in its end-of-session summary (0.9 s here), whatever the session ran.
    flags = ["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    pytest_argv = [
        sys.executable,
        "-m",
        "pytest",
        "conformance",
        *flags,
        "-p",
        "bench.pytest_timer",
    ]
    empty = tmp / "empty"
    empty.mkdir(exist_ok=True)
    samples: dict[str, list[float]] = {
        "cli": [],
        "cli_wall": [],
        "pytest": [],
        "pytest_wall": [],
        "pytest_empty": [],
    }
    for _ in range(settings.tool_repeats):
        wall, done = _wall([sys.executable, "-c", _CLI_TIMER])
        report = json.loads(done.stderr.strip().splitlines()[-1])
        if report["code"] != 0:
            raise SystemExit(f"cardid run failed:\n{done.stdout}")
        samples["cli"].append(report["session"])
        samples["cli_wall"].append(wall)
        wall, done = _wall(pytest_argv, env)
        if done.returncode != 0:
            raise SystemExit(f"pytest conformance failed:\n{done.stdout}\n{done.stderr}")
        samples["pytest"].append(json.loads(times_file.read_text())["session"])
        samples["pytest_wall"].append(wall)
        wall, _ = _wall([sys.executable, "-m", "pytest", str(empty), *flags])
        samples["pytest_empty"].append(wall)
    return tools_figures({name: statistics.median(values) for name, values in samples.items()})


def tools_figures(m: dict[str, float]) -> list[Figure]:
    """5a to 5e from the median seconds of `cli`, `pytest` (sessions), `cli_wall`,
    `pytest_wall` (whole commands) and `pytest_empty` (an empty pytest session)."""
    return [
        Figure(
            key="5a",
            label="cardid run: from main() to exit status (load, run, report)",
            value=f"{m['cli'] * 1000:.0f} ms",
        ),
        Figure(
            key="5b",
            label="pytest conformance: session (collect = load, run, teardown)",
            value=f"{m['pytest'] * 1000:.0f} ms",
        ),
        Figure(
            key="5c",
            label="pytest plugin / CLI, start-up of each tool excluded",
            value=f"{m['pytest'] / m['cli']:.2f}x",
            target="<= 1.5x",
            met=m["pytest"] / m["cli"] <= 1.5,
        ),
        Figure(
            key="5d",
            label="whole commands, wall: cardid run / pytest conformance",
            value=f"{m['cli_wall']:.2f} s / {m['pytest_wall']:.2f} s",
        ),
        Figure(
            key="5e",
            label="pytest's own start-up here (an empty session, same plugins)",
            value=f"{m['pytest_empty']:.2f} s",
        ),
    ]


def figure_generated(settings: Settings) -> list[Figure]:
    """(6) Generated games (conformance/generate/): generating them, the oracle, and a
    `cardid fuzz` campaign, each against the reference's own time on the same games."""
    from cardid_conformance.generate import game_of
    from cardid_runner import cli

    seeds = range(settings.generated_games)
    m: dict[str, list[float]] = {"generate": [], "reference": [], "oracle": [], "campaign": []}
    for _ in range(3 if not settings.quick else 1):
        began = time.perf_counter()
        games = [game_of(seed) for seed in seeds]
        m["generate"].append(time.perf_counter() - began)
        texts = [json.dumps(game.request).encode() for game in games]
        answers: list[Any] = []
        began = time.perf_counter()
        for text in texts:  # what the reference's process does per request: decode, answer, encode
            try:
                result = answer(json.loads(text))
                json.dumps(result, ensure_ascii=False).encode()
                answers.append(result)
            except RequestError:
                answers.append(None)
        m["reference"].append(time.perf_counter() - began)
        began = time.perf_counter()
        for game, result in zip(games, answers, strict=True):
            if result is not None:
                game.check(result["assignments"])
        m["oracle"].append(time.perf_counter() - began)
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
            began = time.perf_counter()
            code = cli.main(["fuzz", "--games", str(settings.generated_games)])
            m["campaign"].append(time.perf_counter() - began)
        if code != 0:
            raise SystemExit("cardid fuzz found a disagreement with the reference itself")
    return generated_figures({name: statistics.median(values) for name, values in m.items()},
                             settings.generated_games)


def generated_figures(m: dict[str, float], games: int) -> list[Figure]:
    """6a to 6g from the median seconds of `generate`, `reference` (its own time: decode,
    answer, encode), `oracle` and `campaign` (`cardid fuzz` against the reference's process)."""
    overhead = m["campaign"] - m["reference"]
    return [
        Figure(key="6a", label=f"generating {games:,} games", value=f"{m['generate']:.2f} s"),
        Figure(key="6b", label="the reference's own time on them (decode, answer, encode)",
               value=f"{m['reference']:.2f} s"),
        Figure(key="6c", label="generation / the reference's own time", value=f"{m['generate'] / m['reference']:.2f}x",
               target="<= 0.5x", met=m["generate"] / m["reference"] <= 0.5),
        Figure(key="6d", label="the oracle / the reference's own time", value=f"{m['oracle'] / m['reference']:.3f}x",
               target="<= 0.5x", met=m["oracle"] / m["reference"] <= 0.5),
        Figure(key="6e", label="cardid fuzz against the reference's process, whole campaign",
               value=f"{m['campaign']:.2f} s"),
        Figure(key="6f", label="its overhead (campaign minus the reference's own time)", value=f"{overhead:.2f} s"),
        Figure(key="6g", label="overhead / the implementation's own time", value=f"{overhead / m['reference']:.2f}x",
               target="<= 1.2x", met=overhead / m["reference"] <= 1.2),
    ]


# ---------------------------------------------------------------------- the report


def table(figures: Sequence[Figure], quick: bool) -> list[str]:
    width = max(len(f"{f.key} {f.label}") for f in figures)
    value_width = max(len(f.value) for f in figures)
    lines = [f"{'figure':<{width}}  {'value':<{value_width}}  {'target':<9}  status"]
    for f in figures:
        line = f"{f.key + ' ' + f.label:<{width}}  {f.value:<{value_width}}  {f.target:<9}  {f.status(quick)}"
        lines.append(line.rstrip())
    return lines


def settle() -> None:
    """Leave no work from one benchmark to run during the next: the files an earlier one wrote
    (10,000 case files) are written back to disk now, and its garbage is collected."""
    os.sync()
    gc.collect()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run; its figures are not for the record"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--only", default="123456", help="which benchmarks to run, e.g. 14 (default: all)"
    )
    parser.add_argument("--serve-game", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_game:
        serve_game(args.serve_game)
        return 0
    settings = QUICK if args.quick else FULL
    spec = load_spec()
    corpus = load_corpus(case_files(suite.CASES_DIR), spec).cases
    subset = corpus if settings.corpus_cases is None else corpus[: settings.corpus_cases]
    header: list[str] = [
        "cardid benchmark"
        + (" (QUICK: a smoke run, not for the record)" if settings.quick else ""),
        *machine(),
    ]
    figures: list[Figure] = []
    steps: list[tuple[str, Callable[[Path], list[Figure]]]] = [
        ("1", lambda tmp: figure_overhead(corpus, spec, settings, tmp)),
        ("2", lambda tmp: figure_corpus(subset, spec, settings)),
        ("5", lambda tmp: figure_tools(settings, tmp)),
        ("4", lambda tmp: figure_loading(spec, settings, tmp)),
        ("6", lambda tmp: figure_generated(settings)),
        ("3", lambda tmp: figure_growth(settings, tmp)),  # last: it leaves the largest heap behind
    ]
    with tempfile.TemporaryDirectory(prefix="cardid-bench-") as tmp:
        for number, step in steps:
            if number in args.only:
                settle()
                say(f"benchmark {number} ...")
                began = time.perf_counter()
                figures += step(Path(tmp))
                say(f"benchmark {number} took {time.perf_counter() - began:.1f} s")
    header.append(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    lines, status = report(header, figures, quick=settings.quick, strict=args.strict)
    for line in lines:
        print(line)
    return status


def report(
    header: Sequence[str], figures: Sequence[Figure], *, quick: bool, strict: bool
) -> tuple[list[str], int]:
    """The printed report (header, table in key order, the targets' count) and the exit status:
    1 when `strict` and a target is missed, else 0. A quick run judges no target."""
    ordered = sorted(figures, key=lambda f: KEYS.index(f.key))
    lines = [*header, "", *table(ordered, quick), ""]
    if quick:
        return [*lines, "targets: not judged in a quick run"], 0
    missed = [f.key for f in ordered if f.met is False]
    met = sum(f.met is True for f in ordered)
    lines.append(
        f"targets: {met} met, {len(missed)} missed" + (f" ({', '.join(missed)})" if missed else "")
    )
    return lines, 1 if strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
