"""The game objects seventeenlands 0.1.44 (the 17Lands client) holds for an MTG Arena Player.log,
printed for `cardid adapter arena --parser CMD` (docs/real-parsers.md).

    python seventeenlands_objects.py PLAYER_LOG

Package: seventeenlands==0.1.44 from PyPI. Licence: GPL-3.0 (the LICENSE file in the package; its
PyPI classifier says MIT, but the licence text is GPL v3). This script imports the package at run
time and copies none of its code.

Object table: `Follower.objects_by_owner` (seventeenlands/mtga_follower.py:275), filled at
mtga_follower.py:773-783 as `objects_by_owner[ownerSeatId][instanceId] = overlayGrpId`, for
GameObjectType_Card and GameObjectType_SplitCard only: tokens and abilities never enter it, and no
annotation is read, so each instanceId is one object. The table is cleared only between games
(`__clear_game_data`, :964), so it is read after every log entry the follower completes.

Offline: HOME is a temporary folder (logging_utils.py creates ~/.seventeenlands/ at import);
`Follower._api_client` is a stub that sends nothing (error reports go to stderr instead);
`requests.get`, `requests.post` and `requests.Session.request` raise; `show_message` (a dialog)
writes to stderr. Lines go through the follower's own line step, `Follower.__append_line`
(mtga_follower.py:389), as `parse_log` feeds them (:327, :331), so the line each object was first
held at is known.

Output (standard output, one JSON object): {"parser": {"name", "version"}, "objects": [...]}, one
object per instanceId the parser held: "instance_ids" (that one id; the parser links none),
"grp_id" (the first non-zero grpId it held for it; left out if none), "owner_seat" (left out if
none), "kind" (always "card") and "first_line" (the log line at which the parser first held it).

Errors the follower catches itself (it logs them and carries on) are written to stderr with their
traceback; the exit status is then still 0. An exception that escapes: traceback, exit status 3.
"""

import contextlib
import json
import logging
import os
import sys
import tempfile
import traceback
from importlib.metadata import version


class OfflineApiClient:
    """Stands in for seventeenlands.api_client.ApiClient: every submit_*/get_* call is dropped;
    an error report is written to stderr."""

    def __getattr__(self, name):
        if not name.startswith(("submit_", "get_")):
            raise AttributeError(name)

        def dropped(blob=None, *args, **kwargs):
            if name == "submit_error_info" and isinstance(blob, dict):
                stacktrace = blob.get("stacktrace", "")
                print(f"seventeenlands reported an error:\n{stacktrace}", file=sys.stderr)

        return dropped


def no_network(*args, **kwargs):
    raise RuntimeError("network access is blocked by seventeenlands_objects.py")


def read_objects(path):
    import requests

    requests.get = requests.post = requests.Session.request = no_network
    import seventeenlands.mtga_follower as mf

    logging.getLogger("17Lands").setLevel(logging.WARNING)  # INFO repeats whole log entries
    mf.show_message = lambda title, message: print(f"[dialog] {title}: {message}", file=sys.stderr)
    follower = mf.Follower(token="offline", host="http://127.0.0.1:9")
    follower._api_client = OfflineApiClient()

    seen = {}  # instanceId -> object
    at = {"line": 0}  # the line being fed
    complete_entry = follower._Follower__handle_complete_log_entry

    def complete_and_record():
        complete_entry()
        for owner, by_id in follower.objects_by_owner.items():
            for iid, grp in by_id.items():
                obj = seen.setdefault(iid, {"first_line": max(at["line"] - 1, 1), "owner": owner})
                if obj["owner"] != owner:
                    seats = f"{obj['owner']} and {owner}"
                    print(f"instanceId {iid} is held under seats {seats}", file=sys.stderr)
                if grp and "grp" not in obj:
                    obj["grp"] = grp

    # The follower calls this step by its mangled name, so the instance attribute takes its place.
    follower._Follower__handle_complete_log_entry = complete_and_record
    with open(path, errors="replace") as log:  # as parse_log opens it (mtga_follower.py:321)
        for number, line in enumerate(log, start=1):
            at["line"] = number
            follower._Follower__append_line(line)
    at["line"] += 1  # the last entry ends at the last line
    complete_and_record()

    objects = []
    for iid, obj in sorted(seen.items()):
        out = {"instance_ids": [iid]}
        if "grp" in obj:
            out["grp_id"] = obj["grp"]
        if obj["owner"]:
            out["owner_seat"] = obj["owner"]
        out["kind"] = "card"  # the only kind the table holds
        out["first_line"] = obj["first_line"]
        objects.append(out)
    return objects


def main(argv):
    if len(argv) != 2:
        print("usage: python seventeenlands_objects.py PLAYER_LOG", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="17lands-home-", ignore_cleanup_errors=True) as home:
        os.environ["HOME"] = home
        try:
            with contextlib.redirect_stdout(sys.stderr):  # standard output carries the JSON only
                objects = read_objects(argv[1])
        except Exception:  # noqa: BLE001 - any failure of the parser is exit status 3
            traceback.print_exc()
            return 3
        parser = {"name": "seventeenlands", "version": version("seventeenlands")}
        print(json.dumps({"parser": parser, "objects": objects}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
