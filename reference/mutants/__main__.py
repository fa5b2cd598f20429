"""`python -m cardid_reference.mutants NAME`: the reference adapter with one behaviour broken."""

from __future__ import annotations

import sys

from cardid_reference.adapter import main

from . import MUTANTS, entry_points


def run(argv: list[str]) -> int:
    """Run the named mutant as an adapter, or list the mutants with `--list`."""
    if len(argv) == 1 and argv[0] == "--list":
        for name, cls in MUTANTS.items():
            print(f"{name}: {(cls.__doc__ or '').strip()}")
        return 0
    if len(argv) != 1 or argv[0] not in MUTANTS:
        print("usage: python -m cardid_reference.mutants NAME | --list", file=sys.stderr)
        print("mutants: " + ", ".join(MUTANTS), file=sys.stderr)
        return 2
    write, read = entry_points(argv[0])
    return main(write=write, read=read, name=f"cardid-mutant-{argv[0]}")


raise SystemExit(run(sys.argv[1:]))
