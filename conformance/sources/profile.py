"""Source profiles: which cases a reader of one source's logs can meet at all.

A case is *not applicable* to a source when the source's renderer cannot express it (an Arena
log has no three-player game, and always shows a library's size), or when it is a rejection case:
the REQ rules are about inconsistent requests, which a log of a real game never is. The
renderer is the one source of truth: a case is applicable exactly when it renders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cardid_conformance.cases import Case, Rejection, Role
from cardid_conformance.sources import arena_render, mtgo_render
from cardid_conformance.sources.common import Inexpressible, Rendering

#: The source formats a run can be declared for, each with its renderer.
RENDERERS: Mapping[str, Callable[[Mapping[str, Any]], Rendering]] = {
    "arena": arena_render.render,
    "mtgo": mtgo_render.render,
}


def not_applicable(case: Case, source: str) -> str | None:
    """Why `case` does not apply to a reader of `source` logs, or None when it does."""
    if case.role is not Role.WRITER:
        return None
    if isinstance(case.expectation, Rejection):
        return (
            f"a rejection case: {source} logs record real games, and a log reader never meets "
            "the inconsistent requests the REQ rules are about"
        )
    try:
        RENDERERS[source](case.request)
    except Inexpressible as error:
        return f"{source} logs cannot express it: {error}"
    return None
