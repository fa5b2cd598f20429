"""`cardid new ID`: a new case file, from a template or from a saved failure.

From the template, every value still to be written starts with TODO, which makes the case
unfinished: the loader reports it as a case bug (so `cardid lint` and `cardid run` name it)
until each one is filled in. From a saved failure (`--from-failure DIR`, one folder written by
`cardid run --save-failures`), the request is the one saved, the metadata the failed case's,
and the expectation the bundled reference's answer, marked for review (runner/draft.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import escape, files, schemas, strictjson, suite
from cardid_conformance.cases import PLACEHOLDER, Role, case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.sources.common import LogError
from cardid_conformance.spec import Spec, load_spec
from cardid_runner import draft, logs, options
from cardid_runner.draft import DraftError, Metadata
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import say, show_line

_EPILOG = """\
examples:
  cardid new shuffle-ends-id-of-revealed-card --rule LIB-2
  cardid new reader-accepts-tab-in-name --role reader --rule TXT-1 --out mycases
  cardid run --impl ./my-adapter --save-failures failed/
  cardid new my-regression --from-failure failed/shuffle-ends-id-of-legendary-card
  cardid new my-game-bolt --from-log Player.log --format arena --perspective 1 --first 40 --rule ID-3

exit status: 0 written, 1 the reference gave no usable answer to the saved request,
2 usage error (an invalid or taken case ID, a file already there, an unreadable saved
failure), 3 the suite's own files are broken
"""

#: A saved failure's files are small; anything larger is not one.
_MAX_BYTES = 64 * 1024 * 1024


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid new`: its parser."""
    parser = options.add_command(
        commands,
        "new",
        help="write a new case file from a template, or from a saved failure",
        description=(
            "Write cases/<role>/ID.yaml (or DIR/ID.yaml with --out) for a new case. "
            "From the template, the file holds the ID, a schema modeline for editors, and a "
            f"{PLACEHOLDER} placeholder in every value still to be written: `cardid lint` reports "
            f"the case as unfinished until none is left. With --from-failure DIR (one case folder "
            "that `cardid run --save-failures` wrote), the new case holds the saved request, the "
            "failed case's description, rules, CR numbers and level, and as its expectation the "
            "bundled reference's answer to that request, marked for review: a # REVIEW comment and "
            "the needs-review tag, which `cardid lint` reports until someone has checked it."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("id", metavar="ID", type=draft.case_id,
                        help="the new case's ID, which is also its file name and never changes")
    parser.add_argument("--role", choices=[role.value for role in Role],
                        help="the template's role (default: writer; a saved failure has its own)")
    parser.add_argument("--rule", action="append", default=[], metavar="RULE",
                        help="a rule the case cites (repeatable); the template's level and CR "
                        "numbers follow from them")
    parser.add_argument("--out", type=options.output_dir, metavar="DIR",
                        help="the folder to write ID.yaml in (default: cases/<role>/ of the checkout)")
    parser.add_argument("--from-failure", type=options.input_file, metavar="DIR",
                        help="a case folder written by `cardid run --save-failures`")
    parser.add_argument("--from-log", type=options.input_file, metavar="LOG",
                        help="a real game's log (with --format and --perspective): the case is "
                        "that game as `cardid import` reads it, answered by the bundled reference")
    parser.add_argument("--format", choices=["arena", "mtgo"], help="the log's format (--from-log)")
    parser.add_argument("--perspective", metavar="PLAYER", help="the player the case is for (--from-log)")
    parser.add_argument("--first", type=options.jobs, metavar="N",
                        help="keep the game's first N observations only (--from-log)")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return write_new(NewCase(
        id=args.id, role=None if args.role is None else Role(args.role), rules=tuple(args.rule), out=args.out,
        from_failure=args.from_failure, from_log=args.from_log, format=args.format,
        perspective=args.perspective, first=args.first,
    ))


COMMAND = Command("new", _declare, _perform)


@dataclass(frozen=True, slots=True, kw_only=True)
class NewCase:
    """What `cardid new` was asked: the new case's ID, and what it is drafted from."""

    id: str
    #: The template's role and the rules it cites (--role, --rule).
    role: Role | None = None
    rules: tuple[str, ...] = ()
    #: The folder to write ID.yaml in; None: cases/<role>/ of the checkout.
    out: Path | None = None
    #: A case folder `cardid run --save-failures` wrote.
    from_failure: Path | None = None
    #: A real game's log, its format and the player it is read for, and how many of its
    #: observations are kept (None: all).
    from_log: Path | None = None
    format: str | None = None
    perspective: str | None = None
    first: int | None = None


def write_new(new: NewCase) -> int:
    """Write the new case; print where."""
    spec = load_spec()
    if new.from_failure is not None:
        if new.role or new.rules:
            raise UsageError(
                "cardid new: --role and --rule come from the saved failure with --from-failure",
                hint="leave them out, and edit the new case afterwards",
            )
        folder = new.from_failure
        return _reported(lambda: _from_failure(folder, new, spec))
    if new.from_log is not None:
        log, log_format, perspective = new.from_log, new.format, new.perspective
        if log_format is None or perspective is None:
            raise UsageError("cardid new: --from-log needs --format (arena or mtgo) and --perspective")
        return _reported(lambda: _from_log(log, log_format, perspective, new, spec))
    role = new.role or Role.WRITER
    rules = _rules(spec, new.rules)
    path = draft.target(new.id, new.out, suite.CASES_DIR / role.value)
    data = template(new.id, role, rules, spec)
    draft.write(path, data, _TEMPLATE_COMMENT, what="the new case")
    show_line(f"wrote {path}: fill in every value that starts with {PLACEHOLDER}, then check it with")
    show_line(f"  cardid lint --cases {path} && cardid run --cases {path}")
    return 0


_TEMPLATE_COMMENT = [
    f"Fails: {PLACEHOLDER}: name the wrong implementation this case catches (reference/mutants has many).",
    f"Written by `cardid new`: fill in every value that starts with {PLACEHOLDER} (until then the",
    "case is unfinished, and `cardid lint` says so). spec/observations.md describes each",
    "observation; label each one that has an `object` with its expected instance (`expect:`).",
    "A request that must be rejected (rules REQ-1 to REQ-5) says `expect: {reject: true}`, labels",
    "nothing, and ends at the observation that makes it inconsistent (a failure shows that one).",
    "The file name is the case ID, which never changes once published.",
]


def _reported(draw: Callable[[], int]) -> int:
    """A case drafted from something given (a saved failure, a log); 1 when the reference gave
    no answer to make its expectation of, said on standard error."""
    try:
        return draw()
    except DraftError as exc:
        say(exc.render(), sys.stderr)
        return 1


def _rules(spec: Spec, wanted: Sequence[str]) -> list[str]:
    rules = []
    for text in wanted:
        rule_id = text.upper()
        if rule_id not in spec.rules:
            raise UsageError(
                f"cardid new: argument --rule: takes a rule ID of spec {spec.version} "
                f"({', '.join(spec.rules)}), not {text!r}",
                hint="`cardid rules` lists every rule with its summary",
            )
        if rule_id not in rules:
            rules.append(rule_id)
    return rules


def template(case_id: str, role: Role, rules: list[str], spec: Spec) -> dict[str, Any]:
    """The template's data: every value still to be written starts with PLACEHOLDER."""
    todo = PLACEHOLDER
    if rules:
        level = max(spec.rule(rule_id).level for rule_id in rules).name
        cr = list(dict.fromkeys(number for rule_id in rules for number in spec.rule(rule_id).cr))
    else:
        level = f"{todo}: MUST, SHOULD or MAY, the level of the strongest rule cited"
        cr = [f"{todo}: Comprehensive Rules numbers such as 400.7"]
    data: dict[str, Any] = {
        "id": case_id,
        "description": f"{todo}: one line stating the behaviour, in the present tense.",
        "role": role.value,
        "level": level,
        "rules": rules or [f"{todo}: rule IDs such as ID-3 (`cardid rules` lists them)"],
        "cr": cr,
        "tags": [],
    }
    if role is Role.READER:
        data["input"] = {
            "text": f"{todo}: the card table text (spec/card-table.md), one entry a line, such as\n"
            '#c1 "Island" [DMU 262] mtgo:101393 owner=P1\n'
        }
        data["expect"] = {
            "card_table": [
                {"id": "c1", "name": f"{todo}: the name read", "printing": {"set": "DMU", "number": "262"},
                 "source_ids": ["mtgo:101393"], "owner": "P1", "kind": "card"},
            ]
        }
        return data
    data["input"] = {
        "perspective": "P1",
        "players": ["P1", "P2"],
        "source": {"name": "mtgo", "hidden_tracking": False},
        "cards": [
            {"name": f"{todo}: a real card's name",
             "printings": [{"set": "DMU", "number": f"{todo}: its collector number",
                            "source_ids": ["mtgo:101393"]}]},
        ],
        "observations": [
            {"type": "game_start", "game": 1},
            {"type": "move", "object": "10", "new_object": "11", "from": "library:P1",
             "to": "hand:P1", "from_position": "top",
             "card": {"source_id": "mtgo:101393"}, "expect": "card_a"},
            {"type": "move", "object": "11", "new_object": "12", "from": "hand:P1", "to": "stack",
             "expect": "card_a"},
        ],
    }
    data["expect"] = {
        "instances": {
            "card_a": {"name": f"{todo}: the name the instance is recorded with",
                       "printing": {"set": "DMU", "number": f"{todo}: its collector number"},
                       "source_ids": ["mtgo:101393"], "owner": "P1", "kind": "card", "revealed_at": 1},
        }
    }
    return data


def _read(path: Path, what: str) -> Any:
    try:
        return strictjson.read_file(path, _MAX_BYTES)
    except strictjson.Unreadable as exc:
        raise UsageError(
            f"cannot read {what} {path}: {exc.problem}",
            hint="--from-failure takes one case folder written by `cardid run --save-failures DIR`",
        ) from None


def _from_failure(folder: Path, new: NewCase, spec: Spec) -> int:
    if not folder.is_dir():
        raise UsageError(
            f"cardid new: argument --from-failure: {folder} is not a folder",
            hint="give one case folder written by `cardid run --save-failures DIR`: DIR/<case>/",
        )
    request = _read(folder / "request.json", "the saved request")
    try:
        role = Role(request["role"])
    except (KeyError, TypeError, ValueError):  # not an object, no role, or neither role
        raise UsageError(f"{folder / 'request.json'} is not a writer or reader request: it has no role") from None
    problem = schemas.first_problem(f"{role}-input", request)
    if problem is not None:
        raise UsageError(
            f"{folder / 'request.json'} is not a {role} request (schema/{role}-input.schema.json): "
            f"{problem.where()}: {problem.message}",
            hint="fix the request (spec/observations.md), or save the failure again",
        )
    meta = _failed_case(folder, spec)
    if meta.role is not role:
        raise UsageError(f"{folder / 'request.json'} is a {role} request, but case {meta.id} is a {meta.role} case")
    drafted = Metadata(id=new.id, description=meta.description, role=role, level=meta.level,
                       rules=meta.rules, cr=meta.cr, tags=meta.tags)
    path = draft.target(new.id, new.out, suite.CASES_DIR / role.value)
    data, reference = _drafted(path, drafted, request, spec)
    failure = _first_line(folder / "failure.txt")
    comments = [
        *draft.review_comment(reference, "cardid new --from-failure"),
        f"Drafted from the failure of case {meta.id} saved in {folder}"
        + (f": {failure}" if failure else "."),
    ]
    draft.write(path, data, comments, what="the new case")
    expectation = "a rejection" if data["expect"].get("reject") else "an answer"
    show_line(
        f"wrote {path}: the request saved in {folder}, and as its expectation {expectation} from "
        f"{reference}, tagged needs-review"
    )
    show_line("  check the expectation against the cited rules, then remove the REVIEW lines and the tag;")
    show_line(f"  cardid lint --cases {path} says what is left")
    return 0


def _from_log(log: Path, log_format: str, perspective: str, new: NewCase, spec: Spec) -> int:
    """A case from a stretch of a real game: its first N observations as the importer reads
    them, each named by its place in the log, answered by the reference for review."""
    rules = _rules(spec, new.rules)
    if not rules:
        raise UsageError(
            "cardid new: --from-log needs at least one --rule: the rule the game shows broken",
            hint="`cardid rules` lists them",
        )
    try:
        imported = logs.IMPORTERS[log_format](logs.read_log_text(log), perspective, None)
    except LogError as error:
        raise UsageError(f"{log}: {error.place}: {error.why}") from None
    count = len(imported.request["observations"]) if new.first is None else new.first
    request = {**imported.request, "observations": imported.request["observations"][:count]}
    places = imported.places[:count]
    notes = (imported.notes or (None,) * len(imported.places))[:count]
    level = max(spec.rule(rule_id).level for rule_id in rules).name
    cr = tuple(dict.fromkeys(number for rule_id in rules for number in spec.rule(rule_id).cr))
    meta = Metadata(
        id=new.id, role=Role.WRITER, level=level, rules=tuple(rules), cr=cr,
        description=f"The first {count} observations of {log.name} for {perspective}, "
        "as imported (rewrite: the behaviour shown, in the present tense).",
        tags=("from-log", log_format),
    )
    path = draft.target(new.id, new.out, suite.CASES_DIR / Role.WRITER.value)
    data, reference = _drafted(path, meta, request, spec)
    comments = [
        f"Fails: {PLACEHOLDER}: name the wrong parser this case catches.",
        *draft.review_comment(reference, "cardid new --from-log"),
        f"Drafted from {log} ({log_format}) for {perspective}. Where each "
        "observation comes from in the log:",
        *(f"  {index}: {place}" + ("" if note is None else f" ({note})")
          for index, (place, note) in enumerate(zip(places, notes, strict=True))),
    ]
    draft.write(path, data, comments, what="the new case")
    expectation = "a rejection" if data["expect"].get("reject") else "an answer"
    show_line(
        f"wrote {path}: {count} observations of {log}, and as its expectation {expectation} "
        f"from {reference}, tagged needs-review"
    )
    show_line(
        "  cut it to the stretch that shows the behaviour, check the expectation against the "
        "cited rules, then remove the REVIEW lines and the tag"
    )
    return 0


def _drafted(path: Path, meta: Metadata, request: Mapping[str, Any], spec: Spec) -> tuple[dict[str, Any], str]:
    """The case data `meta` and the bundled reference's answer to `request` make, checked as
    the loader checks a case, and the reference's name."""
    reference = draft.Reference()
    try:
        answer = reference.ask(request)
    finally:
        reference.close()
    data = draft.case_data(meta, request, answer)
    draft.checked(path, data, spec)
    return data, reference.name


def _failed_case(folder: Path, spec: Spec) -> Metadata:
    """The failed case's metadata: from case.json, else (a folder saved before case.json was
    kept) from the corpus case the folder is named after."""
    record_path = folder / "case.json"
    if record_path.exists():
        record = _read(record_path, "the saved case record")
        if not isinstance(record, dict):
            raise UsageError(f"{record_path} is not a saved case record: not a JSON object")
        try:
            meta = Metadata(
                id=str(record["id"]), description=str(record["description"]), role=Role(str(record["role"])),
                level=str(record["level"]), rules=tuple(map(str, record["rules"])),
                cr=tuple(map(str, record["cr"])), tags=tuple(map(str, record.get("tags", ()))),
            )
        except (KeyError, TypeError) as exc:
            raise UsageError(f"{record_path} is not a saved case record: {exc!r} is missing or wrong") from None
        except ValueError:  # a role that is neither writer nor reader
            raise UsageError(
                f"{record_path} is not a saved case record: its role {escape.show(str(record['role']))} is "
                "neither writer nor reader"
            ) from None
    else:
        corpus = load_corpus([p for p in case_files(suite.CASES_DIR) if p.stem == folder.name], spec)
        if not corpus.cases:
            raise UsageError(
                f"{folder} holds no case.json, and {folder.name} is no case of the corpus",
                hint="save the failure again with this version of `cardid run --save-failures`",
            )
        case = corpus.cases[0]
        meta = Metadata(id=case.id, description=case.description, role=case.role, level=case.level.name,
                        rules=case.rules, cr=case.cr, tags=case.tags)
    unknown = [rule_id for rule_id in meta.rules if rule_id not in spec.rules]
    if unknown:
        raise UsageError(
            f"case {meta.id} cites {', '.join(unknown)}, which spec {spec.version} lacks",
            hint="edit case.json in the saved folder to cite rules of this spec",
        )
    return meta


def _first_line(path: Path) -> str:
    try:
        text = files.read_bounded(path, _MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
    return text.split("\n", 1)[0].strip()
