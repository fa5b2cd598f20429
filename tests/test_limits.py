"""A process the system cannot start for want of a descriptor or a process (a low `ulimit -n`
with many `-j`): not the command's fault, so the case errs, naming the limit and the fix, and
the run goes on, its reports written. A start waits for another process of the run to end
before it gives up. In memory (a spawn that fails), then with real processes under a lowered
RLIMIT_NOFILE."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_conformance.answer import Answer
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import ProcessLauncher, Request
from cardid_runner.cli import Exit
from cardid_runner.execute import Invocation
from cardid_runner.process.errors import NoResources

from tests.fakes.scripted import Behaviour, FakeLauncher, ScriptedProcess, right_answer
from tests.scripted_runs import IDS, cases, results

#: What `ulimit -n`, EMFILE and EAGAIN look like to a start (errno, and the words the case gets).
SCARCE = {
    errno.EMFILE: ("Too many open files", "no file descriptor left to start the implementation", "`ulimit -n`"),
    errno.ENFILE: ("Too many open files in system", "no file descriptor left to start the implementation: the system's",
                   "/proc/sys/fs/file-max"),
    errno.EAGAIN: ("Resource temporarily unavailable", "no process could be started", "`ulimit -u`"),
}


def _launcher(failing: Sequence[int], code: int) -> ProcessLauncher:
    """Real adapters over scripted processes whose n-th start (from 1) fails for want of a
    resource (errno `code`) for each n in `failing`; every start, when `failing` is empty."""
    calls = [0]

    def spawn(argv: Sequence[str]) -> ScriptedProcess:
        calls[0] += 1
        if not failing or calls[0] in failing:
            raise NoResources(argv, OSError(code, SCARCE[code][0]))
        return ScriptedProcess(Behaviour())

    return ProcessLauncher(("scripted",), 3.0, spawn=spawn)  # type: ignore[arg-type]


@pytest.mark.parametrize("code", sorted(SCARCE), ids=lambda code: errno.errorcode[code])
@pytest.mark.parametrize("failing", [(1,), (2,)], ids=["first", "middle"])
def test_a_case_whose_process_cannot_start_errs_and_the_run_goes_on(failing: tuple[int, ...], code: int) -> None:
    """Per-case mode: the first case's process (before any case finished, when it ended the
    run as a usage error: `cannot start implementation`, no report) or a later one cannot be
    started: that case errs with the limit and the fix, the others pass. Nothing else runs
    here, so nothing is waited for."""
    options = Invocation(argv=("scripted",), isolate=True, timeout=1.0, start_timeout=3.0)
    execution = execute.run_cases(cases(), options, load_spec(), launcher=_launcher(failing, code))
    got = results(execution)
    assert list(got) == list(IDS)
    erring = IDS[failing[0] - 1]
    status, reason = got.pop(erring)
    assert status == "errored"
    _, what, fix = SCARCE[code]
    assert reason.startswith(f"the implementation could not be started for this case: {what}"), reason
    assert fix in reason and "a smaller -j" in reason, reason
    assert {status for status, _ in got.values()} == {"passed"}
    assert execution.startup_failure is None


def test_a_persistent_process_that_cannot_start_errs_every_case_and_the_run_ends() -> None:
    """Persistent mode, no process can start at all (the first, the handshake's, neither):
    every case errs, saying so, one process per case, and the run ends with its results."""
    options = Invocation(argv=("scripted",), timeout=1.0, start_timeout=3.0)
    execution = execute.run_cases(cases(), options, load_spec(), launcher=_launcher((), errno.EMFILE))
    assert execution.mode == "per-case"
    assert execution.fallback_reason is not None and "ulimit -n" in execution.fallback_reason
    assert {status for status, _ in results(execution).values()} == {"errored"}


#: `python -m cardid_runner ARGS` with its descriptor limit (soft) lowered to argv[1] first.
LIMITED = (
    "import os, resource, sys\n"
    "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), hard))\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'cardid_runner', *sys.argv[2:]])\n"
)
#: 16 reader cases, one per worker of -j 16.
SELECTION = "reader-ac*"


def _limited_run(tmp_path: Path, limit: int) -> tuple[subprocess.CompletedProcess[str], dict]:
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, str(limit), "run", "-j", "16", "--isolate", "--case", SELECTION,
         "--report-json", str(report)],
        capture_output=True, text=True, check=False, timeout=300,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert report.exists(), done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", data) is None
    assert len(data["results"]) == 16 and data["summary"]["total"] == 16
    return done, data


def test_descriptors_run_short_under_j16_and_the_run_goes_on(tmp_path: Path) -> None:
    """`ulimit -n 64` with `-j 16 --isolate` (it said `cannot start implementation`, exit 2,
    no report, the finished cases lost): each start that finds no descriptor waits for another
    case's process to end and starts then; a case that still cannot start errs, naming the
    limit. Every case is in the report, and the exit status follows it."""
    done, data = _limited_run(tmp_path, 64)
    errored = [r for r in data["results"] if r["status"] == "errored"]
    assert {r["status"] for r in data["results"]} <= {"passed", "errored"}
    assert all("`ulimit -n`, is 64" in r["message"] for r in errored), errored
    assert done.returncode == (Exit.FAILED if errored else Exit.OK), done.stdout + done.stderr


def test_too_few_descriptors_for_any_process_err_every_case(tmp_path: Path) -> None:
    """A limit that leaves no room for even one implementation process (12 descriptors): every
    case errs at once with the limit and the fix (nothing else runs to wait for), the reports
    are written, exit 1."""
    done, data = _limited_run(tmp_path, 12)
    assert done.returncode == Exit.FAILED, done.stdout + done.stderr
    assert {r["status"] for r in data["results"]} == {"errored"}
    message = data["results"][0]["message"]
    assert "no file descriptor left to start the implementation" in message
    assert "`ulimit -n`, is 12" in message and "a smaller -j" in message
    assert "could not be started for this case" in done.stdout


@pytest.mark.parametrize("code", [errno.EMFILE, errno.ENFILE])
def test_the_runner_finding_no_descriptor_while_running_a_case_errs_that_case(code: int) -> None:
    """The runner itself finds no descriptor left while it runs a case (under `ulimit -n 64`
    with -j 16, a module it loads when first needed failed to import: a traceback, the run
    gone): the case is run once more when another process of the run has ended; with none to
    wait for (here, in memory), it errs, naming the limit and the fix, and the run goes on."""
    target = IDS[1]

    def answer(request: Request) -> Answer:
        if request.tag == target:
            raise OSError(code, SCARCE[code][0])
        return right_answer(request)

    options = Invocation(argv=("scripted",), timeout=1.0, start_timeout=3.0)
    execution = execute.run_cases(cases(), options, load_spec(), launcher=FakeLauncher(persistent_answer=answer))
    got = results(execution)
    assert list(got) == list(IDS)
    status, reason = got.pop(target)
    assert status == "errored"
    assert reason.startswith("the runner found no file descriptor left while running this case"), reason
    assert "`ulimit -n`" in reason and "a smaller -j" in reason
    assert {status for status, _ in got.values()} == {"passed"}
