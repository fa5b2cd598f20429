"""What a new implementer meets when starting an adapter: the command runs in the folder
`cardid` runs in (with its own TMPDIR), a command that cannot start fails at once naming why,
and a per-case adapter (or a persistent one that forgot to flush) is told from a slow starter
without waiting out the handshake allowance."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest
from cardid_conformance.errors import UsageError
from cardid_conformance.outcome import status
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import Persistent
from cardid_runner.cli import Exit, main
from cardid_runner.execute import Invocation
from cardid_runner.handshake import WAITING
from cardid_runner.process.errors import CannotStart
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.process.transport import Process
from cardid_runner.starting import usage_error

from tests.conftest import QUIET
from tests.fakes.scripted import Behaviour, Out, launcher
from tests.processes import FAKE
from tests.scripted_runs import IDS, cases


def write(path: Path, text: str, *, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    path.chmod(mode)
    return path


def cannot_start(command: list[str]) -> UsageError:
    """The usage error a command reports for `command`, which the process package refuses to
    start (CannotStart)."""
    with pytest.raises(CannotStart) as caught:
        Process(command).kill()
    return usage_error(caught.value)


# The working directory.


def test_a_package_in_the_users_folder_runs_with_python_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m mypkg.adapter` finds `mypkg` in the current folder, as from a shell; the
    scratch folder it is given as TMPDIR is another, removed after the run."""
    write(tmp_path / "mypkg" / "__init__.py", "")
    write(tmp_path / "mypkg" / "adapter.py", """\
        import os, sys
        from cardid_reference.adapter import main
        with open(os.path.join(os.getcwd(), "seen.txt"), "a", encoding="utf-8") as handle:
            handle.write(os.environ["TMPDIR"] + "\\n")
        raise SystemExit(main())
    """)
    monkeypatch.chdir(tmp_path)
    command = f"{sys.executable} -m mypkg.adapter"
    assert main(["run", "--impl", command, "--case", "reader-quoted-owner"]) == Exit.OK
    assert "1 passed" in capsys.readouterr().out
    [scratch] = [Path(line) for line in (tmp_path / "seen.txt").read_text(encoding="utf-8").split()]
    assert scratch.name.startswith("cardid-impl-") and not scratch.exists()


def test_a_script_path_is_taken_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`./adapter.py` (executable, with a #! line) starts from the folder `cardid` runs in."""
    write(tmp_path / "adapter.py", f"""\
        #!{sys.executable}
        from cardid_reference.adapter import main
        raise SystemExit(main())
    """, mode=0o755)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--isolate", "--impl", "./adapter.py", "--case", "reader-quoted-owner"]) == Exit.OK


# Commands that cannot start.


def test_a_script_without_the_executable_bit_fails_at_once_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 before any case, saying it is not executable, with both ways out."""
    write(tmp_path / "toy.js", "console.log('{}')\n")
    monkeypatch.chdir(tmp_path)
    began = time.monotonic()
    assert main(["run", "--impl", "./toy.js --fast", "--case", "reader-quoted-owner"]) == Exit.USAGE
    assert time.monotonic() - began < 5
    captured = capsys.readouterr()
    assert "error: cannot start implementation './toy.js': not executable" in captured.err
    assert "hint: chmod +x ./toy.js, or run it through its interpreter: node toy.js --fast" in captured.err
    assert "passed" not in captured.out


def test_a_script_without_a_shebang_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "adapter.py", "print('{}')\n", mode=0o755)
    monkeypatch.chdir(tmp_path)
    error = cannot_start(["./adapter.py"])
    assert error.message == "cannot start implementation './adapter.py': it has no #! line naming its interpreter"
    assert error.hint is not None
    assert "#!/usr/bin/env python3" in error.hint and "python3 adapter.py" in error.hint


def test_a_shebang_naming_a_missing_interpreter_says_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "toy.js", "#!/nonexistent/node\nconsole.log('{}')\n", mode=0o755)
    monkeypatch.chdir(tmp_path)
    error = cannot_start(["./toy.js"])
    assert "its #! line names '/nonexistent/node', which cannot be found" in error.message
    assert error.hint is not None and "node toy.js" in error.hint


@pytest.mark.parametrize("line", ["#!/bin/sh", "#!/usr/bin/env python3"])
def test_a_shebang_with_a_windows_line_ending_is_refused_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    """A CR before the #! line's LF names an interpreter that does not exist (`/bin/sh\r`), or
    one env cannot find at every case (exit status 127): refused at once, naming the CR."""
    (tmp_path / "adapter").write_bytes(line.encode() + b"\r\ncat >/dev/null\r\necho {}\r\n")
    (tmp_path / "adapter").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    error = cannot_start(["./adapter"])
    assert error.message == (
        "cannot start implementation './adapter': its #! line ends with a Windows line ending "
        f"(CR LF), so the system looks for {line[2:] + chr(13)!r}, not {line[2:]!r}"
    )
    assert error.hint is not None and "LF line endings" in error.hint


def test_a_program_in_the_current_folder_written_without_dot_slash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a shell, a bare name is looked up on PATH only; the hint says to write ./toy.js."""
    write(tmp_path / "toy.js", "console.log('{}')\n", mode=0o755)
    monkeypatch.chdir(tmp_path)
    error = cannot_start(["toy.js"])
    assert error.message == "cannot start implementation 'toy.js': it is not on PATH"
    assert error.hint is not None and "written ./toy.js" in error.hint and "node toy.js" in error.hint


@pytest.mark.parametrize(
    ("command", "message", "hint"),
    [
        (["cardid-no-such-program-x"], "not found on PATH", "install it"),
        (["./missing.js"], "no such file (relative to ", "taken from the folder `cardid` runs in"),
        (["sub"], "not found on PATH", "install it"),
        (["./sub"], "it is a folder, not a program", "name the program"),
    ],
    ids=["not-on-path", "missing-file", "bare-folder-name", "folder"],
)
def test_other_commands_that_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], message: str, hint: str
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    error = cannot_start(command)
    assert message in error.message and error.hint is not None and hint in error.hint


def test_an_empty_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`--impl "$UNSET"` never silently tests the bundled reference."""
    assert main(["run", "--impl", "", "--case", "reader-quoted-owner"]) == Exit.USAGE
    assert "the implementation command is empty" in capsys.readouterr().err


# A per-case adapter, or a persistent one that forgot to flush, without the 30 s stall.




def fake(*behaviour: str) -> tuple[str, ...]:
    return (sys.executable, str(FAKE), *behaviour)


def test_a_per_case_adapter_falls_back_at_once_and_every_case_is_judged() -> None:
    """An adapter that reads standard input to end of file (C-1) never answers `start`: it is
    seen waiting for input, not waited out (30 s), and runs one process per case."""
    began = time.monotonic()
    arrived: list[float] = []
    execution = execute.run_cases(
        cases(IDS), Invocation(argv=fake("reads-to-eof"), timing=Timing(quiet=QUIET)), load_spec(),
        progress=lambda outcome: arrived.append(time.monotonic() - began),
    )
    # Far below the 30 s allowance it would otherwise wait out (about half a second here).
    assert arrived[0] < 10.0, f"the first case was judged {arrived[0]:.1f} s after the start"
    assert execution.mode == "per-case" and execution.fallback_reason == WAITING
    assert "a per-case adapter (it reads to end of input) is fine" in WAITING
    assert [status(o) for o in execution.outcomes] == ["passed"] * len(IDS)


def test_a_persistent_adapter_that_does_not_flush_is_told_to() -> None:
    began = time.monotonic()
    reason = Persistent(fake("unflushed"), start_timeout=30.0, timing=Timing(quiet=QUIET)).start()
    assert time.monotonic() - began < 10.0  # far below the 30 s allowance
    assert isinstance(reason, str) and "a persistent adapter must flush each line it writes" in reason
    assert "--isolate skips the handshake" in reason


# A slow starter that is busy (CPU) for longer than the quiet time keeps persistent mode:
# tests/test_faults.py's test_slow_start_within_the_allowance_passes (0.8 s of CPU).


def test_the_quiet_time_grows_with_the_timeout_multiplier_and_never_shrinks() -> None:
    assert Invocation.scaled(("x",), multiplier=4).timing.quiet == 4 * DEFAULT.quiet
    assert Invocation.scaled(("x",), multiplier=0.05).timing.quiet == DEFAULT.quiet
    assert Invocation.scaled(("x",), multiplier=4).timing.after_exit == DEFAULT.after_exit


def test_without_a_way_to_look_the_allowance_is_waited_out() -> None:
    """Where the pipe or /proc cannot be looked at (here: an in-memory process that says so),
    nothing is concluded: a silent implementation gets the whole allowance, as before."""
    behaviour = Behaviour(hello=(Out(b"", after=60.0),))
    session = launcher(behaviour, start_timeout=1.0).persistent()
    reason = session.start()
    assert isinstance(reason, str) and reason.startswith("no handshake within 1 s")
    assert "must flush each line it writes" in reason
