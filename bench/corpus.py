"""Benchmark 2, the corpus against the reference: persistent mode against --isolate, and
--isolate with one job against two (2a to 2g)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from cardid_conformance.cases import Case
from cardid_conformance.outcome import Passed
from cardid_conformance.spec import Spec
from cardid_runner import execute

from bench.common import Figure, Settings, ms


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
