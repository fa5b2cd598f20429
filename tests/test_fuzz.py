"""`cardid fuzz`: generated games whose truth is known, judged against that truth and against
the reference; and the generator itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_conformance.generate import game_of
from cardid_runner import fuzz
from cardid_runner.cli import Exit, main


def mutant(name: str) -> str:
    return f"{sys.executable} -m cardid_reference.mutants {name}"


def test_the_same_seed_gives_the_same_valid_game() -> None:
    for seed in range(50):
        game = game_of(seed)
        assert game == game_of(seed)
        assert schemas.first_problem("writer-input", game.request) is None
        assert len(game.truth) == len(game.request["observations"])


def test_shards_split_the_seeds_without_overlap() -> None:
    parts = [fuzz.seeds(100, 10, (k, 3)) for k in (1, 2, 3)]
    assert sorted(seed for part in parts for seed in part) == list(range(100, 110))


def test_the_reference_has_no_disagreement(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--games", "150"]) == Exit.OK
    assert "150 games (seeds 0-149), 0 disagreement(s)" in capsys.readouterr().out


def test_a_card_kept_through_a_shuffle_is_found_unsound(capsys: pytest.CaptureFixture[str]) -> None:
    """The truth, not the reference, says so: one ID for two physical cards."""
    assert main(["fuzz", "--impl", mutant("keep-through-shuffle"), "--games", "300"]) == Exit.FAILED
    out = capsys.readouterr().out
    assert "UNSOUND [ID-7]" in out
    assert "replay the first: cardid fuzz --impl" in out


def test_ends_that_never_meet_are_found(capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 1.1.0's library rule, which the hand-written cases of that time never caught."""
    assert main(["fuzz", "--impl", mutant("ends-never-meet-without-size"), "--games", "300"]) == Exit.FAILED
    assert "UNSOUND" in capsys.readouterr().out


def test_out_writes_each_disagreement_as_a_case_for_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--impl", mutant("keep-through-shuffle"), "--games", "100", "--out", str(tmp_path)])
    assert code == Exit.FAILED
    written = sorted(tmp_path.glob("fuzz-*.yaml"))
    assert written
    text = written[0].read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("# Fails: ")
    assert "needs-review" in text
    capsys.readouterr()
    assert main(["lint", "--cases", str(tmp_path)]) == Exit.FAILED  # until it is reviewed
    assert "needs-review" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_games_must_be_a_count(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--games", value]) == Exit.USAGE
    assert "--games" in capsys.readouterr().err


def test_a_token_kept_after_it_ceased_to_exist_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    """A source gives a gone token's handle to a new card (REQ-2 allows it): a writer that kept
    the token's ID gives it to the card, which the truth shows is another object."""
    assert main(["fuzz", "--impl", mutant("token-bounced-to-hand-kept"), "--games", "300"]) == Exit.FAILED
    assert "UNSOUND" in capsys.readouterr().out
