"""Benchmark 4, loading cases: the corpus and many generated cases loaded and validated as
cardid does, against the bare libraries on the same files (4a to 4g)."""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from cardid_conformance import schemas, suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.spec import Spec

from bench import workload
from bench.common import Figure, Settings, say


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
