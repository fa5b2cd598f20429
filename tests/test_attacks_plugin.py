"""Attacks under the pytest plugin: hostile answer lines (tests/fakes/fake_impl.py
hostile-lines) err their items, in one process and with --isolate (under -n 2:
tests/test_xdist.py); nothing reaches pytest as an internal error, and the other items pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"


#: 29 items: the serial run's one process meets every hostile line (each second request).
EVERY_LINE = "reader-rejects or reader-quoted"
#: 10 items, for the run that starts a process per item: the transport it uses is the serial
#: run's, so it shows the plugin's own path in its mode, not every line again.
SOME_LINES = "reader-rejects-e or reader-rejects-u or reader-quoted"


@pytest.mark.parametrize(
    ("extra", "selection"),
    [([], EVERY_LINE), (["--isolate"], SOME_LINES)],
    ids=["serial", "isolate"],
)
def test_hostile_lines_err_items_and_never_the_session(
    pytester: pytest.Pytester, extra: list[str], selection: str
) -> None:
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", f"{sys.executable} {FAKE} hostile-lines",
        "-k", selection, "-p", "no:cacheprovider", "-q", "--timeout-multiplier", "0.5", *extra,
    )
    text = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in text and "Traceback" not in text, text
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 2, text
    assert outcomes.get("passed", 0) >= 2, text
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "ERROR [MUST]" in text
