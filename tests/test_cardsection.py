"""NAME-7's check of a case's card database section: no step may match two cards."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.cardsection import ambiguities
from cardid_conformance.cases import load_case
from cardid_conformance.errors import CaseError
from cardid_conformance.spec import Spec

from tests.conftest import WRITER_CASE

BOLT = {"name": "Lightning Bolt", "printings": [{"set": "M10", "number": "146", "source_ids": ["mtgo:1"]}]}


def _card(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


@pytest.mark.parametrize(
    ("cards", "step", "key"),
    [
        ([BOLT, _card("Chain Lightning", printings=[{"set": "SLD", "number": "9", "source_ids": ["mtgo:1"]}])],
         "source ID", "mtgo:1"),
        ([BOLT, _card("Chain Lightning", printings=[{"set": "m10", "number": "146"}])], "printing", "M10 146"),
        ([BOLT, _card("Lightning Bolt")], "Oracle name", "Lightning Bolt"),
        ([_card("Fire // Ice", faces=["Fire", "Ice"]), _card("Ice // Fire", faces=["Ice", "Fire"])],
         "face name", "Ice"),
        ([_card("Urza's Saga", aliases=["Saga"]), _card("Sagu Mauler", aliases=["Saga"])], "alias", "Saga"),
        ([_card("Urza's Saga"), _card("Urza\u2019s Saga")], "Oracle name", "Urza's Saga"),
    ],
)
def test_a_key_two_cards_share_at_one_step_is_an_ambiguity(
    cards: list[dict[str, Any]], step: str, key: str
) -> None:
    """Each step finds a key under two cards: reported with the step, the key and both cards."""
    found = next(a for a in ambiguities(cards) if a.key == key)
    assert (found.step, found.key, found.cards) == (step, key, (0, 1))
    assert "cards[0]" in str(found) and "cards[1]" in str(found) and "NAME-7" in str(found)


def test_a_source_id_under_two_printings_of_one_card_is_an_ambiguity() -> None:
    """A source's ID denotes one printing: listed under two, it is reported for that card."""
    island = _card("Island", printings=[{"set": "ELD", "number": "254", "source_ids": ["arena:1"]},
                                        {"set": "ELD", "number": "255", "source_ids": ["arena:1"]}])
    [found] = ambiguities([island])
    assert (found.step, found.key, found.cards) == ("source ID", "arena:1", (0, 0))
    assert "two printings" in str(found)


@pytest.mark.parametrize(
    "cards",
    [
        # one card's Oracle name is another's face name: different steps, the Oracle name wins
        [_card("Bonecrusher Giant // Stomp", faces=["Bonecrusher Giant", "Stomp"]), _card("Stomp")],
        # a card whose alias is its own face name
        [_card("Fire // Ice", faces=["Fire", "Ice"], aliases=["Fire"])],
    ],
)
def test_keys_at_different_steps_or_of_one_card_are_no_ambiguity(cards: list[dict[str, Any]]) -> None:
    """Only the same step matching two different cards is broken."""
    assert ambiguities(cards) == []


def test_a_case_with_an_ambiguous_section_is_a_case_bug_at_the_second_card(
    write_case: Callable[..., Path], spec: Spec
) -> None:
    """Loading the case fails with the file, the second card's line and what to do."""
    data = copy.deepcopy(WRITER_CASE)
    data["input"]["cards"] = [*data["input"]["cards"], copy.deepcopy(data["input"]["cards"][0])]
    with pytest.raises(CaseError, match="NAME-7") as info:
        load_case(write_case(data), spec)
    assert info.value.line is not None and info.value.line > 1
