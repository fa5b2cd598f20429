"""The writer role: an instance ID per observation, and the card table (card-identity.md).

The state machine: `Writer.run` applies a request's observations in order, each through the
method its type names in `Writer.handlers`, to what P knows of the game (instances.py), and
decides by the rules when an ID continues and when it ends (sections 2 to 5). The request's
fields are read by request.py, libraries kept by library.py, descriptions looked up by cards.py.

The mutants (reference/mutants/) override only the handlers, the parts (LIBRARY, OBSERVATION,
DATABASE) and the rules their package's docstring lists, its mutation surface.

Performance: a request is answered in one pass over its observations, and every observation
costs time independent of the game's length: instances are found through dicts (by handle, by
zone), never by scanning the game so far, and library work is bounded by the library's known
segments, never by its size. A 100,000-observation game stays linear.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .cards import CardDatabase, Identity, read_cards
from .errors import RequestError
from .instances import Entry, Instances, Kind
from .request import Observation, check_request, is_library, zone_kind, zone_player

#: How an observation type is applied: its instance ID, or None (Writer.handlers).
Handler = Callable[[Observation], str | None]
#: The zones a copy can exist in (CR 704.5e); a copy put anywhere else ceases to exist (E9).
COPY_ZONES = frozenset({"stack", "battlefield"})


class Writer(Instances):
    """One writer request: its observations applied in order to the instances so far (the
    state machine), each by the method `handlers` names for its type."""

    #: The classes of the writer's parts, with Instances.LIBRARY: how an observation's fields
    #: are read, how a description is looked up.
    OBSERVATION: type[Observation] = Observation
    DATABASE: type[CardDatabase] = CardDatabase

    def __init__(self, request: Mapping[str, Any]) -> None:
        check_request(request)
        self.perspective: str = request["perspective"]
        self.hidden_tracking: bool = request["source"]["hidden_tracking"]
        super().__init__(self.DATABASE(read_cards(request["cards"])))
        self.observations = tuple(
            self.OBSERVATION.read(i, o) for i, o in enumerate(request["observations"])
        )

    def run(self) -> dict[str, Any]:
        """Assign one instance ID (or null) per observation and return the writer result."""
        handlers, unseen_handlers = self.handlers(), self.unseen_handlers()
        assignments: list[str | None] = []
        for obs in self.observations:
            if obs.type in unseen_handlers and "object" not in obs.data:
                handler = unseen_handlers[obs.type]
            elif obs.type in handlers:
                handler = handlers[obs.type]
            else:
                raise RequestError(f"observation {obs.index}: unknown type {obs.type!r}")
            if self.melded:
                self.check_not_melded(obs)
            iid = handler(obs)
            if iid is None and "object" in obs.data:  # ID-1: an object always gets an ID
                raise RequestError(f"observation {obs.index}: a {obs.type} carries no `object`")
            assignments.append(iid)
        return {"card_table": self.card_table(set(assignments)), "assignments": assignments}

    def handlers(self) -> dict[str, Handler]:
        """Every observation type (observations.md, "Observation types") and the method that
        applies it: each returns the observation's instance ID, or None when the observation
        refers to no object (ID-1)."""
        return {
            "game_start": self.on_game_start,
            "restart": self.on_restart,
            "mulligan": self.on_mulligan,
            "shuffle": self.on_shuffle,
            "library_size": self.on_library_size,
            "reorder": self.on_reorder,
            "move": self.on_move,
            "reveal": self.on_reveal,
            "mention": self.on_mention,
            "control_change": self.on_control_change,
            "turn_face_up": self.on_turn_face_up,
            "transform": self.on_transform,
            "become_copy": self.on_become_copy,
            "meld": self.on_meld,
            "create_token": self.on_create_token,
            "create_copy": self.on_create_copy,
            "vanish": self.on_vanish,
            # Not types of observations.md: the dispatch by method name this table replaced
            # answered them as the unseen observations they name, and the table keeps that
            # answer until it is decided otherwise.
            "unseen_move": self.on_unseen_move,
            "unseen_create_token": self.on_unseen_create_token,
        }

    def unseen_handlers(self) -> dict[str, Handler]:
        """The types whose observation may leave out `object` because the source showed no
        handle (LIB-8, TOK-6), and the method that applies such an observation: it refers to no
        object, and is assigned no ID (ID-1)."""
        return {"move": self.on_unseen_move, "create_token": self.on_unseen_create_token}

    # ----------------------------------------------------------------- observation types

    def on_game_start(self, obs: Observation) -> None:
        """E10: a new game ends every ID (ID-9)."""
        self.end_all(keep=())
        self.melded.clear()

    def on_restart(self, obs: Observation) -> None:
        """E11: a restart ends every ID but the carried cards' (ID-9)."""
        obs.need("carried")
        carried = obs.handles("carried")
        self.end_all(keep={self.by_handle[h] for h in carried if h in self.by_handle})
        self.melded.clear()

    def on_mulligan(self, obs: Observation) -> None:
        """E2: the player's hand and library lose their IDs (ID-8); the listed hand cards
        going back must be held in that hand, if held at all (REQ-1)."""
        player = obs.need("player")
        hand = f"hand:{player}"
        for handle in obs.handles("objects"):
            self.held(obs, handle, hand)
        self.end_library(f"library:{player}")
        self.library(f"library:{player}").size = None
        self.end_ids(self.in_zone.get(hand, ()))

    def on_shuffle(self, obs: Observation) -> None:
        """E1: every ID in the library ends (LIB-2); a known size stays known."""
        self.end_library(obs.library_zone())

    def on_library_size(self, obs: Observation) -> None:
        """The source showed the library's size: from now on its two ends are one (LIB-5)."""
        zone = obs.library_zone()
        library, size = self.library(zone), obs.integer("size", 0)
        if library.size is not None and library.size != size:
            self.size_conflict(
                obs, f"{zone} holds {library.size} cards by the observations so far, not {size}"
            )
        contradicted = library.know_size(size)
        if contradicted:  # every tracked position is true while the writer follows LIB-7
            self.size_conflict(
                obs,
                f"a size of {obs.data['size']} contradicts the positions tracked in {zone} "
                f"(cards {', '.join(contradicted)})",
            )

    def on_reorder(self, obs: Observation) -> None:
        """E3: the IDs at the reordered positions end (LIB-3), unless P knows the new order
        (`order`), which keeps every ID at its new position (LIB-6)."""
        end = obs.need("end")
        if end not in ("top", "bottom"):
            raise RequestError(f"observation {obs.index}: bad reorder end {end!r}")
        count = obs.integer("count", 1)
        zone = obs.library_zone()
        library = self.library(zone)
        if not library.fits(count, putting=False):
            self.size_conflict(
                obs, f"{count} cards to reorder do not fit {zone}, of known size {library.size}"
            )
        self.end_ids(library.lost_past_run(count if end == "top" else -count))  # LIB-7
        if "order" not in obs.data:
            self.end_ids(library.scramble(end, count))
            return
        library.permute(end, obs.order(count))  # every ID kept, at its new position

    def on_move(self, obs: Observation) -> str:
        """A zone change keeps the ID unless an ending event applies (ID-3, ID-5, ID-6)."""
        src, dst = obs.zone("from"), obs.zone("to")
        iid = self.moving_instance(obs, src, dst)
        self.describe(iid, obs.description("card"), obs.index)
        self.arrive(iid, obs, dst)
        if obs.get("face_down") is True:
            self.face_down.add(iid)
        else:
            self.face_down.discard(iid)
        if self.ends_after_move(self.entries[iid], src, dst):
            self.end(iid)
        return iid

    def on_unseen_move(self, obs: Observation) -> None:
        """A card moved with no handle shown (LIB-8): out of a library it is the card at that
        position, whose ID ends (E15); into a library it is an unknown card at that position.
        Outside libraries the writer cannot tell which card it was, and nothing changes."""
        src, dst = obs.zone("from"), obs.zone("to")
        if not (is_library(src) or is_library(dst)):
            raise RequestError(
                f"{obs.label()}: a move with no `object` must leave or enter a library (LIB-8)"
            )
        for key in ("new_object", "card", "face_down", "owner", "kind"):
            if key in obs.data:
                raise RequestError(f"{obs.label()}: `{key}` needs an `object` (LIB-8)")
        if is_library(src):
            taken = self.leave_library(obs, src)
            if taken is not None:
                self.end(taken)
        if is_library(dst):
            self.arrive_unseen(obs, dst)

    def arrive_unseen(self, obs: Observation, dst: str) -> None:
        """An unknown card put into a library, as any card is put (LIB-8)."""
        position = obs.position("position")
        self.check_fits(obs, dst, position, putting=True)
        self.put_card(dst, position, None)

    def on_vanish(self, obs: Observation) -> str:
        """The source no longer shows the object, and shows no destination: its ID covers this
        observation and then ends, and its handle is free (ID-11, E16)."""
        zone = obs.zone("zone")
        if is_library(zone):
            raise RequestError(f"{obs.label()}: a vanish is never from a library")
        iid = self.shown_in_place(obs, zone)
        self.end(iid)
        return iid

    def on_reveal(self, obs: Observation) -> str:
        """A card shown in place: the same instance where P can follow it, else a fresh one."""
        zone = obs.zone("zone")
        if is_library(zone):
            self.not_held_elsewhere(obs, obs.handle(), zone)
            iid = self.library_card_shown(obs, zone)
        else:
            iid = self.shown_in_place(obs, zone)
        self.describe(iid, obs.description("card"), obs.index)
        if self.loses_track_in(zone):  # E7
            self.end(iid)
        return iid

    def on_mention(self, obs: Observation) -> str:
        """A card referred to in place, as a reveal outside a library is (ID-10, E7)."""
        zone = obs.zone("zone")
        if is_library(zone):
            raise RequestError(f"{obs.label()}: a mention is never in a library")
        return self.on_reveal(obs)

    def on_turn_face_up(self, obs: Observation) -> str:
        """Turning face up keeps the ID and binds the name there (ID-4, VIS-2)."""
        iid = self.tracked(obs)
        self.face_down.discard(iid)
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_transform(self, obs: Observation) -> str:
        """Transforming keeps the ID; the face now up resolves to the whole card (ID-4, NAME-2)."""
        iid = self.tracked(obs)
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_become_copy(self, obs: Observation) -> str:
        """Becoming a copy keeps the ID, the name and the kind (ID-4, NAME-5)."""
        obs.description("copy_of")  # validated, but it describes another card
        return self.tracked(obs)

    def on_meld(self, obs: Observation) -> str:
        """Melding keeps the card's ID; the melded permanent gets nothing of its own (NAME-3),
        and its handle names nothing until the next game (REQ-4)."""
        permanent = obs.handle("permanent")
        obs.description("melded")  # validated, but it describes the melded permanent
        iid = self.tracked(obs)
        self.check_handle_free(obs, permanent, None)  # a new object's handle (REQ-2)
        self.melded.add(permanent)
        return iid

    def on_control_change(self, obs: Observation) -> str:
        """A change of control keeps the ID (ID-4) and never changes the owner (OWN-1)."""
        obs.need("controller")
        iid = self.tracked(obs)
        if self.zone_of[iid] not in ("battlefield", "stack"):  # a permanent, or a spell
            raise RequestError(
                f"{obs.label()}: handle {obs.handle()!r} is held in {self.zone_of[iid]}, "
                "not on the battlefield or the stack (REQ-3)"
            )
        return iid

    def on_unseen_create_token(self, obs: Observation) -> None:
        """A token created with no handle shown gets no ID here: the first observation that
        shows its handle introduces it, with `kind: token` (TOK-6)."""
        obs.need("owner")
        obs.zone("zone", "battlefield")
        obs.description("card")
        if "original" in obs.data:
            raise RequestError(f"{obs.label()}: `original` needs an `object` (TOK-6)")

    def on_create_token(self, obs: Observation) -> str:
        """A token is a fresh instance owned by its creator (TOK-1, OWN-1); a token that is a
        copy of an object the source names is named after it as a copy is (TOK-7)."""
        return self.copy_or_token(obs, kind="token", default_zone="battlefield")

    def on_create_copy(self, obs: Observation) -> str:
        """A copy is a fresh instance owned by its creator (TOK-1, OWN-1), named from its
        original when its own description shows no name (TOK-5)."""
        return self.copy_or_token(obs, kind="copy", default_zone="stack")

    def copy_or_token(self, obs: Observation, *, kind: Kind, default_zone: str) -> str:
        """A created object, named from its `original` when its own description shows no name
        (TOK-5, TOK-7)."""
        original = self.original_instance(obs)
        if original is None:
            obs.need("card")
        # A copy of a face-down object copies a nameless face-down object (CR 707.2, 708.2).
        inherited = (
            None
            if original is None or original in self.face_down
            else self.inherited_name(self.entries[original])
        )
        return self.create(
            obs, kind=kind, zone=obs.zone("zone", default_zone), inherited=inherited
        )

    # ----------------------------------------------------------------- finding instances

    def moving_instance(self, obs: Observation, src: str, dst: str) -> str:
        """The instance a move refers to: followed from where it was, or fresh (ID-7)."""
        iid = self.leave(obs, src)
        return iid if iid is not None else self.new_card(obs, seen_in=src, goes_to=dst)

    def leave(self, obs: Observation, src: str) -> str | None:
        """Take the moving card out of its zone; return its instance if P followed it there."""
        handle = obs.handle()
        if is_library(src):
            self.not_held_elsewhere(obs, handle, src)
            return self.leave_library(obs, src)
        iid = self.held(obs, handle, src)
        if iid is not None:
            self.unhandle(iid)
        return iid

    def shown_in_place(self, obs: Observation, zone: str) -> str:
        """A reveal or mention outside a library: the instance held there under that handle,
        else a fresh one introduced there (ID-10, ID-7)."""
        handle = obs.handle()
        iid = self.held(obs, handle, zone)
        if iid is None:
            iid = self.new_card(obs, seen_in=zone, goes_to=None)
            self.place(iid, zone, handle)
        return iid

    def inherited_name(self, original: Entry) -> str | None:
        """The name a copy takes from its original when its own description shows none: the
        original's card-table name at that observation, if known (TOK-5)."""
        return original.name

    # ----------------------------------------------------------------- placing instances

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        """Put a moved card into its new zone: by position in a library, by handle elsewhere."""
        if not is_library(dst):
            # `object` was checked as the card left; only a `new_object` is new here.
            handle = obs.handle("new_object") if "new_object" in obs.data else obs.data["object"]
            self.check_handle_free(obs, handle, iid)
            self.place(iid, dst, handle)
            return
        if "new_object" in obs.data:  # it names nothing in a library, but is not another's
            self.check_handle_free(obs, obs.handle("new_object"), iid)
        position = obs.position("position")
        self.check_fits(obs, dst, position, putting=True)
        if self.entries[iid].kind != "card":
            return  # TOK-4: it ceases to exist as it arrives, and takes no position
        self.put_card(dst, position, iid)

    def create(
        self, obs: Observation, *, kind: Kind, zone: str, inherited: str | None = None
    ) -> str:
        """A token or copy: always a fresh instance, owned by the creator (OWN-1)."""
        owner = obs.need("owner")
        handle = obs.handle()
        self.check_handle_free(obs, handle, None)
        iid = self.allocate(owner=owner, kind=kind, index=obs.index)
        if not is_library(zone):  # in a library it ceases to exist at once (TOK-4)
            self.place(iid, zone, handle)
        description = obs.description("card")
        # TOK-5: the name the copy's own description resolves to (by its name, source ID or
        # printing), else the original's.
        if inherited is not None and (
            description is None or self.database.resolve(description).name is None
        ):
            named = Identity(name=inherited, printing=None, source_ids=())
            self.entries[iid] = self.bind(self.entries[iid], named, obs.index)
        self.describe(iid, description, obs.index)
        if self.ends_at_creation(zone):
            self.end(iid)
        return iid

    def ends_at_creation(self, zone: str) -> bool:
        """Whether a created object's ID ends at once: in another player's hand without hidden
        tracking (E7), or in a library, where it ceases to exist (TOK-4)."""
        return self.loses_track_in(zone) or is_library(zone)

    # ----------------------------------------------------------------- ending IDs

    def ends_after_move(self, entry: Entry, src: str, dst: str) -> bool:
        """Whether the ID ends right after this move (E6, E8, E9, TOK-4)."""
        return self.ceases_to_exist(entry, src, dst) or self.loses_track_in(dst)

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        """E8, E9, TOK-4: a token or copy leaving the battlefield, a copy put into a zone where
        a copy cannot exist (anything but the stack and the battlefield), a token or copy put
        into a library."""
        if entry.kind == "card":
            return False
        if src == "battlefield" and dst != "battlefield":
            return True  # a token, or a copy (a resolved permanent-spell copy is a token, 111.13)
        if entry.kind == "copy":
            return dst not in COPY_ZONES
        return is_library(dst)

    def loses_track_in(self, zone: str) -> bool:
        """E6 and E7: another player's hand, without hidden tracking (HID-1, HID-2)."""
        return (
            zone_kind(zone) == "hand"
            and zone_player(zone) != self.perspective
            and not self.hidden_tracking
        )


def write(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a writer request with its card table and assignments."""
    return Writer(request).run()
