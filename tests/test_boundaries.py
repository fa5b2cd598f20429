"""The direction imports go: the pure core (conformance/) imports neither the runner nor the
reference, and runs no program; the reference imports neither the core nor the runner, so an
implementation author can read it alone; the runner's process package (runner/process/)
imports neither the core nor the reference, and nothing of the runner outside itself: the
runner words its errors. A test, so that a convenient import cannot undo it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: Package folder -> the project packages its modules may not import, and modules of the
#: standard library it may not import.
RULES = {
    # The core runs no program and waits on nothing: no processes, signals, pipes or threads
    # (the protocol's decoding, case YAML and ddmin live there as functions of data).
    "conformance": (
        {"cardid_runner", "cardid_reference"},
        {"subprocess", "multiprocessing", "signal", "selectors", "select", "pty", "threading",
         "concurrent", "asyncio"},
    ),
    "reference": ({"cardid_runner", "cardid_conformance"}, set()),
    "runner/process": ({"cardid_conformance", "cardid_reference"}, set()),
}


def _modules(path: Path) -> set[str]:
    """The modules every import statement of a module names, in full."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _imports(path: Path) -> set[str]:
    """The top-level names every import statement of a module names."""
    return {name.split(".")[0] for name in _modules(path)}


@pytest.mark.parametrize("folder", sorted(RULES))
def test_imports_go_one_way(folder: str) -> None:
    forbidden_packages, forbidden_modules = RULES[folder]
    found = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & (forbidden_packages | forbidden_modules))
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    assert not {name: bad for name, bad in found.items() if bad}


def test_the_process_package_imports_nothing_of_the_runner_outside_itself() -> None:
    found = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _modules(path)
            if name.split(".")[0] == "cardid_runner"
            and name != "cardid_runner.process" and not name.startswith("cardid_runner.process.")
        )
        for path in sorted((ROOT / "runner" / "process").rglob("*.py"))
    }
    assert not {name: bad for name, bad in found.items() if bad}


def test_no_test_module_imports_another() -> None:
    """What several test modules share lives in a module of its own (conftest.py, processes.py,
    report_scenarios.py, ...), never in another test module: importing one runs its module-level
    code and ties two files' fixtures together."""
    importers = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name.split(".")[:2][-1].startswith("test_") and name.startswith("tests.") for name in names):
                importers.append(f"{path.name}: {names[0]}")
    assert not importers, importers


def _edges(tree: ast.Module) -> set[str]:
    """The functions a module gives to `Command(name, declare, perform)` (runner/subcommand.py)
    as its declare and perform, by name."""
    edges = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Command":
            given = [*node.args[1:3], *(k.value for k in node.keywords if k.arg in ("declare", "perform"))]
            edges.update(value.id for value in given if isinstance(value, ast.Name))
    return edges


def test_the_namespace_stops_at_each_commands_edge() -> None:
    """A command's perform reads its parsed options (an argparse.Namespace) into typed values,
    and calls logic that takes them: no function but a Command's declare and perform has a
    parameter annotated with a Namespace (nor with a type that holds one, such as a Callable
    taking it)."""
    takers = []
    edges_seen = 0
    for folder in ("conformance", "runner", "reference"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            edges = _edges(tree)
            edges_seen += len(edges)
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name in edges:
                    continue
                arguments = node.args
                for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                            *filter(None, (arguments.vararg, arguments.kwarg))]:
                    if arg.annotation is not None and "Namespace" in ast.unparse(arg.annotation):
                        takers.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}({arg.arg})")
    assert edges_seen >= 2 * 17  # every command's declare and perform were found
    assert not takers, takers
