"""`cardid doctor`: the reference passes every check; adapters with a first-time mistake each
get a problem with its own hint (tests/fakes/doctor_adapters.py); a per-case-only adapter is
noted, not faulted; answers are never judged for content."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cardid_runner import doctor
from cardid_runner.cli import Exit, main
from cardid_runner.doctor import Doctor, Finding
from cardid_runner.process.timing import DEFAULT, Timing

from tests.conftest import QUIET

ADAPTERS = Path(__file__).parent / "fakes" / "doctor_adapters.py"
REFERENCE = f"{sys.executable} -m cardid_reference"


#: Adapters that wait for input are found idle after conftest's QUIET, not a run's 0.5 s.
IDLE_SOON = Timing(quiet=QUIET)


def findings(mistake: str, role: str | None = "reader", timing: Timing = DEFAULT) -> list[Finding]:
    return list(Doctor([sys.executable, str(ADAPTERS), mistake], role=role, timing=timing).findings())


def problems(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.kind == "problem"]


def first_problem(mistake: str, timing: Timing = DEFAULT) -> Finding | None:
    """The first problem the checks of `--role reader` find, or None; the checks after it are
    not run (their processes are ended as the checks are closed)."""
    checks = Doctor([sys.executable, str(ADAPTERS), mistake], role="reader", timing=timing).findings()
    try:
        return next((f for f in checks if f.kind == "problem"), None)
    finally:
        checks.close()


def test_the_reference_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 0, every line `ok:` (or the note that it writes to stderr), and the closing line."""
    assert main(["doctor", "--impl", REFERENCE]) == Exit.OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"adapter looks right: run `cardid run --impl '{REFERENCE}'`"
    checks = lines[:-1]
    assert all(line.startswith(("ok: ", "note: it writes to standard error")) for line in checks), checks
    for expected in (
        "ok: the command starts",
        "ok: persistent mode: the handshake is valid for protocol.schema.json#/$defs/handshake: "
        "cardid-reference",
        "ok: persistent mode: a valid writer request (case keep-through-public-zones): seq 7 echoed, "
        "a result valid for schema/writer-output.schema.json",
        "ok: persistent mode: a must-reject reader request (case reader-rejects-missing-owner): "
        'rejected (seq 5 echoed, "rejected")',
        "ok: persistent mode: stop makes it exit with status 0",
        "ok: per-case mode: a valid reader request (case reader-quoted-owner): exit status 0, a result "
        "valid for schema/reader-output.schema.json",
        "ok: per-case mode: a must-reject writer request (case reject-control-change-of-card-not-on-"
        'battlefield): rejected (exit status 1 and {"rejected": ...})',
    ):
        assert any(line.startswith(expected) for line in checks), expected
    assert sum(line.startswith("ok: ") for line in checks) == 11


#: An adapter's mistake (tests/fakes/doctor_adapters.py), its problem's text and its hint.
MISTAKES = [
    ("exit1-no-object", "per-case mode: a must-reject reader request (case reader-rejects-missing-owner): "
     "exit status 1 without a rejection object", 'a rejection is exit status 1 and {"rejected": "reason"}'),
    ("rejected-exit-0", "per-case mode: a must-reject reader request (case reader-rejects-missing-owner): "
     'a rejection object {"rejected": ...} with exit status 0', 'after writing {"rejected": "reason"}, exit with status 1'),
    ("exit1-with-result", "per-case mode: a valid reader request (case reader-quoted-owner): exit status 1 "
     "with a result on standard output", "exit with status 0 after writing a result"),
    ("logs-on-stdout", 'persistent mode: the handshake is not JSON (Expecting value: line 1 column 1 '
     '(char 0)); its first bytes: "toy adapter 0.1 starting"', "print logs and debug output to standard error"),
    ("own-seq", "persistent mode: a valid reader request (case reader-quoted-owner): answered seq 1 to seq 7",
     "echo each run's seq exactly as received"),
    ("handshake-without-implementation", "persistent mode: the handshake does not match "
     "protocol.schema.json#/$defs/handshake at (top level): 'implementation' is a required property",
     'the handshake is {"protocol": 1, "implementation": {"name": "...", "version": "..."}'),
    ("unflushed", "persistent mode: the handshake came only when its input was closed: it does not flush",
     "flush standard output after each line"),
    ("stop-exits-2", "persistent mode: it exited with status 2 after stop", 'on {"cmd": "stop"}'),
    ("log-after-answer", "persistent mode: it wrote more than its answers on standard output (read at "
     'stop): "answered in 0 ms"', "write one line per answer and nothing else"),
]


#: The mistakes whose adapter waits for input by design, found idle sooner (IDLE_SOON); the
#: others keep a run's quiet time: none of them is found by waiting.
WAITS_FOR_INPUT = {"unflushed"}


@pytest.mark.parametrize(("mistake", "text", "hint"), MISTAKES, ids=[mistake for mistake, _, _ in MISTAKES])
def test_a_mistake_gets_its_own_problem_and_hint(mistake: str, text: str, hint: str) -> None:
    first = first_problem(mistake, IDLE_SOON if mistake in WAITS_FOR_INPUT else DEFAULT)
    assert first is not None, f"{mistake}: no problem found"
    assert first.text.startswith(text) and first.hint is not None and first.hint.startswith(hint), first


def test_a_per_case_adapter_that_reads_to_end_of_input_is_noted_not_faulted() -> None:
    found = findings("reads-to-eof", role=None, timing=IDLE_SOON)
    assert not problems(found)
    notes = [f.text for f in found if f.kind == "note"]
    assert any(n.startswith("persistent mode: none: it read the start line and waits for more input, as a "
                            "per-case adapter does (fine") for n in notes)
    assert "per-case mode: no handshake declares its roles, so both are checked" in notes[1]
    assert sum(f.kind == "ok" for f in found) == 5  # it starts, and four per-case requests


def test_problems_are_counted_and_the_exit_status_is_1(capsys: pytest.CaptureFixture[str]) -> None:
    command = f"{sys.executable} {ADAPTERS} own-seq"
    assert main(["doctor", "--impl", command, "--role", "reader"]) == Exit.FAILED
    out = capsys.readouterr().out.splitlines()
    assert "  hint: echo each run's seq exactly as received, as an integer (C-6)" in out
    assert out[-1].startswith("1 problem(s): fix them, then run `cardid doctor --impl ")
    assert out[-1].endswith(" --role reader` again")


def test_a_command_that_cannot_start_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "adapter.js").write_text("console.log('{}')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["doctor", "--impl", "./adapter.js"]) == Exit.FAILED
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "problem: the command does not start: cannot start implementation './adapter.js': not executable",
        "  hint: chmod +x ./adapter.js, or run it through its interpreter: node adapter.js",
    ]


def test_doctor_never_judges_the_content_of_an_answer() -> None:
    """A result that validates but is wrong (every ID renamed, the owner changed) is ok: the
    form is the doctor's business, the content `cardid run`'s."""
    found = findings("wrong-answers")
    assert not problems(found), problems(found)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["doctor"], "the following arguments are required: --impl"),
        (["doctor", "--impl", ""], "the implementation command is empty"),
        (["doctor", "--impl", "x", "--role", "both"], "invalid choice: 'both'"),
        (["doctor", "--impl", "x", "--timeout-multiplier", "0"], "takes a number from 0.01 to 1000"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == Exit.USAGE
    assert message in capsys.readouterr().err


def test_help_has_a_description_examples_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["doctor", "--help"])
    text = capsys.readouterr().out
    assert "apart\nfrom whether its answers are right" in text
    assert 'cardid doctor --impl "node adapter.js"' in text
    assert "exit status: 0 no problem found, 1 problems found, 2 usage error" in text


def test_the_sample_requests_exist_and_cover_both_roles_and_rejections() -> None:
    loaded = doctor.samples()
    assert {(s.role, s.rejects) for s in loaded} == {(r, x) for r in ("writer", "reader") for x in (False, True)}


def test_a_finding_shows_the_line_of_standard_error_that_says_what_went_wrong() -> None:
    """Node.js ends its error output with its version; the line naming the error comes first,
    then the last line, as before."""
    from cardid_runner.doctor import problem

    stderr = (
        "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\n"
        "Error: Cannot find module '/tmp/x/adapter.js'\n    at Module._resolveFilename (node:internal)\n"
        "{\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n"
    )
    lines = problem("it failed", stderr=stderr).lines()
    assert lines[-2:] == [
        "  its standard error says: Error: Cannot find module '/tmp/x/adapter.js'",
        "  its standard error ends: Node.js v20.20.2",
    ]
    traceback = "Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: boom\n"
    assert problem("it failed", stderr=traceback).lines()[-1] == "  its standard error ends: ValueError: boom"
