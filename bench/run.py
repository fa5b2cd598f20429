"""The performance benchmark: every figure of docs/performance.md, with its target and verdict.

Run from anywhere as `python bench/run.py`; `--quick` is a short smoke run (smaller inputs, one
repeat: its figures are not for the record), `--strict` exits 1 when a target is missed.
Figures are medians over repeated runs. Every target is a ratio between figures of the same run
(or a memory size): absolute times on a shared machine move by more than any margin.

This module is the command line and the report. Each benchmark has a module of its own (1
overhead.py, 2 corpus.py, 3 growth.py, 4 loading.py, 5 tools.py, 6 generated.py), which
measures (`figure_*`), then turns its measurements into figures (`*_figures`, pure functions,
which tests/test_bench.py checks on given numbers); common.py holds what they share.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `bench` is not an installed package; the suite's packages are
    sys.path.insert(0, str(ROOT))

from cardid_conformance import suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.spec import load_spec

from bench.common import FULL, QUICK, Figure, machine, say, settle
from bench.corpus import figure_corpus
from bench.generated import figure_generated
from bench.growth import figure_growth, serve_game
from bench.loading import figure_loading
from bench.overhead import figure_overhead
from bench.tools import figure_tools

#: Every figure key the benchmark prints, in order (tests/test_bench.py checks them all).
KEYS = (
    *("1a", "1b", "1c", "1d", "1e", "1f"),
    *("2a", "2b", "2c", "2d", "2e", "2f", "2g"),
    *("3a", "3b", "3c", "3d", "3e", "3f", "3g"),
    *("4a", "4b", "4c", "4d", "4e", "4f", "4g"),
    *("5a", "5b", "5c", "5d", "5e"),
    *("6a", "6b", "6c", "6d", "6e", "6f", "6g"),
)


def table(figures: Sequence[Figure], quick: bool) -> list[str]:
    width = max(len(f"{f.key} {f.label}") for f in figures)
    value_width = max(len(f.value) for f in figures)
    lines = [f"{'figure':<{width}}  {'value':<{value_width}}  {'target':<9}  status"]
    for f in figures:
        line = f"{f.key + ' ' + f.label:<{width}}  {f.value:<{value_width}}  {f.target:<9}  {f.status(quick)}"
        lines.append(line.rstrip())
    return lines


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
