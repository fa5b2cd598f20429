"""Where the suite's own files live: spec index, schemas and the case corpus."""

from __future__ import annotations

import os
from pathlib import Path


def _root() -> Path:
    """CARDID_SUITE when set; else the checkout this package is in (an editable install, or
    running from the checkout); else the copy an installed wheel carries (see setup.py)."""
    override = os.environ.get("CARDID_SUITE")
    if override:
        return Path(override)
    package = Path(__file__).resolve().parent
    if (package.parent / "spec" / "rules.yaml").is_file():
        return package.parent
    return package / "_suite"


#: Where spec/, schema/ and cases/ are.
ROOT = _root()
SPEC_DIR = ROOT / "spec"
SCHEMA_DIR = ROOT / "schema"
CASES_DIR = ROOT / "cases"
RULES_INDEX = SPEC_DIR / "rules.yaml"
