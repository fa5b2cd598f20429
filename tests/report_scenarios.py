"""Three fixed runs, made of values only (a spec, cases and outcomes built here, so that neither
a change of the suite's own spec or corpus nor the machine changes a byte), and every report of
each rendered from them: tests/test_report_bytes.py compares these with the saved files,
tests/test_pytest_plugin.py sends their outcomes between pytest-xdist's processes."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardid_conformance import certificate, report
from cardid_conformance.cases import Case, ReaderExpectation, Rejection
from cardid_conformance.compare import Difference
from cardid_conformance.expect import KnownFailure, KnownFailures
from cardid_conformance.generate.campaign import Campaign, Disagreement
from cardid_conformance.junit import to_junit
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    NotApplicable,
    NotRun,
    Outcome,
    Passed,
    Skipped,
)
from cardid_conformance.report import RunInfo
from cardid_conformance.spec import Level, Rule, Spec

DATA = Path(__file__).resolve().parent / "data" / "reports"
#: The files of a run, in the order they are checked.
FILES = ("report.json", "report.html", "summary.md", "junit.xml", "badge.json", "certificate.json")
#: Where the cases' files are said to be: report.html shows their paths relative to it.
SUITE_ROOT = Path("/suite")

#: Text that is markup in HTML, Markdown and XML, a terminal escape, characters XML forbids, a
#: bidirectional override and a lone surrogate (which UTF-8 cannot hold).
HOSTILE = "<b>x</b> | `y` *z* [l](u) & \"q\" 'a' \x00 \x1b[31mred\x1b[0m \u202e \udc80 end"

SPEC = Spec(
    version="1.1.0",
    cr_edition="20260925",
    families={"ID": "Identity", "LIB": "Libraries", "PRINT": "Printings", "NAME": "Names",
              "OWN": "Owners", "TXT": "Card table text"},
    rules={rule.id: rule for rule in (
        Rule(id="ID-1", level=Level.MUST, item=1, cr=("400.7",), summary="A new object is a new instance."),
        Rule(id="ID-3", level=Level.MUST, item=3, cr=("400.7", "111.1"), summary=f"An ID is kept <{HOSTILE}>."),
        Rule(id="LIB-2", level=Level.MUST, item=2, cr=("401.3",), summary="A shuffle ends every ID in it."),
        Rule(id="PRINT-1", level=Level.SHOULD, item=1, cr=(), summary="The printing is the revealed one."),
        Rule(id="NAME-9", level=Level.MAY, item=9, cr=(), summary="A name may be in NFC."),
        Rule(id="OWN-1", level=Level.MUST, item=1, cr=("108.3",), summary="The owner is the one revealed."),
        Rule(id="TXT-1", level=Level.MUST, item=1, cr=(), summary="Card table text is read as written."),
        Rule(id="TXT-2", level=Level.SHOULD, item=2, cr=(), summary="Invalid text is rejected."),
        Rule(id="ID-9", level=Level.MUST, item=9, cr=(), summary="A rule no case cites."),
    )},
)


def _case(case_id: str, role: str, level: Level, rules: Sequence[str], *, description: str = "") -> Case:
    folder = "writer" if role == "writer" else "reader"
    return Case(
        id=case_id,
        description=description or f"What {case_id} checks.",
        role=role,
        level=level,
        rules=tuple(rules),
        cr=("400.7",) if role == "writer" else (),
        tags=(),
        path=SUITE_ROOT / "cases" / folder / f"{case_id}.yaml",
        request={"role": role, "text": case_id} if role == "reader" else {"role": role, "observations": []},
        expectation=ReaderExpectation(card_table=()) if role == "reader" else Rejection(),
    )


def _failed(case_id: str, *differences: tuple[str, Level, str, str], seconds: float = 0.25) -> Failed:
    return Failed(
        case_id=case_id,
        differences=tuple(
            Difference(rule=rule, message=message, observation=index + 2,
                       context=(f"observation {index + 2}: move 3 hand -> stack", HOSTILE), cause=cause)
            for index, (rule, _, message, cause) in enumerate(differences)
        ),
        levels=tuple(level for _, level, _, _ in differences),
        seconds=seconds,
    )


STDERR = "\n".join([f"  at frame {n} ({HOSTILE})" for n in range(24)] + ["TypeError: boom"])


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """One fixed run: its cases, outcomes, run info and what certify would add."""

    cases: tuple[Case, ...]
    outcomes: tuple[Outcome, ...]
    info: RunInfo
    roles: tuple[str, ...] | None
    known: KnownFailures | None = None
    environment: Mapping[str, str] = field(default_factory=lambda: {
        "python": "3.11.9", "platform": f"Linux {HOSTILE}", "cardid": "0.9.0", "created": "2026-01-02T03:04:05Z",
    })


def _rerun(outcomes: Sequence[Outcome]) -> dict[str, str]:
    return {o.case_id: f"cardid run --impl 'impl <x>' --case {o.case_id}" for o in outcomes}


def _mixed() -> Scenario:
    """Every kind of outcome, every note a verdict can carry."""
    cases = (
        _case("w-pass", "writer", Level.MUST, ["ID-1", "LIB-2"], description=HOSTILE),
        _case("w-fail", "writer", Level.MUST, ["ID-3", "LIB-2"]),
        _case("w-fail-again", "writer", Level.MUST, ["ID-3"]),
        _case("w-warn", "writer", Level.SHOULD, ["PRINT-1"]),
        _case("w-may", "writer", Level.MAY, ["NAME-9"]),
        _case("w-err", "writer", Level.MUST, ["OWN-1"]),
        _case("w-na", "writer", Level.MUST, ["LIB-2"]),
        _case("w-known-fail", "writer", Level.MUST, ["ID-3"]),
        _case("w-known-err", "writer", Level.MUST, ["OWN-1"]),
        _case("w-not-run", "writer", Level.MUST, ["ID-1"]),
        _case("r-pass", "reader", Level.MUST, ["TXT-1"]),
        _case("r-err-should", "reader", Level.SHOULD, ["TXT-2"]),
        _case("r-skip", "reader", Level.MUST, ["TXT-1"]),
        _case("r-skip-too", "reader", Level.MUST, ["TXT-1", "OWN-1"]),
    )
    outcomes: tuple[Outcome, ...] = (
        CaseBug(case_id=f"cases/writer/{HOSTILE}.yaml", reason=f"line 3: {HOSTILE}"),
        Passed(case_id="w-pass", seconds=0.0123456789),
        _failed("w-fail", ("ID-3", Level.MUST, f"split: {HOSTILE}", "split at a move hand -> stack"),
                ("PRINT-1", Level.SHOULD, "printing ELD 254, expected ELD 255", "printing"), seconds=1.5),
        _failed("w-fail-again", ("ID-3", Level.MUST, "split again", "split at a move hand -> stack")),
        _failed("w-warn", ("PRINT-1", Level.SHOULD, "printing differs", "printing")),
        _failed("w-may", ("NAME-9", Level.MAY, "name not in NFC", "")),
        Errored(case_id="w-err", level=Level.MUST, reason=f"exit status 3: {HOSTILE}", stderr=STDERR, seconds=2.0),
        NotApplicable(case_id="w-na", reason="Arena logs cannot express a library reorder"),
        ExpectedFailure(case_id="w-known-fail", reason="issue 12",
                        failure=_failed("w-known-fail", ("ID-3", Level.MUST, "kept across a shuffle", "kept"))),
        ExpectedFailure(case_id="w-known-err", reason=HOSTILE,
                        failure=Errored(case_id="w-known-err", level=Level.MUST, reason="timed out after 10 s",
                                        stderr="slow\n", seconds=10.0)),
        NotRun(case_id="w-not-run", reason="the run stopped: the first 3 cases failed alike at start-up"),
        Passed(case_id="r-pass", seconds=0.5),
        Errored(case_id="r-err-should", level=Level.SHOULD, reason="output is not JSON"),
        Skipped(case_id="r-skip", reason="the implementation does not support the reader role"),
        Skipped(case_id="r-skip-too", reason="the implementation does not support the reader role"),
    )
    campaign = Campaign(seeds=(0, 1, 2, 3), disagreements=(
        Disagreement(seed=2, kind="KEPT", rule="ID-3", what=HOSTILE, config="2 players, relinking"),
        Disagreement(seed=3, kind="UNSOUND", rule="LIB-2", what="two cards, one ID", config="3 players"),
    ))
    info = RunInfo(
        command="impl <x> --flag", spec_version="1.1.0", cases_dir="mycases", name=f"parser {HOSTILE}",
        version="2.0<br>", mode="persistent", interrupted=True, rerun=_rerun(outcomes),
        known_failures_file="known.yaml", known_failure_problems=(f"entry {HOSTILE}: the case passes",),
        corpus_size=40, suite_version="0.9.0", suite_commit="0123456789abcdef0123+modified",
        cases_sha256="ab" * 32, fallback_reason=None, suite_corpus=False, resumed=2, resumed_from="old.json",
        source="arena", generated=campaign,
    )
    known = KnownFailures(path=Path("known.yaml"), implementation="parser", entries=(
        KnownFailure(case="w-known-fail", reason="issue 12", issue="https://example.invalid/12",
                     expires=datetime.date(2999, 1, 1)),
        KnownFailure(case="w-known-err", reason=HOSTILE),
        KnownFailure(case="w-pass", reason="not used"),
    ))
    return Scenario(cases=cases, outcomes=outcomes, info=info, roles=("writer", "reader"), known=known)


def _conforming() -> Scenario:
    """Conforming as a writer, with a SHOULD warning, the reader role untested, per-case mode."""
    cases = (
        _case("w-pass", "writer", Level.MUST, ["ID-1", "LIB-2"]),
        _case("w-pass-too", "writer", Level.MUST, ["ID-3"]),
        _case("w-warn", "writer", Level.SHOULD, ["PRINT-1"]),
        _case("r-skip", "reader", Level.MUST, ["TXT-1"]),
    )
    outcomes: tuple[Outcome, ...] = (
        Passed(case_id="w-pass", seconds=0.1),
        Passed(case_id="w-pass-too", seconds=0.2),
        _failed("w-warn", ("PRINT-1", Level.SHOULD, "printing differs", "printing")),
        Skipped(case_id="r-skip", reason="the implementation does not support the reader role"),
    )
    info = RunInfo(
        command="./adapter", spec_version="1.1.0", cases_dir="/suite/cases", mode="per-case",
        rerun=_rerun(outcomes), corpus_size=4, suite_version="0.9.0", suite_commit="fedcba9876543210fedc",
        cases_sha256="cd" * 32, fallback_reason="refused persistent mode: not today",
    )
    return Scenario(cases=cases, outcomes=outcomes, info=info, roles=None)


def _accepted() -> Scenario:
    """Accepted, not conforming: the one MUST failure is a listed known failure."""
    cases = (
        _case("w-pass", "writer", Level.MUST, ["ID-1"]),
        _case("w-known", "writer", Level.MUST, ["LIB-2"]),
        _case("r-pass", "reader", Level.MUST, ["TXT-1"]),
    )
    outcomes: tuple[Outcome, ...] = (
        Passed(case_id="w-pass"),
        ExpectedFailure(case_id="w-known", reason="a shuffle is not seen",
                        failure=_failed("w-known", ("LIB-2", Level.MUST, "kept across a shuffle", "kept"))),
        Passed(case_id="r-pass"),
    )
    info = RunInfo(
        command="python -m parser", spec_version="1.1.0", cases_dir="/suite/cases", name="parser",
        version="1.0", mode="persistent", rerun=_rerun(outcomes), known_failures_file="/tmp/known.yaml",
        corpus_size=3, suite_version="0.9.0", cases_sha256="ef" * 32,
    )
    known = KnownFailures(path=Path("/tmp/known.yaml"), implementation="parser", entries=(
        KnownFailure(case="w-known", reason="a shuffle is not seen"),
    ))
    return Scenario(cases=cases, outcomes=outcomes, info=info, roles=("writer", "reader"), known=known)


SCENARIOS = {"mixed": _mixed, "conforming": _conforming, "accepted": _accepted}


def render(scenario: Scenario) -> dict[str, bytes]:
    """The files of the run, as `cardid run` (junit.xml) and `cardid certify` write them: from
    the typed values of the run, as every renderer takes them."""
    cases = {case.id: case for case in scenario.cases}
    outcomes, info = scenario.outcomes, scenario.info
    bundle = certificate.render_bundle(
        outcomes, cases, info, SPEC, suite_root=SUITE_ROOT, roles=scenario.roles, environment=scenario.environment,
    )
    sealed = certificate.build(
        outcomes, cases, info, SPEC,
        suite_manifest={"cases/writer/w-pass.yaml": "aa" * 32, "spec/rules.yaml": "bb" * 32},
        roles=scenario.roles, environment=scenario.environment, known_failures=scenario.known,
        known_failures_sha256=None if scenario.known is None else "cc" * 32, bundle_files=bundle,
    )
    return {**bundle, "junit.xml": to_junit(outcomes, cases, info.rerun),
            "certificate.json": report.to_json_text(sealed).encode()}


