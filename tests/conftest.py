"""Shared helpers for the project's own tests: small cases built in temporary directories."""

from __future__ import annotations

import copy
import dataclasses
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardid_conformance import cases, suite, yamlfile
from cardid_conformance.cases import Case, load_case
from cardid_conformance.spec import Spec, load_spec
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent


def exactly(*case_ids: str) -> str:
    """A `pytest -k` expression selecting exactly these cases of the corpus: -k matches
    substrings, so each ID excludes the other cases whose IDs contain it (a new case named
    `reader-unknown-name-with-quoted-owner` would otherwise join `reader-unknown-name`)."""
    every = [path.stem for path in (ROOT / "cases").rglob("*.yaml")]
    terms = []
    for case_id in case_ids:
        longer = sorted(other for other in every if case_id in other and other != case_id)
        terms.append(" and ".join([case_id, *(f"not {other}" for other in longer)]))
    return " or ".join(f"({term})" for term in terms)


def _write_bytecode() -> None:
    """Where bytecode is not written (PYTHONDONTWRITEBYTECODE, set on some machines), each of the
    session's few hundred Python processes (runners, adapters, pytest sessions) compiled the
    project's modules and rewrote pytest's asserts again: write it, for this session and the
    processes it starts, into the `__pycache__` folders git ignores. (A PYTHONPYCACHEPREFIX
    folder instead, which keeps the source folders clean, was about 5 s slower a session in
    interleaved runs: with it, even the standard library's modules are compiled again.)"""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


_write_bytecode()

# Generated tests take hypothesis's default of 100 examples each (those whose examples are
# slow set fewer); `HYPOTHESIS_PROFILE=thorough` runs 2,000 each, for a deeper search.
settings.register_profile("thorough", max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: For each pytest session a test starts in a process of its own (xdist's controller and
#: workers too): leave out hypothesis's plugin, which those sessions never use and which took
#: a fifth of such a process's start (about 0.15 s each, 0.4 s or more an xdist session). The
#: packaging test's session keeps every installed plugin, as a user's would.
NO_HYPOTHESIS = ("-p", "no:hypothesispytest")

#: The quiet time for tests whose adapter is idle by design (it waits for input that never
#: comes): found idle after 0.15 s instead of a real run's 0.5 s. Nothing they check depends on
#: its length; what a busy slow starter needs is checked with the real one (test_faults.py).
QUIET = 0.15

#: The shared real data (CR text, card printings); tests needing it skip when it is absent.
DATA = Path(os.environ.get("CARDID_DATA", ROOT.parent / "shared" / "data"))
#: The real Arena recording of the shared data, read at test time, never copied.
RECORDING = DATA / "logs" / "arena" / "mtgatool-match-test-2020-07.gre.jsonl.gz"
needs_recording = pytest.mark.skipif(
    not RECORDING.exists(),
    reason=f"the real Arena recording is not at {RECORDING} (set CARDID_DATA to the shared data)",
)

#: A small writer case: a card drawn, cast, resolved, shuffled away, and another copy drawn.
WRITER_CASE: dict[str, Any] = {
    "id": "sample-writer",
    "description": "A drawn land keeps its ID onto the battlefield and a shuffle ends it.",
    "role": "writer",
    "level": "MUST",
    "rules": ["ID-3", "LIB-2"],
    "cr": ["400.7"],
    "input": {
        "perspective": "P1",
        "players": ["P1", "P2"],
        "source": {"name": "arena", "hidden_tracking": True},
        "cards": [
            {"name": "Island", "printings": [{"set": "ELD", "number": "254", "source_ids": ["arena:70401"]}]}
        ],
        "observations": [
            {"type": "game_start", "game": 1},
            {"type": "move", "object": "1", "from": "library:P1", "to": "hand:P1", "from_position": "top",
             "card": {"source_id": "arena:70401"}, "expect": "isle"},
            {"type": "move", "object": "1", "new_object": "2", "from": "hand:P1", "to": "stack", "expect": "isle"},
            {"type": "move", "object": "2", "from": "stack", "to": "battlefield", "expect": "isle", "rule": "ID-3"},
            {"type": "move", "object": "2", "from": "battlefield", "to": "library:P1", "position": "top", "expect": "isle"},
            {"type": "shuffle", "zone": "library:P1"},
            {"type": "move", "object": "3", "from": "library:P1", "to": "hand:P1", "from_position": "top",
             "card": {"source_id": "arena:70401"}, "expect": "isle2", "rule": "LIB-2"},
        ],
    },
    "expect": {
        "instances": {
            "isle": {"name": "Island", "printing": {"set": "ELD", "number": "254"},
                    "source_ids": ["arena:70401"], "owner": "P1", "kind": "card", "revealed_at": 1},
            "isle2": {"name": "Island", "printing": {"set": "ELD", "number": "254"},
                     "source_ids": ["arena:70401"], "owner": "P1", "kind": "card", "revealed_at": 6},
        }
    },
}

#: The right answer to WRITER_CASE, as the reference would give it.
WRITER_ANSWER: dict[str, Any] = {
    "card_table": [
        {"id": "c1", "name": "Island", "printing": {"set": "ELD", "number": "254"},
         "source_ids": ["arena:70401"], "owner": "P1", "kind": "card", "revealed_at": 1},
        {"id": "c2", "name": "Island", "printing": {"set": "ELD", "number": "254"},
         "source_ids": ["arena:70401"], "owner": "P1", "kind": "card", "revealed_at": 6},
    ],
    "assignments": [None, "c1", "c1", "c1", "c1", None, "c2"],
}


@pytest.fixture(scope="session")
def spec() -> Spec:
    """The rule index."""
    return load_spec()


@pytest.fixture
def write_case(tmp_path: Path) -> Callable[..., Path]:
    """Write a case dict (or raw text) to `<id>.yaml` in a temporary directory; return the path."""

    def write(data: dict[str, Any] | str, name: str | None = None) -> Path:
        if isinstance(data, str):
            path = tmp_path / (name or "raw.yaml")
            path.write_text(data, encoding="utf-8")
        else:
            path = tmp_path / f"{name or data['id']}.yaml"
            path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_case(write_case: Callable[..., Path], spec: Spec) -> Callable[..., Case]:
    """Build a loaded Case from a dict (default: a deep copy of WRITER_CASE)."""

    def make(data: dict[str, Any] | None = None) -> Case:
        return load_case(write_case(copy.deepcopy(data or WRITER_CASE)), spec)

    return make


@pytest.fixture(autouse=True, scope="session")
def _case_files_parsed_once() -> Iterator[None]:
    """Parse each case file's content once per test session, not once per in-process run.

    Many tests run the CLI or the plugin in this process, each loading the corpus again (or a
    copy of it in a temporary folder): some 18,000 case loads in a serial session. A loaded
    Case is kept under the file's exact bytes and the rule index it was checked against, so an
    edited file or another spec is loaded afresh, by the real loader; a file with the same
    bytes elsewhere gets the kept Case with its own path (the only thing in a Case that comes
    from the path). Only regular files that loaded cleanly are kept: a case bug, a FIFO or a
    symlink goes to the loader every time, as in production."""
    real = cases.load_case
    kept: dict[tuple[bytes, str, frozenset[Any]], Case] = {}

    def load_once(path: Path, spec: Spec) -> Case:
        try:
            content = path.read_bytes() if stat.S_ISREG(path.lstat().st_mode) else None
        except OSError:
            content = None
        if content is None:
            return real(path, spec)
        key = (content, spec.version, frozenset(spec.rules.values()))
        if key not in kept:
            kept[key] = real(path, spec)
        case = kept[key]
        return case if case.path == path else dataclasses.replace(case, path=path)

    cases.load_case = load_once  # type: ignore[assignment]
    yield
    cases.load_case = real  # type: ignore[assignment]


@pytest.fixture(autouse=True, scope="session")
def _rule_index_parsed_once() -> Iterator[None]:
    """Parse the suite's rule index once per test session, not once per in-process run (some
    560 loads): its data is kept under its exact bytes, and only `load_spec` reads it, building
    its own frozen values from that data. Every other file goes to the real loader."""
    real = yamlfile.load
    kept: dict[bytes, Any] = {}

    def load(path: Path) -> Any:
        if path != suite.RULES_INDEX:
            return real(path)
        content = path.read_bytes()
        if content not in kept:
            kept[content] = real(path)
        return kept[content]

    yamlfile.load = load  # type: ignore[assignment]
    yield
    yamlfile.load = real  # type: ignore[assignment]
