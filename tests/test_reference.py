"""Tests of the bundled reference implementation: writer, reader and adapter."""

from __future__ import annotations

import gc
import io
import json
import re
import subprocess
import sys
from typing import Any

import pytest
from cardid_conformance.spec import load_spec
from cardid_reference import __version__
from cardid_reference.adapter import main
from cardid_reference.errors import RequestError
from cardid_reference.reader import format_entry, is_qchar, quote, read
from cardid_reference.writer import write
from hypothesis import given
from hypothesis import strategies as st

from tests.writer_requests import REPO, distinct, move, request, run

SNAPCASTER = {
    "name": "Snapcaster Mage",
    "printings": [{"set": "PUMA", "number": "U5", "source_ids": ["mtgo:70215", "mtgo:70216"]}],
}
DELVER = {
    "name": "Delver of Secrets // Insectile Aberration",
    "faces": ["Delver of Secrets", "Insectile Aberration"],
    "aliases": ["Tiefen-Forscher"],
    "printings": [{"set": "MID", "number": "47", "source_ids": ["arena:78378"]}],
}
URZA = {"name": "Urza's Saga", "printings": [{"set": "MH2", "number": "259", "source_ids": []}]}
LUMINARCH = {"name": "Luminarch Aspirant", "printings": []}
A_LUMINARCH = {"name": "A-Luminarch Aspirant", "printings": []}
ISLAND = {"name": "Island", "printings": [{"set": "M21", "number": "010", "source_ids": []}]}


# --------------------------------------------------------------------------- writer: instance IDs


def test_public_zones_keep_one_id() -> None:
    """A card keeps one ID from library through hand, stack, battlefield and on (ID-3, ID-5)."""
    ids, table = run(
        [
            move(
                "h1", "library:P1", "hand:P1", from_position="top", card={"source_id": "mtgo:70215"}
            ),
            move("h1", "hand:P1", "stack", new_object="h2"),
            move("h2", "stack", "battlefield"),
            move("h2", "battlefield", "graveyard:P1"),
            move("h2", "graveyard:P1", "exile"),
        ],
        cards=[SNAPCASTER],
    )
    assert distinct(ids) == 1
    assert table[ids[0]] == {
        "id": ids[0],
        "name": "Snapcaster Mage",
        "printing": {"set": "PUMA", "number": "U5"},
        "source_ids": ["mtgo:70215"],
        "owner": "P1",
        "kind": "card",
        "revealed_at": 1,
    }


def test_observations_without_object_get_null() -> None:
    """Only observations carrying `object` are assigned an ID (ID-1)."""
    ids, _ = run(
        [
            {"type": "shuffle", "zone": "library:P1"},
            move("a", "hand:P1", "battlefield"),
            {"type": "mulligan", "player": "P2"},
        ]
    )
    assert ids[0] is None and ids[1] is not None and ids[2] is None


def test_game_start_ends_every_id_and_ids_stay_unique() -> None:
    """A new game ends every ID and the next game never reuses one (ID-2, ID-9)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "battlefield"),
            {"type": "game_start", "game": 2},
            move("a", "battlefield", "graveyard:P1"),
        ]
    )
    assert ids[0] != ids[2]


def test_restart_keeps_only_carried_cards() -> None:
    """A restart ends every ID but those of the carried cards (ID-9)."""
    ids, _ = run(
        [
            move("k", "battlefield", "exile", owner="P2"),
            move("x", "hand:P1", "battlefield"),
            {"type": "restart", "carried": ["k"]},
            move("k", "exile", "battlefield"),
            move("x", "battlefield", "graveyard:P1"),
        ]
    )
    assert ids[3] == ids[0]
    assert ids[4] != ids[1]


def test_mulligan_ends_hand_and_library_ids() -> None:
    """A mulligan ends every ID in that player's hand and library (ID-8)."""
    ids, _ = run(
        [
            move("a", "library:P1", "hand:P1", from_position="top"),
            move("b", "battlefield", "library:P1", position="top", owner="P1"),
            {"type": "mulligan", "player": "P1"},
            move("a", "hand:P1", "battlefield"),
            move("c", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert len({ids[0], ids[3], ids[4], ids[1]}) == 4


# --------------------------------------------------------------------------- writer: libraries


def test_card_put_on_top_is_drawn_as_the_same_instance() -> None:
    """A card put on top and drawn from the top keeps its ID (LIB-1)."""
    ids, _ = run(
        [
            move("s", "hand:P2", "stack", owner="P2"),
            move("s", "stack", "library:P2", position="top"),
            move("d", "library:P2", "hand:P2", from_position="top"),
        ]
    )
    assert ids[0] == ids[1] == ids[2]


def test_nth_position_is_followed_below_new_top_cards() -> None:
    """A card put Nth from the top of a library of known size is followed as cards above it
    leave (LIB-1, LIB-5)."""
    ids, _ = run(
        [
            {"type": "library_size", "zone": "library:P1", "size": 5},
            move("a", "hand:P1", "library:P1", position=3),
            move("x", "library:P1", "hand:P1", from_position="top"),
            move("y", "library:P1", "hand:P1", from_position="top"),
            move("z", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[4] == ids[1]
    assert distinct(ids) == 3


def test_nth_position_past_the_known_run_is_not_followed_without_a_size() -> None:
    """Without a known size, a card put third from the top may have gone to the bottom: its ID
    ends after the move (LIB-7, E14)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position=3),
            move("x", "library:P1", "hand:P1", from_position="top"),
            move("y", "library:P1", "hand:P1", from_position="top"),
            move("z", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert distinct(ids) == 4


def test_card_put_on_top_pushes_known_cards_down() -> None:
    """Putting a card on top moves a known top card to second from the top (LIB-1)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="top"),
            move("b", "hand:P1", "library:P1", position="top"),
            move("x", "library:P1", "hand:P1", from_position=2),
            move("y", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[2] == ids[0] and ids[3] == ids[1]


def test_bottom_is_followed() -> None:
    """A card put on the bottom and taken from the bottom keeps its ID (LIB-1)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("b", "library:P1", "exile", from_position="bottom"),
        ]
    )
    assert ids[0] == ids[1]


def test_draw_from_untracked_top_is_fresh() -> None:
    """A card drawn from a top with no tracked card gets a fresh ID, whatever its handle (LIB-4)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("a", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[0] != ids[1]


def test_shuffle_ends_library_ids() -> None:
    """A shuffle ends every ID in the library (LIB-2)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="top"),
            {"type": "shuffle", "zone": "library:P1"},
            move("a", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[0] != ids[2]


def test_shuffle_of_another_library_keeps_ids() -> None:
    """A shuffle touches only its own library (ID-6)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="top"),
            {"type": "shuffle", "zone": "library:P2"},
            move("a", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[0] == ids[2]


def test_reorder_ends_only_the_reordered_positions() -> None:
    """A reorder of the top two ends those IDs and keeps a known card below them (LIB-3)."""
    ids, _ = run(
        [
            move("c", "hand:P1", "library:P1", position="top"),
            move("b", "hand:P1", "library:P1", position="top"),
            move("a", "hand:P1", "library:P1", position="top"),
            {"type": "reorder", "zone": "library:P1", "end": "top", "count": 2},
            move("x", "library:P1", "hand:P1", from_position="top"),
            move("y", "library:P1", "hand:P1", from_position="top"),
            move("z", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert ids[4] not in ids[:3] and ids[5] not in ids[:3]
    assert ids[6] == ids[0]


def test_reorder_of_the_bottom() -> None:
    """A reorder of the bottom ends the IDs there (LIB-3)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            {"type": "reorder", "zone": "library:P1", "end": "bottom", "count": 1},
            move("x", "library:P1", "hand:P1", from_position="bottom"),
        ]
    )
    assert ids[0] != ids[2]


def test_unknown_position_entry_ends_the_whole_library() -> None:
    """A card put into a library at an unknown position ends its ID and every ID there (LIB-3)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="top"),
            move("b", "hand:P1", "library:P1"),
            move("x", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert distinct(ids) == 3


def test_unknown_position_exit_ends_the_whole_library() -> None:
    """A card leaving from an unknown position is fresh and ends every ID there (LIB-4)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="top"),
            move("s", "library:P1", "hand:P1", from_position="unknown"),
            move("x", "library:P1", "hand:P1", from_position="top"),
        ]
    )
    assert distinct(ids) == 3


def test_reveal_on_top_is_followed_when_drawn() -> None:
    """A card revealed on top is the card then drawn, named at the reveal (LIB-1, VIS-2)."""
    ids, table = run(
        [
            {
                "type": "reveal",
                "object": "r",
                "zone": "library:P2",
                "position": "top",
                "card": {"name": "Island"},
            },
            move("d", "library:P2", "hand:P2", from_position="top"),
        ],
        cards=[ISLAND],
    )
    assert ids[0] == ids[1]
    assert table[ids[0]]["revealed_at"] == 1 and table[ids[0]]["owner"] == "P2"


def test_reveal_of_a_known_position_is_the_instance_there() -> None:
    """A reveal at a position holding a tracked card is that card, named there (LIB-1, VIS-2)."""
    ids, table = run(
        [
            move("a", "hand:P2", "stack", owner="P2"),
            move("a", "stack", "library:P2", position="top"),
            {
                "type": "reveal",
                "object": "r",
                "zone": "library:P2",
                "position": 1,
                "card": {"name": "X"},
            },
        ]
    )
    assert ids[0] == ids[1] == ids[2]
    assert table[ids[0]]["revealed_at"] == 3


# --------------------------------------------------------------------------- writer: hidden zones


def test_without_tracking_a_hand_ends_the_id() -> None:
    """Without tracking, entering another player's hand ends the ID after the move (HID-1)."""
    ids, _ = run(
        [
            move("m", "hand:P2", "battlefield"),
            move("m", "battlefield", "hand:P2"),
            move("m", "hand:P2", "stack"),
        ],
        tracking=False,
    )
    assert ids[0] == ids[1] != ids[2]


def test_with_tracking_a_hand_keeps_the_id() -> None:
    """With tracking, a linked handle keeps the ID through another player's hand (HID-1)."""
    ids, _ = run(
        [
            move("m", "hand:P2", "battlefield"),
            move("m", "battlefield", "hand:P2", new_object="n"),
            move("n", "hand:P2", "stack"),
        ],
        tracking=True,
    )
    assert distinct(ids) == 1


def test_own_hand_keeps_ids_without_tracking() -> None:
    """The perspective player's own hand never ends an ID (ID-5)."""
    ids, _ = run(
        [move("m", "battlefield", "hand:P1", owner="P1"), move("m", "hand:P1", "stack")],
        tracking=False,
    )
    assert ids[0] == ids[1]


def test_revealed_hand_card_is_followed_for_that_observation_only() -> None:
    """Without tracking, a card shown in another hand is followed for that reveal only (HID-1)."""
    ids, table = run(
        [
            {"type": "reveal", "object": "r", "zone": "hand:P2", "card": {"name": "Island"}},
            move("r", "hand:P2", "battlefield"),
        ],
        tracking=False,
        cards=[ISLAND],
    )
    assert ids[0] != ids[1]
    assert table[ids[0]]["name"] == "Island" and table[ids[1]]["name"] is None


def test_face_down_card_is_one_instance_named_when_revealed() -> None:
    """An opponent's morph cast face down and dying revealed is one instance (HID-3, VIS-2)."""
    ids, table = run(
        [
            move("m", "hand:P2", "stack", face_down=True),
            move("m", "stack", "battlefield", face_down=True),
            move("m", "battlefield", "graveyard:P2", card={"name": "Den Protector"}),
        ],
        tracking=False,
    )
    assert distinct(ids) == 1
    assert table[ids[0]]["name"] == "Den Protector" and table[ids[0]]["revealed_at"] == 3


def test_turn_face_up_binds_name_to_existing_id() -> None:
    """Turning face up keeps the ID and records revealed_at there (ID-4, VIS-2)."""
    ids, table = run(
        [
            move("m", "hand:P2", "battlefield", face_down=True),
            {"type": "turn_face_up", "object": "m", "card": {"name": "Delver of Secrets"}},
        ],
        cards=[DELVER],
    )
    assert ids[0] == ids[1]
    assert table[ids[0]]["revealed_at"] == 2
    assert table[ids[0]]["name"] == "Delver of Secrets // Insectile Aberration"


def test_unseen_card_has_no_identity() -> None:
    """A card never shown has no name, printing or source IDs, and revealed_at null (VIS-1)."""
    _, table = run([move("x", "library:P2", "hand:P2", from_position="top")], tracking=True)
    (entry,) = table.values()
    assert entry["name"] is None and entry["printing"] is None
    assert entry["source_ids"] == [] and entry["revealed_at"] is None


# --------------------------------------------------------------------------- writer: names


@pytest.mark.parametrize(
    ("shown", "cards", "expected"),
    [
        ({"name": "Insectile Aberration"}, [DELVER], "Delver of Secrets // Insectile Aberration"),
        ({"name": "Tiefen-Forscher"}, [DELVER], "Delver of Secrets // Insectile Aberration"),
        ({"source_id": "arena:78378"}, [DELVER], "Delver of Secrets // Insectile Aberration"),
        ({"printing": {"set": "mh2", "number": "259"}}, [URZA], "Urza's Saga"),
        ({"name": "Urza\u2019s Saga"}, [URZA], "Urza's Saga"),
        ({"name": "Urza\u2019s Saga"}, [], "Urza's Saga"),
        ({"name": "A-Luminarch Aspirant"}, [LUMINARCH, A_LUMINARCH], "A-Luminarch Aspirant"),
        ({"name": "Lim-Du\u0302l the Necromancer"}, [], "Lim-D\u00fbl the Necromancer"),
        ({"name": "Soldier"}, [SNAPCASTER], "Soldier"),
    ],
)
def test_names_resolve_through_the_card_database(
    shown: dict[str, Any], cards: list[dict[str, Any]], expected: str
) -> None:
    """Descriptions map to the Oracle name, NFC with U+0027 apostrophes (NAME-1, NAME-2, NAME-6)."""
    _, table = run([move("a", "hand:P1", "battlefield", card=shown)], cards=cards)
    (entry,) = table.values()
    assert entry["name"] == expected


def test_source_id_wins_over_name() -> None:
    """A source ID in the database identifies the card before the name does (observations.md)."""
    _, table = run(
        [move("a", "hand:P1", "battlefield", card={"name": "Island", "source_id": "mtgo:70215"})],
        cards=[SNAPCASTER, ISLAND],
    )
    (entry,) = table.values()
    assert entry["name"] == "Snapcaster Mage"


def test_name_is_bound_once() -> None:
    """A later description never renames a card, nor does becoming a copy (NAME-5)."""
    ids, table = run(
        [
            move("a", "hand:P1", "battlefield", card={"name": "Phantasmal Image"}),
            {"type": "become_copy", "object": "a", "copy_of": {"name": "Snapcaster Mage"}},
            move("a", "battlefield", "graveyard:P1", card={"name": "Snapcaster Mage"}),
        ],
        cards=[SNAPCASTER],
    )
    assert distinct(ids) == 1
    entry = table[ids[0]]
    assert entry["name"] == "Phantasmal Image" and entry["kind"] == "card"
    assert entry["printing"] is None and entry["revealed_at"] == 1


def test_copy_of_never_binds_an_unknown_name() -> None:
    """`become_copy` describes another card, so it never names a face-down one (NAME-5)."""
    ids, table = run(
        [
            move("a", "hand:P2", "battlefield", face_down=True),
            {"type": "become_copy", "object": "a", "copy_of": {"name": "Snapcaster Mage"}},
        ]
    )
    assert ids[0] == ids[1] and table[ids[0]]["name"] is None


def test_meld_keeps_both_ids_and_adds_no_entry() -> None:
    """Melding keeps each card's ID and name; the melded permanent gets no entry (NAME-3, ID-4)."""
    ids, table = run(
        [
            move("g", "hand:P1", "battlefield", card={"name": "Gisela, the Broken Blade"}),
            move("b", "hand:P1", "battlefield", card={"name": "Bruna, the Fading Light"}),
            {
                "type": "meld",
                "object": "g",
                "permanent": "p",
                "melded": {"name": "Brisela, Voice of Nightmares"},
            },
            {
                "type": "meld",
                "object": "b",
                "permanent": "p",
                "melded": {"name": "Brisela, Voice of Nightmares"},
            },
        ]
    )
    assert ids == [ids[0], ids[1], ids[0], ids[1]] and ids[0] != ids[1]
    assert sorted(e["name"] for e in table.values()) == [
        "Bruna, the Fading Light",
        "Gisela, the Broken Blade",
    ]


# ------------------------------------------------------------- writer: printings and source IDs


def test_printing_is_recorded_verbatim() -> None:
    """A shown printing is recorded as shown, collector number kept as a string (PRINT-2)."""
    _, table = run(
        [
            move(
                "a",
                "hand:P1",
                "battlefield",
                card={"name": "Island", "printing": {"set": "m21", "number": "010"}},
            )
        ],
        cards=[ISLAND],
    )
    (entry,) = table.values()
    assert entry["printing"] == {"set": "m21", "number": "010"}


def test_name_alone_gives_no_printing() -> None:
    """A name never implies a printing, even when the database lists one (PRINT-3)."""
    _, table = run([move("a", "hand:P1", "battlefield", card={"name": "Island"})], cards=[ISLAND])
    (entry,) = table.values()
    assert entry["printing"] is None


def test_later_description_adds_printing_and_source_ids() -> None:
    """Later descriptions add a missing printing and source IDs in first-seen order (PRINT-1)."""
    ids, table = run(
        [
            move("a", "hand:P1", "stack", card={"name": "Snapcaster Mage"}),
            move("a", "stack", "battlefield", card={"source_id": "mtgo:70216"}),
            move("a", "battlefield", "exile", card={"source_id": "mtgo:70215"}),
            move("a", "exile", "graveyard:P1", card={"source_id": "mtgo:70216"}),
        ],
        cards=[SNAPCASTER],
    )
    entry = table[ids[0]]
    assert entry["printing"] == {"set": "PUMA", "number": "U5"}
    assert entry["source_ids"] == ["mtgo:70216", "mtgo:70215"]
    assert entry["revealed_at"] == 1


def test_unknown_source_id_is_kept_but_does_not_name() -> None:
    """A source ID the database does not list is recorded and names nothing, but it is bound,
    so the observation is revealed_at (SRC-1, VIS-1, VIS-2)."""
    _, table = run([move("a", "hand:P1", "battlefield", card={"source_id": "mtgo:1"})])
    (entry,) = table.values()
    assert entry["source_ids"] == ["mtgo:1"] and entry["name"] is None
    assert entry["revealed_at"] == 1


def test_shared_source_id_is_not_identity() -> None:
    """Two objects with the same source ID are two instances (SRC-2)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "battlefield", card={"source_id": "mtgo:70215"}),
            move("b", "hand:P1", "battlefield", card={"source_id": "mtgo:70215"}),
        ],
        cards=[SNAPCASTER],
    )
    assert ids[0] != ids[1]


# ------------------------------------------------------------------ writer: tokens, copies, owners


def test_token_ends_after_leaving_the_battlefield() -> None:
    """A token is marked token, has no printing, and ends after leaving the battlefield (TOK-2)."""
    ids, table = run(
        [
            {
                "type": "create_token",
                "object": "t",
                "owner": "P2",
                "card": {"name": "Soldier", "printing": {"set": "TM21", "number": "1"}},
            },
            move("t", "battlefield", "graveyard:P2"),
            move("t", "graveyard:P2", "exile"),
        ]
    )
    assert ids[0] == ids[1] != ids[2]
    token = table[ids[0]]
    assert (token["kind"], token["printing"], token["owner"], token["name"]) == (
        "token",
        None,
        "P2",
        "Soldier",
    )


def test_spell_copy_ends_when_it_leaves_the_stack() -> None:
    """A copy of an instant ends as it leaves the stack (TOK-3)."""
    ids, table = run(
        [
            {
                "type": "create_copy",
                "object": "k",
                "owner": "P1",
                "card": {"name": "Lightning Bolt"},
            },
            move("k", "stack", "graveyard:P1"),
            move("k", "graveyard:P1", "exile"),
        ]
    )
    assert ids[0] == ids[1] != ids[2]
    assert table[ids[0]]["kind"] == "copy"


def test_permanent_spell_copy_resolves_and_later_ends() -> None:
    """A creature spell copy keeps its ID onto the battlefield and ends leaving it (TOK-3)."""
    ids, _ = run(
        [
            {
                "type": "create_copy",
                "object": "k",
                "owner": "P1",
                "card": {"name": "Grizzly Bears"},
            },
            move("k", "stack", "battlefield"),
            move("k", "battlefield", "graveyard:P1"),
            move("k", "graveyard:P1", "exile"),
        ]
    )
    assert ids[0] == ids[1] == ids[2] != ids[3]


def test_owner_resolution() -> None:
    """Owner is the observation's owner, else the zone's player, never the controller (OWN-1)."""
    ids, table = run(
        [
            move("a", "battlefield", "exile", owner="P2", controller="P1"),
            move("b", "graveyard:P2", "battlefield", controller="P1"),
            move("c", "battlefield", "hand:P2", controller="P1"),
        ]
    )
    assert [table[i]["owner"] for i in ids] == ["P2", "P2", "P2"]


def test_shared_zone_without_owner_is_rejected() -> None:
    """A card first seen between shared zones with no owner is an invalid request (OWN-1)."""
    with pytest.raises(RequestError, match="owner"):
        write(request([move("a", "stack", "battlefield", controller="P1")]))


@pytest.mark.parametrize(
    "observation",
    [
        {"type": "dance", "object": "a"},
        {"type": "transform", "object": "nobody"},
        {"type": "move", "object": "a", "from": "hand:P1"},
        {"type": "move", "object": "a", "from": "hand:P1", "to": "library"},
        {"type": "move", "object": "a", "from": "hand:P1", "to": "library:P1", "position": 0},
    ],
)
def test_malformed_observations_are_rejected(observation: dict[str, Any]) -> None:
    """Observations the vocabulary does not allow are rejected, never a crash (observations.md)."""
    with pytest.raises(RequestError):
        write(request([observation]))


@pytest.mark.parametrize(
    "card",
    [
        {"name": "Island", "faces": {"a": 1}},
        {"name": "Island", "faces": [1]},
        {"name": "Island", "aliases": 3},
        {"name": "Island", "printings": 1},
        {"name": "Island", "printings": [{"set": "ELD", "number": "254", "source_ids": 7}]},
        {"name": "Island", "printings": [{"set": "ELD", "number": "254", "source_ids": [{}]}]},
    ],
)
def test_malformed_card_sections_are_rejected(card: dict[str, Any]) -> None:
    """A card database section of the wrong shape is an invalid request, never a crash: each
    of these raised TypeError or AttributeError before (found by mutating corpus requests)."""
    with pytest.raises(RequestError, match=r"^cards\[0\]"):
        write(request([], cards=[card]))


# --------------------------------------------------------------------------- reader


SPEC_EXAMPLE = """\
#c1 "Talisman of Impulse" [MRD 254] mtgo:19683 owner=PlayerA
#c2 "Kongming, \\"Sleeping Dragon\\"" [PTK 9] owner=PlayerB
#c3 "Delver of Secrets // Insectile Aberration" [MID 47] mtgo:93028 arena:78378 owner=PlayerA
#c4 ? owner=PlayerB
#t1 "Soldier" owner=PlayerA token
#k1 "Memory Lapse" owner=PlayerB copy
"""


def test_reader_parses_the_spec_example() -> None:
    """The example in card-table.md reads as the entries it shows (TXT-1)."""
    table = read(SPEC_EXAMPLE)["card_table"]
    assert [e["id"] for e in table] == ["c1", "c2", "c3", "c4", "t1", "k1"]
    assert table[0] == {
        "id": "c1",
        "name": "Talisman of Impulse",
        "printing": {"set": "MRD", "number": "254"},
        "source_ids": ["mtgo:19683"],
        "owner": "PlayerA",
        "kind": "card",
    }
    assert table[1]["name"] == 'Kongming, "Sleeping Dragon"'
    assert table[2]["source_ids"] == ["mtgo:93028", "arena:78378"]
    assert table[3]["name"] is None and table[3]["printing"] is None
    assert [e["kind"] for e in table[3:]] == ["card", "token", "copy"]


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ('#c1 "Island" [M21 010] owner=P1', "printing", {"set": "M21", "number": "010"}),
        ('#c1 "Island" [PLST 2\u2605] owner=P1', "printing", {"set": "PLST", "number": "2\u2605"}),
        ('#c1 "Island" [PLST A-10[2] owner=P1', "printing", {"set": "PLST", "number": "A-10[2"}),
        ('#c1 "Island" cockatrice:abc owner=P1', "source_ids", ["cockatrice:abc"]),
        ('#c1 "Island" owner:1 owner=P1', "source_ids", ["owner:1"]),
        ('#c1 "B.F.M. (Big Furry Monster)" owner=P1', "name", "B.F.M. (Big Furry Monster)"),
        ('#c1 "_____" owner=P1', "name", "_____"),
        ('#c1 "back\\\\slash" owner=P1', "name", "back\\slash"),
        ('#c1 "L\u00edm-D\u00fbl" owner=P1', "name", "L\u00edm-D\u00fbl"),
        ('#c1 "Island" owner="Player \\"One\\""', "owner", 'Player "One"'),
        ('#c.1_-X "Island" owner=P.1_-x', "owner", "P.1_-x"),
    ],
)
def test_reader_keeps_fields_verbatim(line: str, field: str, value: Any) -> None:
    """Fields are returned exactly: numbers as strings, any prefix kept, names unescaped (TXT-1)."""
    (entry,) = read(line)["card_table"]
    assert entry[field] == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "\n\n",
        '#c1 "A" owner=P\r\n\r\n#c2 "B" owner=P\r\n',
        '\n#c1 "A" owner=P',
        '#c1 "A" owner=P\n',
    ],
)
def test_reader_accepts_line_structure(text: str) -> None:
    """Empty lines are ignored and CR LF ends a line as LF does (TXT-1)."""
    read(text)


@pytest.mark.parametrize(
    "text",
    [
        "#c1 Island owner=P1",
        '#c1 "Island" [M21 010] owner=P1 card',
        '#c1 "Is\\land" owner=P1',
        '#c1 "Island"',
        '#c1 "Island" owner=',
        '#c1 "Island" owner=P1 ',
        ' #c1 "Island" owner=P1',
        '#c1  "Island" owner=P1',
        '#c1 "Island"  owner=P1',
        '#c1 "Island" owner=P1\n#c1 "Swamp" owner=P1',
        '#c1 "Isl\tand" owner=P1',
        '#c1 "Isl\x7fand" owner=P1',
        '#c1 "Isl\x85and" owner=P1',
        '#c1 "Island" owner=P1\r',
        '#c1 "Island" owner=P1\r\r\n',
        '#c1 "" owner=P1',
        '#c1 "Island owner=P1',
        '#c1 "Island" [M2 010] owner=P1',
        '#c1 "Island" [MAGIC21 010] owner=P1',
        '#c1 "Island" [M21 0 10] owner=P1',
        '#c1 "Island" [M21] owner=P1',
        '#c1 "Island" mtgo:1 [M21 010] owner=P1',
        '#c1 "Island" Mtgo:1 owner=P1',
        '#c1 "Island" mtgo: owner=P1',
        '#c1 "Island" Owner=P1',
        '#c1 "Island" owner=P1 Token',
        '#c1 "Island" owner=P1 token copy',
        "#c1 ?? owner=P1",
        "# ? owner=P1",
        "#c\u00e91 ? owner=P1",
        "c1 ? owner=P1",
        '#c1 "Island" owner=P\u00e9',
        " ",
        "\ufeff#c1 ? owner=P1",
        '#c1 "\ud800" owner=P1',
    ],
)
def test_reader_rejects_text_outside_the_grammar(text: str) -> None:
    """Anything the grammar does not produce, and a repeated ID, is rejected (TXT-2)."""
    with pytest.raises(RequestError):
        read(text)


def test_reader_rejection_names_the_line() -> None:
    """A rejection says which line is wrong (adapter-contract.md)."""
    with pytest.raises(RequestError, match=r"^line 3\b"):
        read("#c1 ? owner=P1\n\n#c2 ? owner=P1 ")


QCHARS = st.characters(min_codepoint=0x20, blacklist_categories=("Cs", "Cc"))


@given(st.text(QCHARS, min_size=1))
def test_reader_round_trips_quoted_names(name: str) -> None:
    """Any name of allowed characters, quotes and backslashes included, survives quoting (TXT-1)."""
    (entry,) = read(f"#c1 {quote(name)} owner=P1")["card_table"]
    assert entry["name"] == name


@given(
    st.text(QCHARS, min_size=1),
    st.characters(min_codepoint=0, max_codepoint=0x9F).filter(
        lambda c: not is_qchar(c) and c not in '"\\\n'
    ),
)
def test_reader_rejects_controls_in_names(name: str, control: str) -> None:
    """A control character anywhere in a quoted name is rejected (TXT-2)."""
    text = f'#c1 {quote(name)[:-1]}{control}" owner=P1'
    with pytest.raises(RequestError):
        read(text)


ENTRIES = st.fixed_dictionaries(
    {
        "id": st.from_regex(r"[A-Za-z0-9._-]+", fullmatch=True),
        "name": st.none() | st.text(QCHARS, min_size=1),
        "printing": st.none()
        | st.fixed_dictionaries(
            {
                "set": st.from_regex(r"[A-Za-z0-9]{3,6}", fullmatch=True),
                "number": st.text(
                    st.characters(
                        min_codepoint=0x21,
                        blacklist_categories=("Cs", "Cc"),
                        blacklist_characters="]",
                    ),
                    min_size=1,
                ),
            }
        ),
        "source_ids": st.lists(
            st.from_regex(r"[a-z][a-z0-9-]*:[A-Za-z0-9_./-]+", fullmatch=True), max_size=3
        ),
        "owner": st.from_regex(r"[A-Za-z0-9_.-]+", fullmatch=True) | st.text(QCHARS, min_size=1),
        "kind": st.sampled_from(["card", "token", "copy"]),
    }
)


@given(ENTRIES)
def test_reader_round_trips_formatted_entries(entry: dict[str, Any]) -> None:
    """Every entry the grammar can express reads back as itself (TXT-1)."""
    assert read(format_entry(entry))["card_table"] == [entry]


# --------------------------------------------------------------------------- adapter


def adapter(stdin: bytes, **kwargs: Any) -> tuple[int, list[Any]]:
    """Run the adapter in-process; return its exit status and the JSON lines it wrote."""
    out = io.BytesIO()
    status = main(stdin=io.BytesIO(stdin), stdout=out, **kwargs)
    return status, [json.loads(line) for line in out.getvalue().decode("utf-8").splitlines()]


def test_per_case_mode_as_a_process() -> None:
    """`python -m cardid_reference` answers a writer request on stdin with exit status 0 (C-1, C-2)."""
    req = request(
        [move("a", "hand:P1", "battlefield", card={"name": "Urza\u2019s Saga"})], cards=[URZA]
    )
    done = subprocess.run(
        [sys.executable, "-m", "cardid_reference"],
        input=json.dumps(req, indent=2).encode("utf-8"),
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == write(req)


def test_persistent_mode_as_a_process() -> None:
    """Persistent mode shakes hands, echoes seq, answers or rejects, exits 0 on stop (C-5, C-6)."""
    lines = [
        {"cmd": "start", "protocol": 1},
        {
            "cmd": "run",
            "seq": 17,
            "request": {"role": "reader", "text": '#c1 "\u00c6ther Vial" owner=P1'},
        },
        {"cmd": "run", "seq": "x", "request": {"role": "reader", "text": "#c1 Island owner=P1"}},
        {"cmd": "stop"},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "cardid_reference"],
        input="".join(json.dumps(m) + "\n" for m in lines).encode("utf-8"),
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    hello, answered, rejected = (
        json.loads(line) for line in done.stdout.decode("utf-8").splitlines()
    )
    assert hello == {
        "protocol": 1,
        "implementation": {"name": "cardid-reference", "version": __version__},
        "roles": ["writer", "reader"],
    }
    assert (
        answered["seq"] == 17 and answered["result"]["card_table"][0]["name"] == "\u00c6ther Vial"
    )
    assert "\u00c6ther".encode() in done.stdout  # UTF-8, not \u escapes
    assert rejected["seq"] == "x" and set(rejected) == {"seq", "rejected"}


def test_the_reference_is_versioned_as_the_spec_it_implements() -> None:
    """Its handshake's version names the spec (was 1.0.0 under spec 1.1.0)."""
    assert __version__ == load_spec().version


@pytest.mark.parametrize(
    "stdin",
    [
        b'{"role": "reader", "text": "#c1 Island owner=P1"}',
        b"not json",
        b'{"role": "judge"}',
        b'["role", "reader"]',
        b'{"role": "reader", "text": "#c1 \\"\xff\\" owner=P1"}',
        b'{"role": "reader", "text": "#c1 \\"\\ud800\\" owner=P1"}',
        b'{"role": "reader", "text": "#c1 \\"\\uDFFF\\" owner=P1"}',
        b'{"role": "writer", "perspective": "P1"}',
    ],
)
def test_per_case_rejections_exit_1(stdin: bytes) -> None:
    """Invalid requests and invalid card table text are rejected: exit status 1 and the
    rejection object, alone on standard output (C-2)."""
    status, out = adapter(stdin)
    assert status == 1
    assert len(out) == 1 and list(out[0]) == ["rejected"], out
    assert isinstance(out[0]["rejected"], str) and out[0]["rejected"]


def test_per_case_failure_exits_3() -> None:
    """An unexpected exception is a crash, exit status 3, never a rejection (C-2)."""

    def broken(_: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("boom")

    status, out = adapter(json.dumps(request([])).encode(), write=broken)
    assert (status, out) == (3, [])


@pytest.mark.parametrize(
    ("escape", "name"),
    [
        ("\\ud800", None),
        ("\\uDC00", None),
        ("\\udfff x", None),
        ("\\uD83D\\uDE00", "A\U0001F600"),
        ("\\\\\\\\uD800", "A\\uD800"),  # an escaped backslash (JSON, card table), then text
        ("\\u00e9", "A\u00e9"),
    ],
)
def test_persistent_mode_refuses_lone_surrogates(escape: str, name: str | None) -> None:
    """A lone surrogate, high or low, in any case of hex digit, is refused, in a reader's text
    and in a writer's card; a pair, an escaped backslash before `uD800` and other escapes are
    not (TXT-1, NAME-1: names are Unicode text)."""
    reader = json.dumps({"role": "reader", "text": '#c1 "A@" owner=P1'})
    reader = reader.replace("@", escape)
    writer = json.dumps(request([move("a", "library:P1", "hand:P1", card={"name": "A@"})]))
    writer = writer.replace("@", escape.replace("\\\\\\\\", "\\\\"))  # no card-table escape
    for text in (reader, writer):
        line = f'{{"cmd": "run", "seq": 1, "request": {text}}}'
        stdin = b'{"cmd": "start", "protocol": 1}\n' + line.encode() + b"\n"
        status, out = adapter(stdin)
        assert status == 0
        if name is None:
            assert "rejected" in out[1], (text, out[1])
        else:
            assert out[1]["result"]["card_table"][0]["name"] == name, (text, out[1])


def test_persistent_mode_reports_errors_and_ends_at_eof() -> None:
    """A failure is an `error` answer with its seq, and end of input exits 0 (C-5, C-6)."""

    def broken(_: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("boom")

    stdin = (
        b'{"cmd": "start", "protocol": 1}\n'
        b'{"cmd": "run", "seq": [1], "request": {"role": "writer"}}\n'
    )
    status, out = adapter(stdin, write=broken)
    assert status == 0
    assert out[1] == {"seq": [1], "error": "ValueError: boom"}


def test_mutants_each_name_the_rule_they_break() -> None:
    """Every mutant says in its docstring which rule it breaks (reference/mutants)."""
    from cardid_reference.mutants import MUTANTS

    assert len(MUTANTS) >= 19
    for name, cls in MUTANTS.items():
        doc = (cls.__doc__ or "").strip()
        assert "\n" not in doc and re.search(r"\((?:[A-Z]+-\d+|E\d+)", doc), name


@pytest.mark.parametrize("persistent", [False, True], ids=["per-case", "persistent"])
def test_a_request_is_answered_with_the_cycle_collector_paused_and_it_comes_back(persistent: bool) -> None:
    """The collector is off while a request is answered (its passes over a long game's objects
    freed nothing and made answering grow faster than the game), and on again after each one."""
    seen: list[bool] = []

    def spy(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(gc.isenabled())
        return write(request)

    request = {"role": "writer", "perspective": "P1", "players": ["P1"],
               "source": {"name": "arena", "hidden_tracking": True}, "cards": [], "observations": []}
    if persistent:
        lines = [{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 1, "request": request},
                 {"cmd": "run", "seq": 2, "request": request}]
    else:
        lines = [request]
    stdin = io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    assert gc.isenabled()
    assert main(write=spy, stdin=stdin, stdout=io.BytesIO()) == 0
    assert seen == [False] * (2 if persistent else 1)
    assert gc.isenabled()
