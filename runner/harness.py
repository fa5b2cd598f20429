"""`cardid adapter arena --parser CMD`: an adapter for parsers that read MTG Arena's Player.log.

A parser author writes only the last step: a command that reads a Player.log and prints the
parser's own view of which game objects there are (docs/real-parsers.md, "The objects a parser
prints"). This adapter speaks the suite's protocol for it: each writer request is rendered as the
Player.log Arena would write (conformance/sources/arena_render.py), the parser reads it, and its
objects are mapped back to an answer, observation by observation, through the places the log
shows them (conformance/sources/common.py).

What the answer holds, and from whom:
- the instance ID of each observation: the parser's object holding the instanceId the
  observation leaves the object with (its `new_object`, else its `object`); an instanceId the
  parser holds in no object is an object of its own;
- kind and owner: the parser's, for each object (an object it gives no owner is the
  perspective player's). An instanceId the parser keeps no record of is a card (it kept no
  token or copy there) with the owner the log shows (it made no claim to get wrong);
- name, printing, source IDs and revealed_at: not the parser's. They are what the log's
  descriptions give the object's first observation, as a client's card database resolves
  grpIds (the bundled reference's entry there). A log parser keeps grpIds and is judged on
  which observations are one object, and on each object's kind and owner.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance.sources.arena_import import import_log
from cardid_conformance.sources.arena_log import line_of
from cardid_conformance.sources.arena_render import render
from cardid_conformance.sources.common import Inexpressible, same_place
from cardid_reference.adapter import main as adapter_main
from cardid_reference.errors import RequestError
from cardid_reference.writer import write
from cardid_runner import options
from cardid_runner.process.command import split_command
from cardid_runner.process.errors import BadCommand
from cardid_runner.starting import usage_error
from cardid_runner.subcommand import Command, Context, Subcommands

#: Seconds the parser may take on one log.
PARSER_TIMEOUT = 60.0

_EPILOG = """\
examples:
  cardid run --source arena --impl "cardid adapter arena --parser 'python my_objects.py'"
  cardid adapter arena --parser "python examples/real-parsers/reference_objects.py" < request.json

The parser command is run once a request, with the Player.log's path as its last argument, and
prints one JSON object: {"objects": [{"instance_ids": [...], "grp_id": N, "owner_seat": N,
"kind": "card" | "token" | "copy", "first_line": N}, ...]} (docs/real-parsers.md).

exit status: as an adapter (spec/adapter-contract.md): 0 answered, 3 the parser failed or printed
something that is not its objects (the message says which); 2 usage error
"""


class ParserError(Exception):
    """The parser failed, or printed something other than its objects."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedObject:
    """One object as the parser identifies it."""

    instance_ids: tuple[int, ...]
    grp_id: int | None = None
    owner_seat: int | None = None
    kind: str = "card"
    #: The log line the object begins at: an instanceId may name several objects over a log
    #: (a token that ceased to exist, and the card Arena shows under the same number later),
    #: each from its own line on. It only tells such objects apart: an instanceId one object
    #: holds is that object's at every line.
    first_line: int = 0


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid adapter`: its parser."""
    parser = options.add_command(
        commands,
        "adapter",
        help="run a log parser as an implementation: render each request as its source's log",
        description=(
            "An adapter (spec/adapter-contract.md) for a parser that reads a source's logs: each "
            "writer request is rendered as the log the source would write, the parser command "
            "reads it and prints its objects, and those are mapped back to an answer. Give it "
            "to `cardid run --source arena --impl ...`."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("format", choices=["arena"], help="the log format the parser reads")
    parser.add_argument("--parser", required=True, metavar="COMMAND", type=options.command,
                        help="the command that reads a Player.log (its path is appended) and prints its objects")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return serve(args.parser)


COMMAND = Command("adapter", _declare, _perform)


def serve(parser: str) -> int:
    """Serve requests, per case or persistent, as the reference adapter does, each answered
    through the log parser command `parser`."""
    try:
        argv = split_command(parser)
    except BadCommand as exc:
        raise usage_error(exc) from None

    def write(request: Mapping[str, Any]) -> dict[str, Any]:
        return answer(request, lambda log: run_parser(argv, log))

    def read(text: str) -> dict[str, Any]:
        raise RequestError("a log parser writes card tables, it does not read them")

    return adapter_main(write=write, read=read, name="cardid-adapter-arena", roles=("writer",))


#: How the harness gets a parser's objects for one Player.log (a seam: tests parse in-process).
Parse = Callable[[Path], list["ParsedObject"]]


def answer(request: Mapping[str, Any], parse: Parse) -> dict[str, Any]:
    """The answer the parser's objects give to one writer request."""
    try:
        rendering = render(request)
    except Inexpressible as error:
        raise ParserError(f"an Arena log cannot express this request ({error}); run with --source arena") from None
    imported = import_log(rendering.log, request["perspective"], rendering.sidecar)
    with tempfile.TemporaryDirectory(prefix="cardid-arena-") as folder:
        log = Path(folder) / "Player.log"
        log.write_text(rendering.log, encoding="utf-8")
        parsed = parse(log)
    holders: dict[int, dict[int, int]] = {}  # instanceId -> first line -> object
    for index, obj in enumerate(parsed):
        for iid in obj.instance_ids:
            if obj.first_line in holders.setdefault(iid, {}):
                raise ParserError(f"the parser put instanceId {iid} in two objects from one line")
            holders[iid][obj.first_line] = index
    described = _described(imported.request)
    counterpart: dict[int, int] = {}
    seats = dict(enumerate(request["players"], start=1))
    assignments: list[str | None] = []
    entries: dict[str, dict[str, Any]] = {}
    for index, obs in enumerate(request["observations"]):
        if "object" not in obs:
            assignments.append(None)
            continue
        found = same_place(rendering.places, imported, index)
        if len(found) != 1:
            raise ParserError(f"observation {index} has no single counterpart in the rendered log")
        counterpart[found[0]] = index
        shown = imported.request["observations"][found[0]]
        iid = int(shown.get("new_object", shown["object"]))
        line = line_of(imported.places[found[0]])
        held = _holder(holders.get(iid, {}), line)
        key = f"o{held}" if held is not None else f"untracked-{iid}"
        if key not in entries:
            logged = dict(described[found[0]])
            shown_owner = logged.pop("owner")
            if held is None:  # no object of the parser's: a card it keeps no record of
                kind, owner = "card", shown_owner
            else:
                obj = parsed[held]
                kind, owner = obj.kind, seats.get(obj.owner_seat or 0, request["perspective"])
            entries[key] = {**logged, "id": f"c{len(entries) + 1}", "kind": kind, "owner": owner}
        assignments.append(entries[key]["id"])
    table = []
    for entry in entries.values():
        revealed = entry["revealed_at"]
        entry["revealed_at"] = None if revealed is None else counterpart.get(revealed)
        table.append(entry)
    return {"card_table": table, "assignments": assignments}


def _holder(starts: Mapping[int, int], line: int) -> int | None:
    """The object holding an instanceId at a log line: the only one that holds it, else the
    one that began last at or before the line (the earliest, before any began)."""
    if len(starts) <= 1:
        return next(iter(starts.values()), None)
    before = [start for start in starts if start <= line]
    return starts[max(before) if before else min(starts)]


def _described(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """For each observation of the imported request, the name, printing, source IDs,
    revealed_at and owner the log gives the card there: the bundled reference's entry for it.
    A log parser is not judged on the first four (it keeps grpIds; a card database names them);
    the owner stands in only for an object the parser keeps no record of."""
    result = write(request)
    entries = {entry["id"]: entry for entry in result["card_table"]}
    fields = ("name", "printing", "source_ids", "revealed_at", "owner")
    return [
        {} if ident is None else {key: entries[ident][key] for key in fields}
        for ident in result["assignments"]
    ]


def run_parser(argv: Sequence[str], log: Path) -> list[ParsedObject]:
    """Run the parser on one log and read the objects it prints."""
    try:
        done = subprocess.run([*argv, str(log)], capture_output=True, timeout=PARSER_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParserError(f"the parser command could not run: {exc}") from None
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
        raise ParserError(f"the parser exited with status {done.returncode}: " + " | ".join(tail))
    try:
        data = json.loads(done.stdout)
    except ValueError as exc:
        raise ParserError(f"the parser printed no JSON object ({exc})") from None
    return parse_objects(data)


def parse_objects(data: Any) -> list[ParsedObject]:
    """The parser's printed objects, checked (docs/real-parsers.md)."""
    if not isinstance(data, dict) or not isinstance(data.get("objects"), list):
        raise ParserError('the parser must print {"objects": [...]}')
    parsed = []
    for index, obj in enumerate(data["objects"]):
        where = f"objects[{index}]"
        if not isinstance(obj, dict):
            raise ParserError(f"{where} is not an object")
        ids = obj.get("instance_ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, int) for i in ids):
            raise ParserError(f"{where}.instance_ids must be a non-empty list of integers")
        grp, seat, kind = obj.get("grp_id"), obj.get("owner_seat"), obj.get("kind", "card")
        first_line = obj.get("first_line", 0)
        if not isinstance(first_line, int):
            raise ParserError(f"{where}.first_line must be an integer")
        if grp is not None and not isinstance(grp, int):
            raise ParserError(f"{where}.grp_id must be an integer")
        if seat is not None and not isinstance(seat, int):
            raise ParserError(f"{where}.owner_seat must be an integer")
        if kind not in ("card", "token", "copy"):
            raise ParserError(f"{where}.kind must be card, token or copy")
        parsed.append(ParsedObject(
            instance_ids=tuple(ids), grp_id=grp or None, owner_seat=seat, kind=kind, first_line=first_line,
        ))
    return parsed
