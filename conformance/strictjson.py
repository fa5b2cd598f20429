"""Strict JSON, for text the suite does not trust (implementations' output, reports to resume):
no duplicate keys, no NaN or Infinity, no number beyond a float's range."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cardid_conformance import files


class DuplicateKey(ValueError):
    """An object names one key twice: which value counts would be the reader's guess."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


class NotFinite(ValueError):
    """NaN, Infinity or -Infinity, or a number too large for a float: JSON has no such number."""

    def __init__(self, text: str) -> None:
        super().__init__(f"{text[:40]} is not a finite number")
        self.text = text


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return result


def _constant(name: str) -> Any:
    raise NotFinite(name)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise NotFinite(text)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)


def loads(text: str) -> Any:
    """The value of strict JSON text. Raises DuplicateKey or NotFinite (both ValueErrors) for
    what strict reading refuses, ValueError for text that is not JSON, RecursionError for
    nesting beyond the interpreter's stack."""
    return _DECODER.decode(text)


class Unreadable(ValueError):
    """A file that is not strict JSON (or cannot be read): `problem` says why, in a few words."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def read_file(path: Path, limit: int) -> Any:
    """The value of the strict JSON file at `path` (a regular file of at most `limit` bytes,
    UTF-8); Unreadable saying why not: "not UTF-8 (byte 3)", "not strict JSON: the key 'a'
    appears twice in one object", "nested too deeply", "not JSON: ...", or why it cannot be read."""
    try:
        raw = files.read_bounded(path, limit)
    except OSError as exc:
        raise Unreadable(files.describe(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 (byte {exc.start})") from None
    try:
        return loads(text)
    except DuplicateKey as exc:
        raise Unreadable(f"not strict JSON: the key {exc.key!r} appears twice in one object") from None
    except NotFinite as exc:
        raise Unreadable(f"not strict JSON: {exc}") from None
    except RecursionError:
        raise Unreadable("nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, and int() of a number over 4,300 digits
        raise Unreadable(f"not JSON: {exc}") from None
