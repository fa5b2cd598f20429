"""Messages for an adapter's common mistakes, in the errored case's reason: output that is not
JSON shows its first bytes and says where logs go (C-7); exit status 1 with a result says what
exit status 1 means (C-2). Each is one line, in the console and in the JSON report."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import protocol
from cardid_conformance.answer import Crashed, CrashKind, Rejected
from cardid_conformance.cases import Role
from cardid_conformance.outcome import Errored
from cardid_runner.cli import Exit, main

from tests.fakes.scripted import Behaviour, Out, line
from tests.fakes.scripted import Exit as Exited
from tests.processes import FAKE
from tests.scripted_runs import TARGET, is_target, results, run

READER_RESULT = b'{"card_table": [{"id": "c1", "name": "Island", "printing": null, "source_ids": [], "owner": "P1", "kind": "card"}]}\n'
C7 = "logs and debug output go to standard error (C-7)"


def reason(answer: Any) -> str:
    assert isinstance(answer, Crashed)
    assert "\n" not in answer.reason and "\r" not in answer.reason, "one line"
    return answer.reason


def test_output_that_is_not_json_shows_its_first_80_bytes_escaped_and_where_logs_go() -> None:
    output = b"loading \x1b[2Jmodel\n" + b"x" * 200 + b"\n" + READER_RESULT
    message = reason(protocol.per_case_answer(0, output, "", 0.1))
    shown = "loading \\x1b[2Jmodel\\x0a" + "x" * (80 - len("loading \x1b[2Jmodel\n"))
    assert f'its first bytes: "{shown}"...; {C7}' in message
    assert message.startswith("output is not JSON (Expecting value: line 1 column 1 (char 0))")


def test_a_log_line_after_the_result_is_reported_too() -> None:
    message = reason(protocol.per_case_answer(0, READER_RESULT + b"done in 3 ms\n", "", 0.1))
    assert "not JSON (Extra data" in message and C7 in message


def test_undecodable_bytes_are_shown_as_escapes() -> None:
    message = reason(protocol.per_case_answer(1, b"\xff\xfeboom", "", 0.1))
    assert 'its first bytes: "\\xff\\xfeboom"' in message and C7 in message
    assert message.startswith("exit status 1 without a rejection object")


def test_empty_output_is_said_to_be_empty() -> None:
    assert reason(protocol.per_case_answer(0, b"\n", "", 0.1)) == "output is not JSON: it is empty"


@pytest.mark.parametrize(
    ("role", "output"),
    [
        ("reader", READER_RESULT),
        ("writer", b'{"card_table": [], "assignments": [null]}'),
        (None, READER_RESULT),
    ],
    ids=["reader", "writer", "role-unknown"],
)
def test_exit_status_1_with_a_result_says_what_exit_status_1_means(role: str | None, output: bytes) -> None:
    message = reason(protocol.per_case_answer(1, output, "", 0.1, role))
    assert message == (
        "exit status 1 with a result on standard output: exit status 1 means a rejection (C-2); "
        "a result needs exit status 0"
    )


def test_exit_status_1_with_other_json_is_still_a_crash_without_a_rejection_object() -> None:
    message = reason(protocol.per_case_answer(1, b'{"error": "boom"}', "", 0.1, "reader"))
    assert message.startswith("exit status 1 without a rejection object on standard output")
    assert "first bytes" not in message  # it is JSON


def test_exit_status_1_with_the_rejection_object_is_a_rejection() -> None:
    answer = protocol.per_case_answer(1, b'{"rejected": "line 1: bad"}', "", 0.1, "reader")
    assert isinstance(answer, Rejected) and answer.message == "line 1: bad"


def test_exit_status_127_says_a_command_was_not_found() -> None:
    message = reason(protocol.per_case_answer(127, b"", "env: 'node': No such file or directory", 0.1))
    assert message == "exit status 127 (what a shell or env gives for a command it cannot find: see standard error)"


def test_persistent_mode_a_log_line_for_an_answer_is_shown_with_the_hint() -> None:
    """In persistent mode too (in-memory implementation): the answer line's first bytes."""

    def answer(message: dict[str, Any], seq: Any, served: int) -> list[Out]:
        if is_target(message["request"]):
            return [Out(b"DEBUG: resolving #u1\n")]
        return [Out(line({"seq": seq, "result": {"card_table": []}}))]

    message = results(run(Behaviour(persistent=answer)))[TARGET][1]
    assert message.startswith("the answer line is not JSON (Expecting value")
    assert f'its first bytes: "DEBUG: resolving #u1"; {C7}' in message


def test_a_log_line_before_the_handshake_is_shown_in_the_fallback_reason() -> None:
    execution = run(Behaviour(hello=(Out(b"adapter v0 starting up\n"),)))
    assert execution.mode == "per-case"
    assert f'its first bytes: "adapter v0 starting up"; {C7}' in (execution.fallback_reason or "")


@pytest.mark.parametrize(
    ("behaviour", "expected"),
    [
        ("exit1-with-result", "exit status 1 with a result on standard output: exit status 1 means a "
         "rejection (C-2); a result needs exit status 0"),
        ("logs-on-stdout", 'its first bytes: "loading model from ./model.bin \\x1b[32mok\\x1b[0m\\x0a'),
    ],
    ids=["exit1-with-result", "logs-on-stdout"],
)
def test_the_message_is_one_line_in_the_console_and_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], behaviour: str, expected: str
) -> None:
    report = tmp_path / "report.json"
    command = f"{sys.executable} {FAKE} {behaviour}"
    code = main(["run", "--isolate", "--impl", command, "--case", TARGET, "--report-json", str(report)])
    assert code == Exit.FAILED
    [console] = [text for text in capsys.readouterr().out.splitlines() if text.startswith("ERROR")]
    assert console.startswith(f"ERROR [MUST] {TARGET}: ") and expected in console
    [result] = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert result["status"] == "errored" and expected in result["message"]
    assert "\n" not in result["message"]
    if behaviour == "logs-on-stdout":
        assert C7 in console and C7 in result["message"]


def test_errored_outcome_keeps_the_reason_whole() -> None:
    """The reason reaches the outcome unchanged (no truncation of the hint at its end)."""
    message = reason(protocol.per_case_answer(0, b"x" * 5000, "", 0.1))
    execution = run(Behaviour(per_case=lambda request: [Out(b"x" * 5000), Exited(0)]), isolate=True)
    outcome = next(o for o in execution.outcomes if isinstance(o, Errored))
    assert message.endswith(C7) and outcome.reason.endswith(C7)


def test_a_rejection_object_with_exit_status_0_names_the_status_as_the_fix() -> None:
    """{"rejected": ...} with exit 0 is neither a result nor a rejection: the message says the
    exit status is what to change, not that a result field is missing."""
    message = reason(protocol.per_case_answer(0, b'{"rejected": "bad owner"}\n', "", 0.1))
    assert message.startswith('a rejection object {"rejected": ...} with exit status 0: a rejection '
                              "needs exit status 1 (C-2)")


def test_the_first_line_of_pretty_printed_json_is_named_as_such() -> None:
    """In persistent mode messages are read line by line: a handshake written with indentation
    arrives as `{`, and the message says to write one line, not where logs go."""
    problem = protocol.decode(b"{\n", "the handshake")
    assert isinstance(problem, protocol.Breach)
    assert problem.reason == (
        'the handshake is not JSON: "{\\x0a" looks like the first line of JSON written over several '
        "lines; write each message as one line of JSON, without indentation (C-5)"
    )
    answer = protocol.decode(b'  "seq": 1,\n', "the answer line")
    assert isinstance(answer, protocol.Breach) and "over several lines" in answer.reason


def test_empty_output_and_pretty_json_get_their_own_hints_from_the_doctor() -> None:
    """The kind a reason is given where it is written chooses the doctor's hint."""
    from cardid_runner.doctor import problem

    crash = protocol.per_case_answer(0, b"", "", 0.1)
    assert isinstance(crash, Crashed) and crash.kind is CrashKind.EMPTY
    empty = problem(f"per-case mode: a valid writer request: {crash.reason}", kind=crash.kind)
    assert empty.hint is not None and empty.hint.startswith("write the JSON answer on standard output")
    pretty_line = protocol.decode(b"{\n", "the answer line")
    assert isinstance(pretty_line, protocol.Breach) and pretty_line.kind is CrashKind.SEVERAL_LINES
    pretty = problem(f"persistent mode: {pretty_line.reason}", kind=pretty_line.kind)
    assert pretty.hint is not None and "without indentation" in pretty.hint


@pytest.mark.parametrize(
    ("made", "hint"),
    [
        (lambda: protocol.per_case_answer(1, b'{"card_table": []}', "", 0.1, Role.READER),
         "exit with status 0 after writing a result"),
        (lambda: protocol.per_case_answer(0, b'{"rejected": "no"}', "", 0.1), 'after writing {"rejected": "reason"}'),
        (lambda: protocol.per_case_answer(0, b"{\n", "", 0.1), "write each message as one line of JSON"),
        (lambda: protocol.per_case_answer(0, b"starting up", "", 0.1), "print logs and debug output to standard error"),
        (lambda: protocol.per_case_answer(1, b"starting up", "", 0.1), "print logs and debug output to standard error"),
        (lambda: protocol.per_case_answer(1, b"", "", 0.1), 'a rejection is exit status 1 and {"rejected"'),
        (lambda: protocol.per_case_answer(0, b"\xff", "", 0.1), "write UTF-8 on standard output"),
        (lambda: protocol.per_case_answer(127, b"", "", 0.1), "the command or its interpreter could not be run"),
        (lambda: protocol.per_case_answer(-9, b"", "", 0.1), "it died of a signal"),
        (lambda: protocol.per_case_answer(3, b"", "", 0.1), "see its standard error"),
        (lambda: protocol.parse_reply(b'{"result": {}}', 7), "echo each run's seq"),
        (lambda: protocol.parse_reply(b'{"seq": "7", "result": {}}', 7), "echo each run's seq"),
        (lambda: protocol.parse_reply(b'{"seq": 7, "result": {}, "x": 1}', 7), "an answer is one line"),
        # What the implementation wrote, quoted in a reason, chooses no hint.
        (lambda: protocol.parse_reply(b'{"seq": 7, "status": "timed out"}', 7), "see its standard error"),
        (lambda: protocol.parse_reply(b'{"seq": 7, "seq": 7, "result": {}}', 7), "see its standard error"),
        (lambda: protocol.reply_answer(protocol.Reply(seq=7, kind="error", value="killed by signal 9, not JSON"),
                                       "", 0.1), "see its standard error"),
    ],
)
def test_the_doctor_hints_by_the_kind_a_reason_is_given_where_it_is_written(
    made: Callable[[], Crashed | protocol.Breach], hint: str
) -> None:
    from cardid_runner.doctor import problem

    said = made()
    assert isinstance(said, Crashed | protocol.Breach)
    found = problem(f"per-case mode: a valid reader request (case reader-quoted-owner): {said.reason}", kind=said.kind)
    assert found.hint is not None and found.hint.startswith(hint), (said, found.hint)
