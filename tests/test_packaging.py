"""An installed wheel (not only an editable checkout) carries the suite's own files and runs.

Builds the wheel from a copy of the project's files (the checkout stays clean), installs it into
a folder of its own, and runs the CLI and the pytest plugin from there with no checkout in reach.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, exactly

#: What a build reads: the packaging files and every folder that goes into the wheel.
PROJECT = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
FOLDERS = ("conformance", "runner", "reference", "spec", "schema", "cases")
SUITE_FILES = ("spec", "schema", "cases")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the wheel was installed into (`pip install --target`, dependencies left out)."""
    base = tmp_path_factory.mktemp("packaging")
    source = base / "source"
    source.mkdir()
    for name in PROJECT:
        shutil.copy2(ROOT / name, source / name)
    for name in FOLDERS:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    _commit_all(source)  # as pip's clone of a tag or commit is: a git checkout
    wheels = base / "wheels"
    wheels.mkdir()
    # The wheel is built as `pip wheel --no-build-isolation` builds it, through the PEP 517 hook
    # of the backend pyproject.toml names, in the test environment (where the backend is a test
    # dependency), without pip's own start-up around it (a second of this module's three).
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["build-backend"]
    hook = f"import sys, {backend} as backend; print(backend.build_wheel(sys.argv[1]))"
    built = subprocess.run(
        [sys.executable, "-c", hook, str(wheels)],
        cwd=source, capture_output=True, text=True, check=False, timeout=600,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("*.whl")
    assert wheel.name == built.stdout.strip().splitlines()[-1]
    target = base / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    done = subprocess.run(
        [*pip, "install", "--no-deps", "--no-compile", "--target", str(target), str(wheel)],
        capture_output=True, text=True, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for name in SUITE_FILES:
        for path in (ROOT / name).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                packed = f"cardid_conformance/_suite/{path.relative_to(ROOT).as_posix()}"
                assert packed in names, f"{packed} is not in the wheel"
    return target


def _commit_all(source: Path) -> None:
    """Make the copied source a git checkout of one commit (skipped where git is missing: the
    wheel then records no commit, and the test of it is skipped)."""
    git = shutil.which("git")
    if git is None:
        return
    identity = ["-c", "user.name=cardid tests", "-c", "user.email=tests@cardid.invalid"]
    for args in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-q", "-m", "wheel source"]):
        subprocess.run([git, *args], cwd=source, capture_output=True, check=True, timeout=60)


def _run(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run Python with only the installed folder (and the dependencies) to import from."""
    env = {k: v for k, v in os.environ.items() if k not in ("CARDID_SUITE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    return subprocess.run(
        [sys.executable, *args], cwd=target.parent, env=env,
        capture_output=True, text=True, check=False, timeout=600,
    )


def test_installed_wheel_finds_its_own_copy_of_the_suite(installed: Path) -> None:
    """With no checkout in reach, the suite's files are those inside the installed package."""
    done = _run(installed, "-c", "from cardid_conformance import suite; print(suite.ROOT)")
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == installed / "cardid_conformance" / "_suite"
    for name in SUITE_FILES:
        ours = sorted(p.relative_to(ROOT / name) for p in (ROOT / name).rglob("*.*"))
        theirs = sorted(p.relative_to(installed / "cardid_conformance" / "_suite" / name)
                        for p in (installed / "cardid_conformance" / "_suite" / name).rglob("*.*"))
        assert theirs == ours
        for relative in ours:
            assert (ROOT / name / relative).read_bytes() == (
                installed / "cardid_conformance" / "_suite" / name / relative
            ).read_bytes()


def test_installed_cli_certifies_the_reference(installed: Path) -> None:
    """`cardid run` (here `python -m cardid_runner run`) passes every case against the reference."""
    done = _run(installed, "-m", "cardid_runner", "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMING" in done.stdout
    count = len(list((ROOT / "cases").rglob("*.yaml")))
    assert f"{count} passed" in done.stdout, done.stdout


def test_installed_cli_judges_its_mutants_on_its_own_corpus(installed: Path) -> None:
    """`cardid mutants` finds the mutants in the installed package and judges them on the
    installed corpus, with the ending events read from the installed spec prose."""
    done = _run(installed, "-m", "cardid_runner", "mutants", "keep-through-shuffle", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["mutants"][0]["rules"] == ["LIB-2"]  # (LIB-2, E1): E1 is LIB-2's
    assert data["mutants"][0]["caught_by"]
    assert data["totals"]["cases"] == len(list((ROOT / "cases").rglob("*.yaml")))


def test_installed_pytest_plugin_collects_with_pyargs(installed: Path) -> None:
    """`pytest --pyargs cardid_conformance` collects the installed corpus, one item per case,
    and runs them (two selected here: the CLI test above runs them all from the same install)."""
    # --color=no: the summary is read as text, whatever FORCE_COLOR or PY_COLORS a CI sets.
    done = _run(installed, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", "--pyargs",
                "cardid_conformance", "-k", exactly("flicker-keeps-id", "reader-unknown-name"))
    count = len(list((ROOT / "cases").rglob("*.yaml")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"2 passed, {count - 2} deselected" in done.stdout, done.stdout


def test_installed_wheel_names_the_commit_it_was_built_from(installed: Path) -> None:
    """A wheel records the checkout's commit when it is built, so an installed suite's
    `--version` and reports name it (pip install of a tag or commit, README step 7)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed, so the wheel's source is no checkout and records no commit")
    source = installed.parent / "source"
    built_from = subprocess.run([git, "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True,
                                check=True, timeout=60).stdout.strip()
    done = _run(installed, "-m", "cardid_runner", "--version")
    assert done.returncode == 0, done.stderr
    assert f"commit {built_from}" in done.stdout, done.stdout


def test_every_package_folder_is_packaged() -> None:
    """Each folder of the three packages with an __init__.py is listed in pyproject.toml, so the
    wheel carries it (a subpackage left out imports from a checkout and fails once installed)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    names = {"conformance": "cardid_conformance", "runner": "cardid_runner", "reference": "cardid_reference"}
    found = {
        ".".join([names[top], *init.parent.relative_to(ROOT / top).parts])
        for top in names for init in (ROOT / top).rglob("__init__.py")
    }
    assert found == listed


def test_installed_cli_fuzzes_the_reference(installed: Path) -> None:
    """`cardid fuzz` plays generated games from the installed package."""
    done = _run(installed, "-m", "cardid_runner", "fuzz", "--games", "20")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "20 games (seeds 0-19), 0 disagreement(s)" in done.stdout
