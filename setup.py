"""Packaging beyond pyproject.toml: an installed wheel carries the suite's own files.

The spec index, the schemas and the case corpus live at the top of the checkout (spec/,
schema/, cases/), where contributors edit them. A wheel has no checkout, so building one copies
them into the `conformance` package as `conformance/_suite/`, where `conformance.suite` finds
them. An editable install reads them from the checkout and needs no copy.
"""

from __future__ import annotations

import shutil
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


setup(cmdclass={"build_py": BuildWithSuite})
