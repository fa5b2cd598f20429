"""The JSON Schemas in schema/, loaded once, as validators that give readable errors.

jsonschema-rs answers "valid or not" for every document; python-jsonschema, which writes the
error messages, is imported only when a document is not surely valid (about 40 ms of start-up
that a clean run of the CLI or the plugin does not pay)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import jsonschema_rs
from cardid_conformance import suite
from cardid_conformance.errors import SuiteError

if TYPE_CHECKING:
    import jsonschema
    from referencing import Registry

#: Schema names, without the `.schema.json` suffix.
NAMES = (
    "case",
    "writer-input",
    "writer-output",
    "reader-input",
    "reader-output",
    "protocol",
    "report",
    "expect",
    "certificate",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaProblem:
    """One way a document fails its schema: where, and what is wrong."""

    location: tuple[str | int, ...]
    message: str

    def where(self) -> str:
        """The location as a dotted path, e.g. `input.observations[3].from`."""
        out = ""
        for step in self.location:
            out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
        return out or "(top level)"


@cache
def _contents() -> dict[str, Any]:
    """Every schema document by its `$id`."""
    contents = {}
    for name in NAMES:
        path = suite.SCHEMA_DIR / f"{name}.schema.json"
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SuiteError(f"cannot read schema {path}: {exc}") from None
        contents[document["$id"]] = document
    return contents


def _uri(name: str) -> str:
    return f"https://cardid.invalid/schema/{name}.schema.json"


@cache
def _registry() -> Registry:
    from referencing import Registry, Resource

    return Registry().with_resources(
        (uri, Resource.from_contents(document)) for uri, document in _contents().items()
    )


def _schema(name: str) -> Any:
    """`schema/<name>.schema.json`, or one definition in it: `protocol#answer-result` is the
    `answer-result` entry of protocol.schema.json's `$defs`."""
    file, _, definition = name.partition("#")
    if not definition:
        return _contents()[_uri(file)]
    if definition not in _contents()[_uri(file)].get("$defs", {}):
        raise SuiteError(f"schema/{file}.schema.json has no definition {definition!r}")
    return {"$ref": f"{_uri(file)}#/$defs/{definition}"}


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """Return a validator for `schema/<name>.schema.json` (or `<name>#<definition>`)."""
    import jsonschema

    registry = _registry()
    schema = _schema(name)
    cls = jsonschema.validators.validator_for(_contents()[_uri(name.partition("#")[0])])
    return cls(schema, registry=registry)


@cache
def _fast_validator(name: str) -> Any:
    """The same schema compiled by jsonschema-rs, which only answers valid or not, but fast."""
    contents = _contents()
    registry = jsonschema_rs.Registry(list(contents.items()))
    return jsonschema_rs.validator_for(_schema(name), registry=registry)


def prepare() -> None:
    """Import python-jsonschema now. It is otherwise imported when first needed (a run of
    valid answers in persistent mode never needs it), in whichever thread needs it first: a
    run whose cases run in several threads, or that judges every case's answer with it
    (per-case mode), calls this first, in one thread, so that an import that fails halfway
    (no file descriptor left, under a low `ulimit -n`) is never another thread's half-made
    module."""
    import jsonschema  # noqa: F401


def _surely_valid(name: str, document: Any) -> bool:
    """jsonschema-rs's verdict when it is "valid"; False means "ask python-jsonschema".

    Only "valid" is trusted: where the two disagree it is python-jsonschema that is lenient
    (a `$` before a final newline, NaN as a number), and a value jsonschema-rs cannot take
    (a YAML date, a lone surrogate, a non-string key) raises here. Documents come from JSON or
    safe YAML, so they never hold the tuples jsonschema-rs would accept as arrays.
    """
    try:
        return bool(_fast_validator(name).is_valid(document))
    except (ValueError, TypeError, OverflowError):
        return False


def is_valid(name: str, document: Any) -> bool:
    """Whether the document is valid for schema `name`, as python-jsonschema judges it."""
    return _surely_valid(name, document) or bool(validator(name).is_valid(document))


def problems(name: str, document: Any) -> Iterator[SchemaProblem]:
    """Yield the document's problems against schema `name`, most relevant first."""
    if _surely_valid(name, document):
        return
    import jsonschema

    errors = list(validator(name).iter_errors(document))
    errors.sort(key=jsonschema.exceptions.relevance)
    for error in errors:
        best = jsonschema.exceptions.best_match([error])
        yield SchemaProblem(location=tuple(best.absolute_path), message=_bounded(best.message))


def first_problem(name: str, document: Any) -> SchemaProblem | None:
    """Return the single most relevant problem, or None if the document is valid."""
    # The fast check first: collecting errors costs as much on a valid document as on a bad one.
    if _surely_valid(name, document):
        return None
    import jsonschema

    error = jsonschema.exceptions.best_match(validator(name).iter_errors(document))
    if error is None:
        return None
    return SchemaProblem(location=tuple(error.absolute_path), message=_bounded(error.message))


#: The longest schema message kept: jsonschema quotes the offending value whole, which may be
#: megabytes (a 5 MB description "is too long").
MESSAGE_CHARS = 500


def _bounded(message: str) -> str:
    """The message's start and end (where jsonschema says what is wrong: `... is too long`)."""
    if len(message) <= MESSAGE_CHARS:
        return message
    cut = len(message) - MESSAGE_CHARS
    return f"{message[: MESSAGE_CHARS - 100]} ...({cut:,} characters cut)... {message[-100:]}"
