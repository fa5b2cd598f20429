"""Hostile or broken case files: a clear error naming the file (and line), never a traceback,
never code execution, and never a silent change of data by YAML 1.1 rules."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cardid_conformance.cases import load_case
from cardid_conformance.errors import CaseError
from cardid_conformance.spec import Spec
from cardid_runner.cli import Exit, main

from tests.conftest import ROOT, WRITER_CASE

BOMB = "\n".join(
    ["a: &a [x, x, x, x, x, x, x, x, x]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!!python/object/apply:os.system ['touch /tmp/cardid-pwned']\n", "tag !!python/object/apply:os.system is not allowed"),
        ("a: !!python/name:os.system\n", "tag !!python/name:os.system is not allowed"),
        (BOMB, "anchors and aliases are not allowed"),
        ("[" * 300_000 + "]" * 300_000, "nested too deeply"),
        ("- " * 200_000 + "x\n", "nested too deeply"),
        ("id: a\nrole: writer\nrole: reader\n", "duplicate key 'role'"),
        ("base: &b {x: 1}\nother:\n  <<: *b\n", "not allowed"),
    ],
    ids=["python-apply", "python-name", "alias-bomb", "deep-flow", "deep-block", "duplicate-key", "merge-key"],
)
def test_hostile_yaml_is_a_case_error(
    write_case: Callable[..., Path], spec: Spec, text: str, message: str
) -> None:
    """Each hostile file raises CaseError with the file named; nothing is executed."""
    path = write_case(text)
    with pytest.raises(CaseError) as caught:
        load_case(path, spec)
    assert message in caught.value.message
    assert str(path) in caught.value.message
    assert not Path("/tmp/cardid-pwned").exists()


def test_oversized_file_is_refused_before_parsing(write_case: Callable[..., Path], spec: Spec) -> None:
    """A 50 MB file is refused by size, without reading it as YAML."""
    path = write_case("x")
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    with pytest.raises(CaseError) as caught:
        load_case(path, spec)
    assert "over the 1,000,000-byte limit" in caught.value.message


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("number: '254'", "number: 010", "printings[0].number"),
        ("number: '254'", "number: 0x10", "printings[0].number"),
        ("set: ELD", "set: NO", "printings[0].set"),
        ("set: ELD", "set: ON", "printings[0].set"),
        ("set: ELD", "set: OFF", "printings[0].set"),
        ("object: '1'", "object: 1", "observations[1].object"),
    ],
)
def test_yaml_11_traps_never_pass_silently(
    write_case: Callable[..., Path], spec: Spec, old: str, new: str, where: str
) -> None:
    """Octal-looking numbers, NO/ON/OFF set codes and unquoted handles fail the schema, naming the field."""
    text = write_case(copy.deepcopy(WRITER_CASE)).read_text(encoding="utf-8")
    assert old in text
    path = write_case(text.replace(old, new, 1), name="sample-writer.yaml")
    with pytest.raises(CaseError) as caught:
        load_case(path, spec)
    assert where in caught.value.message
    assert caught.value.line is not None


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("set: ELD", "set: 'OFF'", "OFF"),  # quoted, a YAML 1.1 boolean word is the set code OFF
        ("set: ELD", 'set: "Yes"', "Yes"),
        ("hidden_tracking: true", "hidden_tracking: yes", True),  # a boolean field: yes is true
        ("hidden_tracking: true", "hidden_tracking: on", True),
    ],
)
def test_yaml_11_words_read_as_written_through_the_loader(
    write_case: Callable[..., Path], spec: Spec, old: str, new: str, value: object
) -> None:
    """The project's loader (not PyYAML on its own) reads a quoted boolean word as that string,
    and yes/on as true only where the schema wants a boolean: the case loads with that value."""
    text = write_case(copy.deepcopy(WRITER_CASE)).read_text(encoding="utf-8")
    assert old in text
    path = write_case(text.replace(old, new, 1), name="sample-writer.yaml")
    request = load_case(path, spec).request
    loaded = (
        request["cards"][0]["printings"][0]["set"] if "set" in new else request["source"]["hidden_tracking"]
    )
    assert loaded == value and type(loaded) is type(value)


def test_1e3_collector_number_stays_a_string(write_case: Callable[..., Path], spec: Spec) -> None:
    """`1e3` is read as the string 1e3, exactly as written, not as the number 1000."""
    text = write_case(copy.deepcopy(WRITER_CASE)).read_text(encoding="utf-8")
    path = write_case(text.replace("number: '254'", "number: 1e3", 1), name="sample-writer.yaml")
    case = load_case(path, spec)
    assert case.request["cards"][0]["printings"][0]["number"] == "1e3"


def test_cli_reports_a_broken_case_and_runs_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`cardid run` lists a broken file as a case bug (exit 1) and still runs the good cases."""
    folder = tmp_path / "cases"
    folder.mkdir()
    good = ROOT / "cases" / "reader" / "reader-unknown-name.yaml"
    (folder / good.name).write_bytes(good.read_bytes())
    (folder / "broken.yaml").write_text("id: broken\nid: again\n", encoding="utf-8")
    assert main(["run", "--cases", str(folder)]) == Exit.FAILED
    out = capsys.readouterr().out
    assert f"BUG IN CASE {folder / 'broken.yaml'}" in out
    assert "1 passed" in out and "1 case bugs" in out


def test_lint_on_hostile_file_has_no_traceback(tmp_path: Path) -> None:
    """The CLI turns a hostile case into `path:line: message` on stderr, exit 1, no traceback."""
    (tmp_path / "bomb.yaml").write_text(BOMB, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "lint", "--cases", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=60,
    )
    assert done.returncode == Exit.FAILED
    assert f"{tmp_path / 'bomb.yaml'}:1: anchors and aliases" in done.stderr
    assert "Traceback" not in done.stderr
