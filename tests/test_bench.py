"""The benchmark script runs in its quick mode and prints every figure (timings are not asserted)."""

from __future__ import annotations

import subprocess
import sys

from bench.run import KEYS
from tests.conftest import ROOT


def test_quick_benchmark_prints_every_figure() -> None:
    """`python bench/run.py --quick` exits 0 and prints one table line per figure key."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for key in KEYS:
        assert any(line.startswith(f"{key} ") for line in lines), (
            f"figure {key} missing:\n{done.stdout}"
        )
    assert "load average at start" in done.stdout and "model" in done.stdout
    assert "targets: not judged in a quick run" in done.stdout
