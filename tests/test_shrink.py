"""`cardid shrink` (runner/shrink.py): delta debugging of a failing case, keeping the request
valid and the failure the same.

Most tests run the implementation in-process (tests/fakes FakeLauncher answering as a mutant of
reference/mutants does) and the reference likewise; one runs both as real processes.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import caseyaml, yamlfile
from cardid_conformance.answer import Answer, Answered, Crashed, CrashKind, Rejected
from cardid_conformance.cases import Case, load_case
from cardid_conformance.compare import Difference
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Errored, Failed, Passed
from cardid_conformance.spec import Level, Spec
from cardid_reference.adapter import answer as reference_answer
from cardid_reference.errors import RequestError
from cardid_reference.mutants import entry_points
from cardid_runner import draft, execute, shrink
from cardid_runner.adapter import Request
from cardid_runner.cli import main
from cardid_runner.shrink import NoFailure, Shrinker, Way, way

from tests.conftest import ROOT
from tests.fakes.scripted import FakeLauncher, right_answer

SHUFFLED = ROOT / "cases" / "writer" / "shuffle-ends-id-of-card-on-top.yaml"
MUTANT = "keep-through-shuffle"


def mutant(name: str) -> Callable[[Request], Answer]:
    """A mutant's answers, as its adapter would give them."""
    write, read = entry_points(name)

    def answer(request: Request) -> Answer:
        try:
            result = reference_answer(json.loads(request.payload), write=write, read=read)
        except RequestError as exc:
            return Rejected(message=str(exc))
        return Answered(result=json.loads(json.dumps(result)))

    return answer


def fake(answer: Callable[[Request], Answer]) -> FakeLauncher:
    return FakeLauncher(persistent_answer=answer, per_case_answer=answer)


OPTIONS = execute.Invocation(argv=("fake",), timeout=5.0)


def shrinker(case: Case, spec: Spec, launcher: FakeLauncher, tmp_path: Path) -> Shrinker:
    return Shrinker(case, OPTIONS, spec, path=tmp_path / "x-shrunk.yaml", new_id="x-shrunk",
                    launcher=launcher, reference=draft.Reference(FakeLauncher()))


def long_case(tmp_path: Path, spec: Spec) -> Path:
    """The shuffle case with 40 observations of the opponent's spells around it: 49 in all,
    labelled by the reference's answer."""
    data = yamlfile.load(SHUFFLED)
    observations = data["input"]["observations"]
    for observation in observations:
        observation.pop("expect", None)

    def spells(first: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for number in range(first, first + 10):
            out += [
                {"type": "move", "object": f"s{number}", "from": "hand:P2", "to": "stack", "owner": "P2",
                 "card": {"name": "Memory Lapse"}},
                {"type": "move", "object": f"s{number}", "from": "stack", "to": "graveyard:P2"},
            ]
        return out

    padded = [observations[0], *spells(0), *observations[1:7], *spells(10), *observations[7:]]
    request = {"role": "writer", **{k: v for k, v in data["input"].items() if k != "observations"},
               "observations": padded}
    meta = draft.Metadata(id="long-shuffle", description=data["description"], role="writer",
                          level=data["level"], rules=tuple(data["rules"]), cr=tuple(data["cr"]), tags=())
    case_data = draft.case_data(meta, request, Answered(result=reference_answer(json.loads(json.dumps(request)))))
    path = tmp_path / "long-shuffle.yaml"
    path.write_text(caseyaml.render_verified(case_data, path=path), encoding="utf-8")
    assert len(load_case(path, spec).observations) == 49
    return path


def _errored(reason: str) -> Errored:
    return Errored(case_id="x", level=Level.MUST, reason=reason)


@pytest.mark.parametrize(
    ("outcome", "answer", "expected"),
    [
        (Failed(case_id="x", differences=(Difference(rule="LIB-2", message="m"), Difference(rule="ID-2", message="n")),
                levels=(Level.MUST, Level.MUST)), Answered(result={}), Way("failed", "LIB-2")),
        (_errored("timed out after 10 s"), Crashed(reason="timed out after 10 s", kind=CrashKind.TIMED_OUT, timed_out=True),
         Way("errored", "timed out")),
        (_errored("x"), Crashed(reason="exited (status 3) during the case", kind=CrashKind.EXIT_STATUS, exit_status=3),
         Way("errored", "exit status 3")),
        (_errored("x"), Crashed(reason="exit status 3", kind=CrashKind.EXIT_STATUS, exit_status=3),
         Way("errored", "exit status 3")),
        (_errored("x"), Crashed(reason="exit status 1 without a rejection object", kind=CrashKind.NO_REJECTION_OBJECT,
                                exit_status=1), Way("errored", "exit status 1")),
        (_errored("x"), Crashed(reason="exited (killed by signal 11) during the case", kind=CrashKind.SIGNAL,
                                exit_status=-11), Way("errored", "killed by signal 11")),
        # The status and the retry decide, never the words: an error the implementation reported
        # that quotes an exit status, a signal or the retry's note is none of them.
        (_errored("x"), Crashed(reason="reported an error: exit status 3, killed by signal 9", kind=CrashKind.ERROR_REPORTED),
         Way("errored", "output that is no usable answer")),
        (_errored("reported an error: a fresh process passed (crashes in a fresh process too: ...)"),
         Crashed(reason="reported an error: a fresh process passed", kind=CrashKind.ERROR_REPORTED),
         Way("errored", "output that is no usable answer")),
        (_errored("output does not match"), Answered(result={}), Way("errored", "a result that does not match the result schema")),
        (_errored("x"), Crashed(reason="output is not JSON", kind=CrashKind.NOT_JSON),
         Way("errored", "output that is no usable answer")),
        (Passed(case_id="x"), Answered(result={}), None),
    ],
)
def test_the_same_way(outcome: Any, answer: Answer, expected: Way | None) -> None:
    """How a failure is told apart (shrink.SAME_WAY)."""
    assert way(outcome, answer) == expected


def test_a_crash_a_fresh_process_passes_is_told_by_the_retry() -> None:
    crash = Crashed(reason="exit status 3", kind=CrashKind.EXIT_STATUS, exit_status=3)
    assert way(_errored("exit status 3 (...)"), crash, fresh_passed=True) == shrink.ONLY_AFTER_OTHERS


def test_a_crash_only_a_persistent_process_shows_has_nothing_to_shrink(tmp_path: Path, spec: Spec) -> None:
    """Persistent mode crashes on a shuffle, a fresh process passes it: no failure of the case's own."""

    def crash_on_shuffle(request: Request) -> Answer:
        if b'"shuffle"' in request.payload:
            return Crashed(reason="exited (status 3) during the case", kind=CrashKind.EXIT_STATUS, exit_status=3)
        return right_answer(request)

    launcher = FakeLauncher(persistent_answer=crash_on_shuffle, per_case_answer=right_answer)
    with shrinker(load_case(long_case(tmp_path, spec), spec), spec, launcher, tmp_path) as it, \
            pytest.raises(NoFailure, match="crashes only after other requests in the same process"):
        it.shrink()


def test_a_reported_error_quoting_the_retry_note_still_shrinks(tmp_path: Path, spec: Spec) -> None:
    """An error the implementation reports in its own words, repeated in a fresh process, is a
    failure to shrink, whatever those words say."""

    def error_on_shuffle(request: Request) -> Answer:
        if b'"shuffle"' in request.payload:
            return Crashed(reason="reported an error: a fresh process passed", kind=CrashKind.ERROR_REPORTED)
        return right_answer(request)

    with shrinker(load_case(long_case(tmp_path, spec), spec), spec, fake(error_on_shuffle), tmp_path) as it:
        result = it.shrink()
    assert result.way == Way("errored", "output that is no usable answer")
    assert [o["type"] for o in result.case.observations] == ["shuffle"]


def test_a_long_case_shrinks_to_a_small_one_that_fails_the_same_way(tmp_path: Path, spec: Spec) -> None:
    """49 observations: the shrunk case is much smaller, fails the mutant with LIB-2 as the
    original does, and passes the reference; one persistent session ran every candidate."""
    case = load_case(long_case(tmp_path, spec), spec)
    launcher = fake(mutant(MUTANT))
    with shrinker(case, spec, launcher, tmp_path) as it:
        result = it.shrink()
    assert result.way == Way("failed", "LIB-2")
    (what, kept, of), (cards, kept_cards, of_cards) = result.removed
    assert (what, of, cards, of_cards) == ("observations", 49, "card facts", 2)
    assert kept <= 4 and kept_cards == 0
    shrunk = result.case
    assert len(shrunk.observations) == kept
    assert [o["type"] for o in shrunk.observations].count("shuffle") == 1
    failed = judge(shrunk, mutant(MUTANT)(Request(tag="t", role="writer", payload=shrunk.request_bytes(), timeout=1)), spec)
    assert isinstance(failed, Failed) and failed.differences[0].rule == "LIB-2"
    assert isinstance(judge(shrunk, right_answer(Request(tag="t", role="writer", payload=shrunk.request_bytes(), timeout=1)), spec), Passed)
    [session] = launcher.made
    assert session.log[0] == "start" and len(session.log) == 1 + result.tried + 1  # start, runs, close
    assert "needs-review" in shrunk.tags


def test_a_reader_case_shrinks_by_lines(tmp_path: Path, spec: Spec) -> None:
    """A reader that strips leading zeros of collector numbers: ten lines, one of them with
    "010", shrink to that line."""
    lines = [f'#c{i} "Island" [DMU {262 + i}] owner=P1\n' for i in range(10)]
    lines[6] = '#c6 "Island" [DMU 010] owner=P1\n'
    request = {"role": "reader", "text": "".join(lines)}
    meta = draft.Metadata(id="reader-ten-lines", description="Ten lines with one number written 010 are read.",
                          role="reader", level="MUST", rules=("TXT-1",), cr=("201.2",), tags=("reader",))
    data = draft.case_data(meta, request, Answered(result=reference_answer(request)))
    path = tmp_path / "reader-ten-lines.yaml"
    path.write_text(caseyaml.render_verified(data, path=path), encoding="utf-8")
    with shrinker(load_case(path, spec), spec, fake(mutant("reader-zero-strip")), tmp_path) as it:
        result = it.shrink()
    assert result.removed == (("lines", 1, 10),)
    assert result.case.request["text"] == lines[6]
    assert result.way == Way("failed", "TXT-1")


def test_a_crash_shrinks_to_what_makes_it_crash(tmp_path: Path, spec: Spec) -> None:
    """An implementation that dies (exit status 3) on any shuffle: the smallest request still
    holding a shuffle, with the crash as its way of failing."""

    def crash_on_shuffle(request: Request) -> Answer:
        if b'"shuffle"' in request.payload:
            return Crashed(reason="exited (status 3) during the case", kind=CrashKind.EXIT_STATUS, exit_status=3)
        return right_answer(request)

    case = load_case(long_case(tmp_path, spec), spec)
    with shrinker(case, spec, fake(crash_on_shuffle), tmp_path) as it:
        result = it.shrink()
    assert result.way == Way("errored", "exit status 3")
    assert [o["type"] for o in result.case.observations] == ["shuffle"]


def test_a_passing_case_has_nothing_to_shrink(tmp_path: Path, spec: Spec) -> None:
    with shrinker(load_case(SHUFFLED, spec), spec, FakeLauncher(), tmp_path) as it, \
            pytest.raises(NoFailure, match="passes: there is no failure to shrink"):
        it.shrink()


def test_a_case_the_reference_disagrees_with_cannot_be_shrunk(tmp_path: Path, spec: Spec) -> None:
    """Candidates are judged by the reference's answers: a case whose own expectation the
    reference does not give fails differently against those, and the shrink says so."""
    data = yamlfile.load(SHUFFLED)
    data["expect"]["instances"]["goyf_before"]["name"] = "Tarmogoyff"
    path = tmp_path / SHUFFLED.name
    path.write_text(caseyaml.render_verified(data, path=path), encoding="utf-8")
    with shrinker(load_case(path, spec), spec, FakeLauncher(), tmp_path) as it, \
            pytest.raises(NoFailure, match=re.escape("with [NAME-1] at its first difference against its own "
                          "expectation, but against the reference's answer to the same request it passes")):
        it.shrink()


def _in_process(monkeypatch: pytest.MonkeyPatch, answer: Callable[[Request], Answer]) -> None:
    monkeypatch.setattr(shrink, "Shrinker", functools.partial(
        Shrinker, launcher=fake(answer), reference=draft.Reference(FakeLauncher())))


def test_main_writes_the_shrunk_case_and_says_what_it_removed(
    tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _in_process(monkeypatch, mutant(MUTANT))
    source = long_case(tmp_path, spec)
    out = tmp_path / "out"
    assert main(["shrink", "--impl", "fake", str(source), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    path = out / "long-shuffle-shrunk.yaml"
    assert f"wrote {path}" in printed
    assert "shrink: long-shuffle fails with [LIB-2] at its first difference; removed " in printed
    assert " of 49 observations and 2 of 2 card facts (" in printed
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("# REVIEW: the expectation in this file")
    assert "# Fails: fake, which fails with [LIB-2] at its first difference (shrunk by `cardid shrink`" in text
    assert load_case(path, spec).id == "long-shuffle-shrunk"
    # A second shrink to the same ID is refused: the file is there.
    assert main(["shrink", "--impl", "fake", str(source), "--out", str(out)]) == 2
    assert "is already used by" in capsys.readouterr().err


def test_main_writes_nothing_for_a_case_already_minimal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _in_process(monkeypatch, mutant("reader-splitlines"))
    case = ROOT / "cases" / "reader" / "reader-accepts-line-separator-in-name.yaml"
    assert main(["shrink", "--impl", "fake", str(case), "--out", str(tmp_path)]) == 1
    assert "is as small as shrinking makes it: no line can go" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["shrink", "no-such-case", "--impl", "x"], "no case 'no-such-case' in"),
        (["shrink", "flicker-keeps-id"], "the following arguments are required: --impl"),
        (["shrink", "flicker-keeps-id", "--impl", "x", "--id", "Bad"], "argument --id: takes a case ID"),
        (["shrink", "flicker-keeps-id", "--impl", "x", "--id", "flicker-keeps-id"], "is already used by"),
    ],
)
def test_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_real_processes(tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole path: the mutant and the reference as processes, in persistent mode."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    source = long_case(tmp_path, spec)
    impl = f"{sys.executable} -m cardid_reference.mutants {MUTANT}"
    assert main(["shrink", "--impl", impl, str(source), "--out", str(tmp_path), "--id", "tiny"]) == 0
    printed = capsys.readouterr().out
    assert "persistent mode" in printed and "note: persistent mode unavailable" not in printed
    shrunk = load_case(tmp_path / "tiny.yaml", spec)
    assert len(shrunk.observations) <= 4
    assert isinstance(judge(shrunk, right_answer(Request(tag="t", role="writer", payload=shrunk.request_bytes(), timeout=1)), spec), Passed)
