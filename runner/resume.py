"""Resuming an interrupted run: which results of the earlier report still hold.

The report is read as strictly as it was written: regular file, UTF-8, JSON without NaN,
Infinity or duplicate keys, valid for schema/report.schema.json, of the same implementation
command and spec version. A result is kept only while its case is the case that was run: the
report records each case's digest (`Case.digest`), and a case edited since runs again. Anything
wrong with the report is a UsageError naming it, never a traceback.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import report, schemas, strictjson
from cardid_conformance.cases import Case
from cardid_conformance.errors import UsageError
from cardid_conformance.outcome import Outcome
from cardid_conformance.spec import Spec

#: A report of 100,000 cases is some 50 MB.
MAX_BYTES = 512 * 1024 * 1024
_HINT = "resume from the --report-json of an interrupted `cardid run`, or run without --resume"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resumed:
    """The results kept, by case ID, and the cases whose file changed since (run again)."""

    outcomes: Mapping[str, Outcome]
    changed: tuple[str, ...]


def read_report(path: Path, *, what: str = "the report to resume from (--resume)", hint: str = _HINT) -> dict[str, Any]:
    """The report at `path`, checked: strict JSON and valid for the report schema. Every
    problem is a UsageError: "cannot read {what} {path}: ...", with `hint`."""

    def refuse(problem: str) -> UsageError:
        return UsageError(f"cannot read {what} {path}: {problem}", hint=hint)

    try:
        data = strictjson.read_file(path, MAX_BYTES)
    except strictjson.Unreadable as exc:
        nested = exc.problem == "nested too deeply"
        raise refuse("not a run report: nested too deeply" if nested else exc.problem) from None
    try:
        problem = schemas.first_problem("report", data)
    except RecursionError:
        raise refuse("not a run report: nested too deeply") from None
    if problem is not None:
        raise refuse(f"not a run report (schema/report.schema.json): {problem.where()}: {problem.message}")
    listed: set[str] = set()
    for result in data["results"]:
        if result["case"] in listed:
            raise refuse(f"not a run report: case {result['case']} has two results")
        listed.add(result["case"])
    return data  # type: ignore[no-any-return]


def resume(path: Path, command: str, spec: Spec, cases: Collection[Case]) -> Resumed:
    """The finished outcomes of an earlier run of `command` against this spec version that
    still hold for `cases`; a case whose digest differs from the report's is left to run."""
    data = read_report(path)
    if data["implementation"]["command"] != command:
        raise UsageError(
            f"{path} is a run of {data['implementation']['command']!r}, not of {command!r}",
            hint="resume with the same --impl",
        )
    if data["suite"]["spec_version"] != spec.version:
        raise UsageError(f"{path} was run against spec {data['suite']['spec_version']}, not {spec.version}")
    digests = {
        result["case"]: result["case_sha256"] for result in data["results"] if "case_sha256" in result
    }
    finished = report.outcomes_from_json(data)
    kept: dict[str, Outcome] = {}
    changed = []
    for case in cases:
        if case.id not in finished:
            continue
        if digests.get(case.id) == case.digest():
            kept[case.id] = finished[case.id]
        else:
            changed.append(case.id)
    return Resumed(outcomes=kept, changed=tuple(changed))
