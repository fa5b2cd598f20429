"""The benchmark computes each figure right from its measurements, judges each target by its
figures of the same run, and runs end to end on tiny inputs. No timing is asserted: the numbers
fed to the figure functions are given, and the tiny runs are checked for shape only."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from cardid_conformance import suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.spec import Spec

from bench import run, workload
from bench.common import QUICK, Figure
from bench.corpus import corpus_figures, figure_corpus
from bench.generated import figure_generated, generated_figures
from bench.growth import figure_growth, growth_figures
from bench.loading import LoadTimes, bare_libraries, figure_loading, loading_figures, timed_loads
from bench.overhead import figure_overhead, overhead_figures
from bench.tools import tools_figures

#: Smaller than --quick: a benchmark's whole pipeline in well under a second.
TINY = dataclasses.replace(
    QUICK,
    overhead_repeats=1,
    corpus_cases=2,
    sizes=(20, 40, 80),
    generated_cases=4,
    corpus_load_repeats=1,
    generated_games=5,
)


def _given(
    *,
    runner: float = 0.2,
    bare: float = 0.1,
    isolate: float = 50.0,
    speedup: float = 1.6,
    growth: tuple[float, ...] = (12.0,),
    share: float = 0.1,
    peak: float = 300.0,
    load: tuple[float, ...] = (1.5,),
    tools: float = 1.5,
    generation: float = 0.5,
    oracle: float = 0.5,
    overhead: float = 1.2,
) -> list[Figure]:
    """Every figure, from numbers chosen so that each ratio is the one given."""
    pinned = {"runner": runner, "bare": bare, "bytes": 0.05}
    figures = overhead_figures(pinned, pinned, 0.01, pinned=True)
    per_p = 0.001
    corpus = {
        "p": [(0.1, per_p)],
        "i1": [(speedup * 2.0, per_p * isolate)],
        "i2": [(2.0, per_p * isolate)],
    }
    figures += corpus_figures(corpus, 10)
    sizes = (1, 10, 100)
    runs = {
        1: {"impl": [0.01], "judge": [0.0]},
        10: {"impl": [0.1], "judge": [0.0]},
        100: {"impl": [1.0, 2.0, 4.0], "judge": [share, 2 * share, 4 * share]},
    }
    per_turn = [{1: 0.1, 10: 1.0, 100: ratio} for ratio in growth]
    figures += growth_figures(sizes, runs, per_turn, {"runner_mb": peak - 100, "impl_mb": 100.0})
    times = LoadTimes(
        first=1.0, load=tuple(2.0 * r for r in load), bare=(2.0,) * len(load)
    )
    figures += loading_figures(3, times, 10, 10_000, times)
    samples = {"cli": 1.0, "pytest": tools, "cli_wall": 0.3, "pytest_wall": 0.6}
    figures += tools_figures({**samples, "pytest_empty": 0.4})
    figures += generated_figures({"generate": generation * 5.0, "reference": 5.0, "oracle": oracle * 5.0,
                                  "campaign": 5.0 + overhead * 5.0}, 10)
    return figures


def _by_key(figures: list[Figure]) -> dict[str, Figure]:
    return {figure.key: figure for figure in figures}


def test_every_figure_is_computed_once() -> None:
    """The figure functions give every key the benchmark prints, each once, and nothing else."""
    keys = [figure.key for figure in _given()]
    assert sorted(keys, key=run.KEYS.index) == list(run.KEYS)


def test_targets_are_ratios_of_the_same_run() -> None:
    """Each target is met at its limit and missed just past it; the printed ratio is the
    quotient of the figures it names."""
    at_limit = _by_key(_given())
    assert {k for k, f in at_limit.items() if f.met is not None} == {
        "1c", "2d", "2g", "3e", "3f", "3g", "4g", "5c", "6c", "6d", "6g"
    }
    assert all(f.met for f in at_limit.values() if f.met is not None)
    assert at_limit["1c"].value == "2.00x" and at_limit["2d"].value == "50x"
    assert at_limit["2g"].value == "1.60x" and at_limit["3e"].value == "12.0x"
    assert at_limit["3f"].value == "10.0%" and at_limit["3g"].value.startswith("300 MB")
    assert at_limit["4g"].value == "1.50x" and at_limit["5c"].value == "1.50x"
    assert at_limit["6c"].value == "0.50x" and at_limit["6g"].value == "1.20x"
    past = _by_key(
        _given(runner=0.2002, isolate=49.9, speedup=1.59, growth=(12.1,), share=0.101,
               peak=300.5, load=(1.51,), tools=1.51, generation=0.51, oracle=0.51, overhead=1.21)
    )
    assert [k for k, f in past.items() if f.met is False] == [
        "1c", "2d", "2g", "3e", "3f", "3g", "4g", "5c", "6c", "6d", "6g"
    ]


def test_ratios_are_medians_over_turns() -> None:
    """3e and 4g take the ratio within each turn, then the median: one slow turn moves nothing."""
    figures = _by_key(_given(growth=(11.0, 30.0, 11.5), load=(1.2, 9.0, 1.3)))
    assert figures["3e"].value == "11.5x" and figures["3e"].met
    assert figures["4g"].value == "1.30x" and figures["4g"].met


def test_report_prints_each_figure_and_judges_only_full_runs() -> None:
    """One table line per key, in key order; a missed target fails only a --strict full run."""
    figures = list(reversed(_given(runner=0.3)))
    lines, status = run.report(["head"], figures, quick=False, strict=True)
    rows = [line for line in lines if line[:3].rstrip() in run.KEYS]
    assert [row.split()[0] for row in rows] == list(run.KEYS)
    assert lines[0] == "head" and status == 1
    assert lines[-1] == "targets: 10 met, 1 missed (1c)"
    assert next(r for r in rows if r.startswith("1c ")).endswith("MISSED")
    assert run.report(["head"], figures, quick=False, strict=False)[1] == 0
    lines, status = run.report(["head"], figures, quick=True, strict=True)
    assert status == 0 and lines[-1] == "targets: not judged in a quick run"
    assert "MISSED" not in "\n".join(lines) and "(quick)" in "\n".join(lines)


def test_bare_libraries_take_the_files_the_loader_takes(tmp_path: Path, spec: Spec) -> None:
    """The bare-library figure is measured on the very files loaded, all of them valid."""
    workload.write_cases(tmp_path, 4, seed=1)
    paths = case_files(tmp_path)
    assert len(load_corpus(paths, spec).cases) == 4
    assert bare_libraries(paths) == 4
    assert bare_libraries(case_files(suite.CASES_DIR)) == len(case_files(suite.CASES_DIR))
    times = timed_loads(tmp_path, spec, 2)
    assert len(times.load) == len(times.bare) == 2


@pytest.mark.parametrize("number", ["1", "2", "3", "4", "6"])
def test_each_benchmark_runs_on_tiny_inputs(number: str, spec: Spec, tmp_path: Path) -> None:
    """Benchmarks 1 to 4 and 6 run end to end (processes, the reference, generated files) on tiny
    inputs and give their figures; benchmark 5 only starts the same tools as the test suite."""
    corpus = load_corpus(case_files(suite.CASES_DIR), spec).cases[:2]
    step = {
        "1": lambda: figure_overhead(corpus, spec, TINY, tmp_path),
        "2": lambda: figure_corpus(corpus, spec, TINY),
        "3": lambda: figure_growth(TINY, tmp_path),
        "4": lambda: figure_loading(spec, TINY, tmp_path),
        "6": lambda: figure_generated(TINY),
    }[number]
    figures = step()
    assert [f.key for f in figures] == [k for k in run.KEYS if k.startswith(number)]
    assert all(f.value for f in figures)
