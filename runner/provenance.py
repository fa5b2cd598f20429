"""Where the suite's files came from: the git commit of the checkout, or the one an installed
wheel recorded when it was built (setup.py). Git is run here, in the runner, so that the pure
core (conformance/) runs no program."""

from __future__ import annotations

import functools
import shutil
import subprocess

from cardid_conformance.suite import ROOT


@functools.cache
def commit() -> str | None:
    """The git commit of the suite's files, with `+modified` when spec/, schema/ or cases/
    differ from it: from the checkout, or as recorded in an installed wheel when it was built
    (setup.py); None when neither says (a build from a source archive, no git)."""
    recorded = ROOT / "COMMIT"  # written into an installed wheel's copy when it was built
    if recorded.is_file():
        return recorded.read_text(encoding="utf-8").strip() or None
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    try:
        head = subprocess.run(
            [git, "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        changes = subprocess.run(
            [git, "-C", str(ROOT), "status", "--porcelain", "--", "spec", "schema", "cases"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+modified" if changes else "") if head else None
