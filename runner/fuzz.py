"""`cardid fuzz --impl CMD --games N`: generated games, beyond the corpus, whose truth is known.

Each game (conformance/generate.py) is played knowing where every physical card is, and the
implementation gets the request the perspective player's source would give. Its answer is
judged twice: against the truth (no instance ID may be given to two physical cards: the oracle,
which no implementation's code decides) and against the bundled reference's answer, as a case
whose expectation that answer is. Each disagreement is named with its seed, which replays it
(`--seed S --games 1`); `--out DIR` writes each as a case for review, to cut down with
`cardid shrink`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance import escape, schemas
from cardid_conformance.answer import Answered, Crashed, Rejected, Unsupported
from cardid_conformance.compare import compare_writer
from cardid_conformance.errors import UsageError
from cardid_conformance.generate import Generated, game_of, shared_ids
from cardid_conformance.spec import Spec, load_spec
from cardid_reference.errors import RequestError
from cardid_reference.writer import write
from cardid_runner import draft, execute, options
from cardid_runner.session import Session
from cardid_runner.terminal import Exit, emit, say

_EPILOG = """\
examples:
  cardid fuzz --impl "node adapter.js" --games 1000
  cardid fuzz --impl ./adapter --seed 4711 --games 1            # replay one game
  cardid fuzz --impl ./adapter --games 10000 --shard 2/4 --out fuzzed/

Each disagreement is named with its seed: UNSOUND (an instance ID given to two physical
cards), DIFFERS (from the bundled reference's answer), or ERRORED. --out DIR writes each as
a case for review (DIR/fuzz-SEED.yaml); `cardid shrink --impl CMD --cases DIR fuzz-SEED`
cuts it down.

exit status: 0 no disagreement, 1 some, 2 usage error
"""

#: The rule an instance ID given to two physical cards breaks (two instances merged).
UNSOUND_RULE = "ID-7"


@dataclass(frozen=True, slots=True, kw_only=True)
class Disagreement:
    """One generated game the implementation got wrong: how, and the rule it names."""

    game: Generated
    kind: str  # UNSOUND, DIFFERS or ERRORED
    rule: str
    what: str


def games(text: str) -> int:
    """A count of games: a whole number from 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number from 1, not {text!r}")
    return int(text)


def shard(text: str) -> tuple[int, int]:
    """`K/M`: the K-th of M slices of the seeds."""
    try:
        k, m = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes K/M, such as 2/4, not {text!r}") from None
    if not 1 <= k <= m:
        raise argparse.ArgumentTypeError(f"K/M needs 1 <= K <= M, not {text!r}")
    return k, m


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `cardid fuzz`."""
    parser = options.add_command(
        commands,
        "fuzz",
        help="run generated games whose truth is known against an implementation",
        description=(
            "Generate games whose every physical card is known (libraries played at every kind "
            "of position, shuffled, searched, scried, mulliganed), give the implementation what "
            "the perspective player's source shows, and judge its answers against the truth (no "
            "instance ID for two physical cards) and against the bundled reference's answers. "
            "The same seed always gives the same game."
        ),
        epilog=_EPILOG,
    )
    options.add_implementation(parser, isolate=None)
    parser.add_argument("--games", type=games, default=100, metavar="N", help="how many games (default 100)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the first game's seed (default 0)")
    parser.add_argument("--shard", type=shard, default=(1, 1), metavar="K/M",
                        help="play only the K-th of M slices of the seeds, for a campaign split across machines")
    parser.add_argument("--out", type=options.output_dir, metavar="DIR",
                        help="write each disagreement as a case for review in DIR")
    parser.set_defaults(handler=main)


def seeds(first: int, games: int, part: tuple[int, int]) -> list[int]:
    k, m = part
    return [first + i for i in range(games) if i % m == k - 1]


def judge(game: Generated, session: Session, spec: Spec) -> Disagreement | None:
    """The implementation's answer to one game, against the truth and the reference."""
    try:
        expected = write(game.request)
    except RequestError as exc:
        raise UsageError(
            f"seed {game.seed}: the bundled reference rejects the generated game: {exc}",
            hint="a bug in the generator (conformance/generate.py): report it with the seed",
        ) from None
    if shared_ids(game.truth, expected["assignments"]):
        raise UsageError(
            f"seed {game.seed}: the bundled reference gives one instance ID to two physical cards",
            hint="a bug in the spec or the reference: report it with the seed",
        )
    answer = session.ask(game.request)
    match answer:
        case Unsupported():
            raise UsageError(f"{session.name} does not support the writer role: there is nothing to fuzz")
        case Crashed(reason=reason):
            return Disagreement(game=game, kind="ERRORED", rule="ID-1", what=reason)
        case Rejected(message=message):
            return Disagreement(game=game, kind="ERRORED", rule="ID-1",
                                what=f"rejected a valid request as invalid input: {message}")
        case Answered(result=result):
            problem = schemas.first_problem("writer-output", result)
            if problem is not None:
                return Disagreement(game=game, kind="ERRORED", rule="ID-1",
                                    what=f"output does not match schema/writer-output.schema.json at "
                                    f"{problem.where()}: {problem.message}")
            shared = shared_ids(game.truth, result["assignments"])
            if shared:
                iid, cards = next(iter(shared.items()))
                return Disagreement(game=game, kind="UNSOUND", rule=UNSOUND_RULE,
                                    what=f"ID {iid!r} is given to {len(cards)} physical cards")
            data = draft.case_data(_meta(game, None, spec), game.request, Answered(result=expected))
            case = draft.checked(Path(f"fuzz-{game.seed}.yaml"), data, spec)
            differences = compare_writer(case, result)
            if differences:
                first = differences[0]
                return Disagreement(game=game, kind="DIFFERS", rule=first.rule, what=first.message)
    return None


def _meta(game: Generated, rule: str | None, spec: Spec) -> draft.Metadata:
    rule = rule if rule is not None and rule in spec.rules else "LIB-1"
    return draft.Metadata(
        id=f"fuzz-{game.seed}",
        description=f"Generated game {game.seed} (conformance/generate.py), answered by the bundled reference.",
        role="writer", level=spec.rule(rule).level.name, rules=(rule,), cr=spec.rule(rule).cr,
        tags=("generated",),
    )


def main(args: argparse.Namespace) -> int:
    spec = load_spec()
    chosen = seeds(args.seed, args.games, args.shard)
    session = Session(execute.Options.scaled(execute.implementation_argv(args.impl), multiplier=args.timeout_multiplier))
    found: list[Disagreement] = []
    try:
        for seed in chosen:
            disagreement = judge(game_of(seed), session, spec)
            if disagreement is not None:
                found.append(disagreement)
                emit(escape.visible(f"seed {seed}: {disagreement.kind} [{disagreement.rule}] {disagreement.what}"))
    finally:
        name = session.name
        session.close()
    if args.out is not None:
        for disagreement in found:
            _write_case(args.out, disagreement, args.impl, spec)
    kinds = {kind: sum(1 for d in found if d.kind == kind) for kind in ("UNSOUND", "DIFFERS", "ERRORED")}
    counted = ", ".join(f"{count} {kind.lower()}" for kind, count in kinds.items() if count)
    span = f"seeds {chosen[0]}-{chosen[-1]}" if chosen else "no seed"
    if args.shard != (1, 1):
        span += f", shard {args.shard[0]}/{args.shard[1]}"
    emit(escape.visible(f"fuzz: {name}: {len(chosen)} games ({span}), {len(found)} disagreement(s)"
                        + (f": {counted}" if counted else "")))
    if found:
        replay = ["cardid", "fuzz", *(["--impl", args.impl] if args.impl else []),
                  "--seed", str(found[0].game.seed), "--games", "1"]
        say(f"replay the first: {shlex.join(replay)}", sys.stdout)
        return Exit.FAILED
    return Exit.OK


def _write_case(folder: Path, disagreement: Disagreement, impl: str | None, spec: Spec) -> None:
    game = disagreement.game
    path = folder / f"fuzz-{game.seed}.yaml"
    data = draft.case_data(_meta(game, disagreement.rule, spec), game.request,
                           Answered(result=write(game.request)))
    draft.checked(path, data, spec)
    comments = [
        f"Fails: {impl or 'cardid reference'} (cardid fuzz, seed {game.seed}): {disagreement.kind}: "
        f"{disagreement.what}",
        *draft.review_comment("the bundled reference", "cardid fuzz"),
    ]
    draft.write(path, data, comments, what="the generated case")
    say(escape.visible(f"wrote {path}"), sys.stdout)
