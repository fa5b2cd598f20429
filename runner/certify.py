"""`cardid certify` and `cardid verify-certificate`: a certificate bundle, written and checked.

`certify` runs the whole corpus through the run machinery (runner/run.py `Run` and `perform`,
as `cardid run` does) and writes a bundle into a folder: report.json, report.html, badge.json,
summary.md and certificate.json (conformance/certificate.py says what each holds).
`verify-certificate` recomputes the hashes the certificate holds and says what differs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance import certificate, report, suite
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import load_known_failures
from cardid_conformance.files import describe, read_bounded
from cardid_conformance.spec import load_spec
from cardid_runner import options
from cardid_runner.process.stop import SIGNALS
from cardid_runner.progress import Progress
from cardid_runner.run import Run, perform
from cardid_runner.subcommand import Command, Context, Subcommands
from cardid_runner.terminal import Exit, say, show_result
from cardid_runner.writing import OutputError, write_atomically

_CERTIFY_HELP = """\
Run the whole case corpus (no selection: a certificate is for the whole suite) against an
implementation and write a certificate bundle into DIR:

  certificate.json  suite version and commit, a sha256 manifest of the spec, schemas and case
                    files used, the implementation's handshake, the environment, results per
                    rule and per case, the known failures used, the verdict, and the sha256 of
                    the other four files (schema/certificate.schema.json)
  report.json       the JSON report, as `cardid run --report-json` writes it
  report.html       one self-contained page: the verdict, a matrix of rule families against
                    results, and every case that did not pass (it loads nothing)
  badge.json        a shields.io endpoint badge
  summary.md        the Markdown summary, as `cardid run --markdown` writes it

DIR is created; one that exists must be empty, unless --force (which replaces the bundle's
files in it and leaves any other file alone). An interrupted run writes no bundle."""

_CERTIFY_EPILOG = """\
examples:
  cardid certify --impl "python -m myparser.cardid" --out cert/
  cardid certify --impl ./adapter --expect known-failures.yaml --out cert/ --force
  cardid verify-certificate cert/

exit codes:
  0  the run passes the gate `cardid run` uses (the bundle says which roles were certified)
  1  a MUST case failed or errored (not a listed known failure), no case was judged, the
     corpus has case bugs, or the known-failure file is wrong; the bundle is written all the same
  2  usage: bad option, DIR not empty, an implementation that cannot start, or a bundle file
     that could not be written
  3  the suite's own files are broken
  128+N  interrupted by signal N (no bundle written)"""

_VERIFY_HELP = """\
Check a bundle `cardid certify` wrote: recompute the sha256 of certificate.json (which stores
the hash of its own canonical JSON), of each other bundle file, and of this suite's spec,
schema and case files, and say, one line each, what matches and what does not (naming every
suite file that differs from those the bundle was made from).

This checks integrity against accidental or naive edits, not authenticity: there is no signing
key, and anyone who edits a bundle can recompute every hash in it. A bundle that verifies was
made from this suite's files and has not been changed by someone who did not also recompute
its hashes; it does not show who made it or that the run really happened."""

_VERIFY_EPILOG = """\
examples:
  cardid verify-certificate cert/
  CARDID_SUITE=/path/to/suite-checkout cardid verify-certificate cert/

exit codes:
  0  every file matches, and the bundle was made from this suite's files
  1  something differs: a bundle file edited or missing, certificate.json edited or not a
     certificate, or suite files that differ (each named)
  2  usage: DIR is not a folder, holds no certificate.json, or it cannot be read"""


def _declare_certify(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid certify`: its parser."""
    certify = options.add_command(
        commands, "certify", help="run the whole suite and write a certificate bundle",
        description=_CERTIFY_HELP, epilog=_CERTIFY_EPILOG, fill=False,
    )
    certify.add_argument("--out", required=True, type=options.output_dir, metavar="DIR",
                         help="the folder to write the bundle into (created; must be empty)")
    certify.add_argument("--force", action="store_true",
                         help="write into DIR even if it is not empty, replacing the bundle's files")
    options.add_implementation(certify)
    options.add_source(certify)
    options.add_known_failures(certify)
    options.add_jobs(certify)
    certify.add_argument("-q", "--quiet", action="store_true", help="no context lines under failures")
    options.add_generated(certify)
    return certify


def _declare_verify(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid verify-certificate`: its parser."""
    verify = options.add_command(
        commands, "verify-certificate", help="check that a certificate bundle is untouched and from this suite",
        description=_VERIFY_HELP, epilog=_VERIFY_EPILOG, fill=False,
    )
    verify.add_argument("dir", type=Path, metavar="DIR", help="the folder `cardid certify` wrote")
    return verify


def _perform_certify(args: argparse.Namespace, context: Context) -> int:
    return run_certify(CertifyOptions(
        out=args.out,
        force=args.force,
        impl=args.impl,
        isolate=args.isolate,
        multiplier=args.timeout_multiplier,
        jobs=args.jobs,
        source=args.source,
        known_failures=args.known_failures,
        quiet=args.quiet,
        generated=args.generated,
    ))


def _perform_verify(args: argparse.Namespace, context: Context) -> int:
    return run_verify(args.dir)


COMMANDS = (
    Command("certify", _declare_certify, _perform_certify),
    Command("verify-certificate", _declare_verify, _perform_verify),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CertifyOptions:
    """What `cardid certify` was asked."""

    #: The bundle's folder, and whether files in it may be replaced (--force).
    out: Path
    force: bool
    impl: str | None
    isolate: bool
    multiplier: float
    jobs: int
    source: str | None
    #: The known-failure file (--expect).
    known_failures: Path | None
    quiet: bool
    generated: int


def _check_out(out: Path, force: bool) -> None:
    """DIR is new or empty, or --force says its bundle files may be replaced."""
    if not out.exists() or force:
        return
    try:
        with os.scandir(out) as entries:
            full = next(iter(entries), None) is not None
    except OSError as exc:
        raise UsageError(f"cardid certify: --out {out}: {describe(exc)}") from None
    if full:
        raise UsageError(
            f"cardid certify: --out {out} is not empty",
            hint="give a new or empty folder, or add --force to replace the bundle files in it",
        )


def _environment() -> dict[str, str]:
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cardid": suite.version(),
        "created": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def run_certify(chosen: CertifyOptions) -> int:
    """`cardid certify`: run the whole corpus, print the result, write the bundle."""
    out = chosen.out
    _check_out(out, chosen.force)
    spec = load_spec()
    suite_manifest = certificate.manifest(suite.ROOT)
    corpus = load_corpus(case_files(suite.CASES_DIR), spec)
    known = load_known_failures(chosen.known_failures) if chosen.known_failures else None
    known_sha256 = None
    if known is not None:
        try:
            known_sha256 = certificate.sha256(read_bounded(known.path, 64 * 1024 * 1024))
        except OSError as exc:
            raise UsageError(f"cannot read known-failure file {known.path}: {describe(exc)}") from None
    the_run = Run(
        impl=chosen.impl,
        spec=spec,
        corpus=corpus,
        isolate=chosen.isolate,
        multiplier=chosen.multiplier,
        jobs=chosen.jobs,
        known_failures=known,
        source=chosen.source,
        generated=chosen.generated,
    )
    with SIGNALS:  # from the first case to the last file written
        progress = Progress(len(the_run.selected()))
        try:
            result = perform(the_run, progress=progress)
        finally:
            progress.close()
        if result.interrupted:
            say(
                f"interrupted: {result.finished} of {result.selected} cases finished; no "
                "certificate written (a certificate is for the whole suite)",
                sys.stderr,
            )
            return 128 + (SIGNALS.first or signal.SIGINT)
        # Shown as `cardid run` shows it; the exit code is its, unless the bundle is not written.
        code = show_result(the_run, result, quiet=chosen.quiet, report_json=None)
        cases_by_id = {case.id: case for case in corpus.cases}
        environment = _environment()
        roles = result.hello.roles if result.hello else None
        bundle = certificate.render_bundle(
            result.outcomes, cases_by_id, result.info, spec,
            suite_root=suite.ROOT, roles=roles, environment=environment,
        )
        sealed = certificate.build(
            result.outcomes,
            cases_by_id,
            result.info,
            spec,
            suite_manifest=suite_manifest,
            roles=roles,
            environment=environment,
            known_failures=known,
            known_failures_sha256=known_sha256,
            bundle_files=bundle,
        )
        problem = _write_bundle(out, bundle, report.to_json_text(sealed).encode())
    if problem is not None:
        say(f"error: {problem}", sys.stderr)
        say(f"certify: the bundle in {out} is incomplete and has no {certificate.CERTIFICATE}", sys.stderr)
        return Exit.USAGE
    say(f"bundle written to {out}/: {certificate.CERTIFICATE}, {', '.join(bundle)}")
    say(f"check it with: cardid verify-certificate {shlex.quote(str(out))}")
    return code


def _write_bundle(out: Path, bundle: dict[str, bytes], sealed: bytes) -> str | None:
    """Write the four files, then certificate.json (which holds their hashes); a stale
    certificate.json goes first, so that a bundle cut short never verifies. Returns what could
    not be written, or None."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        stale = out / certificate.CERTIFICATE
        if stale.is_symlink() or stale.exists():
            stale.unlink()
    except OSError as exc:
        return f"cannot write --out {out}: {describe(exc)}"
    try:
        for name, data in bundle.items():
            write_atomically(out / name, data, what=f"bundle file {name} in")
        write_atomically(out / certificate.CERTIFICATE, sealed, what="bundle file certificate.json in")
    except OutputError as exc:
        return exc.message
    return None


def run_verify(bundle: Path) -> int:
    """`cardid verify-certificate DIR`: one line per check, exit 0 only if all match."""
    checked = certificate.verify(bundle, suite.ROOT)
    made = checked.certificate
    if made is not None:
        impl = made["implementation"]
        who = " ".join(str(part) for part in (impl["name"] or impl["command"], impl["version"]) if part)
        suite_made = made["suite"]
        commit = f", commit {suite_made['commit']}" if suite_made.get("commit") else ""
        say(f"certificate of {who}, created {made['environment']['created']}")
        say(f"  verdict: {made['verdict']['text']}")
        say(
            f"  made from: card-identity spec {suite_made['spec_version']}, suite "
            f"{suite_made.get('version') or 'version unknown'}{commit}"
        )
    bad = [finding for finding in checked.findings if not finding.ok]
    for finding in checked.findings:
        say(f"{'ok     ' if finding.ok else 'DIFFERS'}  {finding.text}")
    if bad:
        say(f"verify-certificate: {bundle} does NOT verify: {len(bad)} problem(s) above")
        return Exit.FAILED
    say(
        f"verify-certificate: {bundle} is untouched and was made from this suite's files "
        "(an integrity check, not proof of who made it: see --help)"
    )
    return Exit.OK
