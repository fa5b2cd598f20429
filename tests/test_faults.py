"""A catalogue of misbehaving implementations: each is classified right, with a clear message,
and every other case's result equals that of a clean run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cardid_runner.cli import Exit, main
from cardid_runner.process.timing import DEFAULT, Timing

from tests.conftest import QUIET
from tests.processes import FAKE, FAULT_CASES, FAULT_TARGET, running

TARGET = FAULT_TARGET
#: One case's time limit in these tests: 10 s x 0.1.
MULTIPLIER = "0.1"


CASES = FAULT_CASES


def _run(
    tmp_path: Path, behaviour: str, *extra: str, arg: str = "", cases: tuple[str, ...] = CASES,
    timing: Timing = DEFAULT,
) -> dict[str, Any]:
    report = tmp_path / f"{behaviour}-{len(extra)}.json"
    command = f"{sys.executable} {FAKE} {behaviour} {arg}".strip()
    selection = [option for case in cases for option in ("--case", case)]
    main(["run", "--impl", command, *selection, "--timeout-multiplier", MULTIPLIER,
          "--report-json", str(report), *extra], timing=timing)
    return json.loads(report.read_text(encoding="utf-8"))


def _by_case(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {r["case"]: (r["status"], r.get("message", "")) for r in report["results"]}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """The cases against a well-behaved fake."""
    return _by_case(_run(tmp_path_factory.mktemp("clean"), "rename"))


# Faults of real processes: time, pipes, exits, sizes. What an implementation writes (bad JSON,
# wrong seq, second answers, rejections) is attacked in memory: tests/test_attacks_transport.py.
# behaviour, argument, expected status of the target case, a pattern its message must match
TARGETED = [
    ("crash-mid-run", "", "errored", "crashes in a fresh process too|^exit status 3$"),
    ("partial-line-hang", "", "errored", "timed out"),
    ("hang", "", "errored", "timed out after (0.3|0.7) s"),
    # answers 0.1 s after its limit (0.3 s a case: see WAITS below)
    ("just-past-timeout", "0.4", "errored", "timed out after 0.3 s"),
    ("split-writes", "", "passed", ""),
    ("answers-twice-later", "", "errored", "answered the same request twice"),
    ("huge-stdout", "", "errored", "16,777,216 bytes"),
    ("close-stdin", "", "passed", ""),
    ("close-stdout-and-stay", "", "errored", "timed out after (0.3|0.7) s"),
    ("blank-flood", "", "errored", "timed out after (0.3|0.7) s|16,777,216 bytes"),
]
#: Faults that wait out the target's limit, in persistent mode at least (no answer comes).
WAITS = {"partial-line-hang", "hang", "just-past-timeout", "close-stdout-and-stay", "blank-flood"}
PER_CASE_DIFFERS: dict[str, str] = {
    # two answers are two JSON documents: not JSON
    "answers-twice-later": "errored",
}


#: Time-outs that per-case mode meets the same way as `hang` and `close-stdout-and-stay` (one
#: read of the whole output, one wait for the exit, both to the same deadline): run once, in
#: persistent mode, where each takes another path.
PERSISTENT_ONLY = {"partial-line-hang", "just-past-timeout"}
MODES = [
    pytest.param(behaviour, arg, status, words, isolate, id=f"{behaviour}-{'isolate' if isolate else 'persistent'}")
    for behaviour, arg, status, words in TARGETED
    for isolate in (False, True)
    if not (isolate and behaviour in PERSISTENT_ONLY)
]


def _targeted(folder: Path, behaviour: str, arg: str, isolate: bool) -> dict[str, Any]:
    # Where the target waits out its limit, the limit is short: persistent mode answers a healthy
    # case in a millisecond, so 0.3 s per case is ample (0.9 s for the handshake; the retry in a
    # fresh process waits it out too); a fresh fake per case answers within a tenth of a
    # second, and 0.7 s leaves room for the fakes of the other waiting runs starting beside it.
    # The other faults wait for nothing and keep 1 s per case: a crash's retry must start a
    # fresh process and crash within the limit for the message expected here.
    limit = ["--timeout-multiplier", "0.07" if isolate else "0.03"] if behaviour in WAITS else []
    return _run(folder, behaviour, *(["--isolate"] if isolate else []), *limit, arg=arg)


@pytest.fixture(scope="module")
def waited(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], dict[str, Any] | BaseException]:
    """The reports of the runs whose target waits out its limit (WAITS), run side by side, a
    thread each (as -j runs cases): they spend their time waiting on processes of their own, so
    together they take about as long as the longest, not 4.6 s one after another."""
    waiting = [(b, a, i) for b, a, _, _, i in (m.values for m in MODES) if b in WAITS]
    with ThreadPoolExecutor(max_workers=len(waiting)) as pool:
        futures = {(b, i): pool.submit(_targeted, tmp_path_factory.mktemp(b), b, a, i) for b, a, i in waiting}
    return {key: future.exception() or future.result() for key, future in futures.items()}


@pytest.mark.parametrize(("behaviour", "arg", "status", "words", "isolate"), MODES)
def test_targeted_fault_is_classified_and_contained(
    request: pytest.FixtureRequest, tmp_path: Path, clean: dict[str, tuple[str, str]], behaviour: str,
    arg: str, status: str, words: str, isolate: bool,
) -> None:
    """The faulty case gets the right status and message; all other cases match a clean run."""
    if behaviour in WAITS:
        report = request.getfixturevalue("waited")[behaviour, isolate]
        if isinstance(report, BaseException):
            raise report
    else:
        report = _targeted(tmp_path, behaviour, arg, isolate)
    results = _by_case(report)
    expected = PER_CASE_DIFFERS.get(behaviour, status) if isolate else status
    got_status, message = results.pop(TARGET)
    assert got_status == expected, message
    if not (isolate and behaviour in PER_CASE_DIFFERS):
        assert re.search(words, message), message
    others = {case: value[0] for case, value in clean.items() if case != TARGET}
    assert {case: value[0] for case, value in results.items()} == others


@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_one_output_limit_for_both_modes(tmp_path: Path, isolate: bool) -> None:
    """16 MiB of answer (its newline not counted) is read in either mode; one byte more is
    `wrote more than 16,777,216 bytes` in either mode."""
    mode = ["--isolate"] if isolate else []
    # The target alone: the fake pads only its answer.
    exact = _by_case(_run(tmp_path, "pad", *mode, arg="0", cases=(TARGET,)))
    over = _by_case(_run(tmp_path, "pad", *mode, "--quiet", arg="1", cases=(TARGET,)))
    assert exact[TARGET] == ("passed", "")
    assert over[TARGET][0] == "errored" and "wrote more than 16,777,216 bytes" in over[TARGET][1]


def test_endless_second_answers_are_bounded_by_the_case_limit(tmp_path: Path) -> None:
    """Second answers to the first request, without end, in place of the target's answer: the
    target times out, the first case is marked, the run ends."""
    results = _by_case(_run(tmp_path, "repeat-flood", "--timeout-multiplier", "0.05"))
    assert results[CASES[0]] == ("errored", "answered the same request twice")
    assert results[TARGET][0] == "errored" and "timed out after 0.5 s" in results[TARGET][1]


def test_crash_at_start_errors_every_case_with_the_exit_status(tmp_path: Path) -> None:
    """An implementation that dies before the handshake falls back, and each case is errored."""
    report = _run(tmp_path, "crash-at-start")
    assert report["implementation"]["mode"] == "per-case"
    assert {r["status"] for r in report["results"]} == {"errored"}
    assert all("exit status 3" in r["message"] for r in report["results"])


def test_noise_before_handshake_falls_back_to_per_case(tmp_path: Path, clean: dict[str, tuple[str, str]]) -> None:
    """Printing a banner before the handshake is not the handshake: the run goes per case."""
    report = _run(tmp_path, "noise-before-handshake")
    assert report["implementation"]["mode"] == "per-case"
    assert {c: v[0] for c, v in _by_case(report).items()} == {c: v[0] for c, v in clean.items()}


def test_slow_start_within_the_allowance_passes(
    tmp_path: Path, clean: dict[str, tuple[str, str]]
) -> None:
    """A 0.4 s start with 0.3 s per case (0.9 s for the handshake) is not charged to any case;
    busy (CPU) for longer than the quiet time (conftest's QUIET here), it is not taken for a
    per-case adapter."""
    assert QUIET < 0.4
    report = _run(tmp_path, "slow-start", "--timeout-multiplier", "0.03", arg="0.4",
                  timing=Timing(quiet=QUIET))
    assert report["implementation"]["mode"] == "persistent"
    assert {c: v[0] for c, v in _by_case(report).items()} == {c: v[0] for c, v in clean.items()}


#: Runs the CLI and reports the runner's own peak memory (not its children's) on stderr.
#: VmHWM, not ru_maxrss: after fork and exec, ru_maxrss still holds the parent's peak (here,
#: the whole pytest session's), while VmHWM belongs to this process's own memory map.
_MEASURED = (
    "import sys\n"
    "from runner.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status', encoding='ascii').read()\n"
    "peak = status.split('VmHWM:', 1)[1].split()[0]\n"
    "sys.stderr.write(f'\\nPEAK_KIB={peak}\\n')\n"
    "sys.exit(code)\n"
)


def _cli(tmp_path: Path, behaviour: str) -> tuple[int, float, dict[str, Any]]:
    """Run the CLI in its own process; return its exit code, its peak memory in MiB, the report."""
    report = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, "run", "--impl", f"{sys.executable} {FAKE} {behaviour}",
         *(option for case in CASES for option in ("--case", case)),
         "--timeout-multiplier", MULTIPLIER, "--report-json", str(report)],
        capture_output=True, text=True, check=False, timeout=300,
    )
    peak_kib = int(done.stderr.rsplit("PEAK_KIB=", 1)[1].split()[0])
    return done.returncode, peak_kib / 1024, json.loads(report.read_text(encoding="utf-8"))


def test_stderr_flood_passes_in_bounded_memory(tmp_path: Path, clean: dict[str, tuple[str, str]]) -> None:
    """20 MB of stderr per process while answering right: every case passes, the runner stays small."""
    code, peak_mib, report = _cli(tmp_path, "stderr-flood")
    assert code == Exit.OK
    assert {c: v[0] for c, v in _by_case(report).items()} == {c: v[0] for c, v in clean.items()}
    assert peak_mib < 150


def test_huge_stdout_is_capped_in_bounded_memory(tmp_path: Path) -> None:
    """300 MB on stdout: the runner stops reading at its 16 MiB cap and its memory stays bounded."""
    _, peak_mib, report = _cli(tmp_path, "huge-stdout")
    assert _by_case(report)[TARGET][0] == "errored"
    assert peak_mib < 150


def test_no_orphan_is_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child process the implementation spawns ends with the run (its whole process group)."""
    pid_file = tmp_path / "pids"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    # The child holds the output pipe: output is read on for `after_exit` after the exit, a
    # wait this claim is not about.
    for isolate in ([], ["--isolate"]):
        code = main(["run", "--impl", f"{sys.executable} {FAKE} orphan-child", "--case", TARGET, "-q",
                     *isolate], timing=Timing(after_exit=0.05))
        assert code == Exit.OK
    # The fake records its own PID at start and each child's PID when it spawns it.
    pids = [int(line) for line in pid_file.read_text(encoding="utf-8").split()]
    assert len(pids) >= 4
    for pid in pids:
        assert not running(pid), f"process {pid} outlived the run"
