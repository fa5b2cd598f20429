"""Attacks on the process tree and on the runner's own life: no child outlives the run and no
temporary folder stays, whatever happens to the runner (a second signal during shutdown,
SIGHUP, SIGKILL); every wait is bounded, at stop too. Real processes, since these are
process faults."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import report as report_module
from cardid_conformance import schemas
from cardid_conformance.answer import Crashed
from cardid_runner.adapter import PerCase, Persistent, Request
from cardid_runner.cli import Exit, main
from cardid_runner.process import marks
from cardid_runner.process.marks import DIR_PREFIX
from cardid_runner.process.reads import Output
from cardid_runner.process.reaper import REAPER, stat
from cardid_runner.process.stop import STOP
from cardid_runner.process.timing import Timing
from cardid_runner.process.transport import Process

from tests.conftest import NO_HYPOTHESIS
from tests.fakes import scripted
from tests.processes import FAKE, running
from tests.processes import FAULT_CASES as CASES

TARGET = CASES[-1]
#: A child left holding the output pipe: output is read on for `after_exit` after the exit, a
#: wait the claims about the process tree are not about.
SHORT_READ = Timing(after_exit=0.05)


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text(encoding="utf-8").split()] if path.exists() else []


def _wait_for(condition: Any, seconds: float = 60.0) -> bool:
    """Poll a condition that is bound to come true soon (no timeout raced with a margin)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def _leftovers(scratch: Path) -> list[str]:
    return [p.name for p in scratch.iterdir() if p.name.startswith(DIR_PREFIX)]


@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_setsid_grandchild_does_not_outlive_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolate: bool
) -> None:
    """A grandchild that left the process group (setsid) is found by its CARDID_RUN mark and
    ended with its implementation process."""
    pid_file = tmp_path / "pids"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    code = main(["run", "--impl", f"{sys.executable} {FAKE} setsid-grandchild", "--case", TARGET,
                 *(["--isolate"] if isolate else [])], timing=SHORT_READ)
    assert code == Exit.OK
    pids = _pids(pid_file)
    assert len(pids) >= 2
    assert not [pid for pid in pids if running(pid)], "a process outlived the run"


#: A per-case adapter that leaves a walker behind: out of the group, forking away every PERIOD s.
FORKER = Path(__file__).parent / "fakes" / "escaping_forker.py"


@pytest.mark.parametrize("attempt", range(3))
def test_a_process_that_keeps_moving_does_not_outlive_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attempt: int
) -> None:
    """A process that leaves the group, then forks and lets its parent exit every 0.1 s, keeps
    the run's mark on a PID that keeps moving: a scan of /proc can fall between a fork and an
    exit (it outlived one --isolate run in three, still alive 3 s after). On Linux each one is
    the runner's child once its parent exits (a child subreaper): nothing carrying the mark
    runs once the run is over, two cases at a time, and none is left even as a zombie."""
    marks_file, pid_file = tmp_path / "marks", tmp_path / "pids"
    monkeypatch.setenv("FAKE_MARK_FILE", str(marks_file))
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    try:
        code = main(["run", "-q", "--impl", f"{sys.executable} {FORKER} 0.1", "--case", CASES[0], "--case", TARGET,
                     "--isolate", "-j", "2"], timing=SHORT_READ)
        assert code == Exit.OK
        run_marks = set(marks_file.read_text(encoding="utf-8").split())
        assert len(run_marks) == 2, "the walkers never ran"
        time.sleep(0.25)  # a survivor would have forked on twice by now
        survivors = [pid for mark in run_marks for pid in marks.marked_processes(mark)]
        assert not survivors, f"processes outlived the run: {survivors}"
        if REAPER.active:  # the walkers' own PIDs: other tests' orphans are this process's too
            walkers = {int(line.split()[1]) for line in pid_file.read_text(encoding="utf-8").splitlines()}
            zombies = [pid for pid in walkers if (state := stat(pid)) is not None and state.zombie]
            assert not zombies, f"walkers left unreaped: {zombies}"
    finally:
        _end_sessions(pid_file)


def _end_sessions(pid_file: Path) -> None:
    """End every session a walker of `pid_file` moved in, whatever the claim: a fork stays in
    its session's process group, so one signal to the group reaches every walker of it."""
    if not pid_file.exists():
        return
    for session in {int(line.split()[0]) for line in pid_file.read_text(encoding="utf-8").splitlines()}:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(session, signal.SIGKILL)


#: Starts a grandchild in a session of its own that sleeps, prints its PID, and exits 7.
ORPHANING = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
    "print(child.pid, flush=True)\n"
    "os._exit(7)\n"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux's")
def test_an_orphan_is_the_runners_child_and_is_reaped() -> None:
    """Linux: the runner is a child subreaper, so a process that left the group and whose
    parent exited is the runner's child, where it cannot be lost (not PID 1's, which a scan
    of /proc must find, and which may never reap it); ending the implementation kills it and
    reaps it: not even a zombie is left. The implementation's own exit status is still its."""
    proc = Process([sys.executable, "-c", ORPHANING])
    try:
        output = proc.read_all(time.monotonic() + 60)
        assert proc.wait_exit(time.monotonic() + 60) == 7
        assert isinstance(output, Output), output
        orphan = int(output.data)
        state = stat(orphan)
        assert state is not None and state.ppid == os.getpid(), state
    finally:
        proc.kill()
    assert proc.returncode == 7
    assert stat(orphan) is None, "the orphan is left (as a zombie or running)"


def test_reaping_orphans_takes_no_exit_status_a_popen_waits_for() -> None:
    """The orphans are reaped by their PIDs, never by a wait for any child: children that
    `subprocess` waits for (in the runner's session, or leading a session of their own) keep
    their exit status, whichever Process's end reaps the orphans meanwhile."""
    plain = subprocess.Popen([sys.executable, "-c", "raise SystemExit(5)"])
    leader = subprocess.Popen([sys.executable, "-c", "raise SystemExit(6)"], start_new_session=True)
    proc = Process([sys.executable, "-c", ORPHANING])
    assert _wait_for(lambda: stat(plain.pid) is not None and stat(leader.pid) is not None
                     and all(s is not None and s.zombie for s in (stat(plain.pid), stat(leader.pid))))
    proc.read_all(time.monotonic() + 60)
    proc.kill()
    assert proc.returncode == 7
    assert plain.wait(timeout=10) == 5
    assert leader.wait(timeout=10) == 6


def _runner(tmp_path: Path, behaviour: str, *args: str) -> tuple[subprocess.Popen[str], Path, Path]:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pid_file = tmp_path / "pids"
    env = {**os.environ, "TMPDIR": str(scratch), "FAKE_PID_FILE": str(pid_file),
           "FAKE_STOP_FILE": str(tmp_path / "stopped")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardid_runner", "run", "--impl", f"{sys.executable} {FAKE} {behaviour}",
         "--case", TARGET, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    return proc, scratch, pid_file


@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_sigkill_of_the_runner_leaves_no_process_and_no_folder(tmp_path: Path, isolate: bool) -> None:
    """SIGKILL cannot be handled: the watchdog, seeing the runner's pipe end, kills every
    process carrying the run's mark (the implementation and its setsid grandchild) and removes
    the run's temporary folders."""
    proc, scratch, pid_file = _runner(tmp_path, "setsid-grandchild hang", *(["--isolate"] if isolate else []))
    # The fake records its own PID at start and its grandchild's once spawned.
    assert _wait_for(lambda: len(_pids(pid_file)) >= 2), proc.stderr
    assert _leftovers(scratch)
    proc.kill()
    proc.communicate(timeout=60)
    pids = _pids(pid_file)
    assert _wait_for(lambda: not [pid for pid in pids if running(pid)]), "a process outlived the runner"
    assert _wait_for(lambda: not _leftovers(scratch)), _leftovers(scratch)


@pytest.mark.parametrize(
    ("signals", "code"),
    [((signal.SIGHUP,), {129}), ((signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGHUP), {129, 130, 143})],
    ids=["SIGHUP", "SIGTERM-then-three-more"],
)
def test_signals_end_the_run_with_a_partial_report_and_nothing_left(
    tmp_path: Path, signals: tuple[int, ...], code: set[int]
) -> None:
    """SIGHUP is handled like SIGTERM; signals after the first lose no report: the run exits
    128 + the first signal's number, with its report, no process and no folder left. (Signals
    pending together are delivered lowest number first, so which one is first is the kernel's
    choice here; the in-memory test below fixes the order.)"""
    report = tmp_path / "partial.json"
    proc, scratch, pid_file = _runner(tmp_path, "setsid-grandchild hang", "--report-json", str(report))
    assert _wait_for(lambda: len(_pids(pid_file)) >= 2)
    for signum in signals:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in code, err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", data) is None
    assert data["interrupted"] is True
    assert not [pid for pid in _pids(pid_file) if running(pid)]
    assert not _leftovers(scratch)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_signals_during_the_run_and_during_the_reports_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic, in memory: SIGTERM during the second case, then SIGINT and SIGTERM while
    the report is being written. The handler never raises: the partial report is whole, and
    the exit status is that of the first signal."""

    def answer(message: dict[str, Any], seq: Any, served: int) -> list[scripted.Event]:
        if served == 1:
            return [scripted.Call(lambda: os.kill(os.getpid(), signal.SIGTERM)), *scripted.persistent_right(message, seq)]
        return scripted.persistent_right(message, seq)

    behaviour = scripted.Behaviour(persistent=answer)
    original = report_module.to_json

    def to_json(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        return original(*args, **kwargs)

    monkeypatch.setattr(report_module, "to_json", to_json)
    path = tmp_path / "r.json"
    code = main(["run", *(o for c in CASES for o in ("--case", c)), "--report-json", str(path)],
                launcher=scripted.launcher(behaviour))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert code == 128 + signal.SIGTERM
    assert data["interrupted"] is True
    assert [r["case"] for r in data["results"]] == [CASES[0]]
    assert not STOP.is_set()  # cleared for the next run in this process


def test_stale_folders_of_a_dead_runner_are_removed_at_the_next_start(tmp_path: Path) -> None:
    """A folder left by a runner that died with its watchdog is removed by the next run."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = scratch / f"{DIR_PREFIX}{dead.pid}x00000000.1-abcd"
    stale.mkdir()
    (stale / "junk").write_text("x", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "run", "--case", TARGET],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert done.returncode == Exit.OK, done.stderr
    assert not stale.exists()


def _argv(behaviour: str) -> list[str]:
    return [sys.executable, str(FAKE), behaviour]


def test_request_not_read_is_bounded_by_the_case_limit_in_both_modes() -> None:
    """An implementation that stops reading: a 1 MiB request does not block the write past
    the case's limit (0.25 s here; it took 68 s), in persistent and in per-case mode."""
    payload = json.dumps({"role": "reader", "text": "x" * (1 << 20)}).encode()
    # No answer can come in either mode, so the limit has nothing to wait for but the write:
    # the request fills the pipe (64 KiB) whether the process has started yet or not.
    request = Request(tag="big", role="reader", payload=payload, timeout=0.25)
    session = Persistent(_argv("stop-reading"), start_timeout=30.0)
    assert not isinstance(session.start(), str)
    began = time.monotonic()
    answer = session.run(request)
    session.close()
    assert isinstance(answer, Crashed) and answer.timed_out, answer
    assert answer.reason == "timed out after 0.25 s (it had not read the whole request)"
    per_case = PerCase(_argv("stop-reading-per-case")).run(request)
    assert isinstance(per_case, Crashed) and per_case.timed_out, per_case
    assert per_case.reason == "timed out after 0.25 s (it had not read the whole request)"
    assert time.monotonic() - began < 30  # 2 x 0.25 s of limit, far from 68 s


def test_stop_that_is_ignored_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An implementation that ignores `stop` and keeps its output open is killed after the
    stop grace (2 s; 0.3 s here), with its group."""
    stopped = tmp_path / "stopped"
    monkeypatch.setenv("FAKE_STOP_FILE", str(stopped))
    session = Persistent(_argv("ignore-stop"), start_timeout=30.0, stop_grace=0.3)
    assert not isinstance(session.start(), str)
    pid = session.pid
    assert pid is not None
    began = time.monotonic()
    session.close()
    assert stopped.exists()
    assert time.monotonic() - began < 30
    assert not running(pid)


@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_a_messed_up_folder_is_still_removed(tmp_path: Path, isolate: bool) -> None:
    """The implementation removes permissions in its scratch folder (TMPDIR), moves the folder
    away and puts a symbolic link to / in its place: the runner removes the moved folder and the
    link (never following it), and the case passes."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "run", "--impl", f"{sys.executable} {FAKE} mess-workdir",
         "--case", TARGET, *(["--isolate"] if isolate else [])],
        capture_output=True, text=True, check=False, timeout=120, env={**os.environ, "TMPDIR": str(scratch)},
        cwd=tmp_path,
    )
    assert done.returncode == Exit.OK, done.stdout + done.stderr
    assert not list(scratch.iterdir())
    assert Path("/").is_dir() and Path("/proc").is_dir()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_pytest_plugin_killed_leaves_no_process_and_no_folder(tmp_path: Path, signum: int) -> None:
    """Under the pytest plugin too, killing pytest (SIGTERM, which pytest does not handle, or
    SIGKILL) leaves no implementation process and no folder: the watchdog ends them. (Killing
    an xdist controller leaves its workers to end their current item first, within its limit.)"""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pid_file = tmp_path / "pids"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", str(Path(__file__).resolve().parent.parent / "conformance"),
         "--impl", f"{sys.executable} {FAKE} setsid-grandchild hang", "-k", TARGET, "-p", "no:cacheprovider",
         *NO_HYPOTHESIS, "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(scratch), "FAKE_PID_FILE": str(pid_file)},
    )
    assert _wait_for(lambda: len(_pids(pid_file)) >= 2), proc.stderr
    proc.send_signal(signum)
    proc.communicate(timeout=60)
    pids = _pids(pid_file)
    assert _wait_for(lambda: not [pid for pid in pids if running(pid)]), "a process outlived pytest"
    assert _wait_for(lambda: not _leftovers(scratch)), _leftovers(scratch)


def test_only_marked_processes_are_killed() -> None:
    """A process without the mark (or with another run's) is never killed by the mark scan.
    The marks are this test's own: another test session on the machine uses others."""
    from cardid_runner.process.marks import _kill_if_marked, kill_marked

    other = f"someone-else-{os.getpid()}"
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 env={**os.environ, "CARDID_RUN": f"{other}.1"})
    try:
        kill_marked(f"{other}.2")
        kill_marked(other[:-1], prefix=True)
        _kill_if_marked(bystander.pid, f"{other}.3", prefix=False)
        assert bystander.poll() is None
        kill_marked(other, prefix=True)
        assert bystander.wait(timeout=10) == -signal.SIGKILL
    finally:
        bystander.kill()
        bystander.wait()


def test_a_signal_ends_the_wait_for_a_report_reader_that_never_reads(tmp_path: Path) -> None:
    """A FIFO whose reader opened it and reads nothing: the report waits for it, as a write to
    any stream would, until a signal comes. During a run a signal is only recorded, so before,
    SIGTERM left the runner waiting for ever; now that report is an error naming it, the other
    outputs are written, and the run exits 2, as for any output that cannot be written (the
    cases had all run: the run was not interrupted)."""
    fifo, junit = tmp_path / "report.fifo", tmp_path / "junit.xml"
    os.mkfifo(fifo)
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, which reads nothing
    try:
        capacity = fcntl.fcntl(reading, fcntl.F_SETPIPE_SZ, 4096)  # the TXT cases' report is larger
        proc = subprocess.Popen(
            [sys.executable, "-m", "cardid_runner", "run", "--rule", "TXT", "--report-json", str(fifo),
             "--junit", str(junit), "-q"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

        def full() -> bool:
            return int.from_bytes(fcntl.ioctl(reading, termios.FIONREAD, b"\0\0\0\0"), "little") >= capacity

        assert _wait_for(full), "the report never filled the pipe"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(reading)
    assert proc.returncode == Exit.USAGE, out + err
    assert f"error: cannot write --report-json {fifo}: interrupted while its reader took nothing" in err
    assert 'errors="0"' in junit.read_text(encoding="utf-8")
