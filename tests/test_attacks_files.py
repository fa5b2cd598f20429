"""Attacks on the output files: hostile text from an implementation leaves every report valid
and every line on the terminal its own; reports are written through temporary files of their
own (a planted symlink redirects nothing); an output that cannot be written is an error naming
it (exit 2) while every other output is still written and the summary still printed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import console, escape, report, schemas
from cardid_conformance.compare import Difference
from cardid_conformance.junit import to_junit
from cardid_conformance.markdown import to_markdown
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    Outcome,
    Passed,
    Skipped,
)
from cardid_conformance.spec import Level, Spec
from cardid_runner import writing
from cardid_runner.cli import Exit, main
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.processes import FAKE, main_within

HOSTILE_IMPL = f"{sys.executable} {FAKE} hostile-text"
#: What no output line may hold raw: C0 but tab and newline, DEL, C1, separators, bidi
#: controls, surrogates, U+FFFE/U+FFFF, and the invisible characters the hostile text holds.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
    "\u061c\u034f\ufe0f\u3164\u2800\u2060\ufeff\U000e0041]"
)
#: Two reader cases: one the hostile implementation errors on, one it wrongly rejects.
TWO_CASES = ["--case", "reader-unknown-name", "--case", "reader-quoted-owner"]


def _strict_json(raw: bytes) -> Any:
    """Parse as the strictest reader would: UTF-8 without surrogates, no NaN, no duplicates."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        assert len(keys) == len(set(keys))
        return dict(pairs)

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in strict JSON")

    return json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates, parse_constant=refuse)


def _no_surrogates(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_no_surrogates(k) and _no_surrogates(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_no_surrogates, value))
    return not (isinstance(value, str) and re.search("[\ud800-\udfff]", value))


def test_hostile_text_leaves_every_report_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ANSI escapes, NUL, CR, bidi overrides, lone surrogates and markup in an implementation's
    name, messages and stderr: JUnit parses, the JSON is strict UTF-8 and fits its schema, the
    Markdown and the console hold none of them raw, and the saved failures are written."""
    junit, markdown, report_json, saved = (
        tmp_path / "junit.xml", tmp_path / "summary.md", tmp_path / "report.json", tmp_path / "saved"
    )
    code = main(["run", "--impl", HOSTILE_IMPL, *TWO_CASES, "--junit", str(junit), "--markdown", str(markdown),
                 "--report-json", str(report_json), "--save-failures", str(saved)])
    assert code == Exit.FAILED
    out, err = capsys.readouterr()
    assert not UNSAFE.search(out + err)
    assert "\\x1b[31mRED" in out and "\\ud800" in out  # escaped, and still readable

    root = ET.parse(junit).getroot()
    assert [case.get("name") for case in root.findall("testcase")] == ["reader-quoted-owner", "reader-unknown-name"]
    assert "\\x00NUL" in root.find("testcase/error").get("message")  # type: ignore[union-attr]

    data = _strict_json(report_json.read_bytes())
    assert schemas.first_problem("report", data) is None
    assert _no_surrogates(data)
    # the transport shows an implementation's control characters as escapes where it reads them
    assert data["implementation"]["name"].startswith("\\x1b[31mRED")

    text = markdown.read_text(encoding="utf-8")
    assert not UNSAFE.search(text.replace("\n", ""))
    assert "<b>" not in text and "</failure>" not in text
    rows = [line for line in text.splitlines() if line.startswith("| `reader-")]
    assert len(rows) == 2 and all(line.endswith(" |") for line in rows)

    failure = (saved / "reader-unknown-name" / "failure.txt").read_text(encoding="utf-8")
    assert "reported an error" in failure and not UNSAFE.search(failure.replace("\n", ""))
    (saved / "reader-unknown-name" / "stderr.txt").read_bytes().decode("utf-8")
    assert not list(tmp_path.rglob("*.partial"))


def test_hostile_case_file_names_leave_every_report_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case file paths are untrusted text too: names with an escape sequence, a newline, a
    bidi override or bytes that are no UTF-8 become case bugs whose path every report escapes."""
    folder = tmp_path / "cases"
    folder.mkdir()
    names = [b"\x1b[2Jclear.yaml", b"new\nline.yaml", b"\xe2\x80\xaeevil.yaml", b"latin\xe9.yaml"]
    for name in names:
        with open(os.fsencode(folder) + b"/" + name, "wb") as handle:
            handle.write(b"id: x\nid: y\n")
    junit, markdown, report_json = tmp_path / "junit.xml", tmp_path / "summary.md", tmp_path / "report.json"
    code = main(["run", "--cases", str(folder), "--junit", str(junit), "--markdown", str(markdown),
                 "--report-json", str(report_json)])
    assert code == Exit.FAILED
    out, err = capsys.readouterr()
    assert not UNSAFE.search(out + err)
    assert out.count("BUG IN CASE ") == len(names)
    assert len(ET.parse(junit).getroot().findall("testcase/error")) == len(names)
    data = _strict_json(report_json.read_bytes())
    assert data["summary"]["case_bugs"] == len(names) and _no_surrogates(data)
    text = markdown.read_text(encoding="utf-8")
    assert not UNSAFE.search(text.replace("\n", "")) and text.count("| case bug |") == len(names)


# ----------------------------------------------------------------------- every renderer

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=30)


@st.composite
def _outcomes(draw: st.DrawFn) -> list[Outcome]:
    text = draw(ANY_TEXT)
    difference = Difference(rule="ID-3", message=text, observation=1, context=(text, "x"))
    return [
        Passed(case_id="a-case", seconds=0.5),
        Failed(case_id="b-case", differences=(difference,), levels=(Level.MUST,)),
        Errored(case_id="c-case", level=Level.SHOULD, reason=text, stderr=draw(ANY_TEXT)),
        Skipped(case_id="d-case", reason=text),
        CaseBug(case_id=f"cases/{text}.yaml", reason=text),
        ExpectedFailure(
            case_id="e-case", reason=text,
            failure=Errored(case_id="e-case", level=Level.MUST, reason=text, stderr=text),
        ),
    ]


@settings(deadline=None)
@given(outcomes=_outcomes(), name=ANY_TEXT)
def test_every_report_format_escapes_any_text(outcomes: list[Outcome], name: str, spec: Spec) -> None:
    """Whatever the text (any code point, lone surrogates included) in messages, stderr, case
    paths and the implementation's name: JUnit parses, JSON is strict UTF-8, Markdown and
    console lines hold nothing unsafe, and no text adds a line."""
    info = report.RunInfo(command="impl", spec_version=spec.version, cases_dir="cases", name=name, version=name)
    root = ET.fromstring(to_junit(outcomes, {}, {}))
    # The SHOULD-level errored case is a warning: a property and the output, no <error>.
    warned = root.findall("testcase")[2]
    assert warned.find("error") is None
    warning = warned.find("properties/property[@name='cardid.warning']")
    assert warning is not None and warning.get("value") == escape.show(outcomes[2].reason)  # type: ignore[union-attr]

    data = _strict_json(report.to_json_text(report.to_json(outcomes, {}, info, spec)).encode("utf-8"))
    assert _no_surrogates(data)

    plain = report.RunInfo(command="impl", spec_version=spec.version, cases_dir="cases", name="n")
    blank = [*outcomes[:1], *[_with_text(o, "x") for o in outcomes[1:]]]
    text = to_markdown(outcomes, {}, info, spec)
    assert not UNSAFE.search(text.replace("\n", ""))
    assert text.count("\n") == to_markdown(blank, {}, plain, spec).count("\n")

    for outcome in outcomes:
        lines = console.failure_lines(outcome, "cardid run --case x")
        assert not any(UNSAFE.search(line) or "\n" in line for line in lines)


def _with_text(outcome: Outcome, text: str) -> Outcome:
    match outcome:
        case Failed():
            difference = Difference(rule="ID-3", message=text, observation=1, context=(text, "x"))
            return Failed(case_id=outcome.case_id, differences=(difference,), levels=outcome.levels)
        case Errored():
            return Errored(case_id=outcome.case_id, level=outcome.level, reason=text, stderr=text)
        case Skipped():
            return Skipped(case_id=outcome.case_id, reason=text)
        case CaseBug():
            return CaseBug(case_id=f"cases/{text}.yaml", reason=text)
        case ExpectedFailure():
            return ExpectedFailure(case_id=outcome.case_id, reason=text, failure=_with_text(outcome.failure, text))  # type: ignore[arg-type]
    return outcome


# ----------------------------------------------------------------------- planted names


def test_planted_symlinks_redirect_no_report(tmp_path: Path) -> None:
    """A symlink at the old fixed temporary name, or at the report's own name, pointing to
    another file: that file is untouched, the report is a regular file of its own."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    report_json, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    (tmp_path / ".report.json.partial").symlink_to(victim)
    junit.symlink_to(victim)
    code = main(["run", "--case", "reader-unknown-name", "--report-json", str(report_json), "--junit", str(junit)])
    assert code == Exit.OK
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not junit.is_symlink() and ET.parse(junit).getroot().get("tests") == "1"
    assert _strict_json(report_json.read_bytes())["summary"]["passed"] == 1
    assert [p.name for p in tmp_path.glob(".*.partial")] == [".report.json.partial"]  # the plant, left alone


def test_planted_symlinks_redirect_no_saved_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under --save-failures, a case folder that is a symlink is refused (the other cases are
    still saved), and a symlink at a file's name is replaced, not followed."""
    victim_dir, victim = tmp_path / "victim-dir", tmp_path / "victim.txt"
    victim_dir.mkdir()
    victim.write_text("precious\n", encoding="utf-8")
    saved = tmp_path / "saved"
    (saved / "reader-quoted-owner").mkdir(parents=True)
    (saved / "reader-quoted-owner" / "request.json").symlink_to(victim)
    (saved / "reader-unknown-name").symlink_to(victim_dir)
    code = main(["run", "--impl", HOSTILE_IMPL, *TWO_CASES, "--save-failures", str(saved)])
    assert code == Exit.USAGE
    out, err = capsys.readouterr()
    assert f"error: cannot write --save-failures {saved / 'reader-unknown-name'}: it is a symlink" in err
    assert "verdict: NOT CONFORMING" in out
    assert list(victim_dir.iterdir()) == [] and victim.read_text(encoding="utf-8") == "precious\n"
    request = saved / "reader-quoted-owner" / "request.json"
    assert not request.is_symlink() and json.loads(request.read_text(encoding="utf-8"))["role"] == "reader"


# ----------------------------------------------------------------------- outputs that fail


def test_outputs_broken_during_the_run_are_errors_and_the_rest_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths fine when checked, then changed while the cases run (the implementation does it):
    a directory where the JUnit file goes, a file where the Markdown's folder was, a file where
    the failures folder goes. Each is `error: cannot write OPTION PATH: why`, exit 2; the JSON
    report is still written and the summary still printed; no temporary file is left."""
    junit = tmp_path / "junit.xml"
    folder = tmp_path / "md"
    folder.mkdir()
    markdown = folder / "summary.md"
    saved = tmp_path / "saved"
    report_json = tmp_path / "report.json"
    monkeypatch.setenv("FAKE_MAKE_DIR", str(junit))
    monkeypatch.setenv("FAKE_MAKE_FILE", os.pathsep.join([str(folder), str(saved)]))
    code = main(["run", "--impl", HOSTILE_IMPL, *TWO_CASES, "--junit", str(junit), "--markdown", str(markdown),
                 "--save-failures", str(saved), "--report-json", str(report_json)])
    assert code == Exit.USAGE
    out, err = capsys.readouterr()
    assert f"error: cannot write --junit {junit}: Is a directory" in err
    assert f"error: cannot write --markdown {markdown}: Not a directory" in err
    assert f"error: cannot write --save-failures {saved}: File exists" in err
    assert "Traceback" not in err
    assert "verdict: NOT CONFORMING" in out
    assert _strict_json(report_json.read_bytes())["summary"]["total"] == 2
    assert not list(tmp_path.rglob("*.partial"))


def test_interrupted_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between writing and renaming: the target is as it was, and no temporary remains."""
    target = tmp_path / "report.json"
    target.write_text("old\n", encoding="utf-8")

    def interrupted(source: str, destination: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        writing.write_atomically(target, b"new\n", what="--report-json")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_name_near_the_limit_is_written(tmp_path: Path) -> None:
    """A file name of 250 characters (the system allows 255) leaves no room for a temporary
    name made of it and more: the temporary name is cut, and the file is written."""
    target = tmp_path / ("r" * 245 + ".json")
    writing.write_atomically(target, b"{}\n", what="--report-json")
    assert target.read_bytes() == b"{}\n" and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_written_file_has_the_usual_permissions(tmp_path: Path) -> None:
    """A report is readable as any file the user creates (the umask decides), not 0600."""
    target = tmp_path / "report.json"
    writing.write_atomically(target, b"{}\n", what="--report-json")
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_folder_during_the_run_is_an_error(tmp_path: Path) -> None:
    """A folder that loses write permission: the report's error names it."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(writing.OutputError) as caught:
            writing.write_atomically(folder / "r.json", b"{}", what="--report-json")
    finally:
        folder.chmod(0o700)
    assert caught.value.message == f"cannot write --report-json {folder / 'r.json'}: Permission denied"


# ----------------------------------------------------------------------- streams


def test_a_report_to_standard_output_is_all_it_holds(capfd: pytest.CaptureFixture[str]) -> None:
    """`--report-json -` writes the report to the descriptor, and the console's text goes to
    standard error: standard output is the report alone."""
    assert main(["run", "--case", "reader-unknown-name", "--report-json", "-"]) == Exit.OK
    out, err = capfd.readouterr()
    assert _strict_json(out.encode())["summary"]["passed"] == 1
    assert "verdict: CONFORMING" in err


@pytest.mark.parametrize("name", ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/../dev/stdout"])
def test_the_names_of_standard_output_are_written_to_it_never_renamed_over(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Each name of descriptor 1 takes the output through the descriptor. Nothing is renamed
    over the name: renaming over /dev/stdout replaced the machine's link with a file (so the
    file writer is barred here, lest a regression do that to the machine running the test)."""

    def renamed_over(path: Path, data: bytes, *, what: str) -> None:
        raise AssertionError(f"{path} would be renamed over")

    monkeypatch.setattr(writing, "write_atomically", renamed_over)
    link = os.readlink("/dev/stdout")
    before = set(os.listdir("/dev"))
    assert writing.descriptor(Path(name)) == 1
    writing.write_output(Path(name), b'{"written": true}\n', what="--report-json")
    assert capfd.readouterr().out == '{"written": true}\n'
    assert os.readlink("/dev/stdout") == link and set(os.listdir("/dev")) == before


def test_markdown_appended_to_standard_output(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """--markdown-append takes a stream too: standard output is the summary alone, the same
    text --markdown writes to a file."""
    markdown = tmp_path / "summary.md"
    argv = ["run", "--case", "reader-unknown-name", "--markdown", str(markdown), "--markdown-append", "/dev/stdout"]
    assert main(argv) == Exit.OK
    out, err = capfd.readouterr()
    assert out == markdown.read_text(encoding="utf-8") and out.startswith("## ")
    assert err.startswith("implementation: ") and "verdict: CONFORMING" in err


def test_an_inherited_pipe_takes_a_report(capfd: pytest.CaptureFixture[str]) -> None:
    """/dev/fd/N, as a shell's process substitution (`--junit >(cat)`) passes it: the report
    goes into the pipe, and the console stays on standard output."""
    read_end, write_end = os.pipe()
    try:
        code = main(["run", "--case", "reader-unknown-name", "--junit", f"/dev/fd/{write_end}"])
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            written = pipe.read()
    finally:
        for fd in (read_end, write_end):
            with contextlib.suppress(OSError):
                os.close(fd)
    assert code == Exit.OK
    assert ET.fromstring(written).get("tests") == "1"
    assert "verdict: CONFORMING" in capfd.readouterr().out


def test_a_fifo_is_written_while_read_and_refused_at_once_when_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO a process reads gets the report; one no process reads is an error at once
    (exit 2, naming it), the run does not wait for a reader, and the other outputs are written.
    /dev/null takes an output too."""
    fifo, junit = tmp_path / "fifo", tmp_path / "junit.xml"
    os.mkfifo(fifo)
    argv = ["run", "--case", "reader-unknown-name", "--report-json", str(fifo), "--junit", str(junit)]
    assert main_within([*argv, "--markdown", "/dev/null"]) == Exit.USAGE
    assert f"error: cannot write --report-json {fifo}: no process has it open for reading" in capsys.readouterr().err
    assert ET.parse(junit).getroot().get("tests") == "1"
    assert fifo.is_fifo()
    # Held open for reading (without waiting for a writer); the report fits the pipe's buffer.
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        junit.unlink()
        assert main_within(argv) == Exit.OK
        received = os.read(reading, 1 << 20)
    finally:
        os.close(reading)
    assert _strict_json(received)["summary"]["passed"] == 1
    assert fifo.is_fifo() and ET.parse(junit).getroot().get("tests") == "1"
