"""Benchmark 6, generated games: generating them, the oracle and a `cardid fuzz` campaign,
each against the reference's own time on the same games (6a to 6g)."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import time
from typing import Any

from cardid_reference.adapter import answer
from cardid_reference.errors import RequestError

from bench.common import Figure, Settings


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
