"""Deliberately wrong implementations: each breaks one rule, to show the cases catch it.

The mutation surface of the writer: a writer mutant subclasses `Writer` and overrides only
- the handler of an observation type, a method `Writer.handlers` or `unseen_handlers` names;
- a part, `LIBRARY`, `OBSERVATION` or `DATABASE`, set to its own subclass of `Library`,
  `Observation` or `CardDatabase`, which may override any method of that class;
- one of the rules in WRITER_SURFACE, each a step the reference takes anyway, named for what it
  decides (the reference has no method that exists only to be overridden);
- `__init__`, to keep state of its own, or `run`, to rewrite the result.
It may call any method. tests/test_mutation_surface.py holds every writer mutant to this, and
every name of WRITER_SURFACE to some mutant: any other method of the reference may change
without a mutant noticing. (A reader mutant overrides any method or pattern of CardTableReader.)

The catalogue is a module for each rule family of each release of the spec, each registering
its mutants on import (`mutant`); this package keeps the registry. The order of MUTANTS, which
`cardid mutants` lists, is the order the modules are imported at the end of this one, each
module's mutants in the order it defines them: the order the mutants were written, release by
release. A new mutant goes into the module of its rule family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardid_reference.reader import CardTableReader
from cardid_reference.writer import Writer

#: The rules of Writer (and of Instances, its record of the game) a mutant may override.
WRITER_SURFACE = frozenset(
    {
        # which instance an observation refers to
        "moving_instance", "shown_in_place", "leave_library", "library_card_shown",
        "held", "tracked", "original_instance",
        # a new instance: its ID, owner, kind and name
        "new_card", "allocate", "owner_of_new", "introduced_kind", "create", "inherited_name",
        # where an instance goes, and when its ID ends
        "arrive", "put_card", "place",
        "end", "ends_after_move", "ends_at_creation", "ceases_to_exist", "loses_track_in",
        # what its card-table entry says
        "describe", "bind",
        # what a request may not do (REQ-2, REQ-4, REQ-5)
        "check_handle_free", "check_not_melded", "check_fits", "size_conflict",
    }
)

#: Mutant name -> the writer or reader class that breaks one behaviour.
MUTANTS: dict[str, type[Writer | CardTableReader]] = {}


def mutant(name: str) -> Callable[[type], type]:
    """Register a mutant class under the name `python -m cardid_reference.mutants NAME` takes."""

    def register(cls: type) -> type:
        if name in MUTANTS:
            raise ValueError(f"mutant {name!r} is registered twice")
        if not (cls.__doc__ or "").strip():
            raise ValueError(f"mutant {name!r} needs a one-line docstring")
        MUTANTS[name] = cls
        return cls

    return register


def broken_role(name: str) -> str:
    """The role a mutant breaks: "writer" or "reader" (the other is the reference's)."""
    return "writer" if issubclass(MUTANTS[name], Writer) else "reader"


def entry_points(
    name: str,
) -> tuple[Callable[[dict[str, Any]], dict[str, Any]], Callable[[str], dict[str, Any]]]:
    """A mutant's write and read functions: the broken role, and the reference for the other."""
    cls = MUTANTS[name]
    writer_cls = cls if issubclass(cls, Writer) else Writer
    reader_cls = cls if issubclass(cls, CardTableReader) else CardTableReader
    return (lambda request: writer_cls(request).run()), (lambda text: reader_cls().read(text))


class ExitWithoutRejection(SystemExit):
    """Exit status 1 with nothing on standard output: a rejection without its object.

    A SystemExit, so that the adapter lets it end the process (`python -m cardid_reference.mutants`);
    tests/test_mutants.py maps it to the crash the runner reports.
    """

    def __init__(self) -> None:
        super().__init__(1)


# The catalogue, in its order: the mutants of spec 1.0.0, of 1.1.0, of the readings no case held
# yet and of the reader, then those of 1.2.0, a module per rule family. They register themselves
# as they are imported, so the order of this import is the catalogue's: the sorter leaves it.
# isort: off
from . import (  # noqa: E402, F401
    ids,
    libraries,
    hidden,
    names,
    printings,
    tokens,
    library_positions,
    requests,
    resolution,
    copies_and_control,
    rejections,
    inconsistent,
    zones,
    lookups,
    copies,
    reader,
    library_more,
    names_more,
    reader_more,
    tokens_more,
    visibility_more,
    vocabulary_more,
)
# isort: on
