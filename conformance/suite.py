"""Where the suite's own files live: spec index, schemas and the case corpus."""

from __future__ import annotations

import os
from pathlib import Path

#: The checkout this package belongs to; CARDID_SUITE overrides it.
ROOT = Path(os.environ.get("CARDID_SUITE") or Path(__file__).resolve().parent.parent)
SPEC_DIR = ROOT / "spec"
SCHEMA_DIR = ROOT / "schema"
CASES_DIR = ROOT / "cases"
RULES_INDEX = SPEC_DIR / "rules.yaml"
