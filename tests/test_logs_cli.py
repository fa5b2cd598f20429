"""`cardid render`, `cardid import` and `cardid new --from-log`, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cardid_conformance import yamlfile
from cardid_runner.cli import Exit, main

from tests.conftest import RECORDING, needs_recording


def test_render_then_import_gives_the_request_back_with_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "Player.log"
    assert main(["render", "arena", "alchemy-name-keeps-prefix", "--out", str(log)]) == Exit.OK
    sidecar = tmp_path / "Player.log.sidecar.json"
    assert json.loads(sidecar.read_text(encoding="utf-8"))["players"] == ["P1", "P2"]
    capsys.readouterr()
    out = tmp_path / "request.yaml"
    code = main(["import", "arena", str(log), "--perspective", "P1", "--sidecar", str(sidecar), "--out", str(out)])
    assert code == Exit.OK
    text = out.read_text(encoding="utf-8")
    request = yamlfile.load(out)
    moves = [o for o in request["observations"] if o["type"] == "move"]
    assert len(moves) == 6
    assert moves[0]["card"] == {"source_id": "arena:83474"}
    assert "  # line 6" in text  # each observation names its line
    assert "imported 9 observations" in capsys.readouterr().err


def test_import_json_is_plain_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "Player.log"
    main(["render", "arena", "alchemy-name-keeps-prefix", "--out", str(log)])
    capsys.readouterr()
    assert main(["import", "arena", str(log), "--perspective", "1", "--json"]) == Exit.OK
    request = json.loads(capsys.readouterr().out)
    assert request["perspective"] == "P1"  # the room state names seat 1


def test_render_names_what_the_format_cannot_express(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["render", "arena", "control-change-of-spell-in-three-player-game-keeps-id"])
    assert code == Exit.FAILED
    assert "cannot render control-change-of-spell-in-three-player-game-keeps-id as an Arena Player.log: " \
           "Arena games have two seats" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "words"), [
    (["render", "arena", "no-such-case"], "no case 'no-such-case'"),
    (["render", "arena", "reader-accepts-empty-text"], "is a reader case"),
    (["render", "arena", "reject-meld-permanent-named-by-held-handle"], "is a rejection case"),
])
def test_render_refuses_what_is_no_writer_case(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == Exit.USAGE
    assert words in capsys.readouterr().err


def test_import_names_a_perspective_the_log_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "Player.log"
    main(["render", "arena", "alchemy-name-keeps-prefix", "--out", str(log)])
    capsys.readouterr()
    assert main(["import", "arena", str(log), "--perspective", "P7"]) == Exit.USAGE
    assert "no seat is 'P7'" in capsys.readouterr().err


@needs_recording
def test_import_reads_a_gzipped_recording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "arena", str(RECORDING), "--perspective", "2", "--json"]) == Exit.OK
    captured = capsys.readouterr()
    request = json.loads(captured.out)
    assert request["perspective"] == "seat2"
    assert "place(s) not understood and passed over" in captured.err


@needs_recording
def test_new_from_log_drafts_a_case_for_review(tmp_path: Path) -> None:
    code = main(["new", "real-start", "--from-log", str(RECORDING), "--format", "arena",
                 "--perspective", "1", "--first", "20", "--rule", "ID-3", "--out", str(tmp_path)])
    assert code == Exit.OK
    path = tmp_path / "real-start.yaml"
    text = path.read_text(encoding="utf-8")
    data = yamlfile.load(path)
    assert len(data["input"]["observations"]) == 20
    assert "needs-review" in data["tags"]
    assert "#   3: line 4" in text
    assert main(["lint", "--cases", str(tmp_path)]) == Exit.FAILED  # until it is reviewed


def test_new_from_log_needs_its_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "Player.log"
    log.write_text("", encoding="utf-8")
    assert main(["new", "x-case", "--from-log", str(log), "--format", "arena"]) == Exit.USAGE
    assert "needs --format (arena or mtgo) and --perspective" in capsys.readouterr().err
