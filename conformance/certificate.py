"""The certificate bundle `cardid certify` writes, and its verification.

A bundle is a folder of five files: `report.json`, `report.html`, `badge.json`, `summary.md`
and `certificate.json` (schema/certificate.schema.json), which holds the sha256 of the other
four, a manifest of the suite files the run used (path relative to the suite root, sha256),
and a sha256 of its own canonical JSON with that one member left out (`certificate_sha256`).

`verify` recomputes all three and says, one finding each, what matches and what does not.
That detects accidental and naive edits, and a suite that differs from the one the bundle was
made from; it proves nothing about who made the bundle: there is no signing key, and anyone
can recompute every hash after editing.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import files, report, schemas, strictjson
from cardid_conformance.cases import Case, case_files
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import KnownFailures
from cardid_conformance.html import to_html
from cardid_conformance.markdown import to_markdown
from cardid_conformance.outcome import Outcome, status
from cardid_conformance.report import RunInfo
from cardid_conformance.rulereport import rule_results
from cardid_conformance.spec import Spec
from cardid_conformance.verdict import Verdict

#: What `format` says: the certificate's own format, apart from the report schema and spec.
FORMAT = "cardid-certificate/1"
CERTIFICATE = "certificate.json"
#: The other files of a bundle, each with its sha256 in the certificate.
BUNDLE_FILES = ("report.json", "report.html", "badge.json", "summary.md")
#: The suite's folders whose every file the manifest lists (and cases/, its case files).
SUITE_FOLDERS = ("spec", "schema")
#: Bigger than any suite or bundle file; a bound, so that a hostile bundle cannot fill memory.
_MAX_BYTES = 256 * 1024 * 1024


def sha256(data: bytes) -> str:
    """The hex sha256 of some bytes."""
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- the manifest


def suite_files(root: Path) -> list[Path]:
    """Every file under `root`/spec and `root`/schema, and the case files under `root`/cases,
    as a run of the whole corpus reads them (`cases.case_files`)."""
    found: list[Path] = []
    for folder in SUITE_FOLDERS:
        found += [path for path in sorted((root / folder).rglob("*")) if not path.is_dir()]
    cases_dir = root / "cases"
    if cases_dir.is_dir():
        found += case_files(cases_dir)
    return found


def manifest(root: Path, paths: Sequence[Path] | None = None) -> dict[str, str]:
    """Path relative to `root` (with `/`) -> sha256, for `paths` (default: `suite_files`).

    A file that cannot be read is a UsageError naming it: the manifest is never partial.
    """
    out: dict[str, str] = {}
    for path in suite_files(root) if paths is None else paths:
        try:
            data = files.read_bounded(path, _MAX_BYTES)
        except OSError as exc:
            raise UsageError(f"cannot read suite file {path}: {files.describe(exc)}") from None
        out[path.relative_to(root).as_posix()] = sha256(data)
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- writing


def canonical(data: Mapping[str, Any]) -> bytes:
    """The canonical JSON of a certificate: sorted keys, no spaces, ASCII, no NaN."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def self_digest(data: Mapping[str, Any]) -> str:
    """The sha256 of the canonical JSON of `data` without `certificate_sha256`."""
    return sha256(canonical({key: value for key, value in data.items() if key != "certificate_sha256"}))


def seal(data: Mapping[str, Any]) -> dict[str, Any]:
    """The certificate as it will read back from its file (the JSON text `report.to_json_text`
    writes turns a lone surrogate into visible text), with its `certificate_sha256`."""
    read_back: dict[str, Any] = json.loads(report.to_json_text(data))
    read_back.pop("certificate_sha256", None)
    read_back["certificate_sha256"] = self_digest(read_back)
    return read_back


def render_bundle(
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    info: RunInfo,
    spec: Spec,
    *,
    suite_root: Path | None,
    roles: Sequence[str] | None,
    environment: Mapping[str, str],
) -> dict[str, bytes]:
    """The bundle's files but the certificate, by name (BUNDLE_FILES): `roles` are the
    handshake's (None: no handshake), `environment` what the certificate records of it."""
    return {
        "report.json": report.to_json_text(report.to_json(outcomes, cases, info, spec)).encode(),
        "report.html": to_html(
            outcomes, cases, info, spec, suite_root=suite_root, roles=roles, environment=environment
        ).encode(),
        "badge.json": (json.dumps(badge(report.run_verdict(outcomes, cases, info), info.spec_version), indent=2)
                       + "\n").encode(),
        "summary.md": to_markdown(outcomes, cases, info, spec).encode(),
    }


def build(
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    info: RunInfo,
    spec: Spec,
    *,
    suite_manifest: Mapping[str, str],
    roles: Sequence[str] | None,
    environment: Mapping[str, str],
    known_failures: KnownFailures | None,
    known_failures_sha256: str | None,
    bundle_files: Mapping[str, bytes],
) -> dict[str, Any]:
    """The certificate of a run (schema/certificate.schema.json), sealed: what it says of the
    run is what its report.json says (`report.verdict_json`, `report.summary`)."""
    verdict = report.run_verdict(outcomes, cases, info)
    used = set(verdict.known_failures_used)
    entries = [] if known_failures is None else [
        {
            "case": entry.case,
            "reason": entry.reason,
            "expires": entry.expires.isoformat() if entry.expires else None,
            "issue": entry.issue,
        }
        for entry in known_failures.entries
        if entry.case in used
    ]
    data = {
        "format": FORMAT,
        "suite": {
            "spec_version": info.spec_version,
            "version": info.suite_version,
            "commit": info.suite_commit,
            "cases_sha256": info.cases_sha256,
        },
        "manifest": [{"path": path, "sha256": digest} for path, digest in suite_manifest.items()],
        "implementation": {
            "name": info.name,
            "version": info.version,
            "roles": list(roles) if roles is not None else None,
            "mode": info.mode,
            "command": info.command,
            **({"source": info.source} if info.source is not None else {}),
        },
        "environment": dict(environment),
        "summary": report.summary(outcomes),
        "verdict": report.verdict_json(verdict, info),
        "rules": [result.to_dict() for result in rule_results(outcomes, cases, spec)],
        "cases": [
            {"case": outcome.case_id, "status": status(outcome), "sha256": _digest(cases.get(outcome.case_id))}
            for outcome in outcomes
        ],
        "known_failures": {
            "file": str(known_failures.path) if known_failures else None,
            "sha256": known_failures_sha256,
            "used": entries,
        },
        "files": {name: sha256(bundle_files[name]) for name in BUNDLE_FILES},
    }
    return seal(data)


def _digest(case: Case | None) -> str | None:
    return case.digest() if case is not None else None


def badge(verdict: Verdict, spec_version: str) -> dict[str, Any]:
    """A shields.io endpoint badge (https://shields.io/badges/endpoint-badge) for the verdict:
    "conforming 1.1.0", "reader conforming 1.1.0" where a role went untested, else the MUST
    failures counted, known or not ("3 MUST failures"), or "not conforming"."""
    if verdict.conforming:
        roles = list(verdict.roles)
        scope = " and ".join(roles) + " " if roles and verdict.untested_roles else ""
        message = f"{scope}conforming {spec_version}"
        color = "yellowgreen" if verdict.should_failures else "brightgreen"
    else:
        failures = verdict.must_failures + verdict.known_must_failures
        message = (
            f"{failures} MUST failure{'' if failures == 1 else 's'}" if failures else "not conforming"
        )
        color = "orange" if verdict.accepted else "red"
    return {"schemaVersion": 1, "label": "cardid", "message": message, "color": color}


# --------------------------------------------------------------------------- verifying


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One thing `verify` checked: whether it matches, and a line saying so."""

    ok: bool
    text: str


def read_certificate(bundle: Path) -> tuple[dict[str, Any] | None, list[Check]]:
    """The bundle's certificate, or None and the finding that says why it cannot be used.

    A folder that is not there, or holds no certificate.json, or one that cannot be read, is
    a UsageError (not a bundle); a certificate.json that is not a certificate is a finding.
    """
    if not bundle.is_dir():
        raise UsageError(
            f"{bundle} is not a folder",
            hint="give the folder `cardid certify --out` wrote",
        )
    path = bundle / CERTIFICATE
    if not path.exists() and not path.is_symlink():
        raise UsageError(
            f"{bundle} is not a certificate bundle: it has no {CERTIFICATE}",
            hint="give the folder `cardid certify --out` wrote",
        )
    try:
        raw = files.read_bounded(path, _MAX_BYTES)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {files.describe(exc)}") from None
    try:
        data = strictjson.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return None, [Check(ok=False, text=f"{CERTIFICATE}: not strict JSON ({exc}): edited or damaged")]
    problem = schemas.first_problem("certificate", data)
    if problem is not None:
        return None, [Check(
            ok=False,
            text=f"{CERTIFICATE}: not a certificate (schema/certificate.schema.json: "
            f"{problem.where()}: {problem.message}): edited or damaged",
        )]
    return data, []


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """What `verify` found: the certificate (None if it is not one), and each finding."""

    certificate: Mapping[str, Any] | None
    findings: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """Everything matches."""
        return self.certificate is not None and all(finding.ok for finding in self.findings)


def verify(bundle: Path, suite_root: Path) -> Verification:
    """Check a bundle: the certificate against its own hash, each bundle file against the
    certificate, and the suite at `suite_root` against the certificate's manifest."""
    certificate, findings = read_certificate(bundle)
    if certificate is None:
        return Verification(certificate=None, findings=tuple(findings))
    if self_digest(certificate) == certificate["certificate_sha256"]:
        findings.append(Check(ok=True, text=f"{CERTIFICATE}: unchanged (its certificate_sha256 matches)"))
    else:
        findings.append(Check(
            ok=False,
            text=f"{CERTIFICATE}: edited since it was written (its certificate_sha256 does not "
            "match its content)",
        ))
    checked = {name: _check_file(bundle / name, name, certificate["files"][name]) for name in BUNDLE_FILES}
    findings += checked.values()
    findings += _check_others(bundle)
    if checked["report.json"].ok:  # an edited report is named already
        findings += _check_report(certificate, bundle / "report.json")
    findings += _check_suite(certificate, suite_root)
    return Verification(certificate=certificate, findings=tuple(findings))


def _check_others(bundle: Path) -> list[Check]:
    """Files beside the bundle's own: the certificate vouches for none of them (an index.html
    an implementation wrote into the folder during the run would be served as the page)."""
    try:
        names = sorted(entry.name for entry in bundle.iterdir())
    except OSError as exc:
        return [Check(ok=False, text=f"the bundle folder cannot be listed ({files.describe(exc)})")]
    own = {CERTIFICATE, *BUNDLE_FILES}
    return [
        Check(ok=False, text=f"{name}: not part of the bundle (the certificate vouches for no "
                f"file but its own five; `certify --force` keeps files it did not write)")
        for name in names
        if name not in own
    ]


def _check_report(certificate: Mapping[str, Any], path: Path) -> list[Check]:
    """The certificate says what the report it vouches for says: its verdict, and each case's
    status (a certificate sealed anew over another verdict names the real report's hash)."""
    try:
        report = strictjson.read_file(path, _MAX_BYTES)
    except strictjson.Unreadable as exc:
        return [Check(ok=False, text=f"report.json: cannot be read as the report ({exc.problem})")]
    if not isinstance(report, dict):
        report = {}  # its hash matched: then nothing in it can say what the certificate says
    said = certificate["verdict"]
    shown = report.get("verdict", {})
    differ = [key for key in sorted(said) if said.get(key) != shown.get(key)]
    statuses = {entry["case"]: entry["status"] for entry in certificate["cases"]}
    reported = {r.get("case"): r.get("status") for r in report.get("results", []) if isinstance(r, dict)}
    if differ or statuses != reported:
        what = f"verdict ({', '.join(differ)})" if differ else "case statuses"
        return [Check(ok=False, text=f"{CERTIFICATE}: its {what} differ from the report it vouches for")]
    return [Check(ok=True, text=f"{CERTIFICATE}: its verdict and case statuses are the report's")]


def _check_file(path: Path, name: str, expected: str) -> Check:
    if not path.exists() and not path.is_symlink():
        return Check(ok=False, text=f"{name}: missing")
    try:
        data = files.read_bounded(path, _MAX_BYTES)
    except OSError as exc:
        return Check(ok=False, text=f"{name}: cannot be read ({files.describe(exc)})")
    if sha256(data) != expected:
        return Check(ok=False, text=f"{name}: edited (its sha256 is not the certificate's)")
    return Check(ok=True, text=f"{name}: matches the certificate")


def _check_suite(certificate: Mapping[str, Any], root: Path) -> list[Check]:
    counts = Counter(entry["path"] for entry in certificate["manifest"])
    twice = sorted(path for path, count in counts.items() if count > 1)
    if twice:  # a dict would keep one of them silently
        return [Check(ok=False, text=f"{CERTIFICATE}: its manifest lists {', '.join(twice[:5])} more "
                        "than once: edited or damaged")]
    made_from = {entry["path"]: entry["sha256"] for entry in certificate["manifest"]}
    try:
        here = manifest(root)
    except UsageError as exc:
        return [Check(ok=False, text=f"suite: {exc.message}")]
    findings = []
    for path in sorted(made_from.keys() | here.keys()):
        if path not in here:
            findings.append(Check(ok=False, text=f"suite file {path}: in the certificate, not in this suite"))
        elif path not in made_from:
            findings.append(Check(ok=False, text=f"suite file {path}: in this suite, not in the certificate"))
        elif here[path] != made_from[path]:
            findings.append(Check(ok=False, text=f"suite file {path}: differs from the one the certificate was made from"))
    if not findings:
        findings.append(Check(
            ok=True,
            text=f"suite: all {len(here)} files (spec, schemas, cases) match those the certificate "
            f"was made from ({root})",
        ))
    return findings
