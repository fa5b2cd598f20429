"""Writer requests for the reference's own tests: a game of two players built from a few
observations, and the reference's answer to it (tests/test_reference*.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardid_reference.writer import write

REPO = Path(__file__).resolve().parents[1]


def request(
    observations: list[dict[str, Any]],
    *,
    cards: list[dict[str, Any]] | None = None,
    tracking: bool = True,
    perspective: str = "P1",
) -> dict[str, Any]:
    """A writer request for two players, with a game start prepended."""
    return {
        "role": "writer",
        "perspective": perspective,
        "players": ["P1", "P2"],
        "source": {"name": "test", "hidden_tracking": tracking},
        "cards": cards or [],
        "observations": [{"type": "game_start", "game": 1}, *observations],
    }


def move(obj: str, src: str, dst: str, **fields: Any) -> dict[str, Any]:
    return {"type": "move", "object": obj, "from": src, "to": dst, **fields}


def run(
    observations: list[dict[str, Any]], **kwargs: Any
) -> tuple[list[str | None], dict[str, dict]]:
    """The assignments (game start left off) and the card table by ID."""
    result = write(request(observations, **kwargs))
    table = {entry["id"]: entry for entry in result["card_table"]}
    assert set(table) == {a for a in result["assignments"] if a is not None}
    assert result["assignments"][0] is None
    return result["assignments"][1:], table


def distinct(assignments: list[str | None]) -> int:
    return len({a for a in assignments if a is not None})
