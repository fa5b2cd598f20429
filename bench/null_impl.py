"""A null implementation for the overhead benchmark: canned answers, at once, in persistent mode.

`python bench/null_impl.py CANNED`: CANNED holds one reply body per line (`"result":{...}` or
`"rejected":"..."`), answered in turn to successive requests. It parses nothing but the `seq`
digits, so its own cost is as close to zero as a Python process on a pipe gets.
"""

from __future__ import annotations

import sys

HELLO = (
    b'{"protocol":1,"implementation":{"name":"null","version":"0"},"roles":["writer","reader"]}\n'
)


def main() -> int:
    with open(sys.argv[1], "rb") as handle:
        canned = [line.rstrip(b"\n") for line in handle]
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if not stdin.readline().startswith(b'{"cmd":"start"'):
        return 1
    stdout.write(HELLO)
    stdout.flush()
    turn = 0
    while line := stdin.readline():
        if line.startswith(b'{"cmd":"stop"'):
            return 0
        start = line.index(b'"seq":') + 6
        seq = line[start : line.index(b",", start)]
        stdout.write(b'{"seq":%s,%s}\n' % (seq, canned[turn % len(canned)]))
        stdout.flush()
        turn += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
