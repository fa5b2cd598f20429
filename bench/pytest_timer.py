"""A pytest plugin for the benchmark: times the session, from its start to the end of unconfigure.

Loaded with `-p bench.pytest_timer`; writes `{"session": seconds}` to $CARDID_BENCH_TIMES.
The session starts once pytest and every plugin are loaded, so pytest's own start-up is left
out here and measured apart by the benchmark. Timed: collection (the corpus loaded), every
item (pytest's per-item work included), the session's end (the implementation stopped, the
terminal summary) and unconfigure.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator

import pytest

_started: list[float] = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _started.append(time.perf_counter())


@pytest.hookimpl(hookwrapper=True)
def pytest_unconfigure(config: pytest.Config) -> Generator[None, None, None]:
    yield
    path = os.environ.get("CARDID_BENCH_TIMES")
    if path and _started:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"session": time.perf_counter() - _started[0]}, handle)
