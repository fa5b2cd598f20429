"""Reading YAML files as plain data: safe YAML, no surprises, errors with line numbers.

One strict loader reads every YAML file the suite is given: case files, known-failure files and
the spec index. It builds JSON's data model and nothing else (strings, finite numbers, booleans,
null, lists, mappings with string keys), and every way a value can fail to be built is a
CaseError naming the file and line, never an exception of another class:
- tags other than the core ones (`!!binary`, `!!set`, `!!python/...`, `!local`) are refused;
- a value its constructor cannot build (`!!int abc`, `!!float x`, `2027-02-30`) is refused;
- integers beyond 2**53 (the ones every JSON reader holds exactly) and `.inf`/`.nan` are refused;
- a date-like scalar (`2027-03-31`) is checked to be a real date and kept as its text;
- duplicate keys, merge keys, aliases, non-string keys and lone surrogates are refused;
- data nested deeper than MAX_DEPTH (100) levels is refused, measured before libyaml's
  recursive composer could crash the interpreter on it;
- what is not a regular file (a FIFO, a device, a directory) is never read (conformance/files.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml
from cardid_conformance import files
from cardid_conformance.errors import CaseError

try:  # PyYAML's C loader when libyaml is there; the pure-Python one otherwise.
    _BaseLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

#: A case file is a few kilobytes; anything this large is a mistake or an attack.
MAX_BYTES = 1_000_000
#: libyaml's composer recurses in C and crashes the interpreter on deep nesting, so a text
#: that might nest deeper than this has its depth measured first (`_too_deep_at`).
_C_LOADER_MAX_DEPTH = 1000
#: The deepest data a file may hold (case files nest about 6 levels): anything deeper would
#: reach Python's recursion limit later, in a schema message's repr or a request's encoding.
MAX_DEPTH = 100
#: The largest integer a file may hold: every JSON reader, in any language, holds it exactly.
MAX_INT = 2**53 - 1
#: No integer within MAX_INT is written with more characters than this (0b and 53 digits,
#: with `_` separators); longer texts are refused before any conversion.
_MAX_INT_TEXT = 128

_STR, _INT, _BOOL, _NULL, _FLOAT, _SEQ, _MAP, _TIMESTAMP = (
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "bool", "null", "float", "seq", "map", "timestamp")
)
#: The tags plain data is written with (any other is refused), and the kind of node each is on.
_NODE_OF: dict[str, type[yaml.Node]] = {
    **dict.fromkeys((_STR, _INT, _BOOL, _NULL, _FLOAT, _TIMESTAMP), yaml.ScalarNode),
    _SEQ: yaml.SequenceNode,
    _MAP: yaml.MappingNode,
}
_PLAIN_DATA = "only plain data is read (strings, numbers, true/false, null, lists, mappings)"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


def _snippet(node: yaml.Node) -> str:
    """The node as a message quotes it: a scalar's text (shortened), or what kind it is."""
    if not isinstance(node.value, str):
        return f"a {type(node).__name__.removesuffix('Node').lower()}"
    text = node.value
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _int(loader: Any, node: yaml.ScalarNode) -> int:
    """A YAML integer within MAX_INT; longer texts are never converted (int() of a 5,000-digit
    text raises, and one of 100,000 digits would take seconds)."""
    if len(node.value) > _MAX_INT_TEXT:
        raise _Refused(f"integer {_snippet(node)} is out of range (at most {MAX_INT:,})", node)
    value = yaml.SafeLoader.construct_yaml_int(loader, node)
    if not -MAX_INT <= value <= MAX_INT:
        raise _Refused(f"integer {_snippet(node)} is out of range (at most {MAX_INT:,})", node)
    return value


def _float(loader: Any, node: yaml.ScalarNode) -> float:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if not math.isfinite(value):
        raise _Refused(f"{_snippet(node)} is not a finite number: JSON has no infinity or NaN", node)
    return value


def _timestamp(loader: Any, node: yaml.ScalarNode) -> str:
    """A date as written (`2027-03-31`), once it is known to be a real one."""
    try:
        yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except Exception as exc:  # noqa: BLE001 - ValueError for Feb 30, AttributeError for `!!timestamp x`
        detail = f" ({exc})" if isinstance(exc, ValueError) else ""
        raise _Refused(
            f"{_snippet(node)} is not a real date{detail}: write YYYY-MM-DD, or quote it if it is text",
            node,
        ) from None
    return node.value  # type: ignore[no-any-return]


def _str(loader: Any, node: yaml.ScalarNode) -> str:
    value = node.value
    if _SURROGATE.search(value):  # libyaml refuses a "\ud800" escape; a pure-Python build does not
        raise _Refused("a string holds a lone surrogate (\\ud800-\\udfff), which is no character", node)
    return value  # type: ignore[no-any-return]


#: The scalar constructors that differ from PyYAML's safe ones.
_CHECKED: dict[str, Callable[[Any, yaml.ScalarNode], Any]] = {
    _INT: _int, _FLOAT: _float, _TIMESTAMP: _timestamp, _STR: _str,
}


class _StrictChecks:
    """Refuses what plain data never needs, and turns any failure to build a value into _Refused."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for tag, constructor in _CHECKED.items():
            cls.add_constructor(tag, constructor)  # type: ignore[attr-defined]

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        built: dict[yaml.Node, Any] = self.constructed_objects  # type: ignore[attr-defined]
        if node in built:
            # Only an alias reaches an already-built node; refusing it also defuses alias bombs.
            raise _Refused("anchors and aliases are not allowed (the aliased value starts here)", node)
        kind = _NODE_OF.get(node.tag)
        if type(node) is not kind:
            if kind is None:
                raise _Refused(f"the tag {_short_tag(node.tag)} is not allowed: {_PLAIN_DATA}", node)
            raise _Refused(f"the tag {_short_tag(node.tag)} does not fit {_snippet(node)}", node)
        try:
            if kind is yaml.ScalarNode:
                # Its constructor alone builds a scalar: PyYAML's bookkeeping for collections
                # (recursion, generators) has nothing to do for one, and most nodes are scalars.
                built[node] = value = self.yaml_constructors[node.tag](self, node)  # type: ignore[attr-defined]
                return value
            return super().construct_object(node, deep=deep)  # type: ignore[misc]
        except (yaml.YAMLError, RecursionError):
            raise  # refusals carry their own line; deep nesting is reported as such
        except MemoryError:
            raise _Refused(f"the value {_snippet(node)} is too large to load", node) from None
        except Exception as exc:  # noqa: BLE001 - whatever a constructor raises, it is this value's
            raise _Refused(f"cannot read the value {_snippet(node)}: {exc}", node) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Every key built once and checked (a string, no merge key, no duplicate), then the values."""
        keys: dict[str, None] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Refused("merge keys (<<) are not allowed", key_node)
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _Refused(f"the key {_snippet(key_node)} is not a string: quote it", key_node)
            if key in keys:
                raise _Refused(f"duplicate key {key!r}", key_node)
            keys[key] = None
        return {
            key: self.construct_object(value_node, deep=deep)
            for key, (_, value_node) in zip(keys, node.value, strict=True)
        }


class _StrictLoader(_StrictChecks, _BaseLoader):  # type: ignore[misc, valid-type]
    """The strict loader on libyaml, for texts that do not nest too deeply."""

    def construct_document(self, node: yaml.Node) -> Any:
        line = _too_deep_node(node)
        if line is not None:
            raise _TooDeep(line)
        return super().construct_document(node)


_TOO_DEEP = f"YAML nested too deeply (more than {MAX_DEPTH} levels)"


def _too_deep_node(root: yaml.Node) -> int | None:
    """The line of the first collection (in document order) deeper than MAX_DEPTH, or None.

    A walk with its own stack, like the parser's events in `_too_deep_at`, so both find the
    same line. An alias shares a node already counted; aliases are refused anyway.
    """
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if isinstance(node, yaml.ScalarNode) or id(node) in seen:
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            return node.start_mark.line + 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            children = [child for pair in node.value for child in pair]
        stack.extend((child, depth + 1) for child in reversed(children))
    return None


def _max_depth_bound(text: str) -> int:
    """An upper bound of the text's nesting depth: every level needs a bracket or a column."""
    longest = max(map(len, text.splitlines()), default=0)
    return text.count("[") + text.count("{") + longest


def _too_deep_at(text: str) -> int | None:
    """The line where the text nests deeper than MAX_DEPTH, or None if it does not.

    The parser yields events without recursing (libyaml's keeps its own stack), so this is
    safe at any depth, and it stops at the first level too many: a 300,000-level text costs
    a thousand events. (The pure-Python loader, which turned deep nesting into a
    RecursionError, spent about a second on any deep text in its scanner.)
    """
    depth = 0
    loader = _BaseLoader(text)
    try:
        while loader.check_event():
            event = loader.get_event()  # type: ignore[no-untyped-call]  # the stubs leave it untyped
            if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return 1 if event.start_mark is None else event.start_mark.line + 1
            elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        if exc.problem != "exceeded maximum nesting depth":  # libyaml 0.2.5 stops at 1,000 itself
            raise
        mark = exc.problem_mark
        return mark.line + 1 if mark is not None else 1
    finally:
        loader.dispose()
    return None


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.start_mark.line + 1


def load(path: Path) -> Any:
    """Load one YAML file as plain data, or raise CaseError naming the file (and line)."""
    return parse(read(path), path)


def read(path: Path) -> bytes:
    """A YAML file's bytes, as `load` reads them (a regular file, MAX_BYTES at most), or
    CaseError naming the file."""
    try:
        return files.read_bounded(path, MAX_BYTES)
    except files.TooLarge as exc:
        raise CaseError(path, f"file is {exc.size:,} bytes, over the {MAX_BYTES:,}-byte limit") from None
    except files.NotARegularFile as exc:
        raise CaseError(path, f"{exc.kind}, not a regular file: nothing was read from it") from None
    except OSError as exc:
        raise CaseError(path, f"cannot read file: {files.describe(exc)}") from None


def parse(raw: bytes, path: Path) -> Any:
    """A YAML file's bytes (`read`) as plain data, or CaseError naming the file (and line)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CaseError(path, f"not valid UTF-8 (byte {exc.start})", line=line) from None
    return loads(text, path)


def loads(text: str, path: Path) -> Any:
    """Parse YAML text as `load` parses a file's, every problem a CaseError naming `path`
    (what the text is about to become, or came from)."""
    try:
        return _parse(text)
    except _Refused as exc:
        raise CaseError(path, exc.message, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = mark.line + 1 if mark is not None else None
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise CaseError(path, f"invalid YAML: {what}", line=at) from None
    except yaml.YAMLError as exc:
        raise CaseError(path, f"invalid YAML: {exc}") from None
    except _TooDeep as exc:
        raise CaseError(path, _TOO_DEEP, line=exc.line) from None
    except RecursionError:
        raise CaseError(path, "YAML nested too deeply") from None
    except MemoryError:
        raise CaseError(path, "too large to load as YAML") from None
    except Exception as exc:  # noqa: BLE001 - the last guard: no other class escapes a load
        raise CaseError(path, f"cannot load the YAML: {type(exc).__name__}: {str(exc)[:200]}") from None


def _parse(text: str) -> Any:
    if _max_depth_bound(text) > _C_LOADER_MAX_DEPTH:  # might nest too deeply: measure it
        line = _too_deep_at(text)
        if line is not None:
            raise _TooDeep(line)
    return yaml.load(text, Loader=_StrictLoader)


def line_of(path: Path, location: Sequence[str | int]) -> int | None:
    """Return the 1-based line where the value at `location` starts, or None if unknown.

    Only called on the error path, so it reads the file again and composes it once more.
    """
    try:
        text = files.read_bounded(path, MAX_BYTES).decode("utf-8")
        if _max_depth_bound(text) > _C_LOADER_MAX_DEPTH and _too_deep_at(text) is not None:
            return None  # changed since it was loaded: libyaml's composer is not safe on it
        node = yaml.compose(text, Loader=_BaseLoader)
    except Exception:  # noqa: BLE001 - a line is a courtesy: without one the message still stands
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
