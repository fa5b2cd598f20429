"""`cardid render` and `cardid import`: a case as a real source's log, and a real log as a
writer request (conformance/sources/)."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cardid_conformance import escape, suite
from cardid_conformance.cases import Rejection, Role, case_files, load_case, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.sources import arena_import, mtgo_import
from cardid_conformance.sources.common import Imported, Inexpressible, LogError
from cardid_conformance.sources.profile import RENDERERS
from cardid_conformance.spec import load_spec
from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import Exit, emit, put, say
from cardid_runner.writing import OutputError, write_output

#: Each format's importer (its renderer: sources/profile.py's RENDERERS).
IMPORTERS: Mapping[str, Callable[[str, str, Mapping[str, Any] | None], Imported]] = {
    "arena": arena_import.import_log, "mtgo": mtgo_import.import_log,
}
#: What each format's log is called.
LOG_NAMES = {"arena": "Arena Player.log", "mtgo": "MTGO game log"}

_RENDER_EPILOG = """\
examples:
  cardid render arena alchemy-name-keeps-prefix --out Player.log
  cardid render mtgo cases/writer/opponent-discard-ends-id.yaml

With --out, the sidecar (what the log's catalogue numbers stand for, the players and the card
section) is written beside the log as LOG.sidecar.json; `cardid import` reads it back with
--sidecar.

exit status: 0 rendered, 1 the format cannot express the case (the message says which
observation, and why), 2 usage error
"""

_IMPORT_EPILOG = """\
examples:
  cardid import arena Player.log --perspective 1
  cardid import mtgo Match_GameLog.log --perspective MyPlayerName42 --json > request.json

The request is written as YAML, each observation followed by a comment naming the log line it
comes from and what the importer inferred; --json writes it as plain JSON. A log ending in .gz
is read through gzip.

exit status: 0 imported, 2 usage error or a log the importer cannot read
"""


def _declare_render(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid render`: its parser."""
    render = options.add_command(
        commands, "render",
        help="write a case as the log a real source would write (Arena, MTGO)",
        description=(
            "Write a writer case's observations as the log the source's client writes for the "
            "perspective player: Arena's Player.log (game-engine messages) or MTGO's game-log "
            "text. A case the format cannot express is named with the reason."
        ),
        epilog=_RENDER_EPILOG,
    )
    render.add_argument("format", choices=sorted(RENDERERS))
    render.add_argument("case", metavar="CASE", help="a case ID, a case file, or a writer request (JSON)")
    render.add_argument("--cases", type=options.case_source, default=suite.CASES_DIR, metavar="DIR",
                        help="the case directory a case ID is looked up in")
    render.add_argument("--out", type=options.output_file, metavar="LOG",
                        help="write the log here (and LOG.sidecar.json beside it), not to standard output")
    return render


def _declare_import(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid import`: its parser."""
    import_ = options.add_command(
        commands, "import",
        help="read a real Arena or MTGO log as a writer request for one player",
        description=(
            "Read a real log (Arena's Player.log or a recording of its game-engine messages, or "
            "MTGO's game-log text) as a writer request for one player: only what that player "
            "was shown, each observation keeping the log line it comes from."
        ),
        epilog=_IMPORT_EPILOG,
    )
    import_.add_argument("format", choices=sorted(IMPORTERS))
    import_.add_argument("log", type=options.input_file, metavar="LOG")
    import_.add_argument("--perspective", required=True, metavar="PLAYER",
                         help="the player: a name the log uses, or for Arena a seat number")
    import_.add_argument("--sidecar", type=options.input_file, metavar="PATH",
                         help="the sidecar `cardid render --out` wrote beside the log")
    import_.add_argument("--json", action="store_true", help="write plain JSON, without comments")
    import_.add_argument("--out", type=options.output_file, metavar="PATH",
                         help="write the request here, not to standard output")
    return import_


def _perform_render(args: argparse.Namespace, context: Context) -> int:
    return render_case(args.format, args.case, cases=args.cases, out=args.out)


def _perform_import(args: argparse.Namespace, context: Context) -> int:
    return import_request(args.format, args.log, perspective=args.perspective, sidecar_path=args.sidecar,
                          in_json=args.json, out=args.out)


COMMANDS = (
    Command("render", _declare_render, _perform_render),
    Command("import", _declare_import, _perform_import),
)


def _request(text: str, cases: Path) -> Mapping[str, Any]:
    """The writer request CASE names: a case ID, a case file, or a request file."""
    path = Path(text)
    spec = load_spec()
    if path.is_file() and path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read {path} as a JSON request: {exc}") from None
        if not isinstance(data, dict) or data.get("role") != Role.WRITER:
            raise UsageError(f"{path} is not a writer request (role: writer)")
        return data
    if path.is_file():
        case = load_case(path, spec)
    else:
        found = [c for c in load_corpus(case_files(cases), spec).cases if c.id == text]
        if not found:
            raise UsageError(f"no case {text!r} in {cases}", hint="`cardid list` shows the case IDs")
        case = found[0]
    if case.role is not Role.WRITER:
        raise UsageError(f"{case.id} is a reader case: only writer cases have observations to render")
    if isinstance(case.expectation, Rejection):
        raise UsageError(f"{case.id} is a rejection case: a real log never shows an inconsistent game")
    return case.request


def render_case(log_format: str, case: str, *, cases: Path, out: Path | None) -> int:
    """Write the writer request `case` names (a case ID of `cases`, a case file, a request
    file) as `log_format`'s log: to `out` with its sidecar beside it, else to standard output."""
    request = _request(case, cases)
    try:
        rendering = RENDERERS[log_format](request)
    except Inexpressible as error:
        say(f"cannot render {case} as an {LOG_NAMES[log_format]}: {error}", sys.stderr)
        return Exit.FAILED
    sidecar = json.dumps(rendering.sidecar, indent=2, ensure_ascii=False) + "\n"
    if out is None:
        put(rendering.log)
        say("note: no sidecar written (give --out to keep it beside the log)", sys.stderr)
        return Exit.OK
    try:
        write_output(out, rendering.log.encode("utf-8"), what="--out")
        write_output(Path(f"{out}.sidecar.json"), sidecar.encode("utf-8"), what="the sidecar")
    except OutputError as exc:
        say(exc.message, sys.stderr)
        return Exit.USAGE
    say(f"wrote {out} and {out}.sidecar.json", sys.stderr)
    return Exit.OK


def import_request(
    log_format: str, log: Path, *, perspective: str, sidecar_path: Path | None, in_json: bool, out: Path | None
) -> int:
    """Read the `log_format` log `log` as a writer request for `perspective` (with the sidecar
    `cardid render` wrote, if given), and write it as YAML (as JSON with `in_json`) to `out`,
    else to standard output."""
    text = read_log_text(log)
    sidecar = None
    if sidecar_path is not None:
        try:
            sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read the sidecar {sidecar_path}: {exc}") from None
    try:
        imported = IMPORTERS[log_format](text, perspective, sidecar)
    except LogError as error:
        raise UsageError(f"{log}: {error.place}: {error.why}") from None
    output = json.dumps(imported.request, indent=2, ensure_ascii=False) + "\n" if in_json else as_yaml(
        imported, f"{log}, for {imported.request['perspective']}"
    )
    count = len(imported.request["observations"])
    passed = f"; {len(imported.skipped)} place(s) not understood and passed over" if imported.skipped else ""
    say(f"imported {count} observations from {log}{passed}", sys.stderr)
    if out is None:
        emit(output.rstrip("\n"))
        return Exit.OK
    try:
        write_output(out, output.encode("utf-8"), what="--out")
    except OutputError as exc:
        say(exc.message, sys.stderr)
        return Exit.USAGE
    return Exit.OK


def read_log_text(path: Path) -> str:
    """A log's text; one ending in .gz is read through gzip."""
    try:
        raw = path.read_bytes()
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    return raw.decode("utf-8", errors="replace")


def as_yaml(imported: Imported, origin: str) -> str:
    """The request as YAML (flow mappings are JSON), each observation with a comment naming its
    place in the log and what was inferred."""
    request = imported.request
    lines = [f"# imported from {escape.show(origin)}"]
    if imported.skipped:
        lines.append(f"# not understood, passed over: {', '.join(imported.skipped)}")
    for key in ("role", "perspective", "players", "source", "cards"):
        lines.append(f"{key}: {json.dumps(request[key], ensure_ascii=False)}")
    lines.append("observations:")
    notes = imported.notes or (None,) * len(imported.places)
    for observation, place, note in zip(request["observations"], imported.places, notes, strict=True):
        comment = place if note is None else f"{place}: {note}"
        lines.append(f"  - {json.dumps(observation, ensure_ascii=False)}  # {escape.show(comment)}")
    return "\n".join(lines) + "\n"
