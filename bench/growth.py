"""Benchmark 3, growth with game length: generated games of three lengths through the reference
and the comparison, each length in a process of its own (`bench/run.py --serve-game`), for
time and peak memory (3a to 3g)."""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from cardid_conformance.judge import judge
from cardid_conformance.outcome import Passed
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import Persistent, Request

from bench import workload
from bench.common import ROOT, Figure, Settings, say, settle

#: The script a game's process runs, with --serve-game.
SCRIPT = ROOT / "bench" / "run.py"


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
            Request(tag=case.id, role=case.role, payload=case.request_bytes(), timeout=600.0)
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
            [sys.executable, str(SCRIPT), "--serve-game", str(path)],
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
