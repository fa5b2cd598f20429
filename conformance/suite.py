"""Where the suite's own files live: spec index, schemas and the case corpus.

The one environment read of the core (CARDID_SUITE, at import): where the suite's files are is
a fact of the installation, as a package's data files are, and every loader of the core reads
from it; passing a root to each of them would add a parameter everywhere for what
`cardid verify-certificate` against another checkout and a few tests need."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from importlib import metadata
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


def version() -> str:
    """The suite's own version (the installed package's), not the spec's."""
    try:
        return metadata.version("cardid-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def cases_sha256(digests: Iterable[tuple[str, str]]) -> str:
    """One hash for the cases a run judged: sha256 over `ID DIGEST` lines, sorted by ID, each
    digest the case's own (Case.digest)."""
    lines = "".join(f"{case_id} {digest}\n" for case_id, digest in sorted(digests))
    return hashlib.sha256(lines.encode()).hexdigest()
