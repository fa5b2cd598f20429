"""Attacks on the YAML the suite reads: values no constructor can build, tags beyond plain data,
special files where case files should be. Each is a case bug naming the file and line (the rest
of the corpus still runs), or, in a known-failure file or the spec index, a clear error and exit
code: never a traceback, never a hang, whichever path reads it (the strict
loader, the depth guard).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardid_conformance import yamlfile
from cardid_conformance.cases import load_corpus
from cardid_conformance.errors import CaseError, SuiteError
from cardid_conformance.spec import Spec, load_spec
from cardid_runner.cli import Exit, main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, WRITER_CASE

GOOD = ROOT / "cases" / "reader" / "reader-unknown-name.yaml"
WRITER_TEXT = yaml.safe_dump(copy.deepcopy(WRITER_CASE), allow_unicode=True, sort_keys=False)

#: YAML values that PyYAML's safe constructors raise on (or build as no JSON value).
HOSTILE = {
    "impossible-date": "2027-02-30",
    "feb-29-2027": "2027-02-29",
    "month-13": "2027-13-01",
    "bad-int-tag": "!!int abc",
    "5000-digit-int": "1" * 5000,
    "huge-hex": "0x" + "f" * 5000,
    "int-beyond-2**53": str(2**53),
    "long-sexagesimal": "1" + ":59" * 60,
    "bad-float-tag": "!!float x",
    "infinity": ".inf",
    "nan": ".NaN",
    "float-overflow": "1.0e+999",
    "binary-garbage": "!!binary '@@@ not base64 @@@'",
    "binary": "!!binary aGVsbG8=",
    "timestamp-tag-garbage": "!!timestamp x",
    "timestamp-tag-on-a-list": "!!timestamp [1]",
    "local-tag": "!thing x",
    "verbatim-tag": "!<tag:example.com,2000:thing> y",
    "set": "!!set {a, b}",
    "omap": "!!omap [{a: 1}]",
    "pairs": "!!pairs [{a: 1}]",
    "python-tuple": "!!python/tuple [1, 2]",
    "map-tag-on-a-scalar": "!!map x",
    "seq-tag-on-a-mapping": "!!seq {a: 1}",
    "str-tag-on-a-list": "!!str [a]",
    "int-key": "{1: a}",
    "bool-key": "{yes: a}",
    "null-key": "{~: a}",
    "list-key": "{[a]: b}",
    "surrogate-escape": '"\\ud800"',
}


def _case_text(where: str, value: str) -> tuple[str, int]:
    """A writer case with `value` at a top-level field or a nested one, and that line."""
    lines = WRITER_TEXT.splitlines()
    index = 1 if where == "top" else 10  # `description: ...` or `  perspective: P1`
    key = lines[index].split(":", 1)[0]
    lines[index] = f"{key}: {value}"
    return "\n".join(lines) + "\n", index + 1


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    shutil.copy(GOOD, folder / GOOD.name)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("where", ["top", "nested"])
def test_hostile_value_is_a_case_bug_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """`cardid lint` reports `file:line: ...` at each hostile value's own line, one problem per
    file; the good case is clean."""
    files = {f"{name}.yaml": _case_text(where, value)[0] for name, value in HOSTILE.items()}
    line = _case_text(where, "x")[1]
    folder = _folder(tmp_path, files)
    assert main(["lint", "--cases", str(folder)]) == Exit.FAILED
    err = capsys.readouterr().err
    for name in files:
        assert f"{folder / name}:{line}: " in err, name
    assert f"{len(files)} problem(s) in {len(files) + 1} case files" in err
    assert "Traceback" not in err


def test_hostile_values_behind_a_long_line_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A long line makes the depth guard measure the file first: the same case bugs, lines too."""
    long_comment = "# " + "x" * 1200
    files = {}
    for number, value in enumerate(HOSTILE.values()):
        text, _ = _case_text("nested", value)
        files[f"hostile-{number}.yaml"] = f"{long_comment}\n{text}"
    folder = _folder(tmp_path, files)
    assert main(["lint", "--cases", str(folder)]) == Exit.FAILED
    err = capsys.readouterr().err
    assert f"{len(HOSTILE)} problem(s) in {len(HOSTILE) + 1} case files" in err
    for name in files:
        assert f"{folder / name}:12: " in err  # the comment pushed the value one line down


def test_run_reports_each_hostile_file_and_runs_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cardid run` lists every hostile file as a case bug with its line; the good case passes."""
    files = {f"hostile-{n}.yaml": _case_text("top", value)[0] for n, value in enumerate(HOSTILE.values())}
    folder = _folder(tmp_path, files)
    report = tmp_path / "report.json"
    assert main(["run", "--cases", str(folder), "--report-json", str(report)]) == Exit.FAILED
    out = capsys.readouterr().out
    for name in files:
        assert f"BUG IN CASE {folder / name}: {folder / name}:2: " in out
    assert f"1 passed, 0 failed, {len(files)} case bugs" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["summary"]["passed"] == 1 and data["summary"]["case_bugs"] == len(files)


def test_pytest_collection_turns_hostile_files_into_failing_items(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """`pytest conformance` collects hostile files as BUG IN CASE items and runs the good case."""
    picked = ["impossible-date", "bad-int-tag", "5000-digit-int", "binary-garbage", "local-tag"]
    files = {f"{name}.yaml": _case_text("top", HOSTILE[name])[0] for name in picked}
    folder = _folder(tmp_path, files)
    result = pytester.runpytest(str(ROOT / "conformance"), f"--cardid-cases={folder}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=len(picked))
    out = result.stdout.str()
    for name in files:
        assert f"BUG IN CASE: {folder / name}:2: " in out
    assert "Traceback" not in out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    depth=st.integers(min_value=90, max_value=1500),
    style=st.sampled_from(["flow", "block", "mapping"]),
    long_line=st.booleans(),
)
def test_deep_nesting_anywhere_is_a_case_bug_at_its_line(
    tmp_path: Path, spec: Spec, depth: int, style: str, long_line: bool
) -> None:
    """Up to 100 levels of data load; deeper is a case bug at the line where level 101 starts,
    whether the depth guard measures the text (a long line) or the loader finds it; never a
    RecursionError later, in a schema message or a request's encoding."""
    if style == "flow":
        value, extra = "[" * depth + "]" * depth, 0
    elif style == "mapping":
        value, extra = "{a: " * depth + "1" + "}" * depth, 0
    else:
        depth = min(depth, 700)  # indentation grows with depth: deeper would pass the size limit
        value = "\n" + "".join("  " * (i + 1) + "- \n" for i in range(depth)) + "  " * (depth + 1) + "x"
        extra = 1
    text, line = _case_text("nested", value)
    if long_line:
        text = "# " + "x" * 1200 + "\n" + text
        line += 1
    path = tmp_path / "sample-writer.yaml"
    path.write_text(text, encoding="utf-8")
    corpus = load_corpus([path], spec)
    [bug] = corpus.bugs  # perspective takes a string: any list there is a bug
    if depth + 2 > yamlfile.MAX_DEPTH:  # the case mapping and `input` are two levels
        assert bug.reason == f"YAML nested too deeply (more than {yamlfile.MAX_DEPTH} levels)"
        first_too_deep = yamlfile.MAX_DEPTH - 2 + extra  # lines of `- ` before level 101 (block)
        assert bug.line == (line + first_too_deep if style == "block" else line)
    else:
        assert "perspective" in bug.reason


# --------------------------------------------------------------------- generated values

TAGS = st.sampled_from(
    ["", "", "", "!!int ", "!!float ", "!!bool ", "!!null ", "!!str ", "!!binary ", "!!timestamp ",
     "!!set ", "!!omap ", "!!pairs ", "!!seq ", "!!map ", "!!python/none ", "!x ", "!<tag:x> "]
)
SCALAR_TEXT = st.one_of(
    st.sampled_from(list(HOSTILE.values())),
    st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([ tT][0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z?)?", fullmatch=True),
    st.from_regex(r"[-+]?(0[xob])?[0-9a-fA-F_:.eE+]{1,40}", fullmatch=True),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
    st.sampled_from(["[1, 2]", "{a: 1}", "{1: a}", "[a, {b: [c]}]", "'quoted'", '"\\x1b\\0"', "~"]),
)
VALUES = st.builds(lambda tag, text: tag + text, TAGS, SCALAR_TEXT)


def _is_plain(value: Any) -> bool:
    """JSON's data model: what the strict loader promises to return."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    return value is None or isinstance(value, str | bool | int | float)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES, style=st.sampled_from(["block", "flow", "nested", "key"]))
def test_any_value_loads_as_plain_data_or_is_a_case_error(
    tmp_path: Path, spec: Spec, value: str, style: str
) -> None:
    """Whatever tag and text, the loader returns strict JSON data or raises CaseError naming the
    file; loading a corpus with it never raises at all."""
    text = {
        "block": f"a: {value}\nb: 1\n",
        "flow": f"a: [{value}, 2]\n",
        "nested": f"a:\n  b:\n    - {value}\n",
        "key": f"? {value}\n: 1\n",
    }[style]
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        data = yamlfile.load(path)
    except CaseError as exc:
        assert exc.message.startswith(f"{path}")
    else:
        assert _is_plain(data), data
        json.dumps(data, allow_nan=False)
    corpus = load_corpus([path], spec)
    assert len(corpus.bugs) == 1 and corpus.cases == ()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES, where=st.sampled_from(["top", "nested"]))
def test_any_value_in_a_case_file_is_loaded_or_a_case_bug(
    tmp_path: Path, spec: Spec, value: str, where: str
) -> None:
    """In a real case file, any value leaves a loaded case or one case bug: nothing raises."""
    text, _ = _case_text(where, value)
    path = tmp_path / "sample-writer.yaml"
    path.write_text(text, encoding="utf-8")
    corpus = load_corpus([path], spec)
    assert len(corpus.cases) + len(corpus.bugs) == 1
    for case in corpus.cases:
        case.request_bytes()  # what is sent to an implementation encodes


# --------------------------------------------------------------------- known-failure files

KNOWN = "implementation: fake\nknown_failures:\n  - case: reader-unknown-name\n    reason: it fails\n    expires: 2027-03-31\n"


@pytest.mark.parametrize(
    ("old", "line"),
    [("expires: 2027-03-31", 5), ("reason: it fails", 4), ("implementation: fake", 1)],
    ids=["expires", "reason", "implementation"],
)
@pytest.mark.parametrize(
    "value",
    [HOSTILE[name] for name in ("impossible-date", "feb-29-2027", "bad-int-tag", "5000-digit-int",
                                "binary-garbage", "timestamp-tag-garbage", "local-tag", "nan", "int-key")],
)
def test_hostile_known_failure_file_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, line: int, value: str
) -> None:
    """A known-failure file that cannot be read as plain data stops the run before it starts:
    exit 2, `error: known-failure file PATH:LINE: ...` and a hint on what to do."""
    known = tmp_path / "known.yaml"
    key = old.split(":", 1)[0]
    known.write_text(KNOWN.replace(old, f"{key}: {value}"), encoding="utf-8")
    folder = _folder(tmp_path, {})
    assert main(["run", "--cases", str(folder), "--expect", str(known)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: known-failure file {known}:{line}: ")
    assert "\nhint: " in err


def test_quoted_impossible_expiry_date_exits_2_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quoted, `expires: '2027-02-29'` passes the loader and the schema's pattern, and is still
    refused as no date, with its line."""
    known = tmp_path / "known.yaml"
    known.write_text(KNOWN.replace("2027-03-31", "'2027-02-29'"), encoding="utf-8")
    assert main(["run", "--cases", str(_folder(tmp_path, {})), "--expect", str(known)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert f"{known}:5: expires '2027-02-29' is not a date" in err
    assert "hint: write a real date as YYYY-MM-DD" in err


def test_unquoted_expiry_date_still_works(tmp_path: Path) -> None:
    """The documented form `expires: 2027-03-31` (unquoted) is read as that date."""
    from cardid_conformance.expect import load_known_failures

    known = tmp_path / "known.yaml"
    known.write_text(KNOWN, encoding="utf-8")
    assert str(load_known_failures(known).entries[0].expires) == "2027-03-31"


# --------------------------------------------------------------------- special files


@pytest.fixture
def special_files(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A case folder with the good case and one of every kind of file that is no case file."""
    folder = _folder(tmp_path, {})
    os.mkfifo(folder / "fifo.yaml")
    (folder / "directory.yaml").mkdir()
    (folder / "to-fifo.yaml").symlink_to(folder / "fifo.yaml")
    (folder / "device.yaml").symlink_to("/dev/zero")
    (folder / "dangling.yaml").symlink_to(tmp_path / "nowhere")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "socket.yaml"))
    expected = {
        "fifo.yaml": "a FIFO, not a regular file",
        "directory.yaml": "a directory, not a regular file",
        "to-fifo.yaml": "a FIFO, not a regular file",
        "device.yaml": "a character device, not a regular file",
        "dangling.yaml": "cannot read file: No such file or directory",
        "socket.yaml": "a socket, not a regular file",
    }
    yield folder, expected
    server.close()


@pytest.mark.parametrize("command", ["run", "lint", "list"])
def test_special_files_are_case_bugs_and_never_block(
    special_files: tuple[Path, dict[str, str]], command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """FIFOs, sockets, devices, directories and symlinks to them, named *.yaml, are each a case
    bug saying what they are; nothing waits on them and the good case is still there."""
    folder, expected = special_files
    if command == "run":  # it sets a SIGTERM handler, which only the main thread may: a process
        done = subprocess.run(
            [sys.executable, "-m", "cardid_runner", command, "--cases", str(folder)],
            capture_output=True, text=True, timeout=60, check=False,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    else:  # in a thread, so that a wait on a FIFO fails the test instead of hanging it
        result: list[int] = []
        thread = threading.Thread(target=lambda: result.append(main([command, "--cases", str(folder)])), daemon=True)
        thread.start()
        thread.join(30)
        assert result, "it waited on a special file"
        code, (out, err) = result[0], capsys.readouterr()
    assert code == Exit.FAILED and "Traceback" not in err
    for name, message in expected.items():
        assert f"{folder / name}: {message}" in out + err
    assert {"run": "1 passed", "lint": "6 problem(s) in 7 case files", "list": "reader-unknown-name\treader"}[
        command
    ] in out + err


# --------------------------------------------------------------------- the spec index


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: text.replace("version: 1.2.0", "version: !!binary x"), "tag !!binary is not allowed"),
        (lambda text: text.replace('cr_edition: "2026-09-25"', "cr_edition: 2026-02-30"), "not a real date"),
        (lambda text: text + "\nextra: " + "[" * 1500 + "]" * 1500 + "\n", "nested too deeply"),
        (lambda text: text.replace("version: 1.2.0", "version: &v 1.2.0\nagain: *v"), "aliases"),
        (lambda text: text + "\nversion: 2\n", "duplicate key 'version'"),
        (lambda text: text.replace("rules:", "rules: 7\nold_rules:", 1), "malformed"),
        (lambda text: "- just a list\n", "malformed"),
    ],
    ids=["tag", "date", "deep", "alias", "duplicate", "rules-not-a-list", "not-a-mapping"],
)
def test_hostile_spec_index_is_a_suite_error(tmp_path: Path, change: Any, message: str) -> None:
    """The spec index goes through the same strict loader, depth guard included."""
    path = tmp_path / "rules.yaml"
    path.write_text(change((ROOT / "spec" / "rules.yaml").read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        load_spec(path)
    assert message in caught.value.message and str(path) in caught.value.message


def test_broken_spec_index_exits_3_without_a_traceback(tmp_path: Path) -> None:
    """`cardid run` on a suite whose spec index is hostile: exit 3, the file named, a hint."""
    for part in ("spec", "schema"):
        shutil.copytree(ROOT / part, tmp_path / part)
    (tmp_path / "cases").mkdir()
    rules = tmp_path / "spec" / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace("version: 1.2.0", "version: !!int x"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "run"], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "CARDID_SUITE": str(tmp_path)},
    )
    assert done.returncode == Exit.SUITE
    assert done.stderr.startswith(f"error: cannot read the rule index {rules}:")
    assert "hint: " in done.stderr and "Traceback" not in done.stderr
