"""Runs of a few reader cases against a scripted implementation (tests/fakes/scripted.py),
in-process: the cases, the run and its results as the transport tests read them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.outcome import Errored, status
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.execute import Execution, Invocation

from tests.conftest import ROOT
from tests.fakes.scripted import Behaviour, launcher

TARGET = "reader-unknown-name"
#: The target comes last: the cases before it have been answered by the same process.
IDS = ("reader-empty-lines-and-crlf", "reader-quoted-owner", TARGET)


@cache
def corpus() -> dict[str, Case]:
    return {case.id: case for case in load_corpus(case_files(ROOT / "cases"), load_spec()).cases}


def cases(ids: Sequence[str] = IDS) -> list[Case]:
    return [corpus()[case_id] for case_id in ids]


def run(behaviour: Behaviour, *, isolate: bool = False, ids: Sequence[str] = IDS, jobs: int = 1,
        timeout: float = 1.0) -> Execution:
    options = Invocation(argv=("scripted",), isolate=isolate, timeout=timeout, start_timeout=3.0, jobs=jobs)
    return execute.run_cases(cases(ids), options, load_spec(), launcher=launcher(behaviour))


def results(execution: Execution) -> dict[str, tuple[str, str]]:
    return {
        o.case_id: (status(o), o.reason if isinstance(o, Errored) else "") for o in execution.outcomes
    }


def is_target(request: Any) -> bool:
    return "#u1 ? owner=P2" in json.dumps(request, ensure_ascii=False)
