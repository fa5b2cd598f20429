"""What the lines of an MTGO game log imply but do not print, written as observations
(observations.md, "MTGO game logs").

The text shows far less than the game: no resolutions, deaths or searched cards arriving, no
handle for a drawn card, no owner for a card in a shared zone. `Inference` writes what each line
shows, and what the lines imply, as a writer needs it (REQ-1): a handle is used only in the zone
the importer last put it in, and an object a line names somewhere else is first moved there (a
spell whose ability is activated has resolved). Each such inference, and each owner guessed from
the player a line names, is said in the observation's note. The importer (`mtgo_import`) calls it
for each line it understands.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from cardid_conformance.sources.mtgo_handles import Handles
from cardid_conformance.sources.mtgo_log import SHUFFLES, Reference


class Inference:
    """The state of one reading: what the observations so far hold, where each came from, and
    the handles they hold."""

    def __init__(
        self, *, players: tuple[str, ...], perspective: str, sidecar: Mapping[str, Any] | None
    ) -> None:
        self.players = players
        self.perspective = perspective
        self.descriptions: Mapping[str, Any] = sidecar.get("descriptions", {}) if sidecar else {}
        self.observations: list[dict[str, Any]] = []
        self.places: list[str] = []
        self.notes: list[str | None] = []
        self.handles = Handles()
        self.line = "line 0"  # the place of the line being read

    def emit(self, observation: dict[str, Any], note: str | None = None) -> None:
        self.handles.observe(observation)
        self.observations.append(observation)
        self.places.append(self.line)
        self.notes.append(note)

    def card(self, reference: Reference) -> dict[str, Any]:
        """The description a reference shows: the sidecar's for its catalogue number, else the
        name and catalogue number as shown."""
        described = self.descriptions.get(reference.catalog)
        if described is not None:
            return dict(copy.deepcopy(described))
        if reference.catalog.strip("0"):
            return {"name": reference.name, "source_id": f"mtgo:{reference.catalog}"}
        return {"name": reference.name}

    def other_player(self, player: str) -> str | None:
        """The one opponent of a player in a two-player game; None in any other."""
        others = [other for other in self.players if other != player]
        return others[0] if len(others) == 1 else None

    # ------------------------------------------------------------------ writing observations

    def show(
        self, kind: str, reference: Reference, zone: str, owner: str | None, note: str | None
    ) -> None:
        """A reveal or mention of a reference in place; introducing it gives its owner and
        kind, and says so."""
        observation: dict[str, Any] = {
            "type": kind, "object": reference.handle, "zone": zone, "card": self.card(reference),
        }
        if self.handles.get(reference.handle) is None:
            if owner is not None:
                observation["owner"] = owner
            if reference.token:
                observation["kind"] = "token"
        else:
            note = None
        self.emit(observation, note)

    def move(
        self,
        reference: Reference,
        *,
        source: str,
        destination: Callable[[str], str] | str,
        owner: str,
        note: str | None = None,
    ) -> None:
        """A card moving from where the writer holds it (else from `source`, introducing it
        owned by `owner`) to `destination` (a zone, or one given by its owner)."""
        held = self.handles.get(reference.handle)
        card_owner = held.owner if held is not None and held.owner else owner
        start = held.zone if held is not None else source
        end = destination(card_owner) if callable(destination) else destination
        observation: dict[str, Any] = {
            "type": "move", "object": reference.handle, "from": start, "to": end,
            "card": self.card(reference),
        }
        if held is None:
            observation["owner"] = card_owner
            if reference.token:
                observation["kind"] = "token"
        elif start != source:
            note = (
                f"inferred: moved from {start}, where it was last shown (the line implies "
                f"{source})"
            )
        self.emit(observation, note)

    def bring(self, reference: Reference, zone: str, why: str) -> bool:
        """Move a held object a line names in `zone` there from where it was last shown (a
        move the log implies but does not print); True when it wrote one."""
        held = self.handles.get(reference.handle)
        if held is None or held.zone == zone:
            return False
        if held.zone == "stack" and zone == "battlefield":
            note = f"inferred: the spell resolved, since {why} (the log prints no resolution)"
        else:
            note = f"inferred: put from {held.zone} into {zone}, since {why}"
        self.emit(
            {
                "type": "move", "object": reference.handle, "from": held.zone, "to": zone,
                "card": self.card(reference),
            },
            note,
        )
        return True

    def source(
        self, reference: Reference, player: str, *, resolved: bool, what: str, whose: str
    ) -> None:
        """The card whose ability a line puts on the stack, or that a choice is made for: a
        mention where it is held; a permanent the log never showed arriving is introduced on
        the battlefield as the player's (`whose` says why); a spell on the stack that `what`
        shows as a permanent (`resolved`) has resolved."""
        held = self.handles.get(reference.handle)
        if held is not None and held.zone == "stack" and resolved:
            self.bring(reference, "battlefield", f"{what} shows it as a permanent")
            return
        zone = held.zone if held is not None else "battlefield"
        self.show(
            "mention", reference, zone, player,
            f"introduced: a permanent the log never showed arriving; owner taken as {player}, "
            f"{whose} (MTGO states no owners)",
        )

    def named_source(self, reference: Reference) -> None:
        """A card named as the source of an effect (`with @[...]'s ability`): a mention where
        it is held; nothing when the log never placed it."""
        held = self.handles.get(reference.handle)
        if held is not None:
            self.show("mention", reference, held.zone, None, None)

    def target(self, reference: Reference, player: str) -> None:
        """A card a spell or ability targets: a mention where it is held, else introduced on
        the battlefield as the other player's."""
        held = self.handles.get(reference.handle)
        if held is not None:
            self.show("mention", reference, held.zone, None, None)
            return
        owner = self.other_player(player) or player
        self.show(
            "mention", reference, "battlefield", owner,
            f"introduced: a target the log never showed; taken as a permanent of {owner}",
        )

    def combatant(self, reference: Reference, owner: str | None, what: str) -> None:
        """An attacker, blocker or attacked planeswalker: on the battlefield. One held
        elsewhere is first moved there (a creature spell that resolved); one never shown is
        introduced as `owner`'s, and skipped when the line does not tell whose it is."""
        if self.bring(reference, "battlefield", f"it {what}"):
            return
        if self.handles.get(reference.handle) is None and owner is None:
            return
        self.show(
            "mention", reference, "battlefield", owner,
            f"introduced: a permanent the log never showed arriving; owner taken as {owner}, "
            f"whose side it {what} on (MTGO states no owners)",
        )

    def unseen(self, count: int, source: str, destination: str, **positions: str) -> None:
        """Moves of cards the line shows without a handle (LIB-8)."""
        for _ in range(count):
            self.emit({"type": "move", "from": source, "to": destination, **positions})

    def shuffle_if_said(self, text: str, player: str) -> None:
        """A shuffle, when the ability text the line quotes says one (`then shuffle`)."""
        if SHUFFLES.search(text):
            self.emit(
                {"type": "shuffle", "zone": f"library:{player}"},
                "inferred: the ability text says `then shuffle` (MTGO prints no shuffle)",
            )

    def reveal(self, reference: Reference, player: str) -> None:
        """A card revealed: where the writer holds it, else in the player's hand (a revealed
        hand, or a card a search reveals on its way there)."""
        held = self.handles.get(reference.handle)
        zone = held.zone if held is not None else f"hand:{player}"
        self.show("reveal", reference, zone, None, None)
