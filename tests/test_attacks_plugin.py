"""Attacks under the pytest plugin: hostile answer lines (tests/fakes/fake_impl.py
hostile-lines) err their items, with and without -n 2 and with --isolate; nothing reaches
pytest as an internal error, and the other items pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"


#: 29 items: the serial run's one process meets every hostile line (each second request).
EVERY_LINE = "reader-rejects or reader-quoted"
#: 10 items, for the runs that start a process per item or per worker: the transport they use
#: is the serial run's, so they show the plugin's own path in their mode, not every line again.
SOME_LINES = "reader-rejects-e or reader-rejects-u or reader-quoted"


@pytest.mark.parametrize(
    ("extra", "selection"),
    [([], EVERY_LINE), (["-n", "2"], SOME_LINES), (["--isolate"], SOME_LINES)],
    ids=["serial", "xdist", "isolate"],
)
def test_hostile_lines_err_items_and_never_the_session(
    pytester: pytest.Pytester, extra: list[str], selection: str
) -> None:
    run = pytester.runpytest_subprocess if "-n" in extra else pytester.runpytest
    result = run(
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
