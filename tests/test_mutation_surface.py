"""The writer mutants override only the mutation surface (the docstring of
cardid_reference.mutants): observation handlers, the parts, the rules of WRITER_SURFACE,
`__init__` and `run`; and every rule of WRITER_SURFACE is one some mutant overrides, so the
surface stays as small as the mutants need."""

from __future__ import annotations

import pytest
from cardid_reference.mutants import MUTANTS, WRITER_SURFACE, broken_role
from cardid_reference.writer import Writer

WRITER_MUTANTS = [name for name in MUTANTS if broken_role(name) == "writer"]
PARTS = frozenset({"LIBRARY", "OBSERVATION", "DATABASE"})
WHOLE = frozenset({"__init__", "run"})


def _handlers() -> frozenset[str]:
    """The methods the writer's dispatch tables name."""
    request = {"perspective": "P1", "players": ["P1"], "source": {"hidden_tracking": False}}
    writer = Writer({**request, "cards": [], "observations": []})
    tables = (writer.handlers(), writer.unseen_handlers())
    return frozenset(handler.__name__ for table in tables for handler in table.values())


def _overridden(cls: type) -> set[str]:
    """The attributes of Writer that a mutant class, or a base of it below Writer, defines again
    (its own new names are its own business)."""
    below = cls.__mro__[: cls.__mro__.index(Writer)]
    return {
        name
        for klass in below
        for name in vars(klass)
        if hasattr(Writer, name) and (name == "__init__" or not name.startswith("__"))
    }


@pytest.mark.parametrize("name", WRITER_MUTANTS)
def test_writer_mutant_overrides_only_the_surface(name: str) -> None:
    stray = _overridden(MUTANTS[name]) - WRITER_SURFACE - PARTS - WHOLE - _handlers()
    assert not stray, f"mutant {name!r} overrides {sorted(stray)}, not on the mutation surface"


def test_every_rule_of_the_surface_is_a_method_some_mutant_overrides() -> None:
    assert all(callable(getattr(Writer, rule, None)) for rule in WRITER_SURFACE)
    used = set().union(*(_overridden(MUTANTS[name]) for name in WRITER_MUTANTS))
    assert not WRITER_SURFACE - used, f"no mutant overrides {sorted(WRITER_SURFACE - used)}"
