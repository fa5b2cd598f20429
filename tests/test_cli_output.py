"""The CLI's own output: `--version`, a reader that goes away (`cardid run | head`), and
Markdown appended to a CI summary file."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardid_conformance import suite
from cardid_runner.cli import Exit, main

CASE = "flicker-keeps-id"


@pytest.fixture
def closed_stdout(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Standard output is a pipe whose reader has gone, as in `cardid run | head -1`."""
    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(io.FileIO(write, "w"), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    yield
    stream.close()


def test_list_into_a_closed_pipe_ends_quietly(closed_stdout: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == Exit.OK
    assert "BrokenPipe" not in capsys.readouterr().err


def test_run_into_a_closed_pipe_still_writes_its_reports_and_exit_status(
    closed_stdout: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = tmp_path / "summary.md"
    assert main(["run", "--case", CASE, "--markdown", str(markdown)]) == Exit.OK
    assert "CONFORMING" in markdown.read_text(encoding="utf-8")
    assert "BrokenPipe" not in capsys.readouterr().err


def test_version_names_the_suite_and_the_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == Exit.OK
    out = capsys.readouterr().out
    assert out.startswith(f"cardid {suite.version()} (card-identity spec 1.2.0, ")
    assert "cases" in out


def test_markdown_append_adds_to_a_step_summary(tmp_path: Path) -> None:
    """--markdown-append keeps what the file held (GitHub's $GITHUB_STEP_SUMMARY)."""
    summary = tmp_path / "step-summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    assert main(["run", "--case", CASE, "--markdown-append", str(summary)]) == Exit.OK
    assert main(["run", "--case", CASE, "--markdown-append", str(summary)]) == Exit.OK
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n")
    assert text.count("card-identity conformance") == 2


def test_markdown_append_refuses_what_it_must_not_append_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--case", CASE, "--markdown-append", str(tmp_path)]) == Exit.USAGE
    assert "--markdown-append" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["rules"], ["rules", "LIB"], ["doctor", "--impl", f"{sys.executable} -m cardid_reference"]])
def test_other_commands_into_a_closed_pipe_end_quietly(
    closed_stdout: None, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Every command prints through the same standard output: `cardid rules | head` too."""
    assert main(argv) == Exit.OK
    assert "BrokenPipe" not in capsys.readouterr().err


def test_closed_standard_descriptors_are_no_fault(tmp_path: Path) -> None:
    """`cardid run ... <&- >&- 2>&-`: each closed descriptor is opened on /dev/null before
    anything else takes its number. Closed standard input made the stop flag's pipe take
    descriptor 0; closed standard output or error made printing raise (a traceback, exit 1)."""
    junit = tmp_path / "junit.xml"
    # Standard output closed, `-` is /dev/null: it must not be the file that took descriptor 1.
    command = (f"exec {sys.executable} -m cardid_runner run --case {CASE} --junit {junit} "
               f"--report-json - <&- >&- 2>&-")
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == Exit.OK, done.stdout + done.stderr
    assert 'tests="1" failures="0" errors="0"' in junit.read_text(encoding="utf-8")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("command", [["list"], ["run", "--case", CASE]])
def test_a_full_disk_on_standard_output_is_one_error_line_and_exit_2(command: list[str]) -> None:
    """`cardid list > /dev/full`: no traceback; the command ends, says standard output could
    not be written, and exits 2, as for any output that cannot be written."""
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = subprocess.run([sys.executable, "-m", "cardid_runner", *command], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert done.returncode == Exit.USAGE, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "error: cannot write standard output: No space left on device"
    assert "Traceback" not in done.stderr


def test_an_ascii_only_terminal_gets_escapes_not_a_traceback() -> None:
    """PYTHONIOENCODING=ascii (or a C locale): non-ASCII text (the middle dot of a rule's
    heading, a name) is written as a backslash escape."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([sys.executable, "-m", "cardid_runner", "rules", "NAME-6"], capture_output=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == Exit.OK, done.stderr
    assert done.stdout.startswith(b"NAME-6 \\xb7 MUST")


def test_a_deleted_working_folder_is_a_usage_error(tmp_path: Path) -> None:
    """Run from a folder deleted since: one error naming it, exit 2, no traceback."""
    gone = tmp_path / "gone"
    gone.mkdir()
    command = f"cd {gone} && rmdir {gone} && exec {sys.executable} -m cardid_runner doctor --impl true"
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == Exit.USAGE, done.stderr
    assert done.stderr.startswith("error: the current folder no longer exists")


def test_cases_that_error_alike_are_shown_three_times_then_counted(tmp_path: Path) -> None:
    """An adapter that cannot work at all errs every case the same way: the console shows three
    of them in full and one line for the rest (it printed one block a case)."""
    script = tmp_path / "broken.sh"
    script.write_text("#!/bin/sh\necho 'Error: Cannot find module adapter.js' >&2\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    done = subprocess.run([sys.executable, "-m", "cardid_runner", "run", "--impl", str(script), "--isolate",
                           "--rule", "LIB"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == Exit.FAILED
    errors = [line for line in done.stdout.splitlines() if line.startswith("ERROR [")]
    assert len(errors) == 3, done.stdout[-2000:]
    [more] = [line for line in (done.stdout + done.stderr).splitlines() if " more case(s) errored the same way" in line]
    assert more.startswith("... and ") and "fix that first" in more
