"""Safety: no shell, only the request on stdin, the user's working directory and a temporary
folder of its own (TMPDIR), a known environment."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cardid_runner.cli import Exit, main

from tests.conftest import ROOT
from tests.processes import FAKE


def test_implementation_sees_only_the_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The implementation gets the request without expectations and no case path; it runs in
    the directory the runner was started in, with a temporary folder of its own as TMPDIR
    (and TEMP, TMP), removed after the case."""
    spy = tmp_path / "spy.jsonl"
    monkeypatch.setenv("FAKE_SPY_FILE", str(spy))
    case = "keep-through-public-zones"
    assert main(["run", "--isolate", "--impl", f"{sys.executable} {FAKE} spy", "--case", case]) == Exit.OK
    [record] = [json.loads(line) for line in spy.read_text(encoding="utf-8").splitlines()]
    request = json.loads(record["stdin"])
    assert request["role"] == "writer"
    for secret in ('"expect"', '"rule"', "revealed_at", "instances", case, "cases/"):
        assert secret not in record["stdin"]
        assert all(secret not in arg for arg in record["argv"])
    assert Path(record["cwd"]) == Path.cwd()
    scratch = Path(record["env"]["TMPDIR"])
    assert scratch.name.startswith("cardid-impl-") and ROOT not in scratch.parents
    assert record["env"]["TEMP"] == record["env"]["TMP"] == str(scratch)
    assert not scratch.exists(), "the temporary folder is removed after the case"
    assert record["env"]["CARDID_PROTOCOL"] == "1"
    assert all(case not in value for value in record["env"].values())


def test_command_is_never_run_through_a_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shell syntax in the command reaches the implementation as literal arguments."""
    spy = tmp_path / "spy.jsonl"
    marker = tmp_path / "pwned"
    monkeypatch.setenv("FAKE_SPY_FILE", str(spy))
    command = f"{sys.executable} {FAKE} spy ';touch {marker}' '$(touch {marker})' '|' '&&'"
    main(["run", "--isolate", "--impl", command, "--case", "reader-unknown-name"])
    record = json.loads(spy.read_text(encoding="utf-8").splitlines()[0])
    assert record["argv"][2:] == [f";touch {marker}", f"$(touch {marker})", "|", "&&"]
    assert not marker.exists()


def test_environment_is_the_runners_plus_the_protocol_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the contract documents: the runner's environment, plus CARDID_PROTOCOL=1, the
    CARDID_RUN mark that finds the implementation's descendants, and its temporary folder as
    TMPDIR, TEMP and TMP."""
    spy = tmp_path / "spy.jsonl"
    monkeypatch.setenv("FAKE_SPY_FILE", str(spy))
    monkeypatch.setenv("CARDID_TEST_MARKER", "kept")
    main(["run", "--isolate", "--impl", f"{sys.executable} {FAKE} spy", "--case", "reader-unknown-name"])
    env = json.loads(spy.read_text(encoding="utf-8").splitlines()[0])["env"]
    added = {k: v for k, v in env.items() if os.environ.get(k) != v}
    assert env["CARDID_TEST_MARKER"] == "kept"
    assert set(added) <= {"CARDID_PROTOCOL", "CARDID_RUN", "TMPDIR", "TEMP", "TMP", "PWD", "OLDPWD", "_"}
    assert {"CARDID_PROTOCOL", "CARDID_RUN", "TMPDIR", "TEMP", "TMP"} <= set(added)
