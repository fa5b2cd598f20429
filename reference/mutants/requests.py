"""Mutants of spec 1.1.0's inconsistent requests (REQ-1 to REQ-5): each answers a request it
must reject, one check left out."""

from __future__ import annotations

from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant


@mutant("accept-handle-in-wrong-zone")
class AcceptHandleInWrongZone(Writer):
    """Follows a held handle whatever zone the observation names, never rejecting (REQ-1)."""

    def held(self, obs: Observation, handle: str, zone: str) -> str | None:
        return None if is_library(zone) else self.by_handle.get(handle)


@mutant("accept-live-handle-reuse")
class AcceptLiveHandleReuse(Writer):
    """Gives a live object's handle to another object, as the 1.0.0 reference did (REQ-2)."""

    def check_handle_free(self, obs: Observation, handle: str, iid: str | None) -> None:
        return None


@mutant("accept-untracked-in-place")
class AcceptUntrackedInPlace(Writer):
    """Invents a battlefield card for an in-place change naming a handle not held (REQ-3)."""

    def tracked(self, obs: Observation) -> str:
        handle = obs.handle()
        if handle not in self.by_handle:
            iid = self.allocate(owner=self.perspective, kind="card", index=obs.index)
            self.place(iid, "battlefield", handle)
        return super().tracked(obs)

    def original_instance(self, obs: Observation) -> str | None:
        if obs.get("original") not in self.by_handle:
            return None
        return super().original_instance(obs)


@mutant("accept-melded-handle")
class AcceptMeldedHandle(Writer):
    """Reads a melded permanent's handle as a card in view (REQ-4)."""

    def check_not_melded(self, obs: Observation) -> None:
        return None


@mutant("ignore-known-size-conflicts")
class IgnoreKnownSizeConflicts(Writer):
    """Answers requests whose positions or counts the known library size rules out (REQ-5)."""

    def size_conflict(self, obs: Observation, what: str) -> None:
        return None
