"""More mutants (spec 1.2.0): see the package docstring; registered on import of the package.

Tokens, copies and owners (TOK-1 to TOK-5, OWN-1): each breaks one behaviour the way a parser
author plausibly would.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardid_reference.instances import Entry, Kind
from cardid_reference.request import Observation, is_library, zone_kind, zone_player
from cardid_reference.writer import Writer

from . import mutant


@mutant("token-counted-in-library-size")
class TokenCountedInLibrarySize(Writer):
    """Counts a token or copy put into a library in the library's known size (TOK-4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        super().arrive(iid, obs, dst)
        if is_library(dst) and self.entries[iid].kind != "card":
            library = self.library(dst)
            if library.size is not None:
                library.size += 1


@mutant("copy-original-name-first")
class CopyOriginalNameFirst(Writer):
    """Names a copy after its original whenever the original's name is known, over the copy's own description (TOK-5)."""

    def create(
        self, obs: Observation, *, kind: Kind, zone: str, inherited: str | None = None
    ) -> str:
        if inherited is None:
            return super().create(obs, kind=kind, zone=zone)
        without_card = {key: value for key, value in obs.data.items() if key != "card"}
        iid = super().create(
            Observation(index=obs.index, data=without_card), kind=kind, zone=zone, inherited=inherited
        )
        self.describe(iid, obs.description("card"), obs.index)  # binds only what agrees with it
        return iid


@mutant("copy-takes-original-printing")
class CopyTakesOriginalPrinting(Writer):
    """Gives a copy its original's printing and source IDs along with its name (TOK-5, PRINT-3, SRC-1)."""

    def on_create_copy(self, obs: Observation) -> str:
        original = self.by_handle.get(obs.data.get("original", ""))
        iid = super().on_create_copy(obs)
        if original is not None:
            copied, entry = self.entries[original], self.entries[iid]
            extra = tuple(s for s in copied.source_ids if s not in entry.source_ids)
            self.entries[iid] = replace(
                entry,
                printing=entry.printing or copied.printing,
                source_ids=entry.source_ids + extra,
            )
        return iid


@mutant("token-dies-kept")
class TokenDiesKept(Writer):
    """Keeps a token's ID when it goes to a graveyard, as if its dies trigger needed it there (TOK-2)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        died = entry.kind == "token" and zone_kind(dst) == "graveyard"
        return not died and super().ceases_to_exist(entry, src, dst)


@mutant("token-into-library-kept")
class TokenIntoLibraryKept(Writer):
    """Keeps a token put into a library as a card of that library, at its position (TOK-2, TOK-4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        entry = self.entries[iid]
        if not (is_library(dst) and entry.kind == "token"):
            super().arrive(iid, obs, dst)
            return
        self.entries[iid] = replace(entry, kind="card")
        try:
            super().arrive(iid, obs, dst)
        finally:
            self.entries[iid] = replace(self.entries[iid], kind="token")

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        kept = entry.kind == "token" and is_library(dst)
        return not kept and super().ceases_to_exist(entry, src, dst)


@mutant("token-to-command-kept")
class TokenToCommandKept(Writer):
    """Ends a token's ID only in a graveyard, exile, a hand or a library, so one put into the command zone lives on (TOK-2)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        kept = entry.kind == "token" and dst == "command"
        return not kept and super().ceases_to_exist(entry, src, dst)


class _KindWritten(Writer):
    """A writer that follows every instance as the reference does, but writes some kinds into
    the card table as another: the base of the mutants that break only the marker."""

    #: The kind followed, and the kind it is written as.
    FOLLOWED: Kind = "card"
    WRITTEN: Kind = "card"

    def run(self) -> dict[str, Any]:
        result = super().run()
        for entry in result["card_table"]:
            if entry["kind"] == self.FOLLOWED:
                entry["kind"] = self.WRITTEN
        return result


@mutant("copy-marked-token")
class CopyMarkedToken(_KindWritten):
    """Writes every copy into the card table as a token, since no card stands behind either (TOK-1)."""

    FOLLOWED, WRITTEN = "copy", "token"


@mutant("token-marked-copy")
class TokenMarkedCopy(_KindWritten):
    """Writes every token into the card table as a copy, taking any created object for a copy (TOK-1)."""

    FOLLOWED, WRITTEN = "token", "copy"


@mutant("resolved-copy-marked-token")
class ResolvedCopyMarkedToken(Writer):
    """Re-marks a copy of a permanent spell as a token once it resolves onto the battlefield (TOK-1)."""

    def on_move(self, obs: Observation) -> str:
        iid = super().on_move(obs)
        entry = self.entries[iid]
        if entry.kind == "copy" and obs.data.get("from") == "stack" and obs.data.get("to") == "battlefield":
            self.entries[iid] = replace(entry, kind="token")
        return iid


@mutant("owner-from-source-zone-first")
class OwnerFromSourceZoneFirst(Writer):
    """Takes the owner of a card first seen in a move from the zone it leaves before the one it is put into (OWN-1)."""

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        if obs.get("owner") or not zone_player(seen_in):
            return super().owner_of_new(obs, seen_in, goes_to)
        return zone_player(seen_in) or super().owner_of_new(obs, seen_in, goes_to)


@mutant("later-owner-rebinds")
class LaterOwnerRebinds(Writer):
    """Lets the `owner` a later move, reveal or mention shows replace the owner of a card already held (OWN-1)."""

    def _rebind(self, obs: Observation, iid: str) -> str:
        owner = obs.get("owner")
        entry = self.entries[iid]
        if isinstance(owner, str) and owner and entry.first_seen != obs.index:
            self.entries[iid] = replace(entry, owner=owner)
        return iid

    def on_move(self, obs: Observation) -> str:
        return self._rebind(obs, super().on_move(obs))

    def on_reveal(self, obs: Observation) -> str:
        return self._rebind(obs, super().on_reveal(obs))
