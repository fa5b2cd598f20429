"""Reading case files as plain data: safe YAML, no surprises, errors with line numbers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from conformance.errors import CaseError

try:  # PyYAML's C loader when libyaml is there; the pure-Python one otherwise.
    _BaseLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

#: A case file is a few kilobytes; anything this large is a mistake or an attack.
MAX_BYTES = 1_000_000
#: libyaml's composer recurses in C and crashes the interpreter on deep nesting, so a text
#: that might nest deeper than this goes to the pure-Python loader, which fails cleanly.
_C_LOADER_MAX_DEPTH = 1000


class _StrictChecks:
    """Refuses duplicate keys, merge keys and aliases, which case files never need."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            # Only an alias reaches an already-built node; refusing it also defuses alias bombs.
            raise _Refused("anchors and aliases are not allowed in case files (the aliased value starts here)", node)
        return super().construct_object(node, deep=deep)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused("merge keys (<<) are not allowed in case files", key_node)
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise _Refused(f"duplicate key {key!r}", key_node)
            seen.add(key)
            del self.constructed_objects[key_node]
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


class _FastLoader(_StrictChecks, _BaseLoader):  # type: ignore[misc, valid-type]
    """The strict loader on libyaml, for texts that cannot nest deeply."""


class _SafeDepthLoader(_StrictChecks, yaml.SafeLoader):
    """The strict loader in pure Python, which turns deep nesting into a RecursionError."""


def _max_depth_bound(text: str) -> int:
    """An upper bound of the text's nesting depth: every level needs a bracket or a column."""
    longest = max((len(line) for line in text.splitlines()), default=0)
    return text.count("[") + text.count("{") + longest


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.start_mark.line + 1


def load(path: Path) -> Any:
    """Load one YAML file as plain data, or raise CaseError naming the file and line."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise CaseError(path, f"file is {size:,} bytes, over the {MAX_BYTES:,}-byte limit")
        raw = path.read_bytes()
    except OSError as exc:
        raise CaseError(path, f"cannot read file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CaseError(path, f"not valid UTF-8 (byte {exc.start})", line=line) from None
    try:
        loader = _FastLoader if _max_depth_bound(text) <= _C_LOADER_MAX_DEPTH else _SafeDepthLoader
        return yaml.load(text, Loader=loader)
    except _Refused as exc:
        raise CaseError(path, exc.message, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise CaseError(path, f"invalid YAML: {what}", line=line) from None
    except yaml.YAMLError as exc:
        raise CaseError(path, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise CaseError(path, "YAML nested too deeply") from None


def line_of(path: Path, location: Sequence[str | int]) -> int | None:
    """Return the 1-based line where the value at `location` starts, or None if unknown.

    Only called on the error path, so it re-reads the file with the pure-Python composer.
    """
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None
    line = node.start_mark.line + 1 if node is not None else None
    for step in location:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == step:
                    node = value_node
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            if step >= len(node.value):
                return line
            node = node.value[step]
        else:
            return line
        line = node.start_mark.line + 1
    return line
