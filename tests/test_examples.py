"""The example adapters in examples/, run by `cardid run` against the reader cases.

examples/node: a complete reader; it must pass every reader case in persistent mode, and a
selection with --isolate. examples/shell: a toy reader with a known-failure file; with the
file the run is green and lists exactly those cases, without it the run fails. Each example
is skipped, with a reason, when its toolchain (node, jq) is not on PATH.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from cardid_runner.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NODE_ADAPTER = EXAMPLES / "node" / "adapter.js"
SHELL_ADAPTER = EXAMPLES / "shell" / "adapter.sh"
SHELL_KNOWN = EXAMPLES / "shell" / "known-failures.yaml"

NODE = shutil.which("node")
JQ = shutil.which("jq")
SH = shutil.which("sh")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH: examples/node not run")
needs_jq = pytest.mark.skipif(
    JQ is None or SH is None, reason="jq (or sh) is not on PATH: examples/shell not run"
)

EXPECTED_HELLO = {
    "protocol": 1,
    "implementation": {"name": "example-node-reader", "version": "0.1.0"},
    "roles": ["reader"],
}


@functools.cache
def _reader_cases() -> frozenset[str]:
    """Every case of the corpus whose role is reader (what `--role reader` selects)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    ids = set()
    for path in (ROOT / "cases").rglob("*.yaml"):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # a safe loader
        if isinstance(data, dict) and data.get("role") == "reader":
            ids.add(data["id"])
    assert ids, "no reader cases found"
    return frozenset(ids)


@dataclasses.dataclass(frozen=True)
class _Ran:
    """A `cardid run`: its exit status and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


def _cardid_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, impl: list[str], *extra: str
) -> tuple[_Ran, dict[str, Any]]:
    """`cardid run --impl CMD --role reader --report-json R` (in this process: what is tested
    is the adapter, run as a process of its own) and the report."""
    report = tmp_path / "r.json"
    code = main(["run", "--impl", shlex.join(impl), "--role", "reader", "--report-json", str(report), *extra])
    out, err = capsys.readouterr()
    ran = _Ran(code, out, err)
    assert report.is_file(), f"no report written\n{_explain(ran)}"
    return ran, json.loads(report.read_text(encoding="utf-8"))


def _statuses(report: dict[str, Any]) -> dict[str, str]:
    return {result["case"]: result["status"] for result in report["results"]}


def _explain(proc: _Ran) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


# --- examples/node ---------------------------------------------------------------------------


#: What the per-case run of the Node reader answers: its reading is the persistent run's, so
#: a selection is enough to show the per-case framing: entries read, rejections, CRLF line
#: ends and non-ASCII names.
NODE_PER_CASE = (
    "reader-empty-lines-and-crlf", "reader-multiface-and-non-ascii-names", "reader-quoted-owner",
    "reader-rejects-duplicate-id", "reader-rejects-unknown-escape",
)


@needs_node
def test_node_reader_passes_every_reader_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The Node reader answers every reader case right, in persistent mode."""
    assert NODE is not None
    proc, report = _cardid_run(capsys, tmp_path, [NODE, str(NODE_ADAPTER)])
    assert proc.returncode == 0, _explain(proc)
    assert _statuses(report) == dict.fromkeys(_reader_cases(), "passed")
    assert report["implementation"]["mode"] == "persistent"
    assert report["implementation"]["name"] == "example-node-reader"
    assert report["implementation"]["version"] == "0.1.0"
    assert report["verdict"]["conforming"] is True


@needs_node
def test_node_reader_passes_in_per_case_mode_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """With --isolate (one node process per case) its answers are as right."""
    assert NODE is not None
    chosen = [option for case in NODE_PER_CASE for option in ("--case", case)]
    proc, report = _cardid_run(capsys, tmp_path, [NODE, str(NODE_ADAPTER)], "--isolate", *chosen)
    assert proc.returncode == 0, _explain(proc)
    assert _statuses(report) == dict.fromkeys(NODE_PER_CASE, "passed")
    assert report["implementation"]["mode"] == "per-case"


@needs_node
def test_node_handshake_validates_against_protocol_schema() -> None:
    """The hello matches protocol.schema.json (its `hello` branch), and `stop` ends with 0."""
    assert NODE is not None
    schema = json.loads((ROOT / "schema" / "protocol.schema.json").read_text(encoding="utf-8"))
    proc = subprocess.run(
        [NODE, str(NODE_ADAPTER)],
        input=b'{"cmd":"start","protocol":1}\n{"cmd":"stop"}\n',
        capture_output=True, timeout=30, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    hello = json.loads(lines[0])
    jsonschema.Draft202012Validator(schema).validate(hello)
    hello_only = {**schema, "oneOf": [{"$ref": "#/$defs/handshake"}]}
    jsonschema.Draft202012Validator(hello_only).validate(hello)
    assert hello == EXPECTED_HELLO


@needs_node
def test_node_per_case_rejection_is_status_1_with_rejection_object() -> None:
    """C-2 by hand: invalid text is exit status 1 and {"rejected": reason} on stdout."""
    assert NODE is not None
    request = {"role": "reader", "text": '#c1 Island owner=P1'}
    proc = subprocess.run(
        [NODE, str(NODE_ADAPTER)], input=json.dumps(request).encode(),
        capture_output=True, timeout=30, check=False,
    )
    assert proc.returncode == 1
    answer = json.loads(proc.stdout)
    assert set(answer) == {"rejected"} and isinstance(answer["rejected"], str)


# --- examples/shell --------------------------------------------------------------------------


def _shell_known_failures() -> set[str]:
    data = yaml.safe_load(SHELL_KNOWN.read_text(encoding="utf-8"))
    return {entry["case"] for entry in data["known_failures"]}


def test_shell_known_failure_file_is_valid_and_names_reader_cases() -> None:
    """The file matches expect.schema.json and lists reader cases only, each with an expiry."""
    schema = json.loads((ROOT / "schema" / "expect.schema.json").read_text(encoding="utf-8"))
    data = yaml.safe_load(SHELL_KNOWN.read_text(encoding="utf-8"))
    for entry in data["known_failures"]:
        entry["expires"] = entry["expires"].isoformat()  # YAML reads unquoted dates as dates
    jsonschema.Draft202012Validator(schema).validate(data)
    assert _shell_known_failures() <= _reader_cases()
    assert all(entry["expires"].startswith("2027-") for entry in data["known_failures"])


@needs_jq
def test_shell_declines_persistent_mode() -> None:
    """The `start` line is answered with the start-rejected message and exit status 0."""
    assert SH is not None
    schema = json.loads((ROOT / "schema" / "protocol.schema.json").read_text(encoding="utf-8"))
    proc = subprocess.run(
        [SH, str(SHELL_ADAPTER)], input=b'{"cmd":"start","protocol":1}\n',
        capture_output=True, timeout=30, check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    message = json.loads(proc.stdout)
    jsonschema.Draft202012Validator(
        {**schema, "oneOf": [{"$ref": "#/$defs/start-rejected"}]}
    ).validate(message)


@needs_jq
def test_shell_toy_reader_is_green_with_its_known_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """With --expect: exit 0, exactly the listed cases expected failures, every other passed."""
    assert SH is not None
    known = _shell_known_failures()
    proc, report = _cardid_run(
        capsys, tmp_path, [SH, str(SHELL_ADAPTER)], "--expect", str(SHELL_KNOWN), "-j", "2"
    )
    assert proc.returncode == 0, _explain(proc)
    expected = {case: "expected-failure" if case in known else "passed" for case in _reader_cases()}
    assert _statuses(report) == expected
    assert report["implementation"]["mode"] == "per-case"  # fell back after declining `start`
    assert sorted(report["verdict"]["known_failures_used"]) == sorted(known)
    assert report["verdict"].get("known_failure_problems", []) == []
    # Known MUST failures are accepted (exit 0) and still not conforming, in words too.
    assert report["verdict"]["accepted"] is True
    assert report["verdict"]["conforming"] is False
    assert report["verdict"]["known_must_failures"] == len(known)
    assert "accepted: every MUST failure is a listed known failure" in report["verdict"]["text"]


@needs_jq
def test_shell_toy_reader_fails_without_known_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without --expect a listed case fails and the run fails (exit 1). (That every listed
    case fails and every other passes, the run with --expect shows; one of each is run here.)"""
    assert SH is not None
    listed, passing = min(_shell_known_failures()), min(_reader_cases() - _shell_known_failures())
    proc, report = _cardid_run(capsys, tmp_path, [SH, str(SHELL_ADAPTER)], "--case", listed, "--case", passing)
    assert proc.returncode == 1, _explain(proc)
    assert _statuses(report) == {listed: "failed", passing: "passed"}
    assert report["verdict"]["conforming"] is False
