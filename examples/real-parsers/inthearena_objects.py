"""The game objects inthearena 0.1.0 holds for an MTG Arena Player.log, printed for
`cardid adapter arena --parser CMD` (docs/real-parsers.md).

    python inthearena_objects.py PLAYER_LOG

Package: inthearena==0.1.0 from PyPI. Licence: MIT. This script imports it at run time.

Object table: `GameView.objects`, instanceId -> GameObject (inthearena/mtga/gre.py:275), kept by
`GameView.apply` (gre.py:282-304): each object a message carries replaces its entry whole
(:297-298), a GameStateType_Full clears the table (:285-287) and `diffDeletedInstanceIds` are
dropped (:299-300). No annotation is read, so each instanceId is one object. To list every object
the table ever held, the script's GameView subclass records each object `apply` stores.
Card objects only: GameObjectType_Card and _SplitCard are cards, _Token a token; abilities and
other types are left out. "copy" is the object's `isCopy`.

Offline: nothing to change. The path used here (`LiveState.feed_line`, inthearena/mtga/live.py:104,
one log line at a time) has no network or file writes; the log's path is always given, so
DEFAULT_LOG (a macOS path under ~, gre.py:27) is never read.

Output (standard output, one JSON object): {"parser": {"name", "version"}, "objects": [...]}, one
object per instanceId the parser held: "instance_ids" (that one id; the parser links none),
"grp_id" (the first non-zero grpId it held for it; left out if none), "owner_seat" (left out if
none), "kind" ("token" for a token, "copy" for a copy, else "card") and "first_line" (the log
line at which the parser first held it).

An exception out of the parser (pydantic's ValidationError for a malformed object, for example):
traceback, exit status 3.
"""

import contextlib
import json
import sys
import traceback
from importlib.metadata import version

KINDS = {
    "GameObjectType_Card": "card",
    "GameObjectType_SplitCard": "card",
    "GameObjectType_Token": "token",
}


def read_objects(path):
    from inthearena.mtga import gre
    from inthearena.mtga.live import LiveState

    seen = {}  # instanceId -> object
    at = {"line": 0}  # the line being fed

    class RecordingView(gre.GameView):
        def apply(self, gsm):
            super().apply(gsm)
            for o in gsm.gameObjects:
                if o.type not in KINDS:
                    continue
                iid = o.instanceId
                obj = seen.setdefault(iid, {"instance_ids": [iid], "first_line": at["line"]})
                if o.grpId and "grp_id" not in obj:
                    obj["grp_id"] = o.grpId
                if o.ownerSeatId and "owner_seat" not in obj:
                    obj["owner_seat"] = o.ownerSeatId
                if KINDS[o.type] == "token":
                    obj["token"] = True
                if o.isCopy:
                    obj["copy"] = True

    state = LiveState(view=RecordingView())
    with open(path, encoding="utf-8", errors="replace") as log:  # as gre.messages does (gre.py:255)
        for number, line in enumerate(log, start=1):
            at["line"] = number
            state.feed_line(line)

    objects = []
    for _, obj in sorted(seen.items()):
        token, copy = obj.pop("token", False), obj.pop("copy", False)
        obj["kind"] = "token" if token else "copy" if copy else "card"
        obj["first_line"] = obj.pop("first_line")
        objects.append(obj)
    return objects


def main(argv):
    if len(argv) != 2:
        print("usage: python inthearena_objects.py PLAYER_LOG", file=sys.stderr)
        return 2
    try:
        with contextlib.redirect_stdout(sys.stderr):  # standard output carries the JSON only
            objects = read_objects(argv[1])
    except Exception:  # noqa: BLE001 - any failure of the parser is exit status 3
        traceback.print_exc()
        return 3
    parser = {"name": "inthearena", "version": version("inthearena")}
    print(json.dumps({"parser": parser, "objects": objects}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
