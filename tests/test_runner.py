"""The runner against fake implementations: renamings pass, merges and splits fail where they
diverge, every mode gives the same results, crashes are classified, reports are well formed."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import schemas
from cardid_conformance.cases import Case, WriterExpectation, case_files, load_corpus
from cardid_conformance.spec import load_spec
from cardid_runner.cli import Exit, main

from tests.conftest import ROOT
from tests.processes import fake

#: A behaviour -> the exit code, the report and the folder of its run (the `full_run` fixture).
FullRun = Callable[[str], tuple[int, dict[str, Any], Path]]



def run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """Run `cardid run` with a JSON report; return the exit code and the report."""
    report = tmp_path / "report.json"
    code = main(["run", "--report-json", str(report), *args])
    return code, json.loads(report.read_text(encoding="utf-8"))


def statuses(report: dict[str, Any]) -> dict[str, str]:
    """Case ID -> status."""
    return {result["case"]: result["status"] for result in report["results"]}


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> FullRun:
    """`cardid run` of the whole corpus against a fake, once per behaviour in this module, with
    every output (--report-json, --junit, --markdown): the exit code, the report and the folder."""
    done: dict[str, tuple[int, dict[str, Any], Path]] = {}

    def get(behaviour: str) -> tuple[int, dict[str, Any], Path]:
        if behaviour not in done:
            folder = tmp_path_factory.mktemp(behaviour)
            code, report = run(folder, "--impl", fake(behaviour), "--junit", str(folder / "junit.xml"),
                               "--markdown", str(folder / "summary.md"))
            done[behaviour] = code, report, folder
        return done[behaviour]

    return get


@pytest.fixture(scope="module")
def reference_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The report of the corpus against the bundled reference."""
    code, report = run(tmp_path_factory.mktemp("ref"))
    assert code == Exit.OK
    return report


@cache
def corpus() -> tuple[Case, ...]:
    """The corpus's cases, loaded once for the expectations the tests below compute."""
    return load_corpus(case_files(ROOT / "cases"), load_spec()).cases


def test_reference_passes_every_case_and_the_report_validates(reference_report: dict[str, Any]) -> None:
    """The reference conforms, with at least 25 cases, and the report fits its schema."""
    summary = reference_report["summary"]
    assert summary["total"] >= 25
    assert summary["passed"] == summary["total"]
    assert reference_report["verdict"]["conforming"] is True
    assert reference_report["implementation"]["mode"] == "persistent"
    assert schemas.first_problem("report", reference_report) is None


def test_consistent_renaming_passes_exactly_what_the_reference_passes(
    tmp_path: Path, reference_report: dict[str, Any]
) -> None:
    """An implementation renaming every ID of the reference's answers gets the same statuses."""
    code, report = run(tmp_path, "--impl", fake("rename"))
    assert code == Exit.OK
    assert statuses(report) == statuses(reference_report)


def _merge_divergence(labels: tuple[str | None, ...]) -> tuple[int, str, str] | None:
    """Where `fake merge` (the last two instances, by first appearance, share one ID) must be
    caught: at the later one's first observation, as `reused` when the earlier one was last
    seen before it, else `merged`; None when the case has fewer than two instances."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for index, label in enumerate(labels):
        if label is not None:
            first.setdefault(label, index)
            last[label] = index
    if len(first) < 2:
        return None
    earlier, later = sorted(first, key=first.__getitem__)[-2:]
    kind = "reused" if last[earlier] < first[later] else "merged"
    return first[later], kind, later


def _split_divergence(labels: tuple[str | None, ...]) -> tuple[int, str, str] | None:
    """Where `fake split` (the last observation of a repeated instance gets a new ID) must be
    caught: at that observation, as `split`; None when no instance is seen twice."""
    repeated = [i for i, label in enumerate(labels) if label is not None and labels.count(label) > 1]
    return (repeated[-1], "split", labels[repeated[-1]]) if repeated else None  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("behaviour", "divergence"), [("merge", _merge_divergence), ("split", _split_divergence)]
)
def test_merge_and_split_fail_naming_the_observation(
    full_run: FullRun, behaviour: str, divergence: Any
) -> None:
    """Merging two instances, or splitting one, fails exactly the writer cases that have two
    instances (or a repeated one), each with a first difference naming the observation where
    the IDs diverged and how (`merged`, `reused` or `split`), and the instance."""
    code, report, _ = full_run(behaviour)
    assert code == Exit.FAILED
    expected = {
        case.id: where
        for case in corpus()
        if isinstance(case.expectation, WriterExpectation)
        and (where := divergence(case.expectation.labels)) is not None
    }
    assert expected, "the corpus has cases this fault breaks"
    failed = {r["case"]: r for r in report["results"] if r["status"] == "failed"}
    assert set(failed) == set(expected)
    assert {r["status"] for r in report["results"] if r["case"] not in failed} == {"passed"}
    for case_id, (index, kind, label) in expected.items():
        first = failed[case_id]["differences"][0]
        assert first["observation"] == index, case_id
        assert first["message"].startswith(f"observation #{index} ("), case_id
        assert f"): {kind}: " in first["message"] and repr(label) in first["message"], case_id


def test_renew_every_move_mutant_fails_with_rule_and_observation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The alternative decision 0002 rejects (a new ID on every move) fails, citing ID-3 at a move."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    code, report = run(tmp_path, "--impl", f"{sys.executable} -m cardid_reference.mutants renew-every-move")
    assert code == Exit.FAILED
    cases = {case.id: case for case in corpus()}
    splits = [
        (r["case"], d["observation"])
        for r in report["results"]
        for d in r.get("differences", [])
        if d["rule"] == "ID-3" and ": split: " in d["message"]
    ]
    assert splits, "no case fails citing ID-3"
    for case_id, index in splits:
        assert cases[case_id].observations[index]["type"] == "move", (case_id, index)


@pytest.mark.parametrize("behaviour", ["merge"])
def test_modes_and_parallelism_give_identical_results(tmp_path: Path, behaviour: str) -> None:
    """Persistent mode, --isolate and -j 2 give the same status and first difference per case."""

    def digest(report: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [(r["case"], r["status"], r.get("message", "")) for r in report["results"]]

    # The ID-3 cases (11 of the corpus, failing and passing ones) in each mode; --isolate with
    # -j 2 too, as its eleven processes need not start one after another.
    _, persistent = run(tmp_path, "--impl", fake(behaviour), "--rule", "ID-3")
    _, isolated = run(tmp_path, "--impl", fake(behaviour), "--rule", "ID-3", "--isolate", "-j", "2")
    _, parallel = run(tmp_path, "--impl", fake(behaviour), "--rule", "ID-3", "-j", "2")
    assert isolated["implementation"]["mode"] == "per-case"
    assert {"passed", "failed"} <= {r["status"] for r in persistent["results"]}
    assert digest(persistent) == digest(isolated) == digest(parallel)


def test_implementation_without_persistent_mode_falls_back(tmp_path: Path) -> None:
    """An implementation that refuses the handshake is run one process per case, and passes."""
    # -j 2: its seven processes need not start one after another.
    code, report = run(tmp_path, "--impl", fake("per-case-only"), "--case", "reader-accepts-*",
                       "-j", "2")
    assert code == Exit.OK
    assert report["implementation"]["mode"] == "per-case"
    assert report["implementation"]["fallback_reason"]  # why, as the console's note says
    assert report["summary"]["passed"] == report["summary"]["total"] >= 5


def test_unsupported_role_is_skipped_not_failed(tmp_path: Path) -> None:
    """A writer-only implementation has its reader cases skipped and still conforms."""
    code, report = run(tmp_path, "--impl", fake("writer-only"))
    assert code == Exit.OK
    reader = [r for r in report["results"] if r["role"] == "reader"]
    assert reader and all(r["status"] == "skipped" for r in reader)


def test_crash_after_earlier_cases_is_told_apart_from_a_real_crash(tmp_path: Path) -> None:
    """A crash that a fresh process does not repeat is reported as state left by earlier cases."""
    _, leaky = run(tmp_path, "--impl", fake("leaky", "3"), "--case", "reader-accepts-*")
    _, crashing = run(tmp_path, "--impl", fake("crash-always"), "--role", "reader", "--case", "reader-unknown-name")
    leaked = [r for r in leaky["results"] if r["status"] == "errored"]
    assert leaked and all("only after earlier cases" in r["message"] for r in leaked)
    assert [r["status"] for r in leaky["results"]].count("passed") > len(leaked)
    [crash] = crashing["results"]
    assert crash["status"] == "errored"
    assert "crashes in a fresh process too" in crash["message"]


def test_stderr_noise_is_not_a_failure(tmp_path: Path) -> None:
    """Diagnostics on stderr never fail a case."""
    code, report = run(tmp_path, "--impl", fake("stderr-noise"), "--role", "reader")
    assert code == Exit.OK
    assert set(statuses(report).values()) == {"passed"}


def test_junit_has_one_testcase_per_case_and_markdown_a_verdict(full_run: FullRun) -> None:
    """--junit writes parseable XML with one testcase per case run; --markdown a summary."""
    code, _, folder = full_run("merge")  # the run test_merge_and_split_... judges
    junit, markdown = folder / "junit.xml", folder / "summary.md"
    assert code == Exit.FAILED
    root = ET.parse(junit).getroot()
    cases = root.findall("testcase")
    assert len(cases) == int(root.get("tests", "0")) == len({c.get("name") for c in cases})
    assert len(root.findall("testcase/failure")) == int(root.get("failures", "-1")) > 0
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("## ❌ card-identity conformance")
    assert "NOT CONFORMING" in text


def test_failure_carries_a_rerun_command_and_saved_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each failure prints a one-line rerun command, and --save-failures keeps request and output."""
    saved = tmp_path / "failures"
    main(["run", "--impl", fake("split"), "--save-failures", str(saved), "--case", "flicker-keeps-id"])
    out = capsys.readouterr().out
    rerun = next(line.strip() for line in out.splitlines() if line.strip().startswith("rerun:"))
    assert rerun.endswith("--case flicker-keeps-id")
    folder = saved / "flicker-keeps-id"
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    assert request["role"] == "writer" and "expect" not in json.dumps(request)
    assert json.loads((folder / "output").read_text(encoding="utf-8"))["assignments"]
    assert "split" in (folder / "failure.txt").read_text(encoding="utf-8")


def test_selection_and_list_agree(capsys: pytest.CaptureFixture[str]) -> None:
    """`cardid list` prints exactly the cases a selection picks, in case-ID order."""
    cases = corpus()
    assert main(["list", "--rule", "LIB", "--role", "writer"]) == Exit.OK
    listed = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    picked = [c.id for c in cases if c.role == "writer" and any(r.startswith("LIB-") for r in c.rules)]
    assert picked and listed == sorted(picked)
    assert main(["list", "--cr", "701.24", "--case", "shuffle-*"]) == Exit.OK
    listed = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    picked = [
        c.id for c in cases
        if c.id.startswith("shuffle-") and any(n == "701.24" or n.startswith("701.24") for n in c.cr)
    ]
    assert picked and listed == sorted(picked)


def test_usage_errors_exit_2_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    """A command that cannot start, or a selection matching nothing, exits 2 without a traceback."""
    assert main(["run", "--impl", "/nonexistent/impl"]) == Exit.USAGE
    assert capsys.readouterr().err.startswith("error: cannot start implementation")
    assert main(["run", "--case", "no-such-case"]) == Exit.USAGE
    assert "hint:" in capsys.readouterr().err


def test_python_dash_m_runner_is_the_cli() -> None:
    """`python -m cardid_runner` behaves as `cardid`."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "cardid_runner", "list", "--case", "keep-through-public-zones"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("keep-through-public-zones\twriter\tMUST")


def test_a_run_of_other_cases_says_they_are_not_the_suites_corpus(tmp_path: Path) -> None:
    """`--cases DIR` of the user's own cases: the verdict says whose cases it speaks for; the
    suite's corpus, selected by --cases or not, says nothing of the kind."""
    mine = tmp_path / "mine" / "writer"
    mine.mkdir(parents=True)
    (mine / "flicker-keeps-id.yaml").write_bytes((ROOT / "cases" / "writer" / "flicker-keeps-id.yaml").read_bytes())
    code, report = run(tmp_path, "--cases", str(tmp_path / "mine"))
    assert code == Exit.OK
    assert report["verdict"]["text"].endswith(f"(cases from {tmp_path / 'mine'}, not the suite's corpus)")
    code, report = run(tmp_path, "--cases", str(ROOT / "cases"), "--case", "flicker-keeps-id")
    assert "not the suite's corpus" not in report["verdict"]["text"]


def test_the_bundled_reference_is_never_taken_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `cardid_reference` package or a `json.py` planted in the folder `cardid` runs in (by an
    implementation shrink ran, say) is not what the default run starts: -P keeps the working
    folder off the reference's module path."""
    planted = tmp_path / "cardid_reference"
    planted.mkdir()
    (planted / "__init__.py").write_text("", encoding="utf-8")
    (planted / "__main__.py").write_text("print('{\"card_table\": [], \"assignments\": []}')\n", encoding="utf-8")
    (tmp_path / "json.py").write_text("raise SystemExit('planted json')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, report = run(tmp_path, "--case", "flicker-keeps-id", "--case", "reader-unknown-name")
    assert code == Exit.OK, report["results"]
    assert {result["status"] for result in report["results"]} == {"passed"}


def test_an_implementation_gone_in_the_middle_of_a_run_errs_those_cases_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """Its program removed after the first case (a rebuild, a cleanup): the cases it can no
    longer start are errored, the run goes on, and the finished results are reported (the run
    ended with exit 2 and no report)."""
    script = tmp_path / "adapter.sh"
    script.write_text(
        f'#!/bin/sh\nout=$({sys.executable} -m cardid_reference)\nstatus=$?\nrm -f "$0"\n'
        'printf "%s\\n" "$out"\nexit $status\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    code, report = run(tmp_path, "--impl", str(script), "--isolate", "--case", "flicker-keeps-id",
                       "--case", "reader-unknown-name")
    assert code == Exit.FAILED
    assert statuses(report) == {"flicker-keeps-id": "passed", "reader-unknown-name": "errored"}
    errored = next(result for result in report["results"] if result["status"] == "errored")
    assert errored["message"].startswith("the implementation could not be started for this case: ")
