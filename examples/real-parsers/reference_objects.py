"""The suite's own Arena log reader, as a parser for `cardid adapter arena`: it imports the
Player.log with the suite's importer (conformance/sources/arena_import.py), answers that request
with the bundled reference, and prints the reference's objects in the form the harness reads.

It shows what a parser that follows ObjectIdChanged and knows the identity rules prints, and it
is how the suite checks its own harness: `cardid run --source arena --impl "cardid adapter arena
--parser 'python examples/real-parsers/reference_objects.py'"` must be CONFORMING.

    python reference_objects.py PLAYER_LOG
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cardid_conformance.sources.arena_import import import_log
from cardid_conformance.sources.arena_log import line_of
from cardid_reference.writer import write


def objects(text: str) -> list[dict[str, Any]]:
    """One object per instance ID the reference gave, with every instanceId it held, from the
    log line of its first observation on."""
    imported = import_log(text, None)
    request = imported.request
    result = write(request)
    seats = {name: seat for seat, name in enumerate(request["players"], start=1)}
    entries = {entry["id"]: entry for entry in result["card_table"]}
    found: dict[str, dict[str, Any]] = {}
    for index, ident in enumerate(result["assignments"]):
        if ident is None:
            continue
        observation = request["observations"][index]
        line = line_of(imported.places[index])
        obj = found.setdefault(ident, {"instance_ids": [], "first_line": line})
        for key in ("object", "new_object"):
            if key in observation and int(observation[key]) not in obj["instance_ids"]:
                obj["instance_ids"].append(int(observation[key]))
        source_id = observation.get("card", {}).get("source_id", "")
        if "grp_id" not in obj and source_id.startswith("arena:"):
            obj["grp_id"] = int(source_id.removeprefix("arena:"))
    for ident, obj in found.items():
        obj["owner_seat"] = seats[entries[ident]["owner"]]
        obj["kind"] = entries[ident]["kind"]
    return list(found.values())


if __name__ == "__main__":
    text = Path(sys.argv[1]).read_text(encoding="utf-8")
    print(json.dumps({"parser": {"name": "cardid-reference"}, "objects": objects(text)}))
