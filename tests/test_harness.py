"""`cardid adapter arena --parser CMD`: log parsers judged through rendered Player.logs.

In-process (the harness's `parse` seam) for the corpus-wide checks, through real processes for
the command itself."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.cases import Case, WriterExpectation, case_files, load_corpus
from cardid_conformance.compare import compare_writer
from cardid_conformance.sources.profile import not_applicable
from cardid_conformance.spec import load_spec
from cardid_runner import harness
from cardid_runner.cli import Exit, main

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "real-parsers" / "reference_objects.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("reference_objects", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _in_process(objects: Callable[[str], list[dict[str, Any]]]) -> harness.Parse:
    def parse(log: Path) -> list[harness.ParsedObject]:
        return harness.parse_objects({"objects": objects(log.read_text(encoding="utf-8"))})
    return parse


def _by_instance_id(text: str) -> list[dict[str, Any]]:
    """A parser keyed by instanceId that never follows ObjectIdChanged, as the 17lands client
    and inthearena are: every instanceId its own object."""
    objects = _example().objects(text)
    return [{**obj, "instance_ids": [iid]} for obj in objects for iid in obj["instance_ids"]]


def _tokens_as_cards(text: str) -> list[dict[str, Any]]:
    """A parser that links handles but records no kind: tokens and copies as cards."""
    return [{**obj, "kind": "card"} for obj in _example().objects(text)]


def _spans_a_link(case: Case) -> bool:
    """Whether one expected instance is shown both before and after a `new_object` link."""
    assert isinstance(case.expectation, WriterExpectation)
    labels = case.expectation.labels
    for index, obs in enumerate(case.observations):
        if "new_object" in obs:
            later = [k for k in range(index + 1, len(labels))
                     if case.observations[k].get("object") == obs["new_object"]]
            if later and labels[later[0]] == labels[index]:
                return True
    return False


@pytest.fixture(scope="module")
def applicable() -> list[Case]:
    corpus = load_corpus(case_files(ROOT / "cases"), load_spec())
    return [
        case for case in corpus.cases
        if isinstance(case.expectation, WriterExpectation) and not_applicable(case, "arena") is None
    ]


def _failing(cases: list[Case], parse: harness.Parse) -> list[str]:
    return [case.id for case in cases if compare_writer(case, harness.answer(case.request, parse))]


def test_a_parser_that_follows_the_links_passes_every_applicable_case(applicable: list[Case]) -> None:
    """The suite's importer and the reference, as a parser: every case Arena can express."""
    assert len(applicable) >= 100
    assert _failing(applicable, _in_process(_example().objects)) == []


def test_a_parser_keyed_by_instance_id_fails_where_arena_renews_them(applicable: list[Case]) -> None:
    renewing = [case for case in applicable if _spans_a_link(case)]
    failing = _failing(renewing, _in_process(_by_instance_id))
    assert len(renewing) >= 30
    assert failing == [case.id for case in renewing]


def test_a_parser_without_kinds_fails_the_token_cases(applicable: list[Case]) -> None:
    tokens = [
        case for case in applicable
        if any(obs["type"] in ("create_token", "create_copy") for obs in case.observations)
    ]
    assert len(tokens) >= 5
    assert _failing(tokens, _in_process(_tokens_as_cards)) == [case.id for case in tokens]


@pytest.mark.parametrize(("printed", "words"), [
    ([], 'must print {"objects": [...]}'),
    ({"objects": [{"instance_ids": []}]}, "non-empty list of integers"),
    ({"objects": [{"instance_ids": [1], "kind": "emblem"}]}, "kind must be card, token or copy"),
    ({"objects": [{"instance_ids": [1]}, {"instance_ids": [1]}]}, "in two objects from one line"),
])
def test_what_a_parser_prints_is_checked(applicable: list[Case], printed: Any, words: str) -> None:
    case = applicable[0]
    with pytest.raises(harness.ParserError, match=words.replace("[", r"\[").replace("{", r"\{")):
        harness.answer(case.request, lambda log: harness.parse_objects(printed))


def test_the_command_runs_the_parser_as_an_adapter(tmp_path: Path) -> None:
    parser = f"{sys.executable} {EXAMPLE}"
    impl = f"{sys.executable} -m cardid_runner adapter arena --parser '{parser}'"
    report = tmp_path / "report.json"
    code = main([
        "run", "--source", "arena", "--impl", impl, "--report-json", str(report),
        "--case", "alchemy-name-keeps-prefix", "--case", "arena-linked-moves-assigned-one-id-each",
        "--case", "control-change-of-spell-in-three-player-game-keeps-id",
    ])
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == Exit.OK, data["verdict"]["text"]
    assert [r["status"] for r in data["results"]] == ["passed", "passed", "not-applicable"]
    assert data["implementation"]["name"] == "cardid-adapter-arena"


def test_a_failing_parser_errs_naming_why(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('boom', file=sys.stderr)\nsys.exit(4)\n", encoding="utf-8")
    impl = f"{sys.executable} -m cardid_runner adapter arena --parser '{sys.executable} {broken}'"
    report = tmp_path / "report.json"
    code = main(["run", "--source", "arena", "--impl", impl, "--report-json", str(report),
                 "--case", "alchemy-name-keeps-prefix"])
    result = json.loads(report.read_text(encoding="utf-8"))["results"][0]
    assert code == Exit.FAILED
    assert result["status"] == "errored"
    assert "the parser exited with status 4: boom" in result["message"]


def test_the_formats_table_of_the_docs_is_current() -> None:
    """docs/real-parsers.md's table of what each format can express is generated; a change to
    a renderer or to the corpus that leaves it stale fails here."""
    spec = importlib.util.spec_from_file_location("results", ROOT / "examples" / "real-parsers" / "results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
