"""Attacks under the pytest plugin: hostile answer lines (tests/fakes/fake_impl.py
hostile-lines) err their items, in one process and with --isolate (under -n 2:
tests/test_xdist.py); nothing reaches pytest as an internal error, and the other items pass."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT
from tests.processes import FAKE

#: 21 items, and so 10 hostile lines: the serial run meets every one of them. Whole names: a
#: prefix would take in each new case that shares it.
EVERY_LINE = " or ".join(f"reader-rejects-{name}" for name in (
    "c1-control-in-name", "capitalized-kind", "capitalized-owner-field", "cr-at-end-without-lf",
    "delete-in-name", "duplicate-id", "empty-name", "empty-owner", "leading-byte-order-mark",
    "leading-space", "leading-tab", "lone-cr", "missing-owner", "seven-character-set-code",
    "stray-space", "tab-between-fields", "two-character-set-code", "unknown-kind", "whitespace-only-line",
))
#: 6 items, and so the first 3 lines, for the run that starts a process per item: the transport
#: it uses is the serial run's, so it shows the plugin's own path in its mode, not every line.
SOME_LINES = "reader-rejects-unknown or reader-rejects-unquoted-name or reader-rejects-upper-case"
#: What each of tests/fakes/fake_impl.py's HOSTILE_LINES, in its order, errs its item with.
MESSAGES = (
    "answered seq [",
    "the answer line is not usable JSON: nested deeper than 64 levels",
    "reported an error: boom \\ud800",
    "answered seq true, expected",
    ".0, expected",
    "the answer line is not strict JSON: duplicate key 'card_table'",
    "answered with both result and error",
    "the answer line is not UTF-8",
    "the answer line is not JSON",
    "wrote an array where an answer object was due",
)


@pytest.mark.parametrize(
    ("extra", "selection"),
    [([], EVERY_LINE), (["--isolate"], SOME_LINES)],
    ids=["serial", "isolate"],
)
def test_hostile_lines_err_items_and_never_the_session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, extra: list[str], selection: str
) -> None:
    """Every second request is answered with the next hostile line (in the serial run, each of
    them at least once): each fails its own item, none the session."""
    monkeypatch.setenv("FAKE_COUNT_FILE", str(pytester.path / "requests-counted"))
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
    # Each failed item says why in a line of its own (per-case mode: a line that is JSON but no
    # rejection is an answer, and a must-reject case that answers fails rather than errs). Under
    # CI (the CI variable set), pytest's short summary repeats each message in full: count each
    # line once.
    told = {line for line in text.splitlines() if line.startswith(("ERROR [MUST] ", "FAIL [MUST] "))}
    assert len(told) == outcomes["failed"], text
    assert sum(line.startswith("ERROR [MUST] ") for line in told) >= 2, text
    if selection == EVERY_LINE:
        assert [message for message in MESSAGES if message not in text] == [], text
