"""Comparison up to renaming: exact answers pass, renamed ones too, merges and splits are named."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from cardid_conformance import suite
from cardid_conformance.cases import Case, load_case
from cardid_conformance.compare import compare_reader, compare_writer, describe
from cardid_conformance.spec import Spec
from cardid_reference.adapter import answer as reference_answer
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import WRITER_ANSWER, WRITER_CASE


def _answer(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(WRITER_ANSWER)
    data.update(changes)
    return data


def _rename(answer: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    out = copy.deepcopy(answer)
    for entry in out["card_table"]:
        entry["id"] = names[entry["id"]]
    out["assignments"] = [None if a is None else names[a] for a in out["assignments"]]
    return out


def test_exact_answer_passes(make_case: Callable[..., Case]) -> None:
    """The reference-like answer has no differences."""
    assert compare_writer(make_case(), _answer()) == []


@given(st.lists(st.text(min_size=1, max_size=8), min_size=2, max_size=2, unique=True))
def test_any_consistent_renaming_passes(names: list[str]) -> None:
    """Renaming every ID consistently never changes the verdict."""
    case = _CASE
    renamed = _rename(_answer(), {"c1": names[0], "c2": names[1]})
    assert compare_writer(case, renamed) == []


def test_reused_id_after_shuffle_is_named_with_rule_and_observation(make_case: Callable[..., Case]) -> None:
    """Keeping the ID through a shuffle is reported at the draw as a reused ID, citing LIB-2."""
    answer = _answer(assignments=[None, "c1", "c1", "c1", "c1", None, "c1"])
    answer["card_table"] = answer["card_table"][:1]
    [difference] = compare_writer(make_case(), answer)
    assert difference.rule == "LIB-2"
    assert difference.observation == 6
    assert "reused" in difference.message
    assert any(line.startswith("> #6") for line in difference.context)


def test_split_is_named_at_the_first_renewed_observation(make_case: Callable[..., Case]) -> None:
    """A new ID on the stack -> battlefield move is a split at observation 3, citing ID-3."""
    answer = _answer(assignments=[None, "c1", "c1", "c3", "c3", None, "c2"])
    answer["card_table"].append({**answer["card_table"][0], "id": "c3"})
    [difference] = compare_writer(make_case(), answer)
    assert difference.rule == "ID-3"
    assert difference.observation == 3
    assert "split" in difference.message


def test_another_live_instances_id_is_a_swap_not_a_new_id(make_case: Callable[..., Case]) -> None:
    """Given the ID of another live instance, a card is not "given a new ID": the message names
    the other instance whose ID it took."""
    data = copy.deepcopy(WRITER_CASE)
    data["input"]["observations"] = [
        {"type": "game_start", "game": 1},
        {"type": "move", "object": "1", "from": "library:P1", "to": "hand:P1", "from_position": "top",
         "card": {"source_id": "arena:70401"}, "expect": "isle"},
        {"type": "move", "object": "5", "from": "library:P1", "to": "hand:P1", "from_position": "top",
         "card": {"source_id": "arena:70401"}, "expect": "isle2"},
        {"type": "move", "object": "1", "from": "hand:P1", "to": "stack", "expect": "isle", "rule": "ID-3"},
    ]
    data["expect"]["instances"]["isle2"]["revealed_at"] = 2
    answer = _answer(assignments=[None, "c1", "c2", "c2"])
    answer["card_table"][1]["revealed_at"] = 2
    [difference] = compare_writer(make_case(data), answer)
    assert difference.observation == 3
    assert (
        "swapped: expected instance 'isle' (ID 'c1' so far) was given ID 'c2', the ID of expected "
        "instance 'isle2' (last seen at observation #2)"
    ) in difference.message


def test_assignment_where_no_object_is_an_id1_difference(make_case: Callable[..., Case]) -> None:
    """An ID on the game_start observation breaks ID-1."""
    answer = _answer(assignments=["c1", "c1", "c1", "c1", "c1", None, "c2"])
    differences = compare_writer(make_case(), answer)
    assert [d.rule for d in differences] == ["ID-1"]


def test_unreferenced_entry_is_an_id2_difference(make_case: Callable[..., Case]) -> None:
    """A card-table entry nobody is assigned (e.g. for a melded permanent) breaks ID-2."""
    answer = _answer()
    answer["card_table"].append({**answer["card_table"][0], "id": "c9"})
    assert [d.rule for d in compare_writer(make_case(), answer)] == ["ID-2"]


def test_field_differences_cite_their_rules(make_case: Callable[..., Case]) -> None:
    """Printing missing is PRINT-1, wrong set is PRINT-2, extra source ID SRC-1, owner OWN-1."""
    case = make_case()
    answer = _answer()
    answer["card_table"][0]["printing"] = None
    answer["card_table"][1]["printing"] = {"set": "M19", "number": "254"}
    answer["card_table"][0]["source_ids"] = ["mtgo:1"]
    answer["card_table"][1]["owner"] = "P2"
    rules = sorted(d.rule for d in compare_writer(case, answer))
    assert rules == ["OWN-1", "PRINT-1", "PRINT-2", "SRC-1"]


def test_set_code_case_and_nfc_are_the_only_leniency(make_case: Callable[..., Case]) -> None:
    """Lower-case set codes and omitted source IDs pass; a changed collector number does not."""
    case = make_case()
    answer = _answer()
    answer["card_table"][0]["printing"] = {"set": "eld", "number": "254"}
    answer["card_table"][0]["source_ids"] = []
    assert compare_writer(case, answer) == []
    answer["card_table"][1]["printing"] = {"set": "ELD", "number": "0254"}
    assert [d.rule for d in compare_writer(case, answer)] == ["PRINT-2"]


def test_a_writer_name_not_in_nfc_is_a_name6_difference(make_case: Callable[..., Case]) -> None:
    """The expected name is taken in NFC, and a writer records names in NFC (NAME-6): the right
    name decomposed (NFD) fails there, where before NFC on both sides let it pass."""
    data = copy.deepcopy(WRITER_CASE)
    data["expect"]["instances"]["isle"]["name"] = "Lim-D\u00fbl's Vault"
    case = make_case(data)
    answer = _answer()
    answer["card_table"][0]["name"] = "Lim-D\u00fbl's Vault"
    assert compare_writer(case, answer) == []
    answer["card_table"][0]["name"] = "Lim-Du\u0302l's Vault"
    differences = compare_writer(case, answer)
    assert [d.rule for d in differences] == ["NAME-6"]
    assert "is not in Unicode NFC" in differences[0].message


def test_a_wrong_kind_is_tok1_or_for_a_card_in_a_name5_case_name5(make_case: Callable[..., Case]) -> None:
    """A kind marker is TOK-1's, whatever TOK rule a case cites first; a card marked otherwise
    in a case citing NAME-5 (a card that becomes a copy keeps its kind) is NAME-5's."""
    answer = _answer()
    answer["card_table"][0]["kind"] = "copy"
    data = copy.deepcopy(WRITER_CASE)
    data["rules"] = ["ID-3", "TOK-3", "LIB-2"]
    assert [d.rule for d in compare_writer(make_case(data), answer)] == ["TOK-1"]
    data["rules"].append("NAME-5")
    assert [d.rule for d in compare_writer(make_case(data), answer)] == ["NAME-5"]


def test_a_copys_wrong_name_in_a_tok5_case_is_tok5(make_case: Callable[..., Case]) -> None:
    """TOK-5 decides a copy's name (its card's, else its original's): a copy left unnamed in a
    case citing TOK-5 fails there, not at NAME-1."""
    data = copy.deepcopy(WRITER_CASE)
    data["expect"]["instances"]["isle"]["kind"] = "copy"
    answer = _answer()
    answer["card_table"][0].update(kind="copy", name=None)
    assert [d.rule for d in compare_writer(make_case(data), answer)] == ["NAME-1"]
    data["rules"].append("TOK-5")
    assert [d.rule for d in compare_writer(make_case(data), answer)] == ["TOK-5"]


def test_a_reader_losing_a_source_id_is_txt3_only_for_an_unregistered_prefix(
    make_case: Callable[..., Case],
) -> None:
    """TXT-3 keeps source IDs with prefixes a reader does not know; losing an mtgo: or arena: ID
    is TXT-1's, even in a case citing TXT-3."""
    data: dict[str, Any] = {
        "id": "sample-reader", "description": "Source IDs are kept.", "role": "reader", "level": "MUST",
        "rules": ["TXT-1", "TXT-3"], "cr": ["108.1"],
        "input": {"text": '#c1 "Island" mtgo:1 scryfall:x owner=P1\n'},
        "expect": {"card_table": [{"id": "c1", "name": "Island", "printing": None,
                                   "source_ids": ["mtgo:1", "scryfall:x"], "owner": "P1", "kind": "card"}]},
    }
    case = make_case(data)
    entry = data["expect"]["card_table"][0]
    lost_mtgo = {"card_table": [{**entry, "source_ids": ["scryfall:x"]}]}
    lost_unknown = {"card_table": [{**entry, "source_ids": ["mtgo:1"]}]}
    assert [d.rule for d in compare_reader(case, lost_mtgo)] == ["TXT-1"]
    assert [d.rule for d in compare_reader(case, lost_unknown)] == ["TXT-3"]


def _load_sample() -> Case:
    import tempfile
    from pathlib import Path

    import yaml
    from cardid_conformance.cases import load_case
    from cardid_conformance.spec import load_spec

    from tests.conftest import WRITER_CASE

    with tempfile.TemporaryDirectory(prefix="cardid-test-") as folder:
        path = Path(folder) / "sample-writer.yaml"
        path.write_text(yaml.safe_dump(WRITER_CASE, allow_unicode=True), encoding="utf-8")
        return load_case(path, load_spec())


_CASE = _load_sample()


@pytest.mark.parametrize(
    ("observation", "shown"),
    [
        ({"type": "reorder", "zone": "library:P1", "end": "top", "count": 3, "order": [3, 1, 2]},
         "reorder zone=library:P1 end=top count=3 order=[3, 1, 2]"),
        ({"type": "library_size", "zone": "library:P1", "size": 2}, "library_size zone=library:P1 size=2"),
        ({"type": "reveal", "object": "k1", "zone": "library:P1", "position": 3, "card": {"name": "Island"}},
         "reveal object k1 zone=library:P1 position=3 card name=Island"),
        ({"type": "restart", "carried": ["a", "b"]}, "restart carried=[a, b]"),
        ({"type": "create_copy", "object": "c", "owner": "P2", "original": "x"},
         "create_copy object c owner=P2 original=x"),
        ({"type": "mulligan", "player": "P1", "objects": ["1", "2"]}, "mulligan player=P1 objects=[1, 2]"),
        ({"type": "move", "from": "library:P1", "to": "hand:P1", "from_position": "top"},
         "move (no object shown) library:P1 (top) -> hand:P1"),
        ({"type": "move", "object": "a", "from": "hand:P1", "to": "stack", "card": {"printing": {"set": "DOM", "number": "1"}},
          "expect": "x", "rule": "ID-3"},
         "move object a hand:P1 -> stack card printing=DOM 1"),
    ],
)
def test_a_context_line_shows_every_field_a_rule_reads(observation: dict[str, Any], shown: str) -> None:
    """Context lines hold every field of the observation (a LIB-6 bug needs `order`, a LIB-5 one
    the size), and none of the case's own (`expect`, `rule`)."""
    assert describe(observation) == shown


def test_after_an_id_split_the_rest_of_the_answer_is_still_judged(make_case: Callable[..., Case]) -> None:
    """The split is the headline; the other instance's wrong owner and the split instance's
    missing printing are judged all the same, each where its first observation points."""
    answer = _answer(assignments=[None, "c1", "c1", "c3", "c3", None, "c2"])
    answer["card_table"].append({**answer["card_table"][0], "id": "c3"})
    answer["card_table"][0]["printing"] = None
    answer["card_table"][1]["owner"] = "P2"
    differences = compare_writer(make_case(), answer)
    assert [d.rule for d in differences] == ["ID-3", "PRINT-1", "OWN-1"]
    assert differences[0].cause == "ID split at a move keeping its handle"
    assert [d.cause for d in differences[1:]] == ["printing missing", "owner differs"]


def test_after_a_merge_the_merged_entry_is_not_judged_for_either_card(make_case: Callable[..., Case]) -> None:
    """Two instances given one ID from their first observations: the one entry says nothing
    about which card is which, so only the merge is reported."""
    answer = _answer(assignments=[None, "c1", "c1", "c1", "c1", None, "c1"])
    answer["card_table"] = answer["card_table"][:1]
    answer["card_table"][0]["owner"] = "P2"
    differences = compare_writer(make_case(), answer)
    assert len(differences) == 1


def test_root_causes_group_first_differences_by_cause(make_case: Callable[..., Case]) -> None:
    from cardid_conformance.causes import root_causes
    from cardid_conformance.compare import Difference
    from cardid_conformance.outcome import Failed, Passed
    from cardid_conformance.spec import Level

    def failed(case_id: str, rule: str, cause: str) -> Failed:
        return Failed(case_id=case_id, levels=(Level.MUST,),
                      differences=(Difference(rule=rule, message=f"{case_id} differs", cause=cause),))

    groups = root_causes([
        failed("a", "ID-3", "ID split at a move linking a new handle"),
        Passed(case_id="b"),
        failed("c", "ID-5", "ID split at a move linking a new handle"),
        failed("d", "ID-3", "ID split at a move linking a new handle"),
        failed("e", "OWN-1", "owner differs"),
    ])
    assert [group.text() for group in groups] == [
        "3 case(s): ID split at a move linking a new handle (ID-3, ID-5)",
        "1 case(s): owner differs (OWN-1)",
    ]


def _suite_case(spec: Spec, path: str) -> Case:
    return load_case(suite.CASES_DIR / path, spec)


def test_a_name_never_shown_is_vis1_and_says_so_in_words(spec: Spec) -> None:
    """An opponent's foretold card was never named to P1 (name and revealed_at null, in a case
    citing NAME-5): a writer that names it breaks VIS-1, and the message says that the name was
    never shown to the perspective player, so the entry has none; not a bound name changed
    (NAME-5), and no Python `None` for a revealed_at that is JSON's null."""
    case = _suite_case(spec, "writer/name-bound-before-foretell-kept-face-down-in-exile.yaml")
    answer = reference_answer(json.loads(case.request_bytes()))
    entry = next(e for e in answer["card_table"] if e["owner"] == "P2")
    entry.update(name="Starnheim Unleashed", revealed_at=3)
    name, reveal = compare_writer(case, answer)
    assert name.rule == "VIS-1"
    assert name.message.endswith(
        'name "Starnheim Unleashed" recorded, but this card\'s name was never shown to the '
        "perspective player (P1), so the entry must have no name"
    )
    assert reveal.rule == "VIS-2"
    assert reveal.message.endswith("revealed_at 3, expected null (no description of it was ever bound)")
    for difference in (name, reveal):
        assert "None" not in difference.message
        assert "bound name" not in difference.message


def test_a_name_where_only_an_unknown_description_was_shown_says_what_was_shown(spec: Spec) -> None:
    """A card whose unlisted source ID was shown (revealed_at set, name unknown): a name is
    still VIS-1's breach, and the message says that what was shown names no card."""
    case = _suite_case(spec, "writer/revealed-at-set-by-unmatched-source-id.yaml")
    answer = reference_answer(json.loads(case.request_bytes()))
    answer["card_table"][0]["name"] = "Island"
    [difference] = compare_writer(case, answer)
    assert difference.rule == "VIS-1"
    assert "no name of it was ever shown to the perspective player (P1)" in difference.message
    assert "names no card of the request's cards), so the entry must have no name" in difference.message
