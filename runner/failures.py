"""Keeping what reproduces each failure: the request sent, the raw output, the diff, a rerun line."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.answer import Answer, Answered, Crashed, Rejected
from conformance.cases import Case
from conformance.console import failure_lines
from conformance.errors import UsageError
from conformance.outcome import Errored, ExpectedFailure, Failed, Outcome


def save_failures(
    folder: Path,
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    answers: Mapping[str, Answer],
    rerun: Mapping[str, str],
) -> None:
    """Write `folder/<case>/` with request.json, output, stderr.txt and failure.txt per failure."""
    for outcome in outcomes:
        if not isinstance(outcome, Failed | Errored | ExpectedFailure):
            continue
        case = cases[outcome.case_id]
        target = folder / case.id
        try:
            target.mkdir(parents=True, exist_ok=True)
            (target / "request.json").write_bytes(case.request_bytes() + b"\n")
            answer = answers.get(case.id)
            if isinstance(answer, Answered):
                (target / "output").write_bytes(answer.raw())
            elif isinstance(answer, Crashed):
                (target / "output").write_bytes(answer.output)
            if isinstance(answer, Answered | Crashed | Rejected):
                (target / "stderr.txt").write_text(answer.stderr, encoding="utf-8")
            lines = failure_lines(outcome, rerun.get(case.id))
            (target / "failure.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            (target / "rerun.sh").write_text(
                "#!/bin/sh\n# Rerun just this case against the same implementation.\n"
                f"{rerun.get(case.id, '')}\n",
                encoding="utf-8",
            )
            if isinstance(answer, Answered):
                try:
                    pretty = json.dumps(json.loads(answer.raw()), indent=2, ensure_ascii=False)
                    (target / "output.pretty.json").write_text(pretty + "\n", encoding="utf-8")
                except ValueError:
                    pass
        except OSError as exc:
            raise UsageError(f"cannot write failure files under {folder}: {exc.strerror}") from None
