"""Plain data reads back unchanged; the fast paths answer exactly as the slow ones: jsonschema-rs,
the reference's indexes and surrogate check, and the plain entry check; IDs match exactly
when they are a renaming."""

from __future__ import annotations

import datetime
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardid_conformance import schemas, suite, yamlfile
from cardid_conformance.cardtable import CardEntry
from cardid_conformance.cases import Case, WriterExpectation, case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.compare.entries import compare_entry, plainly_right
from cardid_conformance.compare.writer import _match_ids
from cardid_conformance.spec import Level, Spec
from cardid_reference.adapter import _check_scalars, _walk_scalars, answer, no_surrogate_escape
from cardid_reference.errors import RequestError
from cardid_reference.writer import write
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import WRITER_CASE

# ---------------------------------------------------------------------- YAML

#: Text PyYAML writes faithfully: it leaves NEL and the Unicode line separators unquoted, as
#: YAML 1.1 line breaks, so they would come back as spaces from any YAML reader.
_YAML_TEXT = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x85\u2028\u2029")
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-yamlfile.MAX_INT, yamlfile.MAX_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(_YAML_TEXT, max_size=12)
    | st.sampled_from(
        [
            "yes",
            "No",
            "ON",
            "off",
            "010",
            "0x1F",
            "1e3",
            "1.5",
            "~",
            "null",
            "2024-01-01",
            "<<",
            "=",
            "&a",
            "*a",
        ]
    )
)
PLAIN = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(_YAML_TEXT, max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(deadline=None)
@given(data=PLAIN, flow=st.sampled_from([None, True, False]))
def test_dumped_plain_data_loads_back_unchanged(
    data: Any, flow: bool | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever plain data PyYAML writes, in any style, the strict loader reads back as it was
    (repr: 1, True and 1.0 stay apart; `yes`, `010` and `1e3` as strings stay strings)."""
    path = tmp_path_factory.mktemp("plain") / "case.yaml"
    path.write_text(
        yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, sort_keys=False),
        encoding="utf-8",
    )
    assert repr(yamlfile.load(path)) == repr(data)


# ---------------------------------------------------------------------- schemas


def _python_only(name: str, document: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(schemas, "_surely_valid", lambda name, document: False)
        return schemas.first_problem(name, document)


def _writer_request() -> dict[str, Any]:
    request = {"role": "writer", **json.loads(json.dumps(WRITER_CASE["input"]))}
    for obs in request["observations"]:
        obs.pop("expect", None)
        obs.pop("rule", None)
    return request


def _variants() -> list[tuple[str, Any]]:
    request = _writer_request()
    out: list[tuple[str, Any]] = [
        ("writer-input", request),
        ("case", json.loads(json.dumps(WRITER_CASE))),
    ]
    for field, value in [
        ("perspective", "P1\n"),  # python's `$` matches before a final newline; ECMA's does not
        ("perspective", "\ud800"),
        ("perspective", datetime.date(2024, 1, 1)),
        ("perspective", 10**30),
        ("perspective", float("nan")),
        ("players", ["P1", "P1"]),
        ("players", []),
        ("source", {"name": "x"}),
        ("cards", [{"name": "X", "printings": [{"set": "ab", "number": "1"}]}]),
        ("cards", [{"name": "X", "printings": [{"set": "ABC", "number": "1 2"}]}]),
        ("observations", [{"type": "move", "object": "1", "from": "hand:P1"}]),
        ("observations", [{"type": "teleport"}]),
        ("observations", [{"type": "shuffle", "zone": "hand:P1"}]),
        (
            "observations",
            [{"type": "move", "object": "1", "from": "hand:P1", "to": "stack", "position": 0}],
        ),
    ]:
        out.append(("writer-input", {**request, field: value}))
    out.append(("writer-input", {**request, 1: "x"}))
    out.append(("writer-output", {"card_table": [], "assignments": [None, 1.0]}))
    out.append(("writer-output", {"card_table": [], "assignments": [None, True]}))
    out.append(("protocol", {"cmd": "run", "seq": 1}))
    return out


@pytest.mark.parametrize(("name", "document"), _variants())
def test_fast_schema_check_gives_python_jsonschemas_verdict(
    name: str, document: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first problem (or none) is the one python-jsonschema alone finds."""
    assert repr(schemas.first_problem(name, document)) == repr(
        _python_only(name, document, monkeypatch)
    )


def test_corpus_documents_are_valid_both_ways(spec: Spec) -> None:
    """Every case, request and reference answer of the corpus passes both validators."""
    for case in load_corpus(case_files(suite.CASES_DIR), spec).cases:
        assert schemas._surely_valid(f"{case.role}-input", dict(case.request))
        assert schemas.validator(f"{case.role}-input").is_valid(dict(case.request))
        try:
            result = answer(json.loads(case.request_bytes()))
        except RequestError:
            continue
        assert schemas._surely_valid(f"{case.role}-output", result)
        assert schemas.validator(f"{case.role}-output").is_valid(result)


# ---------------------------------------------------------------------- the reference


TEXT = st.text(
    st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010) | st.characters(max_codepoint=0x7F),
    max_size=5,
)
JSONISH = st.recursive(
    st.none() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=10,
)


@settings(deadline=None)
@given(JSONISH)
def test_surrogate_check_equals_the_walk(value: Any) -> None:
    """One pass over the encoded request refuses exactly what the walk over every string refuses."""

    def refused(check: Any) -> bool:
        try:
            check(value)
        except RequestError:
            return True
        return False

    assert refused(_check_scalars) == refused(_walk_scalars)


@settings(deadline=None)
@given(JSONISH, st.booleans(), st.booleans())
def test_text_without_surrogate_escapes_holds_no_lone_surrogate(
    value: Any, ascii_only: bool, upper: bool
) -> None:
    """Where the JSON text has no surrogate escape, the decoded request has no lone surrogate."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    if upper:  # escapes as other writers spell them
        text = re.sub(r"\\u[0-9a-f]{4}", lambda m: m.group().upper().replace("\\U", "\\u"), text)
    try:
        raw = text.encode("utf-8")  # a lone surrogate left unescaped cannot be sent as UTF-8
    except UnicodeEncodeError:
        return
    if no_surrogate_escape(raw):
        _walk_scalars(json.loads(raw.decode("utf-8")))  # raises RequestError on a lone surrogate


def test_writer_indexes_find_the_first_listed_card() -> None:
    """Where two database cards share a source ID, a printing or a name, the first one listed wins."""
    cards = [
        {
            "name": "Alpha",
            "aliases": ["Shared"],
            "printings": [{"set": "AAA", "number": "1", "source_ids": ["mtgo:1"]}],
        },
        {
            "name": "Beta",
            "aliases": ["Shared"],
            "printings": [{"set": "aaa", "number": "1", "source_ids": ["mtgo:1"]}],
        },
    ]
    shown = [
        {"name": "Shared"},
        {"source_id": "mtgo:1"},
        {"printing": {"set": "aAa", "number": "1"}},
    ]
    observations: list[dict[str, Any]] = [{"type": "game_start", "game": 1}]
    for number, card in enumerate(shown, 1):
        observations.append(
            {
                "type": "move",
                "object": str(number),
                "from": "library:P1",
                "to": "hand:P1",
                "from_position": "top",
                "card": card,
            }
        )
    request = {
        "role": "writer",
        "perspective": "P1",
        "players": ["P1", "P2"],
        "source": {"name": "mtgo", "hidden_tracking": True},
        "cards": cards,
        "observations": observations,
    }
    table = write(request)["card_table"]
    assert [entry["name"] for entry in table] == ["Alpha", "Alpha", "Alpha"]
    assert table[1]["printing"] == {"set": "AAA", "number": "1"}


# ---------------------------------------------------------------------- comparison

_LABELED = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["1", "2", "3", "4"])),
    min_size=1,
    max_size=12,
)


@settings(deadline=None)
@given(_LABELED, st.lists(st.booleans(), min_size=12, max_size=12))
def test_ids_match_exactly_when_they_are_a_renaming(
    pairs: list[tuple[str, str]], blanks: list[bool]
) -> None:
    """The assignments pass exactly when no label and no ID occurs in two (label, ID) pairs, and
    then the renaming found is those pairs; otherwise the first break is reported."""
    # Observations with no object (None against None) mixed in, as a real game has them.
    labels = tuple(None if blank else label for (label, _), blank in zip(pairs, blanks, strict=False))
    assignments = [None if blank else actual for (_, actual), blank in zip(pairs, blanks, strict=False)]
    observations = [
        {"type": "move", "object": "x", "from": "battlefield", "to": "graveyard:P1"} for _ in labels
    ]
    entry = {"owner": "P1", "name": None, "source_ids": []}
    expectation = WriterExpectation(
        labels=labels,
        rule_hints=(None,) * len(labels),
        instances={label: CardEntry.from_dict(entry, id=label) for label in labels if label},
    )
    case = Case(
        id="renaming", description="", role="writer", level=Level.MUST, rules=("ID-3",),
        cr=("400.7",), tags=(), path=Path("renaming.yaml"),
        request={"perspective": "P1", "observations": observations}, expectation=expectation,
    )
    occurring = set(zip(labels, assignments, strict=True)) - {(None, None)}
    renaming = len(occurring) == len({a for a, _ in occurring}) == len({b for _, b in occurring})
    found = _match_ids(case, expectation, assignments)
    if renaming:
        assert found == dict(occurring)
    else:
        assert isinstance(found, Difference) and found.observation is not None


_NAMES = st.sampled_from([None, "Jötun Grunt", "Jo\u0308tun Grunt", "Forest"])
_PRINTINGS = st.sampled_from(
    [None, {"set": "CSP", "number": "8"}, {"set": "csp", "number": "8"}, {"set": "CSP", "number": "9"}]
)
_ENTRIES = st.fixed_dictionaries(
    {
        "name": _NAMES,
        "printing": _PRINTINGS,
        "source_ids": st.lists(st.sampled_from(["mtgo:1", "mtgo:2", "arena:3"]), max_size=2, unique=True),
        "owner": st.sampled_from(["P1", "P2"]),
        "kind": st.sampled_from(["card", "token", "copy"]),
        "revealed_at": st.sampled_from([None, 0, 3]),
    }
)


@settings(deadline=None)
@given(_ENTRIES, _ENTRIES)
def test_plain_entry_check_never_hides_a_difference(want: dict[str, Any], got: dict[str, Any]) -> None:
    """Where the plain check calls an entry right, the full comparison finds no difference; and
    it calls right every entry equal to the expected one, if its name is in NFC (a writer's
    name not in NFC is a NAME-6 difference, even where the expected one is written so too)."""
    expected = CardEntry.from_dict(want, id="x")
    case = Case(
        id="entry", description="", role="writer", level=Level.MUST, rules=("NAME-1",),
        cr=("201.2",), tags=(), path=Path("entry.yaml"), request={"perspective": "P1"},
        expectation=WriterExpectation(labels=("x",), rule_hints=(None,), instances={"x": expected}),
    )
    full = compare_entry(case, "x", expected, CardEntry.from_dict({**got, "id": "c1"}), with_reveal=True)
    if plainly_right(expected, got):
        assert full == []
    name = want["name"]
    assert plainly_right(expected, want) == (name is None or unicodedata.is_normalized("NFC", name))
