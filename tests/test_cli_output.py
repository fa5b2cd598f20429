"""The CLI's own output: `--version`, a reader that goes away (`cardid run | head`), and
Markdown appended to a CI summary file."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardid_conformance import suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.outcome import Errored, Failed, Outcome, Passed
from cardid_conformance.spec import Spec
from cardid_runner.cli import Exit, main
from cardid_runner.run import Run, conclude
from cardid_runner.terminal import CaseLines

from tests.processes import running

CASE = "flicker-keeps-id"


@contextlib.contextmanager
def closed_stdout() -> Iterator[None]:
    """Standard output is a pipe whose reader has gone, as in `cardid run | head -1`. Entered in
    the test itself: pytest's capture puts its own standard output back as each test begins,
    over one a fixture set."""
    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(io.FileIO(write, "w"), encoding="utf-8", write_through=True)
    real, sys.stdout = sys.stdout, stream
    try:
        yield
    finally:
        sys.stdout = real
        stream.close()


def test_list_into_a_closed_pipe_ends_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    with closed_stdout():
        assert main(["list"]) == Exit.OK
    assert "BrokenPipe" not in capsys.readouterr().err


def test_run_into_a_closed_pipe_stops_quietly_with_status_141_and_its_partial_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reader is gone before the run begins: the run stops as SIGPIPE would stop it, runs no
    case, says nothing more (no traceback, no "interrupted" line), writes its partial reports
    (marked interrupted, to resume from) and exits 141."""
    markdown, report = tmp_path / "summary.md", tmp_path / "report.json"
    with closed_stdout():
        code = main(["run", "--case", CASE, "--markdown", str(markdown), "--report-json", str(report)])
    assert code == 128 + signal.SIGPIPE == 141
    assert capsys.readouterr().err == ""
    assert "the run was interrupted before every selected case ran" in markdown.read_text(encoding="utf-8")
    assert json.loads(report.read_text(encoding="utf-8"))["interrupted"] is True


#: A persistent adapter that answers every request wrong (nothing identified, nothing read), a
#: fifth of a second each, and notes its process ID: every case fails, slowly.
SLOW_WRONG = """
import json, os, sys, time
with open(sys.argv[1], "a") as pids:
    pids.write(f"{os.getpid()}\\n")
for raw in sys.stdin:
    message = json.loads(raw)
    if message.get("cmd") == "start":
        hello = {"protocol": 1, "implementation": {"name": "slow-wrong", "version": "0"},
                 "roles": ["writer", "reader"]}
        print(json.dumps(hello), flush=True)
    elif message.get("cmd") == "run":
        time.sleep(0.2)
        request = message["request"]
        result = {"card_table": []}
        if request["role"] == "writer":
            result["assignments"] = [None] * len(request["observations"])
        print(json.dumps({"seq": message["seq"], "result": result}), flush=True)
    else:
        break
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_run_piped_into_head_ends_once_head_has_its_lines(tmp_path: Path, jobs: str) -> None:
    """`cardid run | head -3`: each failure goes out as its case finishes, so head has its three
    lines (the two identity lines and the first failure) at once and leaves; the run then stops
    (it would take 370 x 0.2 s, over a minute), ends the implementation's processes, writes no
    traceback and nothing more, and exits 141, its partial report written."""
    adapter, pids, report = tmp_path / "slow_wrong.py", tmp_path / "pids", tmp_path / "report.json"
    adapter.write_text(SLOW_WRONG, encoding="utf-8")
    impl = f"{sys.executable} {adapter} {pids}"
    began = time.monotonic()
    run = subprocess.Popen([sys.executable, "-m", "cardid_runner", "run", "--impl", impl, "-j", jobs,
                            "--report-json", str(report)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    head = subprocess.run(["head", "-3"], stdin=run.stdout, capture_output=True, text=True, timeout=60,
                          check=False)
    run.stdout.close()  # head's end is the only reader left
    code = run.wait(timeout=60)
    elapsed = time.monotonic() - began
    errors = run.stderr.read().decode()
    run.stderr.close()
    lines = head.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith("implementation: slow-wrong 0, persistent mode")
    assert lines[2].startswith("FAIL [MUST] alchemy-name-keeps-prefix: [")
    assert code == 141, errors
    assert errors == ""
    assert elapsed < 20, f"the run went on for {elapsed:.1f} s after head left"
    started = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    assert started and not any(running(pid) for pid in started)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["interrupted"] is True and 0 < len(data["results"]) < 370


def test_case_lines_go_out_in_case_order_whatever_order_cases_finish(spec: Spec) -> None:
    """Cases finish in any order (one thread a case runner): each case's lines go out as soon
    as every case before it has finished, and in the end the console says exactly what it says
    when it prints the whole Result at once (the errors shown once for many included)."""
    corpus = load_corpus(case_files(suite.CASES_DIR), spec)
    run = Run(impl="./adapter", spec=spec, corpus=corpus)
    cases = corpus.cases[:12]
    outcomes: list[Outcome] = [
        Errored(case_id=case.id, level=case.level, reason="exit status 3", stderr="boom")
        if index % 3 == 0 else
        Failed(case_id=case.id, differences=(Difference(rule="ID-1", message="differs"),), levels=(case.level,))
        if index % 3 == 1 else Passed(case_id=case.id)
        for index, case in enumerate(cases)
    ]
    result = conclude(run, outcomes, selected=len(outcomes), hello=None, mode="per-case")
    whole = io.StringIO()
    CaseLines(run, quiet=False, stream=whole).finish(result)
    streamed = io.StringIO()
    shown = CaseLines(run, quiet=False, stream=streamed)
    shown.expect([case.id for case in cases], {})
    shown.started(None, "per-case")
    order = [*outcomes[1:7][::-1], outcomes[0], *outcomes[7:][::-1]]
    for outcome in order:
        shown.add(outcome)
        assert whole.getvalue().startswith(streamed.getvalue())
        if outcome is outcomes[1]:  # the first case has not finished: nothing is shown yet
            assert streamed.getvalue() == ""
    assert streamed.getvalue().count("\nFAIL [") == 4  # the cases up to the first's last
    shown.finish(result)
    assert streamed.getvalue() == whole.getvalue()
    assert "... and 1 more case(s) errored the same way (exit status 3)" in whole.getvalue()


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
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Every command prints through the same standard output: `cardid rules | head` too; a
    command other than a run goes on to its end, with its own exit status."""
    with closed_stdout():
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
