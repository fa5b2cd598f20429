"""The worker process of runner/loading.py: parses the case files it is given, in order.

Standard input: a JSON list of paths. Standard output: frames of a 4-byte big-endian length and
a marshal'd list of BATCH items, one per path in order: ("data", value), ("error", reason, line,
hint) for a CaseError, or ("local",) when the parent must load that file itself (data marshal
cannot carry). Batches keep the parent's reads, and its thread switches, few.
"""

from __future__ import annotations

import json
import marshal
import struct
import sys
from pathlib import Path
from typing import Any

from conformance import yamlfile
from conformance.errors import CaseError


def parse(path: Path) -> tuple[Any, ...]:
    try:
        data = yamlfile.load(path)
    except CaseError as exc:
        return ("error", exc.reason, exc.line, exc.hint)
    except Exception:  # noqa: BLE001 - whatever it is, the parent meets it the same way
        return ("local",)
    return ("data", data)


BATCH = 50


def main() -> int:
    paths = json.load(sys.stdin)
    out = sys.stdout.buffer
    for start in range(0, len(paths), BATCH):
        items = [parse(Path(path)) for path in paths[start : start + BATCH]]
        try:
            frame = marshal.dumps(items)
        except ValueError:  # not plain data somewhere (a YAML date, say): find which
            items = [item if _marshalable(item) else ("local",) for item in items]
            frame = marshal.dumps(items)
        out.write(struct.pack(">I", len(frame)))
        out.write(frame)
        out.flush()
    return 0


def _marshalable(item: tuple[Any, ...]) -> bool:
    try:
        marshal.dumps(item)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
