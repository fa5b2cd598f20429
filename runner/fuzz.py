"""`cardid fuzz --impl CMD --games N`: generated games, beyond the corpus, whose truth is known.

Each game (conformance/generate/) is played knowing where every physical object is, and the
implementation gets the request the perspective player's source would give. Its answer is
judged against the truth first (the oracle, which no implementation's code decides: no ID for
two objects, no ID kept past an ending event, none ended where the spec keeps it), then against
the bundled reference's answer, as a case whose expectation that answer is (names, printings,
owners). A game that ends with an inconsistent observation must be rejected. Each disagreement
is named with its seed, which replays it (`--seed S --games 1`); `--out DIR` writes one case per
kind of disagreement, shrunk (runner/shrink.py), for review.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import schemas
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected, Unsupported
from cardid_conformance.cases import Case, Role
from cardid_conformance.compare import compare_writer
from cardid_conformance.errors import UsageError
from cardid_conformance.generate import Generated, exercised, game_of
from cardid_conformance.generate.campaign import Campaign, Disagreement
from cardid_conformance.spec import Spec, load_spec
from cardid_reference.errors import RequestError
from cardid_reference.writer import write
from cardid_runner import draft, execute, options, shrink
from cardid_runner.session import Session
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import Exit, emit, say

_EPILOG = """\
examples:
  cardid fuzz --impl "node adapter.js" --games 1000
  cardid fuzz --impl ./adapter --seed 4711 --games 1            # replay one game
  cardid fuzz --impl ./adapter --games 10000 --shard 2/4 --out fuzzed/
  cardid fuzz --coverage --games 1000                           # what the games exercise
  cardid fuzz --mutants --games 1000                            # which wrong writers they find

Each disagreement is named with its seed and what the game was played with:
  UNSOUND   one instance ID given to two physical objects
  KEPT      an ID kept past an event that ends it (the spec's ending-events table)
  ENDED     one instance given two IDs: ended where the spec keeps it
  MISSING   an observation with an object given no ID, or one without given an ID
  ACCEPTED  a game that ends with an inconsistent observation answered, not rejected
  DIFFERS   the card table differs from the bundled reference's (names, printings, owners)
  ERRORED   no usable answer: a crash, a rejection of a valid game, a result off the schema
--out DIR writes one case per kind and rule of disagreement, shrunk to the observations that
still fail the same way (--no-shrink keeps the whole game), tagged needs-review.

exit status: 0 no disagreement, 1 some, 2 usage error
"""


def shard(text: str) -> tuple[int, int]:
    """`K/M`: the K-th of M slices of the seeds."""
    try:
        k, m = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes K/M, such as 2/4, not {text!r}") from None
    if not 1 <= k <= m:
        raise argparse.ArgumentTypeError(f"K/M needs 1 <= K <= M, not {text!r}")
    return k, m


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid fuzz`: its parser."""
    parser = options.add_command(
        commands,
        "fuzz",
        help="run generated games whose truth is known against an implementation",
        description=(
            "Generate games whose every physical card is known (two or three players' "
            "libraries, hands and public zones, every event the observation vocabulary has, "
            "from sources that relink or keep handles, with hidden tracking or without), give "
            "the implementation what the perspective player's source shows, and judge its "
            "answers against the truth and against the bundled reference's answers. The same "
            "seed always gives the same game."
        ),
        epilog=_EPILOG,
    )
    options.add_implementation(parser, isolate=None)
    parser.add_argument("--games", type=options.games, default=100, metavar="N", help="how many games (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the first game's seed (default 0)")
    parser.add_argument("--shard", type=shard, default=(1, 1), metavar="K/M",
                        help="play only the K-th of M slices of the seeds, for a campaign split across machines")
    parser.add_argument("--out", type=options.output_dir, metavar="DIR",
                        help="write one case per kind of disagreement in DIR, shrunk, for review")
    parser.add_argument("--no-shrink", dest="shrink", action="store_false",
                        help="with --out, write each game whole")
    parser.add_argument("--coverage", action="store_true",
                        help="run no implementation: print what the games exercise")
    parser.add_argument("--mutants", action="store_true",
                        help="instead of --impl, judge every deliberately wrong writer of reference/mutants on "
                        "the games: the first seed that finds each, or why none can")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return fuzz(Fuzzing(
        impl=args.impl, multiplier=args.timeout_multiplier, games=args.games, seed=args.seed, shard=args.shard,
        out=args.out, shrink=args.shrink, coverage=args.coverage, mutants=args.mutants,
    ))


COMMAND = Command("fuzz", _declare, _perform)


def seeds(first: int, count: int, part: tuple[int, int]) -> list[int]:
    k, m = part
    return [first + i for i in range(count) if i % m == k - 1]


def expected(game: Generated) -> Answer:
    """The bundled reference's answer, checked against the game's truth: a generated game the
    reference gets wrong is a bug of the generator, the spec or the reference, never the
    implementation's."""
    try:
        result = write(game.request)
    except RequestError as exc:
        if game.inconsistent:
            return Rejected(message=str(exc))
        raise UsageError(
            f"seed {game.seed}: the bundled reference rejects the generated game: {exc}",
            hint="a bug in the generator (conformance/generate/): report it with the seed",
        ) from None
    if game.inconsistent:
        raise UsageError(
            f"seed {game.seed}: the bundled reference answers a game that ends inconsistent ({game.inconsistent})",
            hint="a bug in the generator or the reference: report it with the seed",
        )
    findings = game.check(result["assignments"])
    if findings:
        raise UsageError(
            f"seed {game.seed}: the bundled reference breaks the game's truth: {findings[0].what}",
            hint="a bug in the generator, the spec or the reference: report it with the seed",
        )
    return Answered(result=result)


def as_case(game: Generated, reference: Answer, spec: Spec, *, rule: str = "ID-6", path: Path | None = None) -> Case:
    """The game as a case whose expectation is the reference's answer."""
    return draft.checked(path or Path(f"fuzz-{game.seed}.yaml"), case_data(game, reference, spec, rule), spec)


def case_data(game: Generated, reference: Answer, spec: Spec, rule: str) -> dict[str, object]:
    rule = rule if rule in spec.rules else "ID-6"
    meta = draft.Metadata(
        id=f"fuzz-{game.seed}",
        description=f"Generated game {game.seed} (conformance/generate/), which `cardid fuzz --seed {game.seed} "
        "--games 1` replays.",
        role=Role.WRITER, level=spec.rule(rule).level.name, rules=(rule,), cr=spec.rule(rule).cr,
        tags=("generated",),
    )
    return draft.case_data(meta, game.request, reference)


def judge(game: Generated, answer: Answer, spec: Spec, reference: Answer | None = None) -> Disagreement | None:
    """The implementation's answer to one game, against the truth and the reference's answer
    (`expected(game)`, computed here unless given)."""
    reference = reference if reference is not None else expected(game)

    def disagree(kind: str, rule: str, what: str) -> Disagreement:
        return Disagreement(seed=game.seed, kind=kind, rule=rule, what=what, config=game.config.describe())

    match answer:
        case Unsupported():
            raise UsageError("the implementation does not support the writer role: there is nothing to fuzz")
        case Crashed(reason=reason):
            return disagree("ERRORED", "ID-1", reason)
        case Rejected(message=message):
            if game.inconsistent:
                return None
            return disagree("ERRORED", "ID-1", f"rejected a valid request as inconsistent: {message}")
        case Answered(result=result):
            if game.inconsistent:
                last = len(game.request["observations"]) - 1
                return disagree("ACCEPTED", game.inconsistent,
                                f"answered, but observation {last} is inconsistent and must be rejected")
            problem = schemas.first_problem("writer-output", result)
            if problem is not None:
                return disagree("ERRORED", "ID-1", f"output does not match schema/writer-output.schema.json at "
                                f"{problem.where()}: {problem.message}")
            if len(result["assignments"]) != len(game.truth):
                return disagree("ERRORED", "ID-1", f"{len(result['assignments'])} assignments for "
                                f"{len(game.truth)} observations")
            findings = game.check(result["assignments"])
            if findings:
                first = findings[0]
                return disagree(first.kind, first.rule, first.what)
            assert isinstance(reference, Answered)
            if same_table(result, reference.result):
                return None
            differences = compare_writer(as_case(game, reference, spec), result)
            if differences:
                return disagree("DIFFERS", differences[0].rule, differences[0].message)
    return None


def same_table(result: dict[str, Any], reference: dict[str, Any]) -> bool:
    """Whether an answer whose assignments keep the game's partition has exactly the reference's
    card table, its IDs renamed: the common case, decided without building a case. Anything
    else is left to the comparison the suite judges cases with (conformance/compare/)."""
    renamed = {mine: theirs for mine, theirs in zip(result["assignments"], reference["assignments"], strict=True)
               if mine is not None}
    try:
        table = {renamed[entry["id"]]: {**entry, "id": renamed[entry["id"]]} for entry in result["card_table"]}
    except (KeyError, TypeError):
        return False
    return len(table) == len(result["card_table"]) and table == {e["id"]: e for e in reference["card_table"]}


def prepared(seed: int) -> tuple[Generated, Answer]:
    """A game and the reference's answer to it, checked against its truth."""
    game = game_of(seed)
    return game, expected(game)


def campaign(chosen: list[int], session: Session, spec: Spec,
             found: Callable[[Disagreement], None] | None = None) -> Campaign:
    """Each game of `chosen` asked and judged; `found` is told each disagreement as it comes.
    The next game is generated, and answered by the reference, while the implementation
    answers this one (a thread: the wait for its answer leaves the interpreter free), so a
    campaign takes about as long as the slower of the two."""
    disagreements = []
    with ThreadPoolExecutor(max_workers=1) as ahead:
        coming = ahead.submit(prepared, chosen[0]) if chosen else None
        for index in range(len(chosen)):
            assert coming is not None
            game, reference = coming.result()
            if index + 1 < len(chosen):
                coming = ahead.submit(prepared, chosen[index + 1])
            disagreement = judge(game, session.ask(game.request), spec, reference)
            if disagreement is not None:
                disagreements.append(disagreement)
                if found is not None:
                    found(disagreement)
    return Campaign(seeds=tuple(chosen), disagreements=tuple(disagreements))


@dataclass(frozen=True, slots=True, kw_only=True)
class Fuzzing:
    """What `cardid fuzz` was asked."""

    #: The implementation command; None plays the bundled reference.
    impl: str | None
    multiplier: float
    #: How many games, from which seed, and which K-th of M slices of them.
    games: int
    seed: int
    shard: tuple[int, int]
    #: The folder to write one case per kind of disagreement in, each shrunk unless `shrink`
    #: is False.
    out: Path | None
    shrink: bool
    #: Print what the games exercise, running no implementation.
    coverage: bool
    #: Judge the writer mutants, not an implementation.
    mutants: bool


def fuzz(asked: Fuzzing) -> int:
    """Play the games asked for and print each disagreement; 1 when there is one."""
    chosen = seeds(asked.seed, asked.games, asked.shard)
    span = f"seeds {chosen[0]}-{chosen[-1]}" if chosen else "no seed"
    if asked.shard != (1, 1):
        span += f", shard {asked.shard[0]}/{asked.shard[1]}"
    if asked.coverage:
        for line in exercised.of(game_of(seed) for seed in chosen).lines():
            emit(line)
        return Exit.OK
    spec = load_spec()
    if asked.mutants:
        return mutants_found(chosen, spec)
    argv = execute.implementation_argv(asked.impl)
    opts = execute.Invocation.scaled(argv, multiplier=asked.multiplier)
    session = Session(opts)
    try:
        result = campaign(chosen, session, spec, lambda d: say(d.line()))
    finally:
        name = session.name
        session.close()
    found = result.disagreements
    kinds = [kind for kind in ("UNSOUND", "KEPT", "ENDED", "MISSING", "ACCEPTED", "DIFFERS", "ERRORED")
             if any(d.kind == kind for d in found)]
    counted = ", ".join(f"{sum(1 for d in found if d.kind == kind)} {kind.lower()}" for kind in kinds)
    say(f"fuzz: {name}: {len(chosen)} games ({span}), {len(found)} disagreement(s)" + (f": {counted}" if counted else ""))
    if asked.out is not None and found:
        write_cases(asked.out, found, opts, spec, impl=asked.impl, shrunk=asked.shrink)
    if found:
        say(f"replay the first: {replay(asked.impl, found[0].seed)}")
        return Exit.FAILED
    return Exit.OK


def replay(impl: str | None, seed: int) -> str:
    """The command that plays one game again."""
    return shlex.join(["cardid", "fuzz", *(["--impl", impl] if impl else []), "--seed", str(seed), "--games", "1"])


#: The writer mutants no generated game can find, and why (docs/generated-games.md says the same).
NOT_GENERATED = {
    "copy-to-stack-from-battlefield-kept": "no game moves a permanent from the battlefield to the stack; "
    "the corpus pins the reading of TOK-3 against E8 with a case that does",
    "later-owner-rebinds": "a source never shows another owner for a card it has shown: the generator "
    "gives the true owner, and only a contradicting one tells the readings apart",
    "owner-from-controller": "it differs only for a card first seen in a shared zone with no owner shown, a "
    "request a writer MAY reject (observations.md), so a game cannot hold it",
    "owner-from-source-zone-first": "it differs only for a card first seen moving between two players' zones, "
    "which CR 400.3 rules out and sources never show",
}


def mutants_found(chosen: list[int], spec: Spec) -> int:
    """Which game first finds each writer mutant (reference/mutants), asked in-process."""
    from cardid_reference.mutants import MUTANTS, entry_points
    from cardid_runner.mutantmatrix import mutant_role

    played = [prepared(seed) for seed in chosen]  # each game's reference answer, once
    missed = []
    for name in sorted(MUTANTS):
        if mutant_role(name) is not Role.WRITER:
            continue
        mutant_write = entry_points(name)[0]
        first = None
        for game, reference in played:
            answer: Answer
            try:
                answer = Answered(result=mutant_write(game.request))
            except RequestError as exc:
                answer = Rejected(message=str(exc))
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a mutant's crash is its answer
                answer = Crashed(reason=f"{type(exc).__name__}: {exc}")
            first = judge(game, answer, spec, reference)
            if first is not None:
                break
        if first is not None:
            emit(f"{name:<42} seed {first.seed:<6} {first.kind} [{first.rule}]")
        else:
            reason = NOT_GENERATED.get(name)
            emit(f"{name:<42} not found" + (f": {reason}" if reason else ", and no reason is given"))
            if reason is None:
                missed.append(name)
    say(f"fuzz: {len(played)} games; writer mutants found by none and with no reason: {len(missed)}"
        + (f" ({', '.join(missed)})" if missed else ""))
    return Exit.FAILED if missed else Exit.OK


def write_cases(folder: Path, found: tuple[Disagreement, ...], opts: execute.Invocation, spec: Spec, *,
                impl: str | None, shrunk: bool) -> None:
    """One case per kind and rule of disagreement, the first game of each, shrunk unless
    `shrunk` is False (`impl`: the --impl the cases name)."""
    firsts: dict[tuple[str, str], Disagreement] = {}
    for disagreement in found:
        firsts.setdefault((disagreement.kind, disagreement.rule), disagreement)
    impl = impl or "cardid reference"
    for disagreement in firsts.values():
        game = game_of(disagreement.seed)  # the same seed, the same game
        path = folder / f"fuzz-{game.seed}.yaml"
        data = case_data(game, expected(game), spec, disagreement.rule)
        kept = f"the whole game, {len(game.truth)} observations"
        if shrunk:
            case = draft.checked(path, data, spec)
            try:
                with shrink.Shrinker(case, opts, spec, path=path, new_id=f"fuzz-{game.seed}") as shrinker:
                    result = shrinker.shrink()
                data = dict(result.data)
                kept = ", ".join(f"{k} of {of} {what}" for what, k, of in result.removed)
            except shrink.NoFailure as exc:
                say(f"seed {game.seed}: not shrunk: {exc}")
        comments = [
            f"Fails: {impl}, {disagreement.kind} [{disagreement.rule}] in generated game {game.seed} "
            f"({disagreement.config}): {disagreement.what}. Written by `cardid fuzz`, keeping {kept}.",
            *draft.review_comment("the bundled reference", "cardid fuzz"),
        ]
        draft.write(path, data, comments, what="the generated case")
        say(f"wrote {path} ({kept})", sys.stdout)
