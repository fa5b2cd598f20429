"""Reading case files as plain data: safe YAML, no surprises, errors with line numbers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

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
    longest = max(map(len, text.splitlines()), default=0)
    return text.count("[") + text.count("{") + longest


_STR, _INT, _BOOL, _NULL, _FLOAT, _SEQ, _MAP = (
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "bool", "null", "float", "seq", "map")
)


class _PlainComposer(_BaseLoader):  # type: ignore[misc, valid-type]
    """libyaml's composer with tag resolution memoized: the first half of the plain-data path.

    A safe loader has no path resolvers, so a plain scalar's tag depends on its text alone, and
    case files repeat the same few hundred scalars; the memo is shared, and bounded.
    """

    _plain_tags: ClassVar[dict[str, str]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is not yaml.ScalarNode:
            return _MAP if kind is yaml.MappingNode else _SEQ
        if not implicit[0]:
            return _STR  # quoted: a string, whatever it looks like
        tag = self._plain_tags.get(value)
        if tag is None:
            if len(self._plain_tags) >= 100_000:
                self._plain_tags.clear()
            tag = self._plain_tags[value] = super().resolve(kind, value, implicit)
        return tag

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass  # no path resolvers: skip the base class's call per node

    def ascend_resolver(self) -> None:
        pass


#: What the plain-data path returns for a document it leaves to the full strict loader.
_NOT_PLAIN = object()


class _NotPlain(Exception):
    pass


def _load_plain(text: str) -> Any:
    """Load a document of mappings with string keys, sequences and core scalars, or _NOT_PLAIN.

    PyYAML's generic constructor costs as much as libyaml's parsing and composing: case files
    are plain data, so they are built here in one walk, with PyYAML's own constructors for ints,
    floats and bools. Anything else (an alias, a merge key, a duplicate or non-string key, another
    tag, any failure) is left to the full strict loader, so every result and every error message
    is exactly the full loader's.
    """
    if _PlainComposer.yaml_path_resolvers:  # pragma: no cover - only if someone registered one
        return _NOT_PLAIN
    loader = _PlainComposer(text)
    try:
        node = loader.get_single_node()  # a syntax error is the full loader's too: it propagates
        if node is None:
            return None
        # An alias hands out its anchored node again; without `&` in the text there is none.
        seen: set[int] | None = set() if "&" in text else None
        try:
            return _build(loader, node, seen)
        except Exception:  # noqa: BLE001 - any surprise (RecursionError too) is the full loader's
            return _NOT_PLAIN
    finally:
        loader.dispose()


def _build(loader: Any, node: yaml.Node, seen: set[int] | None) -> Any:
    if seen is not None:
        if id(node) in seen:
            raise _NotPlain
        seen.add(id(node))
    kind, tag = type(node), node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
        if tag == _NULL:
            return None
        if tag == _INT:
            return loader.construct_yaml_int(node)
        if tag == _BOOL:
            return loader.construct_yaml_bool(node)
        if tag == _FLOAT:
            return loader.construct_yaml_float(node)
        raise _NotPlain
    if kind is yaml.SequenceNode and tag == _SEQ:
        return [_build(loader, item, seen) for item in node.value]
    if kind is not yaml.MappingNode or tag != _MAP:
        raise _NotPlain
    data = {}
    for key_node, value_node in node.value:
        # A merge key `<<` has its own tag; keys other than strings are rare enough to leave.
        if type(key_node) is not yaml.ScalarNode or key_node.tag != _STR:
            raise _NotPlain
        key = key_node.value
        if key in data:
            raise _NotPlain
        if seen is None and type(value_node) is yaml.ScalarNode and value_node.tag == _STR:
            data[key] = value_node.value  # the common leaf, without a call
        else:
            data[key] = _build(loader, value_node, seen)
    return data


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.start_mark.line + 1


class _TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _read(path: Path) -> bytes:
    """The file's bytes, refused by size before they are read.

    Plain system calls, one open and one read: 6 us a file, against 9 us for `stat` and
    `read_bytes`, which 10,000 case files notice.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        if size > MAX_BYTES:
            raise _TooLarge(size)
        raw = os.read(fd, size + 1)
        if len(raw) <= size:
            return raw  # a short read of a regular file is its end
        chunks = [raw]  # it grew since fstat: read on, still within the limit
        while (total := sum(map(len, chunks))) <= MAX_BYTES and (chunk := os.read(fd, 65536)):
            chunks.append(chunk)
        if total > MAX_BYTES:
            raise _TooLarge(total)
        return b"".join(chunks)
    finally:
        os.close(fd)


def load(path: Path) -> Any:
    """Load one YAML file as plain data, or raise CaseError naming the file and line."""
    try:
        raw = _read(path)
    except _TooLarge as exc:
        limit = f"file is {exc.size:,} bytes, over the {MAX_BYTES:,}-byte limit"
        raise CaseError(path, limit) from None
    except OSError as exc:
        raise CaseError(path, f"cannot read file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CaseError(path, f"not valid UTF-8 (byte {exc.start})", line=line) from None
    try:
        if _max_depth_bound(text) > _C_LOADER_MAX_DEPTH:
            return yaml.load(text, Loader=_SafeDepthLoader)
        data = _load_plain(text)
        if data is _NOT_PLAIN:
            data = yaml.load(text, Loader=_FastLoader)
        return data
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
