"""What every benchmark shares: a printed figure, how much to measure (the full run, the quick
one), the units and progress lines, the machine measured on, and the pause between benchmarks.
"""

from __future__ import annotations

import gc
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: The checkout: bench/run.py puts it on sys.path, the benchmarks start processes in it.
ROOT = Path(__file__).resolve().parent.parent


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


def settle() -> None:
    """Leave no work from one benchmark to run during the next: the files an earlier one wrote
    (10,000 case files) are written back to disk now, and its garbage is collected."""
    os.sync()
    gc.collect()
