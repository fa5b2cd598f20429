"""The reference writer against the decisions of spec 1.1.0 (brief of issue 9), and each 1.1.0
mutant shown to answer some request differently from the reference."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from cardid_conformance import schemas
from cardid_reference.errors import RequestError
from cardid_reference.mutants import MUTANTS, ExitWithoutRejection, entry_points
from cardid_reference.writer import write

from tests.writer_requests import REPO, distinct, move, request, run

# Cards used below; the names are real, the database sections built for each test.
TEFERI = {
    "name": "Teferi, Hero of Dominaria",
    "printings": [{"set": "DOM", "number": "207", "source_ids": ["mtgo:67879"]}],
}
BOLT = {
    "name": "Lightning Bolt",
    "printings": [
        {"set": "M10", "number": "146", "source_ids": ["mtgo:31755", "mtgo:1"]},
        {"set": "2XM", "number": "129", "source_ids": ["mtgo:2"]},
    ],
}
FIRE_ICE = {"name": "Fire // Ice", "faces": ["Fire", "Ice"], "printings": []}
FIRE = {"name": "Fire", "printings": []}  # a card named like another card's face (made up)
ALIASED = {"name": "Bruna, the Fading Light", "aliases": ["Fire"], "printings": []}


def top(obj: str, **fields: Any) -> dict[str, Any]:
    """A card put from P1's hand on top of P1's library."""
    return move(obj, "hand:P1", "library:P1", position="top", **fields)


def draw(obj: str, position: Any = "top", **fields: Any) -> dict[str, Any]:
    """A card taken from P1's library into P1's hand."""
    return move(obj, "library:P1", "hand:P1", from_position=position, **fields)


def size(n: Any, zone: str = "library:P1") -> dict[str, Any]:
    return {"type": "library_size", "zone": zone, "size": n}


def token(obj: str, owner: str = "P1", **fields: Any) -> dict[str, Any]:
    return {
        "type": "create_token",
        "object": obj,
        "owner": owner,
        "card": {"name": "Soldier"},
        **fields,
    }


def rejected(observations: list[dict[str, Any]], match: str, **kwargs: Any) -> str:
    """The rejection message; it must name the observation, given as `match` (a regex)."""
    with pytest.raises(RequestError, match=match) as caught:
        write(request(observations, **kwargs))
    return str(caught.value)


# --------------------------------------------------------------------------- R1, TOK-4


def test_token_put_on_top_takes_no_position() -> None:
    """A token put on top of a library takes no position: the card there stays on top (TOK-4)."""
    ids, _ = run(
        [top("a"), token("t"), move("t", "battlefield", "library:P1", position="top"), draw("d")]
    )
    assert ids[3] == ids[0] and ids[2] == ids[1]


def test_token_put_second_leaves_the_card_below_where_it_was() -> None:
    """The cards below a token put Nth from the top do not shift (TOK-4; the 1.0.0 bug)."""
    ids, _ = run(
        [
            top("a"),
            top("b"),
            token("t"),
            move("t", "battlefield", "library:P1", position=2),
            draw("x", 2),
        ]
    )
    assert ids[4] == ids[0]


def test_token_at_unknown_position_ends_no_other_id() -> None:
    """A token put into a library at an unknown position ends only its own ID (TOK-4, E4)."""
    ids, _ = run([top("a"), token("t"), move("t", "battlefield", "library:P1"), draw("d")])
    assert ids[3] == ids[0]


def test_token_ends_after_the_move_into_a_library() -> None:
    """The move into the library is the token's; its ID ends after it (TOK-4)."""
    ids, table = run(
        [
            token("t"),
            move("t", "battlefield", "library:P1", position="top"),
            draw("t"),
        ]
    )
    assert ids[0] == ids[1] != ids[2]
    assert table[ids[0]]["kind"] == "token" and table[ids[2]]["kind"] == "card"


def test_copy_put_into_library_leaves_the_known_size() -> None:
    """A copy put into a library does not change its known size (TOK-4, LIB-5)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            size(2),
            {
                "type": "create_copy",
                "object": "k",
                "owner": "P1",
                "card": {"name": "Lightning Bolt"},
            },
            move("k", "stack", "library:P1", position="top"),
            draw("x"),
            draw("y"),
        ],
        cards=[BOLT],
    )
    assert ids[5] == ids[0] and ids[4] not in ids[:4]


# --------------------------------------------------------------------------- R3, VIS-2


@pytest.mark.parametrize(
    "card",
    [{"source_id": "mtgo:999"}, {"printing": {"set": "ZZZ", "number": "1"}}],
)
def test_revealed_at_is_set_by_a_description_matching_no_card(card: dict[str, Any]) -> None:
    """A source ID or printing matching no card is bound, so it sets revealed_at (VIS-2)."""
    ids, table = run(
        [
            move("a", "hand:P2", "battlefield", face_down=True),
            move("a", "battlefield", "graveyard:P2", card=card),
            move("a", "graveyard:P2", "exile", card={"name": "Teferi, Hero of Dominaria"}),
        ],
        cards=[TEFERI],
    )
    entry = table[ids[0]]
    assert entry["revealed_at"] == 2 and entry["name"] == "Teferi, Hero of Dominaria"


def test_revealed_at_is_null_while_nothing_is_bound() -> None:
    """No description, no revealed_at (VIS-2)."""
    ids, table = run([move("a", "hand:P2", "battlefield", face_down=True)])
    assert table[ids[0]]["revealed_at"] is None


# --------------------------------------------------------------------------- R4, NAME-7, R10


def _name_of(card: dict[str, Any], cards: list[dict[str, Any]]) -> dict[str, Any]:
    _, table = run([move("a", "hand:P1", "battlefield", card=card)], cards=cards)
    (entry,) = table.values()
    return entry


def test_oracle_name_beats_a_face_of_a_card_listed_first() -> None:
    """Step 3 (Oracle name) comes before step 4 (faces), whatever the listing order (NAME-7)."""
    assert _name_of({"name": "Fire"}, [FIRE_ICE, FIRE])["name"] == "Fire"


def test_face_beats_an_alias_of_a_card_listed_first() -> None:
    """Step 4 (faces) comes before step 5 (aliases) (NAME-7)."""
    assert _name_of({"name": "Fire"}, [ALIASED, FIRE_ICE])["name"] == "Fire // Ice"


def test_an_alias_still_resolves() -> None:
    """A name matching only an alias resolves to that card (NAME-7, NAME-1)."""
    assert _name_of({"name": "Fire"}, [ALIASED])["name"] == "Bruna, the Fading Light"


def test_source_id_beats_printing_beats_name() -> None:
    """Step 1 before step 2 before the names (NAME-7)."""
    both = {"name": "Fire", "printing": {"set": "DOM", "number": "207"}}
    assert _name_of(both, [FIRE, TEFERI])["name"] == "Teferi, Hero of Dominaria"
    three = {**both, "source_id": "mtgo:31755"}
    assert _name_of(three, [FIRE, TEFERI, BOLT])["name"] == "Lightning Bolt"


def test_set_code_looked_up_without_case() -> None:
    """`dom 207` finds the card listed as `DOM 207`; the printing recorded is the one shown
    (PRINT-2, R10)."""
    entry = _name_of({"printing": {"set": "dom", "number": "207"}}, [TEFERI])
    assert entry["name"] == "Teferi, Hero of Dominaria"
    assert entry["printing"] == {"set": "dom", "number": "207"}


# --------------------------------------------------------------------------- R6, PRINT-4, NAME-5


def test_printing_bound_later_and_never_replaced() -> None:
    """A printing still unknown is bound later; once bound it never changes (PRINT-4)."""
    ids, table = run(
        [
            move("a", "hand:P1", "stack", card={"name": "Lightning Bolt"}),
            move("a", "stack", "graveyard:P1", card={"source_id": "mtgo:31755"}),
            move("a", "graveyard:P1", "exile", card={"printing": {"set": "2XM", "number": "129"}}),
        ],
        cards=[BOLT],
    )
    entry = table[ids[0]]
    assert entry["printing"] == {"set": "M10", "number": "146"} and entry["revealed_at"] == 1


def test_description_of_another_card_binds_nothing() -> None:
    """A description resolving to another name binds no name, printing or source ID (NAME-5)."""
    ids, table = run(
        [
            move("a", "hand:P1", "battlefield", card={"name": "Phantasmal Image"}),
            move("a", "battlefield", "graveyard:P1", card={"source_id": "mtgo:67879"}),
        ],
        cards=[TEFERI],
    )
    entry = table[ids[0]]
    assert (entry["name"], entry["printing"], entry["source_ids"], entry["revealed_at"]) == (
        "Phantasmal Image",
        None,
        [],
        1,
    )


# --------------------------------------------------------------------------- R7, TOK-3


def _copy_in_exile(*moves: dict[str, Any]) -> list[str | None]:
    ids, _ = run(
        [
            {
                "type": "create_copy",
                "object": "k",
                "owner": "P1",
                "zone": "exile",
                "card": {"name": "Lightning Bolt"},
            },
            *moves,
        ],
        cards=[BOLT],
    )
    return ids


def test_copy_in_exile_cast_keeps_its_id_and_resolving_ends_it() -> None:
    """A copy made in exile keeps its ID as it is cast, and ends going to a graveyard (TOK-3)."""
    ids = _copy_in_exile(
        move("k", "exile", "stack"),
        move("k", "stack", "graveyard:P1"),
        move("k", "graveyard:P1", "exile"),
    )
    assert ids[0] == ids[1] == ids[2] != ids[3]


@pytest.mark.parametrize("dst", ["graveyard:P1", "hand:P1", "command"])
def test_copy_in_exile_moved_where_copies_cannot_exist_ends(dst: str) -> None:
    """A copy put into a zone other than the stack or the battlefield ends after the move (E9)."""
    ids = _copy_in_exile(move("k", "exile", dst), move("k", dst, "battlefield", owner="P1"))
    assert ids[0] == ids[1] != ids[2]


# --------------------------------------------------------------------------- R9, OWN-1


def test_owner_from_the_zone_moved_to_before_the_zone_moved_from() -> None:
    """OWN-1 order: owner, then the player of the hand, library or graveyard moved to, then the
    player of the zone moved from (the request is contrived: real moves never disagree)."""
    _, table = run(
        [
            move("a", "battlefield", "graveyard:P2"),
            move("b", "hand:P2", "graveyard:P1"),
            move("c", "library:P2", "exile", from_position="top"),
            move("d", "library:P2", "exile", from_position="top", owner="P1"),
        ]
    )
    assert sorted(e["owner"] for e in table.values()) == ["P1", "P1", "P2", "P2"]
    owners = {e["id"]: e["owner"] for e in table.values()}
    assert list(owners.values()) == ["P2", "P1", "P2", "P1"]


# --------------------------------------------------------------------------- V1, LIB-5, LIB-1


def test_negative_positions_count_from_the_bottom() -> None:
    """-1 is the bottom card, -2 the card above it (LIB-1)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("b", "hand:P1", "library:P1", position=-2),
            move("c", "hand:P1", "library:P1", position=-1),
            move("x", "library:P1", "exile", from_position=-3),
            move("y", "library:P1", "exile", from_position="bottom"),
            move("z", "library:P1", "exile", from_position=-1),
        ]
    )
    assert ids[3:] == [ids[1], ids[2], ids[0]]


def test_without_size_the_ends_never_meet() -> None:
    """Without a known size a draw from the top never reaches the tracked bottom (LIB-4)."""
    ids, _ = run([move("a", "hand:P1", "library:P1", position="bottom"), draw("d")])
    assert ids[0] != ids[1]


def test_known_size_draws_down_to_the_bottom_card() -> None:
    """With the size known, the last card drawn from the top is the tracked bottom card (LIB-5)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            size(3),
            draw("x"),
            draw("y"),
            draw("z"),
        ]
    )
    assert ids[4] == ids[0] and len({ids[2], ids[3], ids[0]}) == 3


def test_known_size_counts_a_position_from_the_other_end() -> None:
    """A take N from the bottom that is a tracked position from the top is that card (LIB-5)."""
    ids, _ = run([top("a"), size(5), move("x", "library:P1", "exile", from_position=-5)])
    assert ids[2] == ids[0]


def test_known_size_middle_positions_are_unknown() -> None:
    """Between the known segments, positions are unknown; taking one changes nothing known."""
    ids, _ = run([top("a"), size(5), move("x", "library:P1", "exile", from_position=-3), draw("d")])
    assert ids[2] != ids[0] and ids[3] == ids[0]


def test_size_is_kept_through_a_shuffle_and_counts_arrivals() -> None:
    """A shuffle keeps the size known; each card arriving adds one (LIB-5)."""
    ids, _ = run(
        [
            size(2),
            {"type": "shuffle", "zone": "library:P1"},
            move("a", "hand:P1", "library:P1", position="bottom"),
            draw("x"),
            draw("y"),
            draw("z"),
        ]
    )
    assert ids[5] == ids[2]


@pytest.mark.parametrize(
    "reset",
    [
        {"type": "mulligan", "player": "P1"},
        {"type": "game_start", "game": 2},
        {"type": "restart", "carried": []},
    ],
)
def test_size_unknown_again_at_mulligan_game_start_and_restart(reset: dict[str, Any]) -> None:
    """The size becomes unknown at a mulligan of its player, a game start and a restart."""
    ids, _ = run([size(0), reset, move("a", "hand:P1", "library:P1", position="bottom"), draw("x")])
    assert ids[3] != ids[2]


def test_joining_the_segments_at_library_size() -> None:
    """Tracked top and bottom segments meeting at the size are one library (LIB-5)."""
    ids, _ = run(
        [
            top("a"),
            move("b", "hand:P1", "library:P1", position="bottom"),
            size(2),
            draw("x"),
            draw("y"),
        ]
    )
    assert ids[3:] == [ids[0], ids[1]]


def test_a_put_past_the_run_ends_the_other_end_and_its_own_id() -> None:
    """Without a size, a card put second from the top of a library whose top is unknown may
    have gone to the bottom, above the tracked bottom card: both IDs end, and the draws once
    the size is shown are fresh (LIB-7, E13, E14)."""
    ids, _ = run(
        [
            move("b", "hand:P1", "library:P1", position="bottom"),
            move("a", "hand:P1", "library:P1", position=2),
            size(2),
            draw("x"),
            draw("y"),
        ]
    )
    assert distinct(ids) == 4


@pytest.mark.parametrize(
    "observations",
    [
        # a is tracked on top and b on the bottom: a size of 1 puts both at the one position
        [top("a"), move("b", "hand:P1", "library:P1", position="bottom"), size(1)],
        # three cards tracked from the top, through reveals, cannot fit a size of 2
        [
            {"type": "reveal", "object": f"r{n}", "zone": "library:P1", "position": n,
             "card": {"name": "Island"}}
            for n in (1, 2, 3)
        ] + [size(2)],
    ],
)
def test_a_size_that_contradicts_the_tracked_positions_is_rejected(
    observations: list[dict[str, Any]],
) -> None:
    """REQ-5 (1.2.0, formerly E12): tracking that follows LIB-7 keeps every tracked position
    true, so a size that contradicts one is an inconsistent request."""
    with pytest.raises(RequestError, match="contradicts the positions tracked"):
        run(observations)


def test_positions_that_fit_the_known_size_are_accepted() -> None:
    """N <= S to take, N <= S+1 to put (REQ-5 rejects only beyond)."""
    ids, _ = run(
        [
            size(2),
            move("a", "hand:P1", "library:P1", position=3),
            move("x", "library:P1", "exile", from_position=-1),
            {"type": "reorder", "zone": "library:P1", "end": "bottom", "count": 2},
        ]
    )
    assert ids[2] == ids[1]


# --------------------------------------------------------------------------- V2, LIB-6


def test_reorder_with_order_keeps_every_id_at_its_new_position() -> None:
    """order[i] is the old position of the card now at i+1 (LIB-6)."""
    ids, _ = run(
        [
            top("c"),
            top("b"),
            top("a"),  # a, b, c from the top
            {"type": "reorder", "zone": "library:P1", "end": "top", "count": 3, "order": [3, 1, 2]},
            draw("x"),
            draw("y"),
            draw("z"),
        ]
    )
    assert ids[4:] == [ids[0], ids[2], ids[1]]


def test_reorder_of_the_bottom_with_order() -> None:
    """At the bottom, positions count from the bottom (LIB-6)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("b", "hand:P1", "library:P1", position="bottom"),  # b, then a above it
            {"type": "reorder", "zone": "library:P1", "end": "bottom", "count": 2, "order": [2, 1]},
            move("x", "library:P1", "exile", from_position="bottom"),
            move("y", "library:P1", "exile", from_position="bottom"),
        ]
    )
    assert ids[3:] == [ids[0], ids[1]]


def test_reorder_with_order_reaches_across_a_known_size() -> None:
    """A known reorder of the whole library moves the bottom card to the top (LIB-5, LIB-6)."""
    ids, _ = run(
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            size(3),
            {"type": "reorder", "zone": "library:P1", "end": "top", "count": 3, "order": [3, 1, 2]},
            draw("x"),
        ]
    )
    assert ids[3] == ids[0]


# --------------------------------------------------------------------------- V3, ID-10


def test_mention_keeps_the_held_id_and_introduces_unknown_handles() -> None:
    """A mention is a reveal outside a library: the held ID is kept, a new handle is a fresh
    instance there, owned by `owner` (ID-10, OWN-1)."""
    ids, table = run(
        [
            move("a", "hand:P1", "battlefield"),
            {"type": "mention", "object": "a", "zone": "battlefield"},
            {
                "type": "mention",
                "object": "b",
                "zone": "battlefield",
                "owner": "P2",
                "card": {"name": "Fire"},
            },
            move("b", "battlefield", "graveyard:P2"),
        ],
        cards=[FIRE],
    )
    assert ids[0] == ids[1] and ids[2] == ids[3] != ids[0]
    assert (table[ids[2]]["owner"], table[ids[2]]["name"], table[ids[2]]["revealed_at"]) == (
        "P2",
        "Fire",
        3,
    )


def test_mention_in_a_hidden_hand_without_tracking_ends_after() -> None:
    """E7 applies to a mention in another player's hand without hidden tracking."""
    ids, table = run(
        [
            {"type": "mention", "object": "h", "zone": "hand:P2"},
            {"type": "mention", "object": "h", "zone": "hand:P2"},
        ],
        tracking=False,
    )
    assert ids[0] != ids[1] and table[ids[0]]["owner"] == "P2"


@pytest.mark.parametrize(
    "observation",
    [
        {"type": "mention", "object": "m", "zone": "battlefield"},
        {"type": "mention", "object": "m", "zone": "library:P1"},
    ],
)
def test_mention_needing_an_owner_or_in_a_library_is_rejected(observation: dict[str, Any]) -> None:
    """A shared zone without owner is rejected as for a reveal; a library is never a mention's."""
    with pytest.raises(RequestError):
        write(request([observation]))


# --------------------------------------------------------------------------- V4, ID-4


def test_control_change_keeps_the_id_and_the_owner() -> None:
    """A change of control keeps the ID (ID-4) and never the owner (OWN-1)."""
    ids, table = run(
        [
            move("a", "hand:P2", "battlefield"),
            {"type": "control_change", "object": "a", "controller": "P1"},
            move("a", "battlefield", "graveyard:P2"),
        ]
    )
    assert ids[0] == ids[1] == ids[2] and table[ids[0]]["owner"] == "P2"


# --------------------------------------------------------------------------- V5, TOK-5


def _copy_of(original_card: dict[str, Any] | None, **fields: Any) -> dict[str, Any]:
    ids, table = run(
        [
            move("o", "hand:P2", "stack", **({"card": original_card} if original_card else {})),
            {"type": "create_copy", "object": "k", "owner": "P1", "original": "o", **fields},
        ],
        cards=[BOLT],
    )
    assert ids[0] != ids[1]
    return table[ids[1]]


def test_copy_named_from_its_original() -> None:
    """Without a name of its own, a copy takes the original's name, not its printing or source
    IDs, and is revealed at its creation (TOK-5, VIS-2)."""
    copy = _copy_of({"source_id": "mtgo:31755"})
    assert (
        copy["name"],
        copy["printing"],
        copy["source_ids"],
        copy["kind"],
        copy["revealed_at"],
    ) == (
        "Lightning Bolt",
        None,
        [],
        "copy",
        2,
    )


def test_copy_name_shown_wins_over_the_original() -> None:
    """A name the copy's own description shows is its name (TOK-5)."""
    assert _copy_of({"name": "Lightning Bolt"}, card={"name": "Fire"})["name"] == "Fire"


def test_copy_of_an_unnamed_original_is_unnamed() -> None:
    """An original whose name is unknown gives the copy none (TOK-5, VIS-1)."""
    copy = _copy_of(None)
    assert copy["name"] is None and copy["revealed_at"] is None


def test_copy_needs_a_card_or_an_original() -> None:
    """`card` may be left out only when `original` is given (observations.md)."""
    with pytest.raises(RequestError, match="card"):
        write(request([{"type": "create_copy", "object": "k", "owner": "P1"}]))


# --------------------------------------------------------------------------- V6, R11, ID-8


def test_mulligan_objects_held_in_hand_end_with_the_rest() -> None:
    """Listed hand cards going back end with every hand and library ID (ID-8, E2)."""
    ids, _ = run(
        [
            draw("h1"),
            draw("h2"),
            {"type": "mulligan", "player": "P1", "objects": ["h1", "h2", "never-seen"]},
            move("h1", "hand:P1", "battlefield"),
        ]
    )
    assert ids[3] not in ids[:2]


def test_own_bottoming_after_a_mulligan_keeps_each_id() -> None:
    """P's own cards bottomed one by one keep their IDs (R11, LIB-1)."""
    ids, _ = run(
        [
            {"type": "mulligan", "player": "P1"},
            draw("a"),
            draw("b"),
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("b", "hand:P1", "library:P1", position="bottom"),
            move("x", "library:P1", "exile", from_position=-1),
            move("y", "library:P1", "exile", from_position=-1),
        ]
    )
    assert ids[5:] == [ids[2], ids[1]]


# --------------------------------------------------------------------------- integers written 1.0


def test_integral_floats_are_integers() -> None:
    """`1.0` is the integer 1 for positions, counts, sizes and order entries (observations.md)."""
    ids, _ = run(
        [
            top("a"),
            top("b"),
            size(5.0),
            {
                "type": "reorder",
                "zone": "library:P1",
                "end": "top",
                "count": 2.0,
                "order": [2.0, 1.0],
            },
            draw("x", 1.0),
            move("y", "library:P1", "exile", from_position=-4.0),
        ]
    )
    assert ids[4] == ids[0] and ids[5] == ids[1]


@pytest.mark.parametrize(
    "observation",
    [
        move("a", "hand:P1", "library:P1", position=True),
        move("a", "hand:P1", "library:P1", position=1.5),
        move("a", "hand:P1", "library:P1", position=0),
        move("a", "hand:P1", "library:P1", position=-0.0),
        {"type": "reorder", "zone": "library:P1", "end": "top", "count": True},
        {"type": "reorder", "zone": "library:P1", "end": "top", "count": 1, "order": [True]},
        size(-1),
        size(1.5),
        size(False),
    ],
)
def test_non_integers_and_booleans_are_rejected(observation: dict[str, Any]) -> None:
    """A boolean is never a number, 1.5 is no integer, 0 no position."""
    with pytest.raises(RequestError):
        write(request([observation]))


# --------------------------------------------------------------------------- REQ-1 .. REQ-4


@pytest.mark.parametrize(
    ("observation", "zones"),
    [
        (move("a", "exile", "graveyard:P1"), ("battlefield", "exile")),
        (move("a", "library:P1", "hand:P1", from_position="top"), ("battlefield", "library:P1")),
        (
            {
                "type": "reveal",
                "object": "a",
                "zone": "library:P1",
                "position": 1,
                "card": {"name": "X"},
            },
            ("battlefield", "library:P1"),
        ),
        (
            {"type": "reveal", "object": "a", "zone": "hand:P1", "card": {"name": "X"}},
            ("battlefield", "hand:P1"),
        ),
        (
            {"type": "mention", "object": "a", "zone": "graveyard:P1"},
            ("battlefield", "graveyard:P1"),
        ),
        ({"type": "mulligan", "player": "P1", "objects": ["a"]}, ("battlefield", "hand:P1")),
    ],
)
def test_handle_held_in_another_zone_is_rejected(
    observation: dict[str, Any], zones: tuple[str, str]
) -> None:
    """REQ-1: the message names the observation, the handle and both zones."""
    message = rejected([move("a", "hand:P1", "battlefield"), observation], r"^observation 2 \(")
    assert "'a'" in message and all(z in message for z in zones) and "REQ-1" in message


@pytest.mark.parametrize(
    "observation",
    [
        token("a"),
        {"type": "create_copy", "object": "b", "owner": "P1", "card": {"name": "X"}},
        move("c", "hand:P1", "battlefield", new_object="a"),
        move("c", "library:P1", "battlefield", from_position="top", new_object="b"),
    ],
)
def test_handle_of_a_live_object_given_to_another_is_rejected(observation: dict[str, Any]) -> None:
    """REQ-2: a creation or arrival under another live object's handle."""
    message = rejected(
        [move("a", "hand:P1", "battlefield"), move("b", "hand:P1", "stack"), observation],
        r"^observation 3 \(",
    )
    assert "REQ-2" in message


def test_handle_kept_by_its_own_object_is_not_reuse() -> None:
    """A move whose new_object is its own handle is fine (REQ-2 concerns another object)."""
    ids, _ = run(
        [move("a", "hand:P1", "battlefield"), move("a", "battlefield", "exile", new_object="a")]
    )
    assert ids[0] == ids[1]


@pytest.mark.parametrize(
    "observation",
    [
        {"type": "turn_face_up", "object": "z"},
        {"type": "transform", "object": "z"},
        {"type": "become_copy", "object": "z", "copy_of": {"name": "X"}},
        {"type": "meld", "object": "z", "permanent": "p"},
        {"type": "control_change", "object": "z", "controller": "P1"},
        {"type": "control_change", "object": "h", "controller": "P1"},
        {"type": "create_copy", "object": "k", "owner": "P1", "original": "z"},
    ],
)
def test_in_place_change_of_a_handle_not_held_is_rejected(observation: dict[str, Any]) -> None:
    """REQ-3: zoneless observations (and a copy's original) must name a held object; a change of
    control, one held on the battlefield or the stack."""
    message = rejected([move("h", "library:P1", "hand:P1", from_position="top"), observation],
                       r"^observation 2 \(")
    assert "REQ-3" in message


def test_control_change_of_a_spell_keeps_its_id() -> None:
    """A spell's controller can change (Commandeer): the ID is kept (ID-4)."""
    ids, _ = run([move("s", "hand:P1", "stack"), {"type": "control_change", "object": "s",
                                                   "controller": "P2"}])
    assert ids[1] == ids[0]


@pytest.mark.parametrize(
    "observation",
    [
        move("p", "battlefield", "graveyard:P1"),
        move("g", "battlefield", "exile", new_object="p"),
        {"type": "create_copy", "object": "k", "owner": "P1", "original": "p"},
        {"type": "mulligan", "player": "P1", "objects": ["p"]},
        {"type": "control_change", "object": "p", "controller": "P2"},
    ],
)
def test_melded_permanent_handle_is_rejected(observation: dict[str, Any]) -> None:
    """REQ-4: the melded permanent's handle names nothing until the next game."""
    melded = [
        move("g", "hand:P1", "battlefield", card={"name": "Gisela, the Broken Blade"}),
        move("b", "hand:P1", "battlefield", card={"name": "Bruna, the Fading Light"}),
        {"type": "meld", "object": "g", "permanent": "p"},
        {"type": "meld", "object": "b", "permanent": "p"},
    ]
    message = rejected([*melded, observation], r"^observation 5 \(")
    assert "'p'" in message and "REQ-4" in message
    # After a new game the handle is an ordinary one again.
    write(
        request([*melded, {"type": "game_start", "game": 2}, move("p", "hand:P1", "battlefield")])
    )


# --------------------------------------------------------------------------- adapter, R12, C-6


def _process(module: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", *module],
        input=stdin,
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=60,
    )


INCONSISTENT = request([move("a", "hand:P1", "battlefield"), move("a", "exile", "graveyard:P1")])


def test_per_case_rejection_prints_the_rejection_object() -> None:
    """A rejected writer request: exit status 1 and one `{"rejected": reason}` on stdout (R12)."""
    done = _process(["reference"], json.dumps(INCONSISTENT).encode())
    assert done.returncode == 1, done.stderr
    (line,) = done.stdout.decode().splitlines()
    answer = json.loads(line)
    assert list(answer) == ["rejected"] and "REQ-1" in answer["rejected"]


def test_rejection_exit_only_mutant_exits_1_with_nothing_on_stdout() -> None:
    """The rejection-exit-only mutant, as a process, is what R12 calls a crash."""
    done = _process(["cardid_reference.mutants", "rejection-exit-only"], json.dumps(INCONSISTENT).encode())
    assert (done.returncode, done.stdout) == (1, b"")


@pytest.mark.parametrize("seq", [0, 17, 2**70])
def test_persistent_mode_echoes_seq_as_the_same_integer(seq: int) -> None:
    """seq comes back as the integer sent, in digits (C-6)."""
    lines = [
        {"cmd": "start", "protocol": 1},
        {"cmd": "run", "seq": seq, "request": INCONSISTENT},
        {"cmd": "stop"},
    ]
    done = _process(["reference"], "".join(json.dumps(m) + "\n" for m in lines).encode())
    assert done.returncode == 0, done.stderr
    answer = done.stdout.decode().splitlines()[1]
    assert answer.startswith(f'{{"seq": {seq}, "rejected": ')


# --------------------------------------------------------------------------- schemas


VALID_OBSERVATIONS = [
    size(0),
    size(40.0),
    move("a", "hand:P1", "library:P1", position=-2),
    move("a", "library:P1", "hand:P1", from_position=-1),
    {"type": "reorder", "zone": "library:P1", "end": "top", "count": 3, "order": [3, 1, 2]},
    {"type": "mention", "object": "a", "zone": "battlefield"},
    {"type": "mention", "object": "a", "zone": "hand:P2", "card": {"name": "X"}, "owner": "P2"},
    {"type": "control_change", "object": "a", "controller": "P2"},
    {"type": "create_copy", "object": "k", "owner": "P1", "original": "o"},
    {"type": "create_copy", "object": "k", "owner": "P1", "original": "o", "card": {"name": "X"}},
    {"type": "mulligan", "player": "P1", "objects": ["a", "b"]},
    {"type": "mulligan", "player": "P1", "objects": []},
    {"type": "reveal", "object": "a", "zone": "hand:P2", "card": {"name": "X"}, "owner": "P2"},
]

INVALID_OBSERVATIONS = [
    move("a", "hand:P1", "library:P1", position=0),
    move("a", "hand:P1", "library:P1", position=1.5),
    size(-1),
    {"type": "library_size", "zone": "hand:P1", "size": 1},
    {"type": "library_size", "zone": "library:P1", "size": 1, "object": "a"},
    {"type": "reorder", "zone": "library:P1", "end": "top", "count": 2, "order": []},
    {"type": "reorder", "zone": "library:P1", "end": "top", "count": 2, "order": [0, 1]},
    {"type": "reorder", "zone": "library:P1", "end": "top", "count": 2, "order": [1, 1]},
    {"type": "mention", "object": "a", "zone": "library:P1"},
    {"type": "mention", "zone": "battlefield"},
    {"type": "control_change", "object": "a"},
    {"type": "create_copy", "object": "k", "owner": "P1"},
    {"type": "mulligan", "player": "P1", "objects": [""]},
]


@pytest.mark.parametrize("observation", VALID_OBSERVATIONS)
def test_schema_accepts_the_new_shapes(observation: dict[str, Any]) -> None:
    """writer-input.schema.json takes the 1.1.0 vocabulary (V1 to V6)."""
    assert schemas.first_problem("writer-input", request([observation])) is None


@pytest.mark.parametrize("observation", INVALID_OBSERVATIONS)
def test_schema_refuses_what_the_vocabulary_does_not_allow(observation: dict[str, Any]) -> None:
    """0 is no position, a mention is never in a library, a copy needs `card` or `original`."""
    assert schemas.first_problem("writer-input", request([observation])) is not None


@pytest.mark.parametrize(
    ("message", "valid"),
    [
        ({"rejected": "no persistent mode"}, True),
        ({"rejected": 1}, False),
        ({"cmd": "run", "seq": 0, "request": {"role": "writer"}}, True),
        ({"cmd": "run", "seq": -1, "request": {"role": "writer"}}, False),
        ({"cmd": "run", "seq": "1", "request": {"role": "writer"}}, False),
        ({"cmd": "run", "seq": 1.5, "request": {"role": "writer"}}, False),
        ({"cmd": "run", "seq": True, "request": {"role": "writer"}}, False),
    ],
)
def test_protocol_schema(message: dict[str, Any], valid: bool) -> None:
    """The answer to start without persistent mode, and seq a non-negative integer (C-6)."""
    assert schemas.is_valid("protocol", message) is valid
    assert (
        "start-rejected" in json.loads((REPO / "schema/protocol.schema.json").read_text())["$defs"]
    )


# --------------------------------------------------------------------------- mutants


def _canonical(answer: dict[str, Any]) -> Any:
    """An answer with its IDs renamed in order of first use, to compare up to renaming."""
    names: dict[str, str] = {}
    for iid in answer["assignments"]:
        if iid is not None:
            names.setdefault(iid, f"i{len(names)}")
    table = sorted(
        ({**e, "id": names.get(e["id"], e["id"])} for e in answer["card_table"]),
        key=lambda e: e["id"],
    )
    return [None if a is None else names[a] for a in answer["assignments"]], table


def _outcome(write_fn: Any, req: dict[str, Any]) -> Any:
    try:
        return _canonical(write_fn(json.loads(json.dumps(req))))
    except RequestError:
        return "rejected"
    except ExitWithoutRejection:
        return "exit status 1 without a rejection object"


COPY_IN_EXILE = {
    "type": "create_copy",
    "object": "k",
    "owner": "P1",
    "zone": "exile",
    "card": {"name": "Lightning Bolt"},
}
MELDED = [
    move("g", "hand:P1", "battlefield"),
    {"type": "meld", "object": "g", "permanent": "p"},
    move("p", "battlefield", "graveyard:P1"),
]

#: Mutant -> a request (observations and request options) it answers differently.
DIFFERENCES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "token-into-library-takes-position": (
        [
            top("a"),
            top("b"),
            token("t"),
            move("t", "battlefield", "library:P1", position=2),
            draw("x", 2),
        ],
        {},
    ),
    "token-unknown-position-ends-library": (
        [top("a"), token("t"), move("t", "battlefield", "library:P1"), draw("d")],
        {},
    ),
    "size-ignored": (
        [move("a", "hand:P1", "library:P1", position="bottom"), size(1), draw("x")],
        {},
    ),
    "bottom-card-never-drawn-from-top": (
        [move("a", "hand:P1", "library:P1", position="bottom"), size(1), draw("x")],
        {},
    ),
    "known-reorder-ends-ids": (
        [
            top("a"),
            {"type": "reorder", "zone": "library:P1", "end": "top", "count": 1, "order": [1]},
            draw("x"),
        ],
        {},
    ),
    "negative-position-is-bottom": (
        [
            move("a", "hand:P1", "library:P1", position="bottom"),
            move("b", "hand:P1", "library:P1", position=-2),
            move("x", "library:P1", "exile", from_position="bottom"),
        ],
        {},
    ),
    "integral-float-rejected": ([top("a"), draw("x", 1.0)], {}),
    "accept-handle-in-wrong-zone": (
        [move("a", "hand:P1", "battlefield"), move("a", "exile", "graveyard:P1")],
        {},
    ),
    "accept-live-handle-reuse": ([move("a", "hand:P1", "battlefield"), token("a")], {}),
    "accept-untracked-in-place": ([{"type": "turn_face_up", "object": "z"}], {}),
    "accept-melded-handle": (MELDED, {}),
    "ignore-known-size-conflicts": ([size(1), draw("x", 2)], {}),
    "revealed-at-needs-name": (
        [move("a", "hand:P2", "battlefield", card={"source_id": "mtgo:999"})],
        {},
    ),
    "name-matches-any-step": (
        [move("a", "hand:P1", "battlefield", card={"name": "Fire"})],
        {"cards": [FIRE_ICE, FIRE]},
    ),
    "set-code-lookup-case-sensitive": (
        [move("a", "hand:P1", "battlefield", card={"printing": {"set": "dom", "number": "207"}})],
        {"cards": [TEFERI]},
    ),
    "printing-overwritten-later": (
        [
            move("a", "hand:P1", "stack", card={"source_id": "mtgo:31755"}),
            move("a", "stack", "exile", card={"printing": {"set": "2XM", "number": "129"}}),
        ],
        {"cards": [BOLT]},
    ),
    "printing-never-bound-later": (
        [
            move("a", "hand:P1", "stack", card={"name": "Lightning Bolt"}),
            move("a", "stack", "exile", card={"source_id": "mtgo:31755"}),
        ],
        {"cards": [BOLT]},
    ),
    "copy-description-binds-source-ids": (
        [
            move("a", "hand:P1", "battlefield", card={"name": "Phantasmal Image"}),
            move("a", "battlefield", "graveyard:P1", card={"source_id": "mtgo:67879"}),
        ],
        {"cards": [TEFERI]},
    ),
    "copy-in-exile-to-graveyard-kept": (
        [COPY_IN_EXILE, move("k", "exile", "graveyard:P1"), move("k", "graveyard:P1", "exile")],
        {},
    ),
    "copy-cast-from-exile-ends": (
        [COPY_IN_EXILE, move("k", "exile", "stack"), move("k", "stack", "graveyard:P1")],
        {},
    ),
    "copy-name-ignores-original": (
        [
            move("o", "hand:P2", "stack", card={"name": "Lightning Bolt"}),
            {"type": "create_copy", "object": "k", "owner": "P1", "original": "o"},
        ],
        {"cards": [BOLT]},
    ),
    "control-change-sets-owner": (
        [
            move("a", "hand:P2", "battlefield"),
            {"type": "control_change", "object": "a", "controller": "P1"},
        ],
        {},
    ),
    "control-change-ends-id": (
        [
            move("a", "hand:P2", "battlefield"),
            {"type": "control_change", "object": "a", "controller": "P1"},
        ],
        {},
    ),
    "mention-always-fresh": (
        [
            move("a", "hand:P1", "battlefield"),
            {"type": "mention", "object": "a", "zone": "battlefield"},
        ],
        {},
    ),
    "mulligan-objects-kept": (
        [
            draw("h"),
            {"type": "mulligan", "player": "P1", "objects": ["h"]},
            move("h", "hand:P1", "battlefield"),
        ],
        {},
    ),
    "rejection-exit-only": (
        [move("a", "hand:P1", "battlefield"), move("a", "exile", "graveyard:P1")],
        {},
    ),
}


@pytest.mark.parametrize("name", list(DIFFERENCES))
def test_each_new_mutant_answers_some_request_differently(name: str) -> None:
    """Each 1.1.0 mutant is wrong on a small request, before any case catches it."""
    observations, options = DIFFERENCES[name]
    req = request(observations, **options)
    reference = _outcome(write, req)
    mutated = _outcome(entry_points(name)[0], req)
    assert mutated != reference, (name, reference)


def test_reader_rejection_exit_only_mutant() -> None:
    """The reader mutant exits 1 without the object where the reference rejects (C-2)."""
    read = entry_points("reader-rejection-exit-only")[1]
    with pytest.raises(ExitWithoutRejection):
        read("#c1 Island owner=P1")


def test_every_mutant_of_this_version_is_listed() -> None:
    """No 1.1.0 mutant goes without a request showing it wrong."""
    assert set(DIFFERENCES) | {"reader-rejection-exit-only"} <= set(MUTANTS)
