"""The progress line: drawn on a terminal for runs longer than a moment, silent elsewhere."""

from __future__ import annotations

import io
import time

import pytest
from cardid_conformance.outcome import Passed, Skipped
from cardid_runner import progress as progress_module
from cardid_runner.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_and_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the quiet first moment, each outcome redraws `[bar] done/total` and close clears it."""
    monkeypatch.setattr(progress_module, "_QUIET_FOR", 0.0)
    stream = _Terminal()
    bar = Progress(4, stream)
    bar(Passed(case_id="a"))
    bar(Skipped(case_id="b", reason="role"))
    assert "2/4" in stream.getvalue() and "0 not passing" in stream.getvalue()
    bar.close()
    assert stream.getvalue().endswith("\r")


def test_progress_is_silent_when_not_a_terminal() -> None:
    """Reports piped to a file or CI log get no progress noise."""
    stream = io.StringIO()
    bar = Progress(4, stream)
    time.sleep(0.01)
    bar(Passed(case_id="a"))
    bar.close()
    assert stream.getvalue() == ""
