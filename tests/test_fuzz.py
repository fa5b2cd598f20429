"""`cardid fuzz`: generated games whose truth is known, judged against that truth and against
the reference; the generator and its oracle themselves."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from cardid_conformance import schemas
from cardid_conformance.answer import Answered
from cardid_conformance.generate import Config, exercised, game_of, play
from cardid_reference.errors import RequestError
from cardid_reference.writer import write
from cardid_runner import fuzz
from cardid_runner.cli import Exit, main


def mutant(name: str) -> str:
    return f"{sys.executable} -m cardid_reference.mutants {name}"


def test_the_same_seed_gives_the_same_valid_game() -> None:
    for seed in range(60):
        game = game_of(seed)
        assert game == game_of(seed)
        assert json.dumps(game.request) == json.dumps(game_of(seed).request)
        assert schemas.first_problem("writer-input", game.request) is None
        assert len(game.truth) == len(game.request["observations"])


def test_games_vary_in_what_they_are_played_with() -> None:
    configs = [game_of(seed).config for seed in range(200)]
    assert {c.players for c in configs} == {2, 3}
    assert {c.perspective for c in configs} == {0, 1, 2}
    assert {(c.relink, c.tracking) for c in configs} == {(a, b) for a in (True, False) for b in (True, False)}
    assert min(c.library for c in configs) == 0 and max(c.library for c in configs) >= 20
    assert any(c.inconsistent for c in configs)


def test_the_oracle_is_not_vacuous() -> None:
    """An ID for every observation and one ID for all break the partition of every game that
    has two instances; the reference's answer breaks none."""
    broken = {"UNSOUND": 0, "ENDED": 0}
    for seed in range(100):
        game = game_of(seed)
        if game.inconsistent:
            continue
        assignments = write(game.request)["assignments"]
        assert game.check(assignments) == []
        instances = {fact.instance for fact in game.truth if fact is not None}
        if len(instances) < 2:
            continue
        one = ["x" if a is not None else None for a in assignments]
        each = [str(i) if a is not None else None for i, a in enumerate(assignments)]
        assert game.check(one)[0].kind in ("UNSOUND", "KEPT")
        broken["UNSOUND"] += 1
        if len(instances) < sum(1 for a in assignments if a is not None):
            assert game.check(each)[0].kind == "ENDED"
            broken["ENDED"] += 1
    assert broken["UNSOUND"] > 50 and broken["ENDED"] > 50


def test_an_id_for_an_observation_without_an_object_is_found() -> None:
    game = next(g for g in map(game_of, range(100)) if not g.inconsistent and None in g.truth[1:])
    assignments = write(game.request)["assignments"]
    blind = game.truth.index(None, 1)
    assignments[blind] = "extra"
    assert any(f.kind == "MISSING" and f.rule == "ID-1" for f in game.check(assignments))


def test_inconsistent_endings_are_rejected_by_the_reference() -> None:
    rules = set()
    for seed in range(600):
        game = game_of(seed)
        if game.inconsistent:
            rules.add(game.inconsistent)
            with pytest.raises(RequestError):
                write(game.request)
    assert rules == {"REQ-1", "REQ-2", "REQ-3", "REQ-4", "REQ-5"}


def test_renamed_handles_give_the_same_partition() -> None:
    """The reference's answer does not depend on how the source spells its handles."""
    for seed in range(40):
        game = game_of(seed)
        if game.inconsistent:
            continue
        text = json.dumps(game.request)
        for handle in sorted({o["object"] for o in game.request["observations"] if "object" in o}, key=len, reverse=True):
            text = text.replace(f'"{handle}"', f'"renamed-{handle}"')
        assert game.check(write(json.loads(text))["assignments"]) == []


def test_games_split_and_rerun_one_by_one_give_the_same_answers() -> None:
    """The reference's process answers a game the same whether it comes in one session after
    others or alone in a fresh process, in another order: no state carries between requests."""
    from cardid_runner import execute
    from cardid_runner.session import Session

    seeds = [seed for seed in range(12) if not game_of(seed).inconsistent][:6]
    options = execute.Invocation(argv=execute.REFERENCE_ARGV)
    together = Session(options)
    try:
        in_one = [together.ask(game_of(seed).request) for seed in seeds]
    finally:
        together.close()
    alone = []
    for seed in reversed(seeds):
        session = Session(options)
        try:
            alone.append(session.ask(game_of(seed).request))
        finally:
            session.close()
    results = [answer.result for answer in in_one if isinstance(answer, Answered)]
    assert len(results) == len(seeds)
    assert results == [answer.result for answer in alone[::-1] if isinstance(answer, Answered)]
    assert all(game_of(seed).check(result["assignments"]) == [] for seed, result in zip(seeds, results, strict=True))


def test_coverage_leaves_no_count_at_zero_without_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert exercised.of(game_of(seed) for seed in range(1000)).unexplained_zeros() == []
    assert main(["fuzz", "--coverage", "--games", "50"]) == Exit.OK
    out = capsys.readouterr().out
    assert "coverage: 50 games" in out and "ending events" in out and "E12" in out


def test_shards_split_the_seeds_without_overlap() -> None:
    parts = [fuzz.seeds(100, 10, (k, 3)) for k in (1, 2, 3)]
    assert sorted(seed for part in parts for seed in part) == list(range(100, 110))


def test_the_reference_has_no_disagreement(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--games", "150"]) == Exit.OK
    assert "150 games (seeds 0-149), 0 disagreement(s)" in capsys.readouterr().out


def test_a_card_kept_through_a_shuffle_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    """The truth, not the reference, says so: one ID kept past a shuffle (E1)."""
    assert main(["fuzz", "--impl", mutant("keep-through-shuffle"), "--games", "200"]) == Exit.FAILED
    out = capsys.readouterr().out
    assert "KEPT [LIB-2]" in out
    assert "replay the first: cardid fuzz --impl" in out


def test_ends_that_never_meet_are_found(capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 1.1.0's library rule, which the hand-written cases of that time never caught."""
    assert main(["fuzz", "--impl", mutant("ends-never-meet-without-size"), "--games", "60"]) == Exit.FAILED
    assert "[LIB-7]" in capsys.readouterr().out


def test_an_accepted_inconsistent_game_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--impl", mutant("accept-handle-in-wrong-zone"), "--games", "200"]) == Exit.FAILED
    assert "ACCEPTED [REQ-1]" in capsys.readouterr().out


def test_out_writes_each_kind_of_disagreement_shrunk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--impl", mutant("renew-every-move"), "--games", "12", "--out", str(tmp_path)])
    assert code == Exit.FAILED
    written = sorted(tmp_path.glob("fuzz-*.yaml"))
    assert written
    out = capsys.readouterr().out
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert text.splitlines()[1].startswith("# Fails: ")
        assert "needs-review" in text
        comment = " ".join(line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#"))
        assert "Written by `cardid fuzz`, keeping" in comment
        shrunk = yaml.safe_load(text)["input"]["observations"]
        assert len(shrunk) <= 6  # each shrinks to the few observations that still fail
    assert "observations, " in out
    assert main(["lint", "--cases", str(tmp_path)]) == Exit.FAILED  # until it is reviewed
    assert "needs-review" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_games_must_be_a_count(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--games", value]) == Exit.USAGE
    assert "--games" in capsys.readouterr().err


def test_a_token_kept_after_it_ceased_to_exist_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    """A writer that keeps a token past its leaving the battlefield still holds its handle, so
    it rejects the valid game in which the source gives that handle to another object."""
    assert main(["fuzz", "--impl", mutant("token-survives"), "--games", "60"]) == Exit.FAILED
    assert "ERRORED [ID-1] rejected a valid request as inconsistent" in capsys.readouterr().out


def test_small_games_of_every_kind_are_valid() -> None:
    for seed in range(200):
        game = play(seed, Config(players=2 + seed % 2, perspective=seed % 2, relink=seed % 3 == 0,
                                 tracking=seed % 5 < 2, library=seed % 4, events=seed % 12 + 1))
        assert schemas.first_problem("writer-input", game.request) is None


def test_mutants_names_the_game_that_finds_each_wrong_writer(capsys: pytest.CaptureFixture[str]) -> None:
    """Over a few games, some writer mutants are found (with the seed and the kind) and some
    not; those without a reason in NOT_GENERATED make the command fail."""
    assert main(["fuzz", "--mutants", "--games", "10"]) == Exit.FAILED
    out = capsys.readouterr().out
    assert "keep-through-shuffle" in out and "seed " in out
    assert "not found, and no reason is given" in out
    assert "writer mutants found by none and with no reason:" in out


def test_every_mutant_not_generated_exists_and_docs_give_the_same_reasons() -> None:
    from cardid_reference.mutants import MUTANTS

    docs = (Path(__file__).parent.parent / "docs" / "generated-games.md").read_text(encoding="utf-8")
    for name in fuzz.NOT_GENERATED:
        assert name in MUTANTS
        assert f"`{name}`" in docs


def test_run_adds_generated_games_reported_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`cardid run --generated N` plays N games after the corpus; they appear apart in the
    console and in the JSON report, which validates, and the verdict says they all agree."""
    out = tmp_path / "report.json"
    assert main(["run", "--rule", "LIB-2", "--generated", "30", "--report-json", str(out)]) == Exit.OK
    console = capsys.readouterr().out
    assert "generated: 30 generated games (seeds 0-29), 0 disagreement(s)" in console
    assert "and 30 generated games, all agreeing)" in console
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["generated"] == {"games": 30, "seeds": [0, 29], "disagreements": []}
    assert schemas.first_problem("report", data) is None


def test_a_generated_disagreement_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code = main(["run", "--impl", mutant("keep-through-shuffle"), "--rule", "ID-3", "--generated", "60",
                 "--report-json", str(out)])
    assert code == Exit.FAILED  # the corpus selection passes: the generated games fail it
    console = capsys.readouterr().out
    assert "generated games disagree" in console and "replay the first: cardid fuzz --impl" in console
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["generated"]["disagreements"] and not data["verdict"]["accepted"]
    assert data["summary"]["failed"] == 0
    assert schemas.first_problem("report", data) is None
