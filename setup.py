"""Packaging beyond pyproject.toml: an installed wheel carries the suite's own files.

The spec index, the schemas and the case corpus live at the top of the checkout (spec/,
schema/, cases/), where contributors edit them. A wheel has no checkout, so building one copies
them into the `conformance` package as `conformance/_suite/`, where `conformance.suite` finds
them. An editable install reads them from the checkout and needs no copy.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SUITE_FILES = ("spec", "schema", "cases")


class BuildWithSuite(build_py):  # type: ignore[misc]
    """build_py, then the suite's files copied into the built `conformance` package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / "cardid_conformance" / "_suite"
        for name in SUITE_FILES:
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(HERE / name, target / name)
        commit = _commit()
        if commit is not None:  # what `cardid --version` and every report name (runner/provenance.py)
            (target / "COMMIT").write_text(commit + "\n", encoding="utf-8")


def _commit() -> str | None:
    """The checkout's commit, `+modified` when the suite's files differ from it; None when this
    is not a git checkout (a source archive) or git is not there."""
    git = shutil.which("git")
    if git is None or not (HERE / ".git").exists():
        return None
    try:
        head = subprocess.run([git, "-C", str(HERE), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        changes = subprocess.run([git, "-C", str(HERE), "status", "--porcelain", "--", *SUITE_FILES],
                                 capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+modified" if changes else "") if head else None


setup(cmdclass={"build_py": BuildWithSuite})
