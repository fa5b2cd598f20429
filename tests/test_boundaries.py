"""The direction imports go: the pure core (conformance/) imports neither the runner nor the
reference, and runs no program; the reference imports neither the core nor the runner, so an
implementation author can read it alone. A test, so that a convenient import cannot undo it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: Package folder -> the project packages its modules may not import, and modules of the
#: standard library it may not import.
RULES = {
    "conformance": ({"cardid_runner", "cardid_reference"}, {"subprocess"}),
    "reference": ({"cardid_runner", "cardid_conformance"}, set()),
}


def _imports(path: Path) -> set[str]:
    """The top-level names every import statement of a module names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", sorted(RULES))
def test_imports_go_one_way(folder: str) -> None:
    forbidden_packages, forbidden_modules = RULES[folder]
    found = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & (forbidden_packages | forbidden_modules))
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    assert not {name: bad for name, bad in found.items() if bad}
