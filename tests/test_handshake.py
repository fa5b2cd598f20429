"""The persistent-mode handshake, read and judged once (runner/handshake.py) for a run's
adapter and for `cardid doctor`: each words the same typed result its own way."""

from __future__ import annotations

from typing import Any

import pytest
from cardid_conformance.protocol import Breach, Hello, NotJson, OverSeveralLines, Refused
from cardid_runner.adapter import Persistent
from cardid_runner.doctor import HANDSHAKE, LOGS_HINT, ONE_LINE_HINT, Doctor, Finding
from cardid_runner.handshake import Exited, Handshake, Shaken, why_not

from tests.fakes.scripted import HELLO, Behaviour, Event, Exit, Out, ScriptedProcess, line

PRETTY = b'{\n  "protocol": 1,\n'
#: JSON of the wrong shape whose text says "not JSON": judged by its type, not by its words.
SHAPE_SAYING_NOT_JSON = line({"protocol": 1, "implementation": {"name": "not JSON"}, "roles": ["reader"]})


def shaken(*hello: Event) -> Shaken:
    process = ScriptedProcess(Behaviour(hello=hello))
    try:
        return Handshake(process, timeout=3.0, quiet=0.5, grace=1.0).read()  # type: ignore[arg-type]
    finally:
        process.kill()


def test_the_hello_comes_after_blank_lines() -> None:
    assert shaken(Out(b"\n \n"), Out(line(HELLO))) == Hello(
        name="scripted", version="0", roles=("writer", "reader")
    )


@pytest.mark.parametrize(
    ("events", "kind"),
    [
        ((Out(PRETTY),), OverSeveralLines),
        ((Out(b"toy adapter starting\n"),), NotJson),
        ((Out(SHAPE_SAYING_NOT_JSON),), Breach),
        ((Out(line({"rejected": "per-case only"})),), Refused),
        ((Exit(3),), Exited),
    ],
    ids=["pretty-printed", "not-json", "wrong-shape", "refused", "exited"],
)
def test_each_way_a_handshake_fails_is_a_type(events: tuple[Event, ...], kind: type) -> None:
    result = shaken(*events)
    assert type(result) is kind, result
    if isinstance(result, Exited):
        assert result.code == 3


def _doctor_problem(behaviour: Behaviour) -> Finding:
    doctor = Doctor(["scripted"], role="reader", spawn=lambda argv: ScriptedProcess(behaviour))  # type: ignore[arg-type, return-value]
    checks = doctor.findings()
    try:
        return next(f for f in checks if f.kind in ("problem", "note") and "persistent mode" in f.text)
    finally:
        checks.close()


def _run_reason(behaviour: Behaviour) -> str:
    adapter = Persistent(["scripted"], start_timeout=3.0, spawn=lambda argv: ScriptedProcess(behaviour))  # type: ignore[arg-type, return-value]
    try:
        started = adapter.start()
    finally:
        adapter.close()
    assert isinstance(started, str)
    return started


@pytest.mark.parametrize(
    ("hello", "hint"),
    [
        (PRETTY, ONE_LINE_HINT),
        (b"toy adapter starting\n", LOGS_HINT),
        (SHAPE_SAYING_NOT_JSON, f"the handshake is {HANDSHAKE}"),
    ],
    ids=["pretty-printed", "not-json", "wrong-shape"],
)
def test_the_run_and_the_doctor_word_one_judgement(hello: bytes, hint: str) -> None:
    """The run's reason for per-case mode is the doctor's problem, which adds the hint its type
    calls for (a wrong shape that quotes "not JSON" gets the handshake's shape)."""
    behaviour: Any = Behaviour(hello=(Out(hello),))
    reason = _run_reason(behaviour)
    found = _doctor_problem(behaviour)
    assert found.text == f"persistent mode: {reason}"
    assert found.hint == hint


def test_a_run_says_why_in_one_line() -> None:
    assert why_not(Exited(2), 3.0) == "exited at the handshake (status 2)"
    assert why_not(Exited(None), 3.0) == "exited at the handshake"
    assert why_not(Refused("refused persistent mode: no"), 3.0) == "refused persistent mode: no"
