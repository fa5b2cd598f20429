"""The oracle: an answer's instance IDs against a generated game's truth.

Decision 0002 fixes, for every observation, whether the perspective player can follow the card
(spec/card-identity.md); the generated game knows it from where every physical card really is
(`world.py`). So the partition of observations into instances is exact, and an answer can break
it three ways:

- UNSOUND: one instance ID given to two physical objects (the spec's soundness, item 4);
- KEPT: one ID for two instances of one object, kept past an event that ends it (ID-6's table);
- ENDED: one instance given two IDs, ended where the spec keeps it;

and one more, ID-1's: MISSING, an observation with an object and no ID, or one without an
object given an ID.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .world import ENDING_RULE, Truth


@dataclass(frozen=True, slots=True, kw_only=True)
class Break:
    """One way an answer breaks the game's partition (a break): the two observations that show it."""

    kind: str  # UNSOUND, KEPT, ENDED or MISSING
    rule: str
    first: int
    second: int
    what: str


def check(truth: Sequence[Truth | None], assignments: Sequence[str | None],
          ended_by: dict[int, str]) -> list[Break]:
    """Every way `assignments` breaks the partition `truth` gives, first observation first; one
    finding per ID and per instance."""
    findings: list[Break] = []
    first_of_id: dict[str, int] = {}
    first_of_instance: dict[int, int] = {}
    reported_ids: set[str] = set()
    reported_instances: set[int] = set()
    for i, (fact, iid) in enumerate(zip(truth, assignments, strict=True)):
        if (fact is None) != (iid is None):
            findings.append(Break(kind="MISSING", rule="ID-1", first=i, second=i, what=(
                f"observation {i} refers to an object and was given no ID" if iid is None else
                f"observation {i} refers to no object and was given ID {iid!r}")))
            continue
        if fact is None or iid is None:
            continue
        j = first_of_id.setdefault(iid, i)
        earlier = truth[j]
        assert earlier is not None
        if earlier.instance != fact.instance and iid not in reported_ids:
            reported_ids.add(iid)
            if earlier.obj != fact.obj:
                findings.append(Break(kind="UNSOUND", rule="ID-7", first=j, second=i, what=(
                    f"observations {j} and {i} show two different physical objects, but both were given ID {iid!r}")))
            else:
                event = ended_by.get(earlier.instance)
                rule = ENDING_RULE.get(event or "", fact.rule)
                findings.append(Break(kind="KEPT", rule=rule, first=j, second=i, what=(
                    f"ID {iid!r} of observation {j} is kept at observation {i}, but it ended between them"
                    + (f" ({event} in the ending-events table, {rule})" if event else f" ({fact.rule})"))))
        k = first_of_instance.setdefault(fact.instance, i)
        kept = assignments[k]
        if kept != iid and fact.instance not in reported_instances:
            reported_instances.add(fact.instance)
            findings.append(Break(kind="ENDED", rule=fact.rule, first=k, second=i, what=(
                f"observations {k} and {i} are one instance ({fact.rule} keeps the ID), but were given "
                f"IDs {kept!r} and {iid!r}")))
    return sorted(findings, key=lambda f: (f.second, f.first))
