"""Attacks on the command line: every option of every subcommand, given a value it cannot take,
is a usage error (exit 2) of one line naming the option and what it allows; nothing has run, no
traceback, and no file an option names (a FIFO, a device, a directory) can make it wait."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from cardid_conformance.errors import UsageError
from cardid_runner import cli, options
from cardid_runner.cli import Exit, main
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.processes import main_within


def _one_usage_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == "", "nothing ran, so nothing is reported"
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


BAD_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "-1", "0", "0.0", "1e300", "1e-300", "0.001",
               "1001", "", " 1", "1 ", "1_0", "١", "0x10", "1/2", "true", "+1"]


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_timeout_multiplier_out_of_range_is_one_usage_line(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """nan, inf, negative, zero, absurdly large or small, or not plainly written: exit 2."""
    assert main(["run", f"--timeout-multiplier={value}"]) == Exit.USAGE
    line = _one_usage_line(capsys)
    assert line == (
        f"error: cardid run: argument --timeout-multiplier: takes a number from 0.01 to 1000, not {value!r}"
    )


@pytest.mark.parametrize(
    ("argv", "option", "allowed"),
    [
        (["run", "-j", "0"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "-3"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "257"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "99999999999999999999"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "２"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "1.5"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "-j", "AUTO"], "-j/--jobs", "'auto' or a whole number from 1 to 256"),
        (["run", "--case", "Flicker"], "--case", "a case ID or glob"),
        (["list", "--case", "../etc/passwd"], "--case", "a case ID or glob"),
        (["list", "--case", ""], "--case", "a case ID or glob"),
        (["run", "--cr", "70"], "--cr", "a CR number such as 701"),
        (["list", "--cr", "701.x"], "--cr", "a CR number such as 701"),
        (["list", "--tag", "Names"], "--tag", "a tag (a-z, 0-9 and '-')"),
        (["list", "--level", "must"], "--level", "choose from 'MUST', 'SHOULD', 'MAY'"),
        (["run", "--role", "both"], "--role", "choose from 'writer', 'reader'"),
        (["run", "--impl", ""], "--impl", "the implementation command is empty"),
        (["run", "--impl", "  "], "--impl", "the implementation command is empty"),
        (["run", "--impl", "'open"], "--impl", "No closing quotation"),
        (["run", "--cases", "/nonexistent/cases"], "--cases", "No such file or directory"),
        (["lint", "--cases", "/dev/null"], "--cases", "/dev/null is a character device"),
        (["list", "--cases", "/dev/null"], "--cases", "/dev/null is a character device"),
        (["run", "--report-json", str(ROOT)], "--report-json", f"{ROOT} is a directory"),
        (["run", "--junit", str(ROOT / "README.md" / "junit.xml")], "--junit", "is a regular file, not a folder"),
        (["run", "--markdown", "/nonexistent/dir/summary.md"], "--markdown", "No such file or directory"),
        (["run", "--markdown", "/dev/stdin"], "--markdown", "/dev/stdin is standard input"),
        (["run", "--report-json", "/tmp/" + "a" * 300], "--report-json", ": File name too long"),
        (["run", "--save-failures", "/tmp/" + "a" * 300], "--save-failures", ": File name too long"),
        (["certify", "--out", "/tmp/" + "a" * 300], "--out", ": File name too long"),
        (["run", "--junit", "/dev/fd/987654"], "--junit", "/dev/fd/987654 names descriptor 987654, which is not open"),
        (["run", "--save-failures", str(ROOT / "README.md")], "--save-failures", "is a regular file"),
        (["run", "--save-failures", str(ROOT / "README.md" / "x")], "--save-failures", "not a folder"),
        (["run", "--report-json", ""], "--report-json", "takes a file path"),
        (["run", "--report-json", "a\0b"], "--report-json", "takes a file path"),
        (["run", "--save-failures", "a\0b"], "--save-failures", "takes a folder path"),
        (["run", "--cases", "a\0b"], "--cases", "takes a case directory or file"),
        (["run", "--expect", "a\0b"], "--expect", "takes a file path"),
        (["run", "--resume", ""], "--resume", "takes a file path"),
        (["lint", "--cr", "a\0b"], "--cr", "takes a file path"),
        (["lint", "--cards", ""], "--cards", "takes a file path"),
    ],
)
def test_bad_option_value_is_one_usage_line_naming_the_option(
    capsys: pytest.CaptureFixture[str], argv: list[str], option: str, allowed: str
) -> None:
    """Each option of run, list and lint checks its value before anything is loaded or run."""
    assert main(argv) == Exit.USAGE
    line = _one_usage_line(capsys)
    assert line.startswith(f"error: cardid {argv[0]}: argument {option}: ")
    assert allowed in line


@pytest.mark.parametrize("command", ["run", "list"])
def test_unknown_rule_is_one_usage_line_listing_the_families(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """--rule is checked against the spec index: an unknown rule says so (not "matches no
    case"), and the line lists the families there are."""
    assert main([command, "--rule", "LIBB"]) == Exit.USAGE
    line = _one_usage_line(capsys)
    assert line.startswith("error: argument --rule: unknown rule 'LIBB': spec 1.2.0 has rule IDs")
    assert "(HID, ID, LIB," in line and "`cardid rules` lists them" in line


def test_two_outputs_naming_one_file_are_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--junit and --markdown on the same file: one would overwrite the other."""
    target = tmp_path / "out"
    assert main(["run", "--junit", str(target), "--markdown", str(tmp_path / "." / "out")]) == Exit.USAGE
    assert "--junit and --markdown both name" in _one_usage_line(capsys)


def test_two_outputs_on_standard_output_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`-` and /dev/stdout are one descriptor: the report and the JUnit XML would interleave."""
    assert main(["run", "--report-json", "-", "--junit", "/dev/stdout"]) == Exit.USAGE
    assert "--report-json and --junit both name /dev/stdout" in _one_usage_line(capsys)


def test_no_output_replaces_the_known_failure_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--report-json naming the --expect file would overwrite it: refused before the run."""
    known = tmp_path / "known.yaml"
    known.write_text("implementation: x\nknown_failures: []\n", encoding="utf-8")
    assert main(["run", "--expect", str(known), "--report-json", str(known)]) == Exit.USAGE
    assert "--expect and --report-json both name" in _one_usage_line(capsys)


def test_unknown_option_and_missing_command_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's own errors return 2 from main (no SystemExit), on one line."""
    assert main(["run", "--no-such-option"]) == Exit.USAGE
    assert "unrecognized arguments: --no-such-option" in _one_usage_line(capsys)
    assert main(["run", "--timeout-multiplier", "-inf"]) == Exit.USAGE
    assert "as --option=VALUE" in _one_usage_line(capsys)
    assert main([]) == Exit.USAGE
    assert "the following arguments are required: COMMAND" in _one_usage_line(capsys)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_report_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder without write permission is refused before the run, naming it."""
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    assert main(["run", "--report-json", str(folder / "r.json")]) == Exit.USAGE
    assert f"no permission to write in {folder}" in _one_usage_line(capsys)


# ----------------------------------------------------------------------- generated values

#: One parser for all generated values: building it costs more than parsing with it.
PARSER = cli._parser()


@settings(deadline=None)
@given(text=st.one_of(st.text(max_size=12), st.floats().map(repr), st.integers().map(str),
                      st.from_regex(r"[-+]?[0-9]*\.?[0-9]*([eE][-+]?[0-9]{1,4})?", fullmatch=True)))
def test_any_multiplier_text_is_a_sane_number_or_a_usage_error(text: str) -> None:
    """Whatever the text, the parsed multiplier is finite and within range, or the parser
    raises a UsageError of one line naming the option."""
    try:
        args = PARSER.parse_args(["run", f"--timeout-multiplier={text}"])
    except UsageError as exc:
        assert "argument --timeout-multiplier: takes a number from 0.01 to 1000" in exc.message
        assert "\n" not in exc.message.replace(text, "")
    else:
        value = args.timeout_multiplier
        assert math.isfinite(value) and options.MULTIPLIERS[0] <= value <= options.MULTIPLIERS[1]


@settings(deadline=None)
@given(text=st.one_of(st.text(max_size=8), st.integers().map(str)))
@example(text="--")  # argparse drops it; found by this test
def test_any_jobs_text_is_a_sane_count_or_a_usage_error(text: str) -> None:
    """-j parses to a whole number from 1 to 256, or is a usage error naming -j."""
    try:
        args = PARSER.parse_args(["run", f"--jobs={text}"])
    except UsageError as exc:
        assert "argument -j/--jobs: takes 'auto' or a whole number from 1 to 256" in exc.message
    else:
        assert type(args.jobs) is int and 1 <= args.jobs <= options.MAX_JOBS


def test_edge_values_are_accepted() -> None:
    """The ends of each range, and `auto`, are allowed."""
    parse = cli._parser().parse_args
    assert parse(["run", "--timeout-multiplier", "0.01"]).timeout_multiplier == 0.01
    assert parse(["run", "--timeout-multiplier", "1000"]).timeout_multiplier == 1000
    assert parse(["run", "--timeout-multiplier", ".5"]).timeout_multiplier == 0.5
    assert parse(["run", "--timeout-multiplier", "2e1"]).timeout_multiplier == 20
    assert parse(["run", "-j", "256"]).jobs == 256
    assert 1 <= parse(["run", "-j", "auto"]).jobs <= 256
    assert parse(["run", "--case", "shuffle-*", "--case", "[a-c]*"]).case == ["shuffle-*", "[a-c]*"]


# ----------------------------------------------------------------------- files options read


@pytest.fixture
def odd_files(tmp_path: Path) -> dict[str, Path]:
    """A FIFO, a directory, a device and a missing path."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return {"FIFO": fifo, "directory": tmp_path, "device": Path("/dev/null"), "missing": tmp_path / "nope"}


@pytest.mark.parametrize("kind", ["FIFO", "directory", "device", "missing"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--expect"], "error: known-failure file {path}: "),
        (["run", "--resume"], "error: cannot read the report to resume from (--resume) {path}: "),
        (["lint", "--cr"], "error: cannot read Comprehensive Rules file {path}: "),
        (["lint", "--cards"], "error: cannot read card data {path}: "),
    ],
    ids=["expect", "resume", "cr", "cards"],
)
def test_file_options_refuse_what_is_not_a_regular_file_without_waiting(
    capsys: pytest.CaptureFixture[str], odd_files: dict[str, Path], kind: str, argv: list[str], message: str
) -> None:
    """--expect, --resume, --cr and --cards name a file to read: anything else is exit 2 naming
    it, and a FIFO never makes the run wait for a writer."""
    path = odd_files[kind]
    assert main_within([*argv, str(path)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert err.startswith(message.format(path=path)), err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("-j", "argument -j/--jobs: takes 'auto' or a whole number from 1 to 256, not '--'"),
        ("--timeout-multiplier", "argument --timeout-multiplier: takes a number from 0.01 to 1000, not '--'"),
        ("--rule", "argument --rule: unknown rule '--'"),
        ("--level", "argument --level: invalid choice: '--'"),
        ("--cases", "argument --cases: takes a case directory or file: --: No such file or directory"),
    ],
)
def test_a_dash_dash_value_is_checked_like_any_other(
    option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--jobs=--`: Python 3.11's argparse drops the `--` and leaves an empty list, on which the
    run crashed; the value is the `--` written, refused with the option's own message."""
    assert main(["run", f"{option}=--"]) == Exit.USAGE
    assert message in _one_usage_line(capsys)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timeout-multiplier", "nan"], "argument --timeout-multiplier: takes a number from 0.01 to 1000, not 'nan'"),
        (["--impl", ""], "argument --impl: takes an implementation command: the implementation command is empty"),
        (["--cardid-cases", "/dev/null"], "argument --cardid-cases: takes a case directory or file: /dev/null is a character device"),
        # pytest's argparse drops a `--` value too (see the CLI's test above)
        (["--timeout-multiplier=--"], "argument --timeout-multiplier: takes a number from 0.01 to 1000, not '--'"),
        (["--cardid-cases=--"], "argument --cardid-cases: takes a case directory or file: --: No such file or directory"),
        (["--rule=--"], "argument --rule: unknown rule '--'"),
        (["--level=--"], "argument --level: invalid choice: '--' (choose from 'MUST', 'SHOULD', 'MAY')"),
    ],
)
def test_pytest_plugin_checks_its_options_too(pytester: pytest.Pytester, argv: list[str], message: str) -> None:
    """`pytest conformance` with a bad value stops with a usage error naming the option (an
    empty --impl is not silently the reference)."""
    result = pytester.runpytest(str(ROOT / "conformance"), *argv, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
