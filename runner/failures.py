"""Keeping what reproduces each failure: the request sent, the answer expected, the raw output,
the diff, a rerun line, and which case it was (for `cardid new --from-failure`)."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cardid_conformance import escape, files
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected
from cardid_conformance.cases import Case, ReaderExpectation, Rejection, WriterExpectation
from cardid_conformance.console import failure_lines
from cardid_conformance.outcome import Errored, ExpectedFailure, Failed, Outcome
from cardid_runner.writing import OutputError, write_atomically


def save_failures(
    folder: Path,
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    answers: Mapping[str, Answer],
    rerun: Mapping[str, str],
) -> list[str]:
    """Write `folder/<case>/` per failure: case.json (the case's ID, file and metadata),
    request.json (the request sent), expected.json (the answer expected, `expected_answer`),
    output (and output.pretty.json), stderr.txt, failure.txt and rerun.sh.

    Every file is written as reports are (runner/writing.py), and a case's folder is never a
    symlink: nothing planted in `folder` redirects a write. A case whose files cannot be
    written does not stop the others: the problems are returned, one message per case.
    """
    failures = [o for o in outcomes if isinstance(o, Failed | Errored | ExpectedFailure)]
    if not failures:
        return []
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # the folder itself: one message, not one per case
        return [f"cannot write --save-failures {folder}: {files.describe(exc)}"]
    problems = []
    for outcome in failures:
        case = cases[outcome.case_id]
        try:
            _save(folder / case.id, case, outcome, answers.get(case.id), rerun.get(case.id))
        except OutputError as exc:
            problems.append(exc.message)
        except OSError as exc:
            problems.append(f"cannot write --save-failures {folder / case.id}: {files.describe(exc)}")
    return problems


def _save(target: Path, case: Case, outcome: Outcome, answer: Answer | None, rerun: str | None) -> None:
    if target.is_symlink():
        raise OutputError(f"cannot write --save-failures {target}: it is a symlink, which is never followed")
    target.mkdir(parents=True, exist_ok=True)

    def write(name: str, data: bytes) -> None:
        write_atomically(target / name, data, what="--save-failures")

    write("case.json", _json(case_record(case)))
    write("request.json", case.request_bytes() + b"\n")
    write("expected.json", _json(expected_answer(case)))
    if isinstance(answer, Answered):
        write("output", _raw(answer))
    elif isinstance(answer, Crashed):
        write("output", answer.output)
    if isinstance(answer, Answered | Crashed | Rejected):
        write("stderr.txt", answer.stderr.encode("utf-8", errors="backslashreplace"))
    lines = failure_lines(outcome, rerun)
    write("failure.txt", ("\n".join(lines) + "\n").encode())
    script = (
        "#!/bin/sh\n# Rerun just this case against the same implementation, from the folder the\n"
        f"# run started in (the implementation's command is run from there).\ncd {shlex.quote(os.getcwd())}"
        f" || exit 2\n{rerun or ''}\n"
    )
    write("rerun.sh", script.encode("utf-8", errors="backslashreplace"))
    if isinstance(answer, Answered):
        try:
            pretty = json.dumps(json.loads(_raw(answer)), indent=2, ensure_ascii=False)
        except (ValueError, RecursionError):
            return  # not JSON (or nested beyond reading): the raw output is all there is
        write("output.pretty.json", escape.json_document(pretty + "\n").encode())


def _raw(answer: Answered) -> bytes:
    """The answer as bytes; a decoded one holding a lone surrogate, written as its escape."""
    try:
        return answer.raw()
    except UnicodeEncodeError:
        return escape.json_document(json.dumps(answer.result, ensure_ascii=False)).encode()


def _json(data: Any) -> bytes:
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    return (escape.json_document(text) + "\n").encode()


def case_record(case: Case) -> dict[str, Any]:
    """case.json: which case failed, and the metadata a case drafted from it copies."""
    return {
        "id": case.id,
        "file": str(case.path),
        "description": case.description,
        "role": case.role.value,
        "level": case.level.name,
        "rules": list(case.rules),
        "cr": list(case.cr),
        "tags": list(case.tags),
    }


def expected_answer(case: Case) -> dict[str, Any]:
    """expected.json: the answer the case expects, in the shape of an answer (the role's result
    schema), so that it reads side by side with output.pretty.json. Instance IDs are the
    case's labels, which the comparison matches up to renaming; a writer's source IDs are the
    ones allowed. A request that must be rejected: `{"rejected": true}`."""
    match case.expectation:
        case Rejection():
            return {"rejected": True}
        case WriterExpectation(labels=labels, instances=instances):
            return {
                "card_table": [entry.to_dict() for entry in instances.values()],
                "assignments": list(labels),
            }
        case ReaderExpectation(card_table=table):
            return {"card_table": [entry.to_dict(with_revealed_at=False) for entry in table]}
