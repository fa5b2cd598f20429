"""The JSON Schemas in schema/, loaded once, as validators that give readable errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource

from conformance import suite
from conformance.errors import SuiteError

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
def _registry() -> Registry:
    resources = []
    for name in NAMES:
        path = suite.SCHEMA_DIR / f"{name}.schema.json"
        try:
            contents = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SuiteError(f"cannot read schema {path}: {exc}") from None
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """Return a validator for `schema/<name>.schema.json`."""
    registry = _registry()
    schema = registry.contents(f"https://cardid.invalid/schema/{name}.schema.json")
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)  # type: ignore[no-any-return]


def problems(name: str, document: Any) -> Iterator[SchemaProblem]:
    """Yield the document's problems against schema `name`, most relevant first."""
    errors = list(validator(name).iter_errors(document))
    errors.sort(key=jsonschema.exceptions.relevance)
    for error in errors:
        best = jsonschema.exceptions.best_match([error])
        yield SchemaProblem(location=tuple(best.absolute_path), message=best.message)


def first_problem(name: str, document: Any) -> SchemaProblem | None:
    """Return the single most relevant problem, or None if the document is valid."""
    error = jsonschema.exceptions.best_match(validator(name).iter_errors(document))
    if error is None:
        return None
    return SchemaProblem(location=tuple(error.absolute_path), message=error.message)
