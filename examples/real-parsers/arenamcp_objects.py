"""The game objects arenamcp 3.7.0 holds for an MTG Arena Player.log, printed for
`cardid adapter arena --parser CMD` (docs/real-parsers.md).

    python arenamcp_objects.py PLAYER_LOG

Package: arenamcp==3.7.0 from PyPI, installed with --no-deps (requirements-nodeps.txt; what it
needs to parse is in requirements.txt). Licence: MIT. This script imports it at run time.

Object table: `GameState.game_objects`, instanceId -> GameObject (arenamcp/gamestate.py:255,
stored at :2530 by `_update_game_object`, which merges each re-sent object into its record).
ObjectIdChanged only annotates zone-transfer events (gamestate_annotations.py:60-78); records are
not linked, so each instanceId is one object. Records are dropped by `diffDeletedInstanceIds`
(`_apply_deleted_instance_ids`, gamestate.py:2053), `_cleanup_stale_objects` (:1429) and `reset()`
(:414; called on IntermissionReq and some mulligans, gamestate_decisions.py:252-300): the script
reads the table before each of these and after every GameStateMessage (`update_from_message`,
:1949), so every object it ever held is listed. Card objects only: CARD and SPLIT_CARD are cards,
TOKEN a token (`object_kind`, :2446-2452); "copy" is a record whose `copied_from_grp_id` the
CopiedObject annotation set (gamestate_annotations.py:704-711).

The lines are fed to `LogParser.process_chunk` (parser.py:110) one at a time, with the GameState
handler registered for GreToClientEvent as `server.start_watching` does (server.py:1011-1012).

Offline: HOME is a temporary folder (the card database and match files live under ~/.arenamcp);
`arenamcp.server` is never imported (its card lookups; it needs `mcp`, which is not installed);
the card database is an empty `FallbackCardDatabase([])` via `card_db.set_card_database`
(card_db.py:695), so a ConnectResp does not query Scryfall (gamestate.py:3020-3023);
`socket.getaddrinfo` raises.

Output (standard output, one JSON object): {"parser": {"name", "version"}, "objects": [...]}, one
object per instanceId the parser held: "instance_ids" (that one id; the parser links none),
"grp_id" (the first non-zero grpId it held for it; left out if none), "owner_seat" (left out if
none), "kind" ("token" for a token, "copy" for a copy, else "card") and "first_line" (the log
line at which the parser first held it).

LogParser catches a handler's exception and only logs it (parser.py:395-400): the script writes
its traceback to stderr and the exit status is still 0. An exception that escapes: traceback,
exit status 3.
"""

import contextlib
import json
import os
import socket
import sys
import tempfile
import traceback
from importlib.metadata import version


def no_network(host, *args, **kwargs):
    raise socket.gaierror(f"network access to {host} is blocked by arenamcp_objects.py")


def read_objects(path):
    socket.getaddrinfo = no_network
    sys.modules["arenamcp.server"] = None  # importing it raises ImportError; arenamcp handles that
    from arenamcp import card_db
    from arenamcp.gamestate import GameState, create_game_state_handler
    from arenamcp.gamestate_models import GameObjectKind
    from arenamcp.parser import LogParser

    card_db.set_card_database(card_db.FallbackCardDatabase([]))
    kinds = {
        GameObjectKind.CARD: "card",
        GameObjectKind.SPLIT_CARD: "card",
        GameObjectKind.TOKEN: "token",
    }
    game = GameState()
    seen = {}  # instanceId -> object
    at = {"line": 0}  # the line being fed

    def record():
        for iid, o in game.game_objects.items():
            if o.object_kind not in kinds:
                continue
            obj = seen.setdefault(iid, {"instance_ids": [iid], "first_line": at["line"]})
            if o.grp_id and "grp_id" not in obj:
                obj["grp_id"] = o.grp_id
            if o.owner_seat_id and "owner_seat" not in obj:
                obj["owner_seat"] = o.owner_seat_id
            if kinds[o.object_kind] == "token":
                obj["token"] = True
            if o.copied_from_grp_id is not None:
                obj["copy"] = True

    def record_before(method):
        def wrapper(*args, **kwargs):
            record()
            return method(*args, **kwargs)
        return wrapper

    def record_after(method):
        def wrapper(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            finally:
                record()
        return wrapper

    for name in ("_apply_deleted_instance_ids", "_cleanup_stale_objects", "reset"):
        setattr(game, name, record_before(getattr(game, name)))
    game.update_from_message = record_after(game.update_from_message)

    handler = create_game_state_handler(game)

    def traced_handler(payload):
        try:
            handler(payload)
        except Exception:
            traceback.print_exc()
            raise

    parser = LogParser()
    parser.register_handler("GreToClientEvent", traced_handler)
    with open(path, encoding="utf-8", errors="replace") as log:
        for number, line in enumerate(log, start=1):
            at["line"] = number
            # process_chunk holds back a line without its newline, so the last line gets one.
            parser.process_chunk(line if line.endswith("\n") else line + "\n")
    record()

    objects = []
    for _, obj in sorted(seen.items()):
        token, copy = obj.pop("token", False), obj.pop("copy", False)
        obj["kind"] = "token" if token else "copy" if copy else "card"
        obj["first_line"] = obj.pop("first_line")
        objects.append(obj)
    return objects


def main(argv):
    if len(argv) != 2:
        print("usage: python arenamcp_objects.py PLAYER_LOG", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="arenamcp-home-", ignore_cleanup_errors=True) as home:
        os.environ["HOME"] = home
        try:
            with contextlib.redirect_stdout(sys.stderr):  # standard output carries the JSON only
                objects = read_objects(argv[1])
        except Exception:  # noqa: BLE001 - any failure of the parser is exit status 3
            traceback.print_exc()
            return 3
        parser = {"name": "arenamcp", "version": version("arenamcp")}
        print(json.dumps({"parser": parser, "objects": objects}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
