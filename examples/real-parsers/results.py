"""Regenerate the tables of docs/real-parsers.md: what each log format can express, and how the
real Arena parsers do on the cases Arena can express.

    python examples/real-parsers/results.py            # rewrite docs/real-parsers.md
    python examples/real-parsers/results.py --check    # exit 1 if the formats table is stale

The parsers' table needs them installed (`tox -e real-parsers` installs them and runs this);
without them, that table is left as it is and the script says so. The formats table needs
nothing but the suite.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cardid_conformance import suite
from cardid_conformance.cases import Case, Rejection, case_files, load_corpus
from cardid_conformance.causes import root_causes
from cardid_conformance.report import outcomes_from_json
from cardid_conformance.rulereport import family_matrix
from cardid_conformance.sources.arena_render import render
from cardid_conformance.sources.common import Inexpressible
from cardid_conformance.sources.profile import RENDERERS
from cardid_conformance.spec import Spec, load_spec
from cardid_conformance.verdict import SOURCE_NAMES

HERE = Path(__file__).resolve().parent
DOC = suite.ROOT / "docs" / "real-parsers.md"
FORMATS_START, FORMATS_END = "<!-- formats: generated", "<!-- formats end -->"
RESULTS_START, RESULTS_END = "<!-- results: generated", "<!-- results end -->"
_ZONE = re.compile(r"\b(?:library|hand|graveyard):[A-Za-z0-9_.-]+|(?<!the )\b(?:battlefield|stack|exile|command)\b")

#: The real parsers: the script that prints each one's objects, where its code decides object
#: identity, and, for each root cause its failures group into, the code that causes it (read
#: in the installed package, at the version pinned in requirements*.txt).
PARSERS: Mapping[str, Mapping[str, Any]] = {
    "seventeenlands_objects.py": {
        "package": "seventeenlands", "licence": "GPL-3.0",
        "identity": "`objects_by_owner[ownerSeatId][instanceId] = overlayGrpId` "
                    "(`seventeenlands/mtga_follower.py`, lines 275 and 773-783)",
        "causes": {
            "ID split at a move linking a new handle": "no annotation is ever read "
            "(`mtga_follower.py` has no code for `annotations`), so `ObjectIdChanged` never joins "
            "an old instanceId to its new one",
            "a token recorded as a card": "only `GameObjectType_Card` and `GameObjectType_SplitCard` "
            "objects are kept (lines 774-778): a token is never recorded",
            "a copy recorded as a card": "the record is `instanceId -> overlayGrpId` only (line 782): "
            "no copy marker is kept",
        },
    },
    "inthearena_objects.py": {
        "package": "inthearena", "licence": "MIT",
        "identity": "`GameView.objects[instanceId]` (`inthearena/mtga/gre.py`, lines 266-300), "
                    "removed when `diffDeletedInstanceIds` names the id",
        "causes": {
            "ID split at a move linking a new handle": "the model keeps no annotations (no code in "
            "`inthearena/` reads `annotations` or `ObjectIdChanged`), so an old instanceId and its "
            "new one stay two objects",
        },
    },
    "arenamcp_objects.py": {
        "package": "arenamcp", "licence": "MIT",
        "identity": "`GameState.game_objects[instanceId]` (`arenamcp/gamestate.py`, lines 255 and 2530)",
        "causes": {
            "ID split at a move linking a new handle": "`ObjectIdChanged` only adds "
            "`orig_instance_id` to a zone-transfer event (`arenamcp/gamestate_annotations.py`, lines "
            "139-164 and 803-810); the two `game_objects` records are never joined",
            "a copy recorded as a card": "a copy is marked only by an `AnnotationType_CopiedObject` "
            "annotation (`gamestate_annotations.py`, lines 704-711), never by the object's `isCopy`; "
            "the suite's renderer writes that annotation only when the case names the original (an "
            "assumed shape: no recording holds a copy)",
        },
    },
}


def reason_key(why: str) -> str:
    """A reason with its zones taken out, up to its first `;`: the words reasons group by."""
    return _ZONE.sub("a zone", why).split(";")[0].strip()


def formats_table(cases: list[Case]) -> str:
    """Per format: the answered writer cases it can express, and why not the others."""
    answered = [c for c in cases if c.role == "writer" and not isinstance(c.expectation, Rejection)]
    lines = [
        f"{FORMATS_START} by `python examples/real-parsers/results.py`; do not edit by hand -->",
        "",
        f"| format | writer cases applicable (of {len(answered)} answered) | why the others are not "
        "(cases) |",
        "|---|---|---|",
    ]
    for name, renderer in RENDERERS.items():
        reasons: Counter[str] = Counter()
        for case in answered:
            try:
                renderer(case.request)
            except Inexpressible as error:
                reasons[reason_key(error.why)] += 1
        shown = "; ".join(f"{why} ({count})" for why, count in sorted(reasons.items(), key=lambda r: (-r[1], r[0])))
        lines.append(f"| {SOURCE_NAMES[name]} | {len(answered) - sum(reasons.values())} | {shown} |")
    return "\n".join([*lines, "", FORMATS_END])


def _cardid(python: str) -> list[str]:
    return [python, "-m", "cardid_runner"]


def parser_version(python: str, script: Path, cases: list[Case]) -> dict[str, Any]:
    """The parser's name and version, as its script prints them on one rendered case."""
    case = next(c for c in cases if c.id == "alchemy-name-keeps-prefix")
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "Player.log"
        log.write_text(render(case.request).log, encoding="utf-8")
        done = subprocess.run([python, str(script), str(log)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} failed: {done.stderr.strip()[-500:]}")
    return dict(json.loads(done.stdout).get("parser", {}))


def run_parser(python: str, script: Path, jobs: int) -> dict[str, Any]:
    """The JSON report of `cardid run --source arena` through the harness for one parser."""
    parser = shlex.join([python, str(script)])
    impl = shlex.join([*_cardid(python), "adapter", "arena", "--parser", parser])
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            [*_cardid(python), "run", "--source", "arena", "--impl", impl, "--role", "writer",
             "--jobs", str(jobs), "--timeout-multiplier", "6", "--report-json", str(report)],
            capture_output=True, check=False,
        )
        return dict(json.loads(report.read_text(encoding="utf-8")))


def results_table(
    reports: Mapping[str, tuple[dict[str, Any], dict[str, Any]]], cases: list[Case], spec: Spec
) -> str:
    lines = [f"{RESULTS_START} by `python examples/real-parsers/results.py`; do not edit by hand -->", ""]
    lines += [
        "| parser | version | licence | passed | failed | errored | not applicable |",
        "|---|---|---|---|---|---|---|",
    ]
    for script, (version, report) in reports.items():
        counts = report["summary"]
        facts = PARSERS[script]
        lines.append(
            f"| {facts['package']} | {version.get('version', '?')} | {facts['licence']} | {counts['passed']} "
            f"| {counts['failed']} | {counts['errored']} | {counts['not_applicable']} |"
        )
    for script, (version, report) in reports.items():
        facts = PARSERS[script]
        lines += ["", f"### {facts['package']} {version.get('version', '')}", ""]
        lines.append(f"Objects are kept in {facts['identity']}.")
        lines += ["", f"Verdict: {report['verdict']['text']}", ""]
        lines += ["| family | passed | failed (MUST) | errored | not applicable |", "|---|---|---|---|---|"]
        outcomes = list(outcomes_from_json(report).values())  # read back: no known failure to leave out
        for family, row in family_matrix(outcomes, {case.id: case for case in cases}, spec).items():
            if any(row.values()):
                lines.append(f"| {family} | {row['passed']} | {row['failed']} | {row['errored']} "
                             f"| {row['not-applicable']} |")
        causes = root_causes(outcomes)
        if causes:
            lines += ["", "Failures by root cause (each case's first difference), and the code that causes it:", ""]
            for cause in causes:
                why = facts["causes"].get(cause.cause, "not yet traced to the parser's code")
                lines.append(f"- {cause.text()}: {why}.")
    return "\n".join([*lines, "", RESULTS_END])


def replace_block(text: str, start: str, end: str, block: str) -> str:
    first = text.index(start)
    last = text.index(end) + len(end)
    return text[:first] + block + text[last:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if the formats table is stale")
    parser.add_argument("--python", default=sys.executable, help="the Python the parsers are installed in")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    spec = load_spec()
    cases = list(load_corpus(case_files(suite.CASES_DIR), spec).cases)
    text = DOC.read_text(encoding="utf-8")
    updated = replace_block(text, FORMATS_START, FORMATS_END, formats_table(cases))
    if args.check:
        if updated != text:
            print(f"{DOC} is stale: run python examples/real-parsers/results.py", file=sys.stderr)
            return 1
        return 0
    reports = {}
    for script in PARSERS:
        try:
            version = parser_version(args.python, HERE / script, cases)
        except (RuntimeError, ValueError) as exc:
            print(f"{script}: not run ({exc}); its results are left as they are", file=sys.stderr)
            reports = {}
            break
        print(f"running {script} ({version}) ...", file=sys.stderr)
        reports[script] = (version, run_parser(args.python, HERE / script, args.jobs))
    if reports:
        updated = replace_block(updated, RESULTS_START, RESULTS_END, results_table(reports, cases, spec))
    DOC.write_text(updated, encoding="utf-8")
    print(f"wrote {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
