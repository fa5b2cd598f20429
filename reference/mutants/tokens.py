"""Mutants of the token, copy and owner rules (TOK-1 to TOK-3, OWN-1): the kind marked, when a
token or a copy ceases to exist, and who owns it (spec 1.0.0)."""

from __future__ import annotations

from cardid_reference.instances import Entry, Kind
from cardid_reference.request import Observation
from cardid_reference.writer import Writer

from . import mutant


@mutant("token-as-card")
class TokenAsCard(Writer):
    """Marks tokens and copies as cards (TOK-1)."""

    def create(self, obs: Observation, *, kind: Kind, zone: str, inherited: str | None = None) -> str:
        return super().create(obs, kind="card", zone=zone, inherited=inherited)


@mutant("token-survives")
class TokenSurvives(Writer):
    """Keeps a token's ID after it leaves the battlefield (TOK-2, E8)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        return entry.kind != "token" and super().ceases_to_exist(entry, src, dst)


@mutant("copy-survives")
class CopySurvives(Writer):
    """Keeps a spell copy's ID after it leaves the stack (TOK-3, E9)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind == "copy" and src == "stack":
            return False
        return super().ceases_to_exist(entry, src, dst)


@mutant("copy-ends-on-resolve")
class CopyEndsOnResolve(Writer):
    """Ends a permanent-spell copy's ID as it resolves onto the battlefield (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        return (entry.kind == "copy" and src == "stack") or super().ceases_to_exist(entry, src, dst)


@mutant("owner-is-controller")
class OwnerIsController(Writer):
    """Takes the controller as the owner when the source gives one (OWN-1)."""

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        return obs.get("controller") or super().owner_of_new(obs, seen_in, goes_to)
