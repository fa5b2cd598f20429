"""Benchmark 5, the pytest plugin and the CLI: `pytest conformance` against `cardid run` on
the same corpus and implementation, and pytest's own start-up (5a to 5e)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import ROOT, Figure, Settings

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
