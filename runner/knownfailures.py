"""`cardid known-failures REPORT.json`: a known-failure file started from a run report.

For a parser that adopts the suite with bugs it already knows of: every case the report
failed or errored (or listed as a known failure) becomes one entry of a known-failure file
(schema/expect.schema.json), with a placeholder reason to replace and an expiry date, so that
`cardid run --expect FILE` passes on those failures and fails on any new one.
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cardid_conformance import caseyaml, schemas, yamlfile
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import PLACEHOLDER_REASON, load_known_failures
from cardid_runner import options, writing
from cardid_runner.resume import read_report
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import show_line
from cardid_runner.writing import OutputError, write_atomically

#: Days from today an entry expires, unless --expires says otherwise.
DEFAULT_DAYS = 90
#: The statuses of a report an entry is written for: every failure, known or not.
FAILING = ("failed", "errored", "expected-failure")
DEFAULT_PATH = Path("known-failures.yaml")

_EPILOG = f"""\
examples:
  cardid run --impl ./my-adapter --report-json report.json
  cardid known-failures report.json --out known-failures.yaml --expires 2027-03-31
  cardid run --impl ./my-adapter --expect known-failures.yaml

exit status: 0 written, 1 the report has no failure to list (nothing written), 2 usage
error (an unreadable or invalid report, a bad date, a file already at --out), 3 the
suite's own files are broken

Each entry's reason is "{PLACEHOLDER_REASON}" until someone writes the real one.
"""


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid known-failures`: its parser."""
    parser = options.add_command(
        commands,
        "known-failures",
        help="start a known-failure file from a run report's failures",
        description=(
            "Write a known-failure file (schema/expect.schema.json, for `cardid run "
            "--expect`) listing every case the report (from `cardid run --report-json`) failed, "
            "errored or listed as a known failure, each with a placeholder reason to replace and "
            "an expiry date. A rerun with --expect FILE then passes on exactly those failures. "
            "An existing file is never replaced."
        ),
        epilog=_EPILOG,
    )
    parser.add_argument("report", metavar="REPORT.json", type=options.input_file,
                        help="a report written by `cardid run --report-json`")
    parser.add_argument("--out", type=options.output_file, default=DEFAULT_PATH, metavar="PATH",
                        help=f"the file to write (default: {DEFAULT_PATH}); never replaced")
    parser.add_argument("--expires", type=expiry, metavar="YYYY-MM-DD",
                        help=f"when the entries expire (default: {DEFAULT_DAYS} days from today)")
    return parser


def _perform(args: argparse.Namespace, context: Context) -> int:
    return start_file(args.report, out=args.out, expires=args.expires)


COMMAND = Command("known-failures", _declare, _perform)


def expiry(text: str) -> datetime.date:
    """An argparse type: a real date, YYYY-MM-DD, not before today."""
    try:
        if len(text) != 10:
            raise ValueError
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a date as YYYY-MM-DD, such as 2027-03-31, not {text!r}") from None
    if day < datetime.date.today():
        raise argparse.ArgumentTypeError(
            f"takes a date from today on: {text} is past, and an expired entry fails the run"
        )
    return day


def start_file(
    report_path: Path, *, out: Path, expires: datetime.date | None, today: datetime.date | None = None
) -> int:
    """Write the known-failure file `out` from the run report at `report_path`, its entries
    expiring on `expires` (else DEFAULT_DAYS from today); print how many entries, and what to
    do next."""
    if writing.streams(out):
        raise UsageError(
            f"--out takes a file: {out} is a stream, and the known-failure file is kept to be read",
            hint="pass --out PATH for a file, such as known-failures.yaml",
        )
    if out.exists() or out.is_symlink():
        raise UsageError(
            f"{out} already exists: a known-failure file is never replaced",
            hint="pass another --out PATH, or edit the existing file",
        )
    report = read_report(
        report_path,
        what="the run report",
        hint="give the file `cardid run --report-json PATH` wrote",
    )
    expires = expires or (today or datetime.date.today()) + datetime.timedelta(days=DEFAULT_DAYS)
    failing = [result for result in report["results"] if result["status"] in FAILING]
    if not failing:
        show_line(f"{report_path} has no failed or errored case: no known-failure file is needed (nothing written)")
        return 1
    implementation = report["implementation"]
    data = known_failures(implementation, failing, expires)
    problem = schemas.first_problem("expect", data)
    if problem is not None:  # a report names its cases by ID, which the file takes as they are
        raise UsageError(f"{report_path}: {problem.where()}: {problem.message}: cannot be a known-failure entry")
    comments = _comments(report_path, report, expires)
    try:
        text = caseyaml.render_verified(data, comments=comments, path=out, block_items=True)
    except caseyaml.RenderError as exc:  # the schema allows nothing that could not be written
        raise UsageError(str(exc)) from None
    encoded = text.encode("utf-8")
    if len(encoded) > yamlfile.MAX_BYTES:  # --expect would refuse it: write nothing
        show_line(
            f"{len(failing):,} failures make a known-failure file of {len(encoded):,} bytes, over the "
            f"{yamlfile.MAX_BYTES:,} bytes --expect reads (nothing written): fix the failures that "
            "share a cause first (cardid run groups them by rule), or list a selection "
            "(cardid run --rule ... --report-json)"
        )
        return 1
    try:
        write_atomically(out, encoded, what="--out")
    except OutputError as exc:
        raise UsageError(exc.message) from None
    load_known_failures(out)  # what was written is what --expect reads
    show_line(
        f"wrote {out}: {len(failing)} known failure(s) of {data['implementation']}, expiring on "
        f"{expires.isoformat()}"
    )
    show_line(f'  replace each reason "{PLACEHOLDER_REASON}" with why the case fails (and an issue link), then')
    show_line(f"  cardid run --impl ... --expect {out}")
    return 0


def known_failures(
    implementation: Mapping[str, Any], failing: Sequence[Mapping[str, Any]], expires: datetime.date
) -> dict[str, Any]:
    """The known-failure file's data: one entry per failing result, in the report's order."""
    name = implementation.get("name") or implementation["command"]
    return {
        "implementation": str(name),
        "known_failures": [
            {"case": result["case"], "reason": PLACEHOLDER_REASON, "expires": expires.isoformat()} for result in failing
        ],
    }


def _comments(path: Path, report: Mapping[str, Any], expires: datetime.date) -> list[str]:
    implementation = report["implementation"]
    who = " ".join(str(implementation[key]) for key in ("name", "version") if implementation.get(key))
    text = [
        f"Known failures of {who or implementation['command']} (command: {implementation['command']}), "
        f"started by `cardid known-failures` from {path}.",
        "Replace each placeholder reason with why the case fails, and link an issue (issue: https://...).",
        f"Every entry expires on {expires.isoformat()}: after that day it fails the run, as does an entry "
        "whose case passes (remove it then). Use it with: cardid run --impl ... --expect THIS-FILE",
    ]
    if report.get("interrupted"):
        text.append("The report is of an interrupted run: cases it did not finish are not listed.")
    return [line for paragraph in text for line in caseyaml.comment(paragraph)]
