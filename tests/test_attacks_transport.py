"""Attacks on the transport, in memory (tests/fakes/scripted.py): whatever an implementation
writes, the runner does not raise; the case is errored with a message, the run goes on, and
every other case keeps the result of a clean run. In both modes, milliseconds each."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from cardid_conformance.answer import Crashed
from cardid_conformance.outcome import status
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import Request
from cardid_runner.execute import Execution, Invocation
from cardid_runner.process.reads import MAX_OUTPUT

from tests.fakes.scripted import (
    HELLO,
    Behaviour,
    CloseOut,
    Err,
    Event,
    Exit,
    Out,
    StopReading,
    launcher,
    line,
    per_case_right,
    persistent_right,
    right,
)
from tests.scripted_runs import IDS, TARGET, cases, is_target, results, run


def on_target(
    persistent: Callable[[Any, Any], Sequence[Event]] | None = None,
    per_case: Callable[[Any], Sequence[Event]] | None = None,
    **kwargs: Any,
) -> Behaviour:
    """A behaviour that is right everywhere but on the target case."""

    def p(message: dict[str, Any], seq: Any, served: int) -> Sequence[Event]:
        if persistent is not None and is_target(message["request"]):
            return persistent(message, seq)
        return persistent_right(message, seq)

    def c(request: Any) -> Sequence[Event]:
        if per_case is not None and is_target(request):
            return per_case(request)
        return per_case_right(request)

    return Behaviour(persistent=p, per_case=c, **kwargs)


def result_of(message: dict[str, Any]) -> Any:
    return right(message["request"])[1]


def assert_contained(execution: Execution, words: str, *, status_: str = "errored") -> str:
    """The target has the status and a message holding `words`; the others passed."""
    got = results(execution)
    assert set(got) == set(IDS), got
    target_status, message = got.pop(TARGET)
    assert target_status == status_, message
    assert words in message, message
    assert all(value[0] == "passed" for value in got.values()), got
    message.encode("utf-8")  # printable: no lone surrogate reached a message
    return message


NESTED = b"[" * 200_000 + b"]" * 200_000

# (id, the answer line given on the target, words the message must hold). {seq} is the seq sent;
# {result} the right result's JSON.
LINES: list[tuple[str, bytes, str]] = [
    ("seq-array", b'{"seq": [{seq}], "result": {result}}', "answered seq [{seq}], expected {seq}"),
    ("seq-object", b'{"seq": {"n": {seq}}, "result": {result}}', "expected {seq}"),
    ("seq-true", b'{"seq": true, "result": {result}}', "answered seq true, expected {seq}"),
    ("seq-float", b'{"seq": {seq}.0, "result": {result}}', "expected {seq} (the very integer sent)"),
    ("seq-string", b'{"seq": "{seq}", "result": {result}}', "expected {seq}"),
    ("seq-null", b'{"seq": null, "result": {result}}', "answered seq null"),
    ("seq-missing", b'{"result": {result}}', "answered without seq"),
    ("seq-huge-int", b'{"seq": 1' + b"0" * 5000 + b', "result": {result}}', "not JSON"),
    ("seq-inf", b'{"seq": 1e400, "result": {result}}', "1e400 is not a finite number"),
    ("seq-nan", b'{"seq": NaN, "result": {result}}', "NaN is not a finite number"),
    ("seq-other", b'{"seq": 999, "result": {result}}', "answered seq 999, expected {seq}"),
    ("seq-duplicate-key", b'{"seq": {seq}, "seq": {seq}, "result": {result}}', "duplicate key 'seq'"),
    ("nested-arrays", NESTED, "nested deeper than 64 levels"),
    ("nested-in-result", b'{"seq": {seq}, "result": {"card_table": ' + NESTED + b"}}", "nested deeper than 64 levels"),
    # Deep enough for a repr or a schema message to reach the recursion limit, not json's.
    ("nested-985-in-result", b'{"seq": {seq}, "result": {"card_table": [' + b"[" * 985 + b"]" * 985 + b"]}}", "nested deeper than 64 levels"),
    ("nested-65", b'{"seq": {seq}, "result": {"card_table": [' + b"[" * 64 + b"]" * 64 + b"]}}", "nested deeper than 64 levels"),
    ("huge-schema-message", b'{"seq": {seq}, "result": {"card_table": "' + b"x" * 3_000_000 + b'"}}', "characters cut)... "),
    ("error-lone-surrogate", b'{"seq": {seq}, "error": "boom \\ud800"}', "reported an error: boom \\ud800"),
    ("error-not-string", b'{"seq": {seq}, "error": ["x"]}', "answer-error"),
    ("result-lone-surrogate", b'{"seq": {seq}, "result": {"card_table": [{"id": "\\udfff"}]}}', "the result holds a lone surrogate (\\udfff)"),
    ("result-duplicate-key", b'{"seq": {seq}, "result": {"card_table": [], "card_table": []}}', "duplicate key 'card_table'"),
    ("result-and-error", b'{"seq": {seq}, "result": {result}, "error": "x"}', "both result and error"),
    ("result-and-rejected", b'{"seq": {seq}, "result": {result}, "rejected": "x"}', "both result and rejected"),
    ("rejected-and-error", b'{"seq": {seq}, "rejected": "x", "error": "x"}', "both rejected and error"),
    ("extra-key", b'{"seq": {seq}, "result": {result}, "elapsed": 1}', "answer-result"),
    ("result-array", b'{"seq": {seq}, "result": []}', "answer-result"),
    ("rejected-number", b'{"seq": {seq}, "rejected": 5}', "answer-rejected"),
    ("no-kind", b'{"seq": {seq}}', "without result, rejected or error"),
    ("array-line", b"[1, 2]", "wrote an array where an answer object was due"),
    ("string-line", b'"hello"', "wrote a string"),
    ("number-line", b"42", "wrote a number"),
    ("null-line", b"null", "wrote null"),
    ("true-line", b"true", "wrote a boolean"),
    ("not-json", b"Traceback (most recent call last):", "not JSON"),
    ("utf8-invalid-start", b"\xff{\"seq\": {seq}, \"result\": {result}}", "not UTF-8 (byte 0)"),
    ("utf8-invalid-inside", b'{"seq": {seq}, "result": {"card_table": "\xc3\x28"}}', "not UTF-8"),
    ("utf8-invalid-end", b'{"seq": {seq}, "result": {result}}\xe2\x82', "not UTF-8"),
    ("utf8-overlong", b'{"seq": {seq}, "error": "\xc0\xaf"}', "not UTF-8"),
    ("utf16", '{"seq": {seq}, "result": {}}'.encode("utf-16"), "not UTF-8"),
    ("result-infinity", b'{"seq": {seq}, "result": {"card_table": Infinity}}', "Infinity is not a finite number"),
]


def _fill(template: bytes, seq: Any, result: Any) -> bytes:
    return template.replace(b"{seq}", str(seq).encode()).replace(
        b"{result}", json.dumps(result).encode()
    )


@pytest.mark.parametrize(("template", "words"), [(t, w) for _, t, w in LINES], ids=[i for i, _, _ in LINES])
def test_hostile_answer_line_is_errored_with_a_message(template: bytes, words: str) -> None:
    """Persistent mode: each hostile answer line errs the target, never the runner."""
    seqs: list[int] = []

    def hostile(message: Any, seq: Any) -> list[Event]:
        seqs.append(seq)
        return [Out(_fill(template, seq, result_of(message)) + b"\n")]

    execution = run(on_target(hostile))
    expected = words.replace("{seq}", str(seqs[0]))
    message = assert_contained(execution, expected)
    # A breach only persistent mode shows is not retried, nor blamed on earlier cases.
    assert "only after earlier cases" not in message


PER_CASE_OUTPUTS: list[tuple[str, bytes, int, str]] = [
    ("nested-arrays", NESTED, 0, "nested deeper than 64 levels"),
    ("nested-985", b'{"card_table": [' + b"[" * 985 + b"]" * 985 + b"]}", 0, "nested deeper than 64 levels"),
    ("duplicate-key", b'{"card_table": [], "card_table": []}', 0, "duplicate key 'card_table'"),
    ("lone-surrogate", b'{"card_table": [{"id": "\\ud800"}]}', 0, "lone surrogate"),
    ("invalid-utf8", b"\xff\xfe{}", 0, "not UTF-8 (byte 0)"),
    ("huge-int", b"1" * 5000, 0, "not JSON"),
    ("nan", b"NaN", 0, "not JSON"),
    ("empty", b"", 0, "not JSON"),
    ("array", b"[]", 0, "does not match schema"),
    ("exit1-no-object", b"", 1, "exit status 1 without a rejection object"),
    ("exit1-rejected-not-string", b'{"rejected": 1}', 1, "exit status 1 without a rejection object"),
    ("exit1-rejected-and-more", b'{"rejected": "x", "seq": 1}', 1, "exit status 1 without a rejection object"),
    ("exit1-duplicate-rejected", b'{"rejected": "x", "rejected": "y"}', 1, "exit status 1 without"),
    ("exit1-nested", NESTED, 1, "exit status 1 without"),
    ("exit-3", b"", 3, "exit status 3"),
    ("signal", b"", -11, "killed by signal 11"),
]


@pytest.mark.parametrize(("output", "code", "words"), [(o, c, w) for _, o, c, w in PER_CASE_OUTPUTS],
                         ids=[i for i, _, _, _ in PER_CASE_OUTPUTS])
def test_hostile_per_case_output_is_errored_with_a_message(output: bytes, code: int, words: str) -> None:
    """--isolate: each hostile output (and exit status) errs the target, never the runner."""
    execution = run(on_target(per_case=lambda request: [Out(output), Exit(code)]), isolate=True)
    assert_contained(execution, words)


def test_rejection_message_with_a_lone_surrogate_is_printable() -> None:
    """A rejection of a valid request, with a lone surrogate in its text, fails printably."""

    def reject(message: Any, seq: Any) -> list[Event]:
        return [Out(b'{"seq": %d, "rejected": "no \\udc80"}\n' % seq)]

    execution = run(on_target(reject, per_case=lambda r: [Out(b'{"rejected": "no \\udc80"}'), Exit(1)]))
    [target] = [o for o in execution.outcomes if o.case_id == TARGET]
    assert status(target) == "failed"
    assert "\\udc80" in target.differences[0].message  # type: ignore[union-attr]
    for isolate in (False, True):
        got = run(on_target(reject, per_case=lambda r: [Out(b'{"rejected": "no \\udc80"}'), Exit(1)]),
                  isolate=isolate)
        assert [status(o) for o in got.outcomes] == ["passed", "passed", "failed"]


# Handshakes: a malformed one never enables persistent mode, and never makes cases skip.
HANDSHAKES: list[tuple[str, bytes, str]] = [
    ("shaped-like-an-answer", b'{"seq": 0, "result": {}}', "handshake"),
    ("roles-empty", json.dumps({**HELLO, "roles": []}).encode(), "roles"),
    ("roles-unknown", json.dumps({**HELLO, "roles": ["painter"]}).encode(), "roles"),
    ("roles-twice", json.dumps({**HELLO, "roles": ["writer", "writer"]}).encode(), "roles"),
    ("roles-string", json.dumps({**HELLO, "roles": "writer"}).encode(), "roles"),
    ("no-implementation", json.dumps({"protocol": 1, "roles": ["reader"]}).encode(), "implementation"),
    ("implementation-string", json.dumps({**HELLO, "implementation": "x"}).encode(), "implementation"),
    ("name-number", json.dumps({**HELLO, "implementation": {"name": 5, "version": "1"}}).encode(), "name"),
    ("name-empty", json.dumps({**HELLO, "implementation": {"name": "", "version": "1"}}).encode(), "name"),
    ("version-missing", json.dumps({**HELLO, "implementation": {"name": "x"}}).encode(), "version"),
    ("protocol-2", json.dumps({**HELLO, "protocol": 2}).encode(), "protocol"),
    ("protocol-true", json.dumps({**HELLO, "protocol": True}).encode(), "protocol"),
    ("extra-key", json.dumps({**HELLO, "seq": 1}).encode(), "seq"),
    ("duplicate-roles", b'{"protocol": 1, "implementation": {"name": "x", "version": "1"}, "roles": [], "roles": ["reader"]}', "duplicate key 'roles'"),
    ("lone-surrogate-name", b'{"protocol": 1, "implementation": {"name": "\\ud800", "version": "1"}, "roles": ["reader"]}', "lone surrogate"),
    ("nested", NESTED, "nested deeper than 64 levels"),
    ("array", b"[]", "handshake"),
    ("not-utf8", b"\xff", "not UTF-8"),
    ("not-json", b"adapter v0 starting", "not JSON"),
    ("rejected", b'{"rejected": "no persistent mode here"}', "refused persistent mode: no persistent mode here"),
    ("rejected-lone-surrogate", b'{"rejected": "no \\ud800"}', "the handshake holds a lone surrogate (\\ud800)"),
]


@pytest.mark.parametrize(("hello", "words"), [(h, w) for _, h, w in HANDSHAKES], ids=[i for i, _, _ in HANDSHAKES])
def test_malformed_handshake_falls_back_to_per_case_mode(hello: bytes, words: str) -> None:
    """The run falls back to one process per case, saying why; every case is judged."""
    execution = run(Behaviour(hello=[Out(hello + b"\n")]))
    assert execution.mode == "per-case"
    assert execution.fallback_reason is not None and words in execution.fallback_reason
    execution.fallback_reason.encode("utf-8")
    assert [status(o) for o in execution.outcomes] == ["passed"] * len(IDS)


def test_handshake_timeout_and_exit_fall_back() -> None:
    """No handshake within its allowance, or an exit at the handshake: per-case mode."""
    late = run(Behaviour(hello=[Out(line(HELLO), after=10.0)]))
    assert late.mode == "per-case" and "no handshake within 3 s" in (late.fallback_reason or "")
    gone = run(Behaviour(hello=None))
    assert gone.mode == "per-case" and "exited at the handshake (status 1)" in (gone.fallback_reason or "")
    closed = run(Behaviour(hello=[CloseOut()]))
    assert closed.mode == "per-case" and "exited at the handshake" in (closed.fallback_reason or "")


def test_slow_handshake_within_its_allowance_is_not_charged_to_a_case() -> None:
    """A 2 s start with 1 s per case and 3 s for the handshake: persistent mode, all pass."""
    execution = run(Behaviour(hello=[Out(line(HELLO), after=2.0)]))
    assert execution.mode == "persistent"
    assert [status(o) for o in execution.outcomes] == ["passed"] * len(IDS)


def test_output_after_stop_is_read_without_raising() -> None:
    """After `stop`: garbage, deep nesting, lone surrogates, odd seqs; nothing raises, the run's
    results stand, and only a real second answer marks its case."""
    hostile = [Out(b"\xff\n" + NESTED + b'\n{"seq": [1]}\n{"seq": {}, "error": "\\ud800"}\n[]\n'), Exit(0)]
    execution = run(Behaviour(on_stop=hostile))
    assert [status(o) for o in execution.outcomes] == ["passed"] * len(IDS)
    again = run(Behaviour(on_stop=[Out(b'{"seq": 1, "rejected": "again"}\n'), Exit(0)]))
    assert results(again)[IDS[0]] == ("errored", "answered the same request twice")


def test_blank_lines_and_crlf_around_an_answer_are_accepted() -> None:
    """Blank lines carry nothing; a CR before the newline is JSON whitespace."""
    execution = run(on_target(lambda m, seq: [Out(b"\n  \n" + line({"seq": seq, "result": result_of(m)})[:-1] + b"\r\n")]))
    assert [status(o) for o in execution.outcomes] == ["passed"] * len(IDS)


def test_second_answer_in_the_same_write_and_later() -> None:
    """A second answer to a request marks that request's case, and the run goes on."""
    twice = run(on_target(lambda m, seq: [Out(line({"seq": seq, "result": result_of(m)}) * 2)]))
    assert results(twice)[TARGET] == ("errored", "answered the same request twice")
    early = Behaviour(persistent=lambda m, seq, served: [
        *persistent_right(m, seq), *([Out(line({"seq": 1, "error": "again"}))] if served == 1 else []),
    ])
    got = results(run(early))
    assert got[IDS[0]] == ("errored", "answered the same request twice")
    assert got[IDS[1]][0] == got[TARGET][0] == "passed"


def test_late_answer_is_a_timeout_and_is_not_taken_for_the_next_case() -> None:
    """An answer after the limit is a timeout; the process is replaced, so the late line never
    answers the next request."""
    seen: list[int] = []

    def late(message: Any, seq: Any, served: int) -> list[Event]:
        seen.append(seq)
        after = 5.0 if is_target(message["request"]) else 0.0
        return [Out(line({"seq": seq, "result": result_of(message)}), after=after)]

    execution = run(Behaviour(persistent=late), ids=(IDS[0], TARGET, "reader-unknown-name"[:0] or IDS[1]))
    got = results(execution)
    assert got[TARGET][0] == "errored" and "timed out after 1 s" in got[TARGET][1]
    assert got[IDS[1]] == ("passed", "")


def test_exact_cap_passes_and_one_byte_more_errs_in_both_modes() -> None:
    """One limit for both modes: 16 MiB of answer (the newline not counted) is read, one more
    byte is `wrote more than 16,777,216 bytes`."""
    for extra, expected in ((0, "passed"), (1, "errored")):

        def padded(result: Any, prefix: bytes = b"", suffix: bytes = b"", extra: int = extra) -> bytes:
            body = prefix + json.dumps(result).encode() + suffix
            return body + b" " * (MAX_OUTPUT + extra - len(body))

        persistent = on_target(lambda m, seq: [Out(padded(result_of(m), b'{"seq": %d, "result": ' % seq, b"}") + b"\n")])
        per_case = on_target(per_case=lambda r: [Out(padded(right(r)[1]) + b"\n"), Exit(0)])
        for execution in (run(persistent), run(per_case, isolate=True)):
            target_status, message = results(execution)[TARGET]
            assert target_status == expected, message
            if expected == "errored":
                assert "wrote more than 16,777,216 bytes" in message


def test_closed_stdout_without_exit_is_bounded_by_the_case_limit() -> None:
    """Standard output closed, process alive: errored at the case's limit, in both modes."""
    persistent = run(on_target(lambda m, seq: [CloseOut()]))
    assert "closed its standard output without exiting; timed out after 1 s" in results(persistent)[TARGET][1]
    per_case = run(on_target(per_case=lambda r: [CloseOut()]), isolate=True)
    assert "timed out after 1 s (closed its standard output without exiting)" in results(per_case)[TARGET][1]


def test_request_not_read_is_bounded_by_the_case_limit() -> None:
    """An implementation that stops reading its input: a request over the pipe's 64 KiB does
    not hold the runner past the case's limit."""
    stuck = Behaviour(hello=[Out(line(HELLO)), StopReading()])
    adapter = launcher(stuck).persistent()
    assert adapter.start() is not None
    huge = b'{"role": "reader", "text": "' + b"x" * 200_000 + b'"}'
    answer = adapter.run(Request(tag="b", role="reader", payload=huge, timeout=1.0))
    adapter.close()
    assert isinstance(answer, Crashed) and answer.timed_out
    assert answer.reason == "timed out after 1 s (it had not read the whole request)"


def test_stderr_is_kept_as_a_tail_and_never_fails_a_case() -> None:
    """Standard error, however much and however encoded, is diagnostics only."""
    noisy = on_target(lambda m, seq: [Err(b"\xff\xfe warning\n" * 10_000), *persistent_right(m, seq)])
    assert [status(o) for o in run(noisy).outcomes] == ["passed"] * len(IDS)


def test_exit_during_a_case_and_between_cases() -> None:
    """An exit during a case errs it (retried in a fresh process); one after an answer, between
    cases, costs nothing: the next case starts a new process."""
    during = run(on_target(lambda m, seq: [Exit(3)]))
    assert results(during)[TARGET][1].startswith("exited (status 3) during the case")
    between = Behaviour(persistent=lambda m, seq, served: [*persistent_right(m, seq), Exit(0)])
    assert [status(o) for o in run(between).outcomes] == ["passed"] * len(IDS)


def test_everything_ends_in_both_modes() -> None:
    """Every process a run starts is killed by its end, whatever it did."""
    for isolate in (False, True):
        behaviour = on_target(lambda m, seq: [CloseOut()], per_case=lambda r: [CloseOut()])
        run(behaviour, isolate=isolate)
        assert behaviour.log.count("spawn") == behaviour.log.count("kill"), behaviour.log


def test_all_in_parallel_gives_the_serial_results() -> None:
    """-j 2 over hostile lines: the same results as serially."""
    behaviour = on_target(lambda m, seq: [Out(b'{"seq": true, "result": {}}\n')])
    parallel, serial = results(run(behaviour, jobs=2)), results(run(behaviour))
    assert {k: v[0] for k, v in parallel.items()} == {k: v[0] for k, v in serial.items()}
    assert parallel[TARGET][1].startswith("answered seq true, expected ")  # seqs differ per process



@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_every_report_is_written_whatever_the_answers(tmp_path: Any, isolate: bool) -> None:
    """Every reader case gets another hostile answer: the CLI writes the JSON, JUnit and
    Markdown reports and the failure files, prints its lines, and exits 1."""
    from cardid_conformance import schemas as schema_module
    from cardid_runner.cli import Exit as ExitCode
    from cardid_runner.cli import main

    order: list[str] = []

    def persistent(message: dict[str, Any], seq: Any, served: int) -> list[Event]:
        _, template, _ = LINES[served % len(LINES)]
        order.append(str(served))
        return [Out(_fill(template, seq, result_of(message)) + b"\n")]

    counter = iter(range(10_000))

    def per_case(request: Any) -> list[Event]:
        _, output, code, _ = PER_CASE_OUTPUTS[next(counter) % len(PER_CASE_OUTPUTS)]
        return [Out(output), Exit(code)]

    behaviour = Behaviour(persistent=persistent, per_case=per_case)
    paths = {name: tmp_path / name for name in ("r.json", "j.xml", "m.md")}
    code = main([
        "run", "--role", "reader", "--report-json", str(paths["r.json"]), "--junit", str(paths["j.xml"]),
        "--markdown", str(paths["m.md"]), "--save-failures", str(tmp_path / "saved"),
        *(["--isolate"] if isolate else []),
    ], launcher=launcher(behaviour))
    assert code == ExitCode.FAILED
    data = json.loads(paths["r.json"].read_text(encoding="utf-8"))
    assert schema_module.first_problem("report", data) is None
    assert data["verdict"]["conforming"] is False
    assert {r["status"] for r in data["results"]} <= {"errored", "failed", "passed"}
    assert paths["j.xml"].stat().st_size and paths["m.md"].stat().st_size
    assert len(list((tmp_path / "saved").iterdir())) >= len(data["results"]) // 2


def test_handshake_that_changes_on_restart_is_not_believed() -> None:
    """An implementation that exits quietly between cases and comes back with fewer roles
    does not get the rest of the run skipped: the changed handshake errs the case."""
    from cardid_runner.adapter import ProcessLauncher

    from tests.fakes.scripted import ScriptedProcess

    hellos = iter([HELLO])  # the first process says both roles, every later one "writer"

    def spawn(argv: Any) -> Any:
        return ScriptedProcess(Behaviour(
            hello=[Out(line(next(hellos, {**HELLO, "roles": ["writer"]})))],
            persistent=lambda m, seq, served: [*persistent_right(m, seq), Exit(0)],  # quiet exit
        ))

    options = Invocation(argv=("scripted",), timeout=1.0, start_timeout=3.0)
    execution = execute.run_cases(
        cases(), options, load_spec(), launcher=ProcessLauncher(("scripted",), 3.0, spawn=spawn)
    )
    got = results(execution)
    assert got[IDS[0]] == ("passed", "")
    assert "skipped" not in {value[0] for value in got.values()}, got
    assert "the handshake changed within the run" in got[IDS[1]][1]


def test_verdict_line_names_skipped_cases(capsys: pytest.CaptureFixture[str]) -> None:
    """A writer-only implementation that passes its cases conforms, and the verdict line says
    how many cases were skipped; with reader cases only, it does not conform."""
    from cardid_runner.cli import main

    behaviour = Behaviour(hello=[Out(line({**HELLO, "roles": ["writer"]}))])
    assert main(["run", "--case", "flicker-keeps-id", "--case", TARGET], launcher=launcher(behaviour)) == 0
    out = capsys.readouterr().out
    assert re.search(
        r"verdict: CONFORMING as a writer against card-identity spec 1\.2\.0"
        r" \(reader role not tested: 1 case\(s\) skipped; a selection of 2 of \d+ cases\)", out
    )
    assert main(["run", "--case", TARGET], launcher=launcher(behaviour)) == 1
    assert (
        "verdict: NOT CONFORMING against card-identity spec 1.2.0: no case was judged"
        " (every case was skipped or errored) (reader role not tested: 1 case(s) skipped;"
    ) in capsys.readouterr().out


def test_answer_without_its_newline_then_exit_says_so() -> None:
    """A last line without its newline is no line (C-5): the message says what came."""
    execution = run(on_target(lambda m, seq: [Out(line({"seq": seq, "result": result_of(m)})[:-1]), Exit(0)]))
    assert "exited (status 0) during the case, after" in results(execution)[TARGET][1]
    assert "bytes without a newline" in results(execution)[TARGET][1]


def test_control_characters_reach_neither_the_terminal_nor_the_xml(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Escapes and NULs in an error message, in standard error, in a rejection and in the
    handshake's name are printed as escapes: the terminal gets no ESC, the JUnit file parses."""
    import xml.etree.ElementTree as ET

    from cardid_runner.cli import main

    def hostile(message: dict[str, Any], seq: Any, served: int) -> list[Event]:
        if served == 0:
            return [Err(b"\x00\x1b[2J\x07 boom\r\n"), Out(b'{"seq": %d, "error": "bad \\u0000 \\u001b[2J \\u0085"}\n' % seq)]
        if served == 1:
            return [Out(b'{"seq": %d, "rejected": "no\\u001b]0;owned\\u0007"}\n' % seq)]
        return persistent_right(message, seq)

    hello = {**HELLO, "implementation": {"name": "evil\u001b[31m", "version": "\u0000"}}
    behaviour = Behaviour(hello=[Out(line(hello))], persistent=hostile)
    junit, markdown, report = tmp_path / "j.xml", tmp_path / "m.md", tmp_path / "r.json"
    main(["run", *(o for c in IDS for o in ("--case", c)), "--junit", str(junit),
          "--markdown", str(markdown), "--report-json", str(report)], launcher=launcher(behaviour))
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "\x00" not in captured.out
    assert "reported an error: bad \\x00 \\x1b[2J \\x85" in captured.out
    assert "stderr: \\x00\\x1b[2J\\x07 boom\\x0d" in captured.out
    ET.parse(junit)
    assert "\x1b" not in markdown.read_text(encoding="utf-8")
    assert json.loads(report.read_text(encoding="utf-8"))["implementation"]["name"] == "evil\\x1b[31m"
