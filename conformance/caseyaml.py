"""Case data written as YAML in the corpus's own style, and read back to prove it says the same.

A case's top-level fields, `input` and `expect` (and any mapping in them holding lists or
mappings) are block mappings; each card, observation,
instance and card-table entry is one flow mapping on its line; a reader's multi-line text is a
literal block (`|`). Strings are plain only where no YAML reader could take them for anything
else (`move`, `P1`, `ID-3`), double-quoted otherwise, with every character that is not plainly
printable written as an escape (`\\u2028`, `\\x1b`). Whatever is rendered is parsed back with
the suite's strict loader, and must give the very data it was rendered from
(`render_verified`); a text that would not is never written.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cardid_conformance import yamlfile
from cardid_conformance.errors import CaseError

#: Scalars YAML 1.1 (PyYAML) resolves to something other than a string when plain.
_RESERVED = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "nan", "inf"}
)
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*")
_PLAIN_KEY = re.compile(r"[a-z_][a-z0-9_]*")
#: Printable characters a double-quoted scalar still cannot hold raw.
_LINE_BREAKS = frozenset("\x85\u2028\u2029")


class RenderError(Exception):
    """The rendered text would not read back as the data (a bug in this module)."""


def render_verified(
    data: Mapping[str, Any], *, comments: Sequence[str] = (), path: Path, block_items: bool = False
) -> str:
    """`data` as YAML text under `comments` (each becomes one `# ` line), read back with the
    strict loader and checked to be `data`; the most readable form that passes, first.
    `block_items`: each mapping in a list is a block of `key: value` lines, not one flow line."""
    for literal in (True, False):
        text = render(data, comments=comments, literal=literal, block_items=block_items)
        try:
            if yamlfile.loads(text, path) == data:
                return text
        except CaseError:
            pass
    raise RenderError(f"{path}: the case could not be written as YAML that reads back the same")


def render(
    data: Mapping[str, Any], *, comments: Sequence[str] = (), literal: bool = True, block_items: bool = False
) -> str:
    """`data` as YAML text (see the module docstring); `literal=False` quotes every string."""
    lines = [f"# {line}" if line else "#" for line in comments]
    lines += _block(data, 0, literal, block_items)
    return "\n".join(lines) + "\n"


def comment(text: str) -> list[str]:
    """Text as comment lines (without the `# `): nothing in it can end a line, and lines longer
    than 98 characters are wrapped, each continuation indented."""
    safe = "".join(_escape_char(c) if _needs_escape(c) else c for c in text)
    return textwrap.wrap(safe, width=98, subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False) or [""]


def _block(mapping: Mapping[str, Any], depth: int, literal: bool, block_items: bool = False) -> list[str]:
    pad = "  " * depth
    lines = []
    for key, value in mapping.items():
        head = f"{pad}{_key(key)}:"
        if isinstance(value, Mapping) and value and (depth == 0 or (depth == 1 and _holds_containers(value))):
            lines.append(head)
            lines += _block(value, depth + 1, literal, block_items)
        elif isinstance(value, list) and any(isinstance(item, Mapping | list) for item in value):
            lines.append(head)
            for item in value:
                if block_items and isinstance(item, Mapping) and item:
                    first, *rest = _block(item, 0, literal)
                    lines += [f"{pad}  - {first}", *(f"{pad}    {line}" for line in rest)]
                else:
                    lines.append(f"{pad}  - {_flow(item, literal)}")
        elif literal and isinstance(value, str) and _literal_safe(value):
            lines.append(f"{head} {_chomping(value)}")
            lines += [f"{pad}  {line}" if line else "" for line in value.split("\n")[:-1 if value.endswith("\n") else None]]
        else:
            lines.append(f"{head} {_flow(value, literal)}")
    return lines


def _holds_containers(mapping: Mapping[str, Any]) -> bool:
    return any(isinstance(value, Mapping | list) for value in mapping.values())


def _flow(value: Any, literal: bool) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)}: {_flow(v, literal)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item, literal) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return json.dumps(value, allow_nan=False)
    if isinstance(value, str):
        return _string(value, plain_ok=literal)
    raise TypeError(f"not plain data: {type(value).__name__}")


def _key(key: str) -> str:
    return key if _PLAIN_KEY.fullmatch(key) and key not in _RESERVED else _quoted(key)


def _string(text: str, *, plain_ok: bool) -> str:
    if plain_ok and _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return _quoted(text)


def _needs_escape(c: str) -> bool:
    return not (c == " " or c.isprintable()) or c in _LINE_BREAKS


def _escape_char(c: str) -> str:
    code = ord(c)
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    if c == "\r":
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _quoted(text: str) -> str:
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif _needs_escape(c):
            out.append(_escape_char(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _literal_safe(text: str) -> bool:
    """Whether `text` reads back the same as a literal block: several lines of printable
    characters, none starting or ending with a space (which editors and the block's
    indentation would change)."""
    if "\n" not in text.rstrip("\n"):
        return False
    body = text[:-1] if text.endswith("\n") else text
    for line in body.split("\n"):
        if line != line.strip(" ") or any(_needs_escape(c) for c in line):
            return False
    return True


def _chomping(text: str) -> str:
    """`|` keeps one final newline, `|-` none, `|+` every one."""
    if not text.endswith("\n"):
        return "|-"
    return "|+" if text.endswith("\n\n") else "|"
