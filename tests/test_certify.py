"""`cardid certify` and `cardid verify-certificate`: the bundle is written whole, fits its
schema, verifies untouched, and every edit (a bundle file, the certificate, the suite) is
named; report.html is one self-contained page in which no text can become markup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import certificate, schemas, suite
from cardid_conformance.cases import Case, Rejection, case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.html import CSP, to_html
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    Outcome,
    Passed,
    Skipped,
)
from cardid_conformance.report import RunInfo, to_json
from cardid_conformance.rulereport import RULE_STATUSES, family_matrix, rule_results
from cardid_conformance.spec import Level, Spec, load_spec
from cardid_conformance.verdict import Verdict
from cardid_runner import certify as certify_module
from cardid_runner.cli import Exit, main
from cardid_runner.run import Result, Run, conclude

from tests.conftest import ROOT

FIVE = {"certificate.json", "report.json", "report.html", "badge.json", "summary.md"}


# --------------------------------------------------------------------------- a real bundle


#: What `bundle` saw of the file beside it that --force kept (then removed: the certificate
#: vouches for no file but its own five, and verify says so).
KEPT: dict[str, str] = {}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one real run: the whole corpus against the bundled reference, with --force into a
    folder that already holds a file of someone else's."""
    out = tmp_path_factory.mktemp("bundle")
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert main(["certify", "--out", str(out), "--force", "-q"]) == Exit.OK
    KEPT["names"] = " ".join(sorted(path.name for path in out.iterdir()))
    KEPT["notes.txt"] = (out / "notes.txt").read_text(encoding="utf-8")
    (out / "notes.txt").unlink()
    return out


def _copy(bundle: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(bundle, target)
    return target


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify-certificate", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _certificate(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((path / "certificate.json").read_text(encoding="utf-8"))
    return data


def test_certify_writes_the_five_files_and_leaves_others_alone(bundle: Path) -> None:
    """The bundle's five files are there; --force kept the file that was not the bundle's."""
    assert KEPT["names"] == " ".join(sorted(FIVE | {"notes.txt"}))
    assert KEPT["notes.txt"] == "mine\n"
    assert {path.name for path in bundle.iterdir()} == FIVE


def test_the_certificate_fits_its_schema_and_holds_what_the_run_used(bundle: Path, spec: Spec) -> None:
    """certificate.json validates; its manifest lists the spec, schema and case files by
    path relative to the suite root, with their sha256; it has every rule and every case."""
    data = _certificate(bundle)
    assert schemas.first_problem("certificate", data) is None
    listed = {entry["path"]: entry["sha256"] for entry in data["manifest"]}
    rules_yaml = suite.ROOT / "spec" / "rules.yaml"
    assert listed["spec/rules.yaml"] == certificate.sha256(rules_yaml.read_bytes())
    assert "schema/certificate.schema.json" in listed
    assert len([path for path in listed if path.startswith("cases/")]) == len(case_files(suite.CASES_DIR))
    assert [rule["rule"] for rule in data["rules"]] == list(spec.rules)
    assert all(rule["status"] in ("passed", "untested") for rule in data["rules"])
    report = json.loads((bundle / "report.json").read_text(encoding="utf-8"))
    assert schemas.first_problem("report", report) is None
    assert [(c["case"], c["sha256"]) for c in data["cases"]] == [
        (r["case"], r["case_sha256"]) for r in report["results"]
    ]
    assert data["implementation"]["roles"] == ["writer", "reader"]
    assert data["implementation"]["mode"] == "persistent"
    assert data["verdict"] == report["verdict"]
    for name, digest in data["files"].items():
        assert certificate.sha256((bundle / name).read_bytes()) == digest
    assert certificate.self_digest(data) == data["certificate_sha256"]


def test_the_badge_and_page_of_the_reference_say_conforming(bundle: Path) -> None:
    """The reference conforms in both roles: a green badge without a role named, and the
    page's headline is the report's verdict sentence."""
    badge = json.loads((bundle / "badge.json").read_text(encoding="utf-8"))
    report = json.loads((bundle / "report.json").read_text(encoding="utf-8"))
    assert badge == {"schemaVersion": 1, "label": "cardid",
                     "message": f"conforming {report['suite']['spec_version']}", "color": "brightgreen"}
    page = (bundle / "report.html").read_text(encoding="utf-8")
    assert f'<h1 id="verdict">{report["verdict"]["text"]}</h1>' in page


def test_verify_passes_an_untouched_bundle(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 0, one `ok` line per check, and the closing line says what was checked."""
    code, out = _verify(bundle, capsys)
    assert code == Exit.OK, out
    assert "DIFFERS" not in out
    for name in FIVE:
        assert f"ok       {name}:" in out
    assert "ok       suite: all" in out
    assert "untouched and was made from this suite's files" in out


def test_verify_names_an_edited_report_html(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One byte added to report.html: exit 1, and report.html, only it, is named."""
    copy = _copy(bundle, tmp_path)
    with (copy / "report.html").open("ab") as handle:
        handle.write(b" ")
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert [line for line in out.splitlines() if line.startswith("DIFFERS")] == [
        "DIFFERS  report.html: edited (its sha256 is not the certificate's)"
    ]


def test_verify_names_an_edited_certificate(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The verdict flipped in certificate.json (still valid JSON for its schema): exit 1,
    certificate.json named as edited."""
    copy = _copy(bundle, tmp_path)
    data = _certificate(copy)
    data["verdict"]["conforming"] = False
    (copy / "certificate.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert "DIFFERS  certificate.json: edited since it was written" in out


def test_verify_names_a_file_added_to_the_bundle(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index.html written beside the five (an implementation can, during certify): exit 1,
    named as not part of the bundle."""
    copy = _copy(bundle, tmp_path)
    (copy / "index.html").write_text("<p>CONFORMING</p>", encoding="utf-8")
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert [line for line in out.splitlines() if line.startswith("DIFFERS")] == [
        "DIFFERS  index.html: not part of the bundle (the certificate vouches for no file but its own "
        "five; `certify --force` keeps files it did not write)"
    ]


def _resealed(copy: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """certificate.json changed and sealed again: its own hash matches, as a forger's would."""
    data = _certificate(copy)
    change(data)
    (copy / "certificate.json").write_text(json.dumps(certificate.seal(data), indent=2), encoding="utf-8")


def test_verify_names_a_resealed_certificate_whose_verdict_is_not_its_reports(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A certificate sealed anew over another verdict still names the real report's hash:
    checked against the report it vouches for, it is named."""
    copy = _copy(bundle, tmp_path)
    _resealed(copy, lambda data: data["verdict"].update(conforming=False, text="NOT CONFORMING"))
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert "ok       certificate.json: unchanged" in out
    assert "DIFFERS  certificate.json: its verdict (conforming, text) differ from the report it vouches for" in out


def test_verify_names_a_manifest_listing_a_file_twice(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(bundle, tmp_path)
    _resealed(copy, lambda data: data["manifest"].append(dict(data["manifest"][0])))
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert f"DIFFERS  certificate.json: its manifest lists {_certificate(copy)['manifest'][0]['path']} more than once" in out


def test_verify_names_a_deleted_badge(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """badge.json removed: exit 1, `badge.json: missing`."""
    copy = _copy(bundle, tmp_path)
    (copy / "badge.json").unlink()
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert "DIFFERS  badge.json: missing" in out


def test_verify_names_the_suite_files_that_differ(bundle: Path, tmp_path: Path) -> None:
    """Against a copy of the suite (CARDID_SUITE) with one case file edited and one spec file
    added, verify exits 1 naming exactly those two files."""
    root = tmp_path / "suite"
    for folder in ("spec", "schema", "cases"):
        shutil.copytree(suite.ROOT / folder, root / folder)
    edited = sorted((root / "cases").rglob("*.yaml"))[0]
    with edited.open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    (root / "spec" / "extra.md").write_text("new\n", encoding="utf-8")
    env = {**os.environ, "CARDID_SUITE": str(root)}
    proc = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "verify-certificate", str(bundle)],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )
    assert proc.returncode == Exit.FAILED, proc.stdout + proc.stderr
    differs = [line for line in proc.stdout.splitlines() if line.startswith("DIFFERS")]
    assert differs == [
        f"DIFFERS  suite file {edited.relative_to(root).as_posix()}: differs from the one the "
        "certificate was made from",
        "DIFFERS  suite file spec/extra.md: in this suite, not in the certificate",
    ]


def test_verify_says_a_certificate_that_is_not_json_was_edited(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """certificate.json cut short: exit 1, `not strict JSON ... edited or damaged`."""
    copy = _copy(bundle, tmp_path)
    path = copy / "certificate.json"
    path.write_bytes(path.read_bytes()[:100])
    code, out = _verify(copy, capsys)
    assert code == Exit.FAILED
    assert "DIFFERS  certificate.json: not strict JSON" in out


def test_verify_of_a_folder_that_is_not_a_bundle_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No certificate.json, or no folder at all: exit 2 with a message naming it."""
    code, out = _verify(tmp_path, capsys)
    assert code == Exit.USAGE
    assert f"{tmp_path} is not a certificate bundle: it has no certificate.json" in out
    code, out = _verify(tmp_path / "absent", capsys)
    assert code == Exit.USAGE
    assert "is not a folder" in out


# --------------------------------------------------------------------------- certify's options


def test_certify_refuses_a_folder_that_is_not_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 before anything runs, saying what to do; nothing is written."""
    (tmp_path / "old.txt").write_text("x", encoding="utf-8")
    assert main(["certify", "--out", str(tmp_path)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert "--out" in err and "is not empty" in err and "--force" in err
    assert [path.name for path in tmp_path.iterdir()] == ["old.txt"]


def test_certify_has_no_selection_options(capsys: pytest.CaptureFixture[str]) -> None:
    """A certificate is for the whole corpus: --case is not an option of certify."""
    assert main(["certify", "--out", "x", "--case", "some-case"]) == Exit.USAGE
    assert "unrecognized arguments: --case" in capsys.readouterr().err


def _quick(outcome: Callable[[Case], Outcome] | None = None, *, interrupted: bool = False) -> Callable[..., Result]:
    """A stand-in for `perform` that concludes on made-up outcomes, without running anything."""

    def perform(run: Run, progress: object = None) -> Result:
        outcomes = [] if interrupted else [
            (outcome or (lambda case: Passed(case_id=case.id)))(case) for case in run.selected()
        ]
        return conclude(run, outcomes, selected=len(run.selected()), hello=None, mode="per-case",
                        interrupted=interrupted)

    return perform


def test_an_interrupted_certify_writes_no_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Interrupted: exit 130 and no bundle, saying why."""
    monkeypatch.setattr(certify_module, "perform", _quick(interrupted=True))
    out = tmp_path / "out"
    assert main(["certify", "--out", str(out)]) == 130
    assert not out.exists()
    assert "no certificate written" in capsys.readouterr().err


def test_a_bundle_file_that_cannot_be_written_leaves_no_certificate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """report.html is a folder in the --force'd DIR: exit 2, the file named, no certificate.json
    (a stale one is removed first), so the half-written bundle never verifies."""
    monkeypatch.setattr(certify_module, "perform", _quick())
    (tmp_path / "report.html").mkdir()
    (tmp_path / "certificate.json").write_text("{}", encoding="utf-8")
    assert main(["certify", "--out", str(tmp_path), "--force"]) == Exit.USAGE
    err = capsys.readouterr().err
    assert "report.html" in err and "no certificate.json" in err
    assert not (tmp_path / "certificate.json").exists()


def test_a_per_case_run_records_no_handshake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a handshake the certificate says so (roles null) and still fits its schema."""
    monkeypatch.setattr(certify_module, "perform", _quick())
    assert main(["certify", "--out", str(tmp_path)]) == Exit.OK
    data = _certificate(tmp_path)
    assert schemas.first_problem("certificate", data) is None
    assert data["implementation"]["roles"] is None
    assert data["implementation"]["mode"] == "per-case"


def test_known_failures_used_are_recorded_and_never_read_as_conforming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A MUST failure listed in --expect: exit 0 (the gate), the entry and the file's sha256 in
    the certificate, a verdict that is not conforming, and a badge counting the failure."""
    victim = sorted(case.id for case in load_corpus(case_files(suite.CASES_DIR), load_spec()).cases)[0]
    monkeypatch.setattr(certify_module, "perform", _quick(
        lambda case: Errored(case_id=case.id, level=Level.MUST, reason="boom")
        if case.id == victim else Passed(case_id=case.id)
    ))
    expect = tmp_path / "known.yaml"
    expect.write_text(
        f"implementation: x\nknown_failures:\n  - case: {victim}\n    reason: not yet\n"
        "    expires: 2999-01-01\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["certify", "--out", str(out), "--expect", str(expect)]) == Exit.OK
    data = _certificate(out)
    assert schemas.first_problem("certificate", data) is None
    assert data["known_failures"] == {
        "file": str(expect),
        "sha256": certificate.sha256(expect.read_bytes()),
        "used": [{"case": victim, "reason": "not yet", "expires": "2999-01-01", "issue": None}],
    }
    assert data["verdict"]["conforming"] is False and data["verdict"]["accepted"] is True
    badge = json.loads((out / "badge.json").read_text(encoding="utf-8"))
    assert (badge["message"], badge["color"]) == ("1 MUST failure", "orange")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Known failures (listed in the known-failure file) (1)" in page and victim in page


# --------------------------------------------------------------------------- the seal


def test_the_seal_holds_for_a_lone_surrogate() -> None:
    """A lone surrogate (which the file writes as visible text) does not break the seal: the
    hash is of the certificate as it reads back."""
    sealed = certificate.seal({"implementation": {"name": "bad\udc80name"}})
    from cardid_conformance.report import to_json_text

    read_back = json.loads(to_json_text(sealed))
    assert certificate.self_digest(read_back) == read_back["certificate_sha256"]
    assert read_back["implementation"]["name"] == "bad\\udc80name"


# --------------------------------------------------------------------------- the badge


def _verdict(**fields: Any) -> Verdict:
    base: dict[str, Any] = {"conforming": False, "accepted": False, "must_failures": 0}
    return Verdict(**{**base, **fields})


@pytest.mark.parametrize(
    ("verdict", "message", "color"),
    [
        (_verdict(conforming=True, accepted=True, roles=("writer", "reader")), "conforming 1.1.0", "brightgreen"),
        (_verdict(conforming=True, accepted=True, roles=("reader",), untested_roles=("writer",)),
         "reader conforming 1.1.0", "brightgreen"),
        (_verdict(conforming=True, accepted=True, roles=("writer", "reader"), should_failures=2),
         "conforming 1.1.0", "yellowgreen"),
        (_verdict(must_failures=1, known_must_failures=2), "3 MUST failures", "red"),
        (_verdict(accepted=True, known_must_failures=1), "1 MUST failure", "orange"),
        (_verdict(), "not conforming", "red"),
    ],
)
def test_the_badge_says_what_the_verdict_says(verdict: Verdict, message: str, color: str) -> None:
    """Conforming names the role certified where one went untested; a MUST failure, known or
    not, is never 'conforming'."""
    assert certificate.badge(verdict, "1.1.0") == {
        "schemaVersion": 1, "label": "cardid", "message": message, "color": color,
    }


# --------------------------------------------------------------------------- rule results


def _result(case_id: str, status: str, rules: Sequence[str], *diffs: tuple[str, str]) -> tuple[Outcome, Case]:
    """An outcome of this status (a failure's, a known failure's, with these differences, each
    a rule and a level) and a case citing these rules."""
    failed = Failed(
        case_id=case_id,
        differences=tuple(Difference(rule=rule, message="m") for rule, _ in diffs) or (Difference(rule="ID-1", message="m"),),
        levels=tuple(Level[level] for _, level in diffs) or (Level.MUST,),
    )
    outcome: Outcome = {
        "passed": Passed(case_id=case_id),
        "failed": failed,
        "errored": Errored(case_id=case_id, level=Level.MUST, reason="boom"),
        "skipped": Skipped(case_id=case_id, reason="no"),
        "expected-failure": ExpectedFailure(case_id=case_id, failure=failed, reason="known"),
    }[status]
    case = Case(id=case_id, description="", role="writer", level=Level.MUST, rules=tuple(rules), cr=(), tags=(),
                path=Path(f"{case_id}.yaml"), request={}, expectation=Rejection())
    return outcome, case


def _run(*results: tuple[Outcome, Case]) -> tuple[list[Outcome], dict[str, Case]]:
    return [outcome for outcome, _ in results], {case.id: case for _, case in results}


def test_rule_results_tell_a_broken_rule_from_one_merely_cited(spec: Spec) -> None:
    """A failure names the rule it broke (failed for MUST, warning for SHOULD); a rule cited
    by that case but not broken is inconclusive; a rule no case cites is untested."""
    outcomes, cases = _run(
        _result("a", "failed", ["ID-3", "LIB-2"], ("ID-3", "MUST"), ("PRINT-1", "SHOULD")),
        _result("b", "passed", ["ID-4"]),
        _result("c", "errored", ["OWN-1"]),
        _result("d", "expected-failure", ["TOK-1"], ("TOK-1", "MUST")),
    )
    status = {result.id: result.status for result in rule_results(outcomes, cases, spec)}
    assert status["ID-3"] == "failed"
    assert spec.rule("PRINT-1").level is Level.SHOULD and status["PRINT-1"] == "warning"
    assert status["LIB-2"] == "inconclusive"
    assert status["ID-4"] == "passed"
    assert status["OWN-1"] == "errored"
    assert status["TOK-1"] == "known-failure"
    assert status["SRC-1"] == "untested"
    by_id = {result.id: result for result in rule_results(outcomes, cases, spec)}
    assert by_id["PRINT-1"].failed_in == ("a",) and by_id["PRINT-1"].cases == ()
    assert by_id["LIB-2"].counts["failed"] == 1


def test_the_family_matrix_counts_a_failure_where_it_broke(spec: Spec) -> None:
    """A failure counts under the families it broke, at their level; a pass under those it cites."""
    outcomes, cases = _run(
        _result("a", "failed", ["ID-3", "LIB-2"], ("ID-3", "MUST"), ("PRINT-1", "SHOULD")),
        _result("b", "passed", ["ID-4", "LIB-1"]),
        _result("c", "skipped", ["TXT-1"]),
    )
    matrix = family_matrix(outcomes, cases, spec)
    assert matrix["ID"] == {"passed": 1, "failed": 1, "warning": 0, "errored": 0, "skipped": 0, "not-applicable": 0,
                            "known-failure": 0}
    assert matrix["PRINT"]["warning"] == 1
    assert matrix["LIB"] == {"passed": 1, "failed": 0, "warning": 0, "errored": 0, "skipped": 0, "not-applicable": 0,
                             "known-failure": 0}
    assert matrix["TXT"]["skipped"] == 1


# --------------------------------------------------------------------------- the page


HOSTILE = "<script>alert(1)</script> </td></tr> \x00 \x1b[31mred\x1b[0m & \"q\" 'a' \u202e"


@pytest.fixture(scope="module")
def corpus_cases(spec: Spec) -> dict[str, Case]:
    return {case.id: case for case in load_corpus(case_files(suite.CASES_DIR), spec).cases}


@pytest.fixture(scope="module")
def hostile_run(corpus_cases: dict[str, Case], spec: Spec) -> tuple[list[Outcome], RunInfo]:
    """A run in which every kind of case that did not pass carries hostile text."""
    ids = list(corpus_cases)
    writer = next(case for case in corpus_cases.values() if case.role == "writer")
    outcomes: list[Outcome] = [
        CaseBug(case_id="cases/<b>broken</b>.yaml", reason=HOSTILE),
        Failed(
            case_id=writer.id,
            differences=(Difference(rule=writer.rules[0], message=HOSTILE, context=(HOSTILE, "line two")),),
            levels=(Level.MUST,),
        ),
        Errored(case_id=ids[1], level=Level.MUST, reason=HOSTILE, stderr=f"Traceback\n{HOSTILE}\nTypeError: x"),
        ExpectedFailure(
            case_id=ids[2], reason=HOSTILE,
            failure=Errored(case_id=ids[2], level=Level.MUST, reason="boom"),
        ),
        Skipped(case_id=ids[3], reason="role reader not supported"),
    ]
    named = {outcome.case_id for outcome in outcomes}
    outcomes += [Passed(case_id=case_id) for case_id in ids if case_id not in named]
    info = RunInfo(command=f"impl {HOSTILE}", spec_version=spec.version, cases_dir="cases",
                   name=HOSTILE, version="1.0<br>", mode="persistent")
    return outcomes, info


@pytest.fixture(scope="module")
def hostile_report(
    hostile_run: tuple[list[Outcome], RunInfo], corpus_cases: dict[str, Case], spec: Spec
) -> dict[str, Any]:
    """The hostile run's JSON report."""
    outcomes, info = hostile_run
    return to_json(outcomes, corpus_cases, info, spec)


@pytest.fixture(scope="module")
def hostile_page(hostile_run: tuple[list[Outcome], RunInfo], corpus_cases: dict[str, Case], spec: Spec) -> str:
    env = {"python": "3", "platform": HOSTILE, "cardid": "0", "created": "2026-01-01T00:00:00Z"}
    outcomes, info = hostile_run
    return to_html(outcomes, corpus_cases, info, spec, suite_root=suite.ROOT, roles=["writer"], environment=env)


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.h1: list[str] = []
        self.h3: list[str] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            while self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if "h1" in self._open:
            self.h1.append(data)
        if "h3" in self._open:
            self.h3.append(data)


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


#: What the page may hold: none of these loads or runs anything.
_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "div", "p", "h1", "h2", "h3",
         "main", "section", "dl", "dt", "dd", "code", "span", "ul", "li", "b", "table", "thead",
         "tbody", "tr", "th", "td", "article", "pre", "details", "summary", "footer"}


def test_hostile_text_never_becomes_markup(hostile_page: str) -> None:
    """No script, no tag outside the page's own few, no event or URL attribute; every control
    character written as a visible escape; the hostile text is there, as text."""
    page = _parse(hostile_page)
    assert {tag for tag, _ in page.tags} <= _TAGS
    attributes = {name for _, attrs in page.tags for name in attrs}
    assert attributes <= {"lang", "charset", "http-equiv", "content", "name", "class", "id", "scope"}
    assert "<script" not in hostile_page.lower()
    assert not any(char in hostile_page for char in "\x00\x1b\u202e")
    text = "".join(page.text)
    assert "<script>alert(1)</script> </td></tr> \\x00 \\x1b[31mred\\x1b[0m & \"q\" 'a' \\u202e" in text
    assert "cases/<b>broken</b>.yaml" in text


def test_the_page_loads_nothing(hostile_page: str) -> None:
    """The CSP forbids everything but inline style; no http(s) reference anywhere."""
    page = _parse(hostile_page)
    assert ("meta", {"http-equiv": "Content-Security-Policy", "content": CSP}) in page.tags
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'"
    assert "http://" not in hostile_page and "https://" not in hostile_page
    assert "url(" not in hostile_page and "@import" not in hostile_page


def test_the_page_shows_the_verdict_and_each_case_that_did_not_pass(
    hostile_page: str, hostile_report: dict[str, Any], corpus_cases: dict[str, Case], spec: Spec
) -> None:
    """The headline is the report's verdict; every case that did not pass has its heading,
    with its file, its rules' summaries and CR numbers; skipped cases are listed apart."""
    page = _parse(hostile_page)
    assert "".join(page.h1) == hostile_report["verdict"]["text"]
    not_passed = [r["case"] for r in hostile_report["results"] if r["status"] not in ("passed", "skipped")]
    assert len(not_passed) == 4
    assert set(not_passed) <= set(page.h3)
    text = "".join(page.text)
    failed = next(r for r in hostile_report["results"] if r["status"] == "failed")
    case = corpus_cases[failed["case"]]
    assert case.path.relative_to(suite.ROOT).as_posix() in text
    assert spec.rule(case.rules[0]).summary in text
    assert ", ".join(case.cr) in text
    assert "TypeError: x" in text
    skipped = next(r["case"] for r in hostile_report["results"] if r["status"] == "skipped")
    assert skipped in text and skipped not in page.h3


_CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not on PATH (Debian: apt-get install chromium)")
def test_chromium_renders_the_page(
    hostile_page: str, hostile_report: dict[str, Any], tmp_path: Path
) -> None:
    """Headless Chromium loads the page: its DOM holds the verdict and a failing case, and no
    script element came of the hostile text."""
    path = tmp_path / "report.html"
    path.write_text(hostile_page, encoding="utf-8")
    proc = subprocess.run(
        [str(_CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = _parse(proc.stdout)
    assert "".join(dom.h1) == hostile_report["verdict"]["text"]
    failed = next(r["case"] for r in hostile_report["results"] if r["status"] == "failed")
    assert failed in dom.h3
    assert "script" not in {tag for tag, _ in dom.tags}


def test_certificate_schema_is_one_of_the_suites_schemas() -> None:
    """The schema is loaded with the others (its $refs into report.schema.json resolve)."""
    assert "certificate" in schemas.NAMES
    assert (ROOT / "schema" / "certificate.schema.json").is_file()
    assert not schemas.is_valid("certificate", {"format": "cardid-certificate/1"})
    document = json.loads((ROOT / "schema" / "certificate.schema.json").read_text(encoding="utf-8"))
    rule_status = document["properties"]["rules"]["items"]["properties"]["status"]["enum"]
    assert tuple(rule_status) == RULE_STATUSES
