"""The HTML report: one self-contained page (report.html of a `cardid certify` bundle).

Pure: a run's outcomes, its cases, its RunInfo and the spec in (as every other renderer
takes them), the page's text out. The page loads nothing: inline CSS only, no script, no external asset, no link that
fetches, and a Content-Security-Policy saying so, so it can be opened from a CI artifact, an
e-mail or a file share without reaching any network.

Every text from an implementation or a case file (names, versions, commands, messages,
standard error, context lines, descriptions, paths) goes through `escape.html_line` or
`escape.html_block`: no control character survives, and none can open a tag or end one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from cardid_conformance import report
from cardid_conformance.cases import Case
from cardid_conformance.causes import root_causes
from cardid_conformance.escape import html_block, html_line
from cardid_conformance.outcome import ExpectedFailure, Failed, Outcome, Status, status
from cardid_conformance.pagestyle import STYLE
from cardid_conformance.report import RunInfo, run_verdict
from cardid_conformance.rulereport import FAMILY_COLUMNS, RULE_STATUSES, family_matrix, rule_results
from cardid_conformance.spec import Level, Spec
from cardid_conformance.verdict import Verdict

CSP = "default-src 'none'; style-src 'unsafe-inline'"

#: Statuses of cases that did not pass, in the order the page lists them.
_SHOWN = ("case-bug", "failed", "errored", "warning", "known-failure")
_GROUP = {
    "case-bug": "Case bugs (the suite's, not the implementation's)",
    "failed": "MUST failures",
    "errored": "Errors (no usable answer)",
    "warning": "SHOULD warnings",
    "known-failure": "Known failures (listed in the known-failure file)",
}
_TAG = {
    "case-bug": "BUG IN CASE",
    "failed": "FAILED",
    "errored": "ERRORED",
    "warning": "WARNING",
    "known-failure": "KNOWN FAILURE",
}


def _kind(outcome: Outcome) -> str:
    """How the page shows an outcome: `warning` is a failure whose strongest level is not MUST."""
    if isinstance(outcome, Failed) and outcome.level is not Level.MUST:
        return "warning"
    return "known-failure" if isinstance(outcome, ExpectedFailure) else status(outcome).value


def _or_dash(value: str | None) -> str:
    return html_line(value) if value else "&mdash;"


def _verdict_class(verdict: Verdict) -> str:
    if verdict.conforming and not verdict.known_failure_problems:
        return "ok"
    return "accepted" if verdict.accepted else "fail"


def _relative(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(path)


def to_html(
    outcomes: Sequence[Outcome],
    cases: Mapping[str, Case],
    info: RunInfo,
    spec: Spec,
    *,
    suite_root: Path | None = None,
    roles: Sequence[str] | None = None,
    environment: Mapping[str, str] | None = None,
) -> str:
    """Render the run as one HTML page (see the module docstring): `suite_root` shortens
    case paths, `roles` are the handshake's (None: no handshake), `environment` what
    certificate.json records of it. The headline is the verdict sentence of every report of
    the run (`Verdict.text`): the page never words the verdict itself."""
    verdict = run_verdict(outcomes, cases, info)
    headline = verdict.text(info.spec_version)
    title = f"{info.name or info.command}: {headline}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{html_line(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f'<header class="verdict {_verdict_class(verdict)}"><div>',
        '<p class="kicker">card-identity conformance report</p>',
        f'<h1 id="verdict">{html_line(headline)}</h1>',
        f'<p class="gate">{html_line(_gate(verdict, len(outcomes)))}</p>',
        "</div></header>",
        "<main>",
        *_identity(verdict, info, len(outcomes), roles, environment),
        *_counts(outcomes, info),
        *_matrix(outcomes, cases, spec),
        *_root_causes(outcomes),
        *_generated(info),
        *_not_passed(outcomes, cases, info, spec, suite_root),
        *_not_run(outcomes, Status.SKIPPED, "Skipped"),
        *_not_run(outcomes, Status.NOT_APPLICABLE, "Not applicable"),
        *_not_run(outcomes, Status.NOT_RUN, "Not run"),
        *_rules(outcomes, cases, spec),
        "</main>",
        *_footer(environment),
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(parts)


def _gate(verdict: Verdict, total: int) -> str:
    """The counts behind the verdict, and whether the run passes the exit-code gate."""
    known_must = verdict.known_must_failures
    must = verdict.must_failures + known_must
    sentence = f"{must} MUST failure(s)"
    if known_must:
        sentence += f" ({known_must} listed as known failures)"
    sentence += f", {verdict.should_failures} SHOULD warning(s), in {total} cases."
    if verdict.known_failure_problems:
        sentence += " The known-failure file is wrong (see below): the run fails (exit status 1)."
    elif verdict.accepted:
        if not verdict.conforming:
            sentence += " Every MUST failure is a listed known failure: the run passes (exit status 0)."
    else:
        sentence += " The run fails (exit status 1)."
    return sentence


def _facts(rows: Sequence[tuple[str, str]]) -> Iterator[str]:
    yield '<dl class="facts">'
    for name, value in rows:
        yield f"<dt>{name}</dt><dd>{value}</dd>"
    yield "</dl>"


def _identity(
    verdict: Verdict, info: RunInfo, total: int, roles: Sequence[str] | None,
    environment: Mapping[str, str] | None,
) -> Iterator[str]:
    yield '<section class="identity">'
    yield '<div class="panel" id="implementation"><h2>Implementation</h2>'
    yield from _facts([
        ("name", _or_dash(info.name)),
        ("version", _or_dash(info.version)),
        ("roles", _or_dash(", ".join(roles)) if roles else "&mdash; (no handshake)"),
        ("mode", _or_dash(info.mode)),
        ("command", f"<code>{html_line(info.command)}</code>"),
        *([("source", html_line(f"{info.source} logs (cases they cannot express are not applicable)"))]
          if info.source else []),
        ("certified" if verdict.conforming else "tested", _or_dash(", ".join(verdict.roles))),
        *([("not tested", _or_dash(", ".join(verdict.untested_roles)))] if verdict.untested_roles else []),
    ])
    yield "</div>"
    yield '<div class="panel" id="suite"><h2>Suite</h2>'
    sha = info.cases_sha256
    yield from _facts([
        ("spec", f"card-identity {html_line(info.spec_version)}"),
        ("suite version", _or_dash(info.suite_version)),
        ("commit", f"<code>{html_line(info.suite_commit)}</code>" if info.suite_commit else "&mdash;"),
        ("cases", f"{total}"
         + (f' <span class="label">sha256</span> <code>{html_line(sha[:16])}&hellip;</code>' if sha else "")),
        ("known failures", _or_dash(info.known_failures_file)),
        *([("created", _or_dash(environment.get("created")))] if environment else []),
    ])
    yield "</div>"
    yield "</section>"


def _counts(outcomes: Sequence[Outcome], info: RunInfo) -> Iterator[str]:
    """Cases by how they came out; a failure at SHOULD level is a warning, not a failure."""
    kinds = [_kind(outcome) for outcome in outcomes]
    words = (
        ("passed", "passed"), ("failed", "failed (MUST)"), ("warning", "SHOULD warnings"),
        ("errored", "errored"), ("skipped", "skipped"), ("not-applicable", "not applicable"),
        ("not-run", "not run"), ("known-failure", "known failures"), ("case-bug", "case bugs"),
    )
    yield "<h2>Cases</h2>"
    yield '<ul class="counts">'
    for key, word in words:
        if kinds.count(key) or key in ("passed", "failed"):
            yield f"<li><b>{kinds.count(key)}</b> {word}</li>"
    yield f"<li><b>{len(kinds)}</b> in all</li>"
    yield "</ul>"
    for problem in info.known_failure_problems:
        yield f'<p class="message">Known-failure file: {html_line(problem)}</p>'


def _matrix(outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec) -> Iterator[str]:
    matrix = family_matrix(outcomes, cases, spec)
    yield '<h2 id="families">Results by rule family</h2>'
    yield '<table class="matrix">'
    yield "<thead><tr><th>family</th>" + "".join(
        f'<th class="n">{word}</th>' for word in FAMILY_COLUMNS.values()
    ) + "</tr></thead><tbody>"
    for family, row in matrix.items():
        name = spec.families.get(family, "")
        cells = "".join(
            f'<td class="n {"c-" + column if row[column] else "zero"}">{row[column] if row[column] else "&middot;"}</td>'
            for column in FAMILY_COLUMNS
        )
        yield (
            f'<tr><th scope="row"><code>{html_line(family)}</code> '
            f'<span class="family-name">{html_line(name)}</span></th>{cells}</tr>'
        )
    yield "</tbody></table>"
    yield (
        '<p class="note">Cases by rule family: a failure counts under the families of the rules it '
        "broke (as a MUST failure when one of them is MUST, else as a SHOULD warning); any other "
        "case counts under the families of the rules it cites. A case may count in several rows.</p>"
    )


#: How many of a root cause's cases its row names.
CASES_SHOWN = 12


def _root_causes(outcomes: Sequence[Outcome]) -> Iterator[str]:
    """The failed cases grouped by what their first difference says went wrong."""
    causes = root_causes(outcomes)
    if not causes:
        return
    yield '<h2 id="causes">Failures by root cause</h2>'
    yield "<table><thead><tr><th>cases</th><th>first difference</th><th>rules named</th><th>cases</th></tr></thead><tbody>"
    for cause in causes:
        shown = ", ".join(html_line(case) for case in cause.cases[:CASES_SHOWN])
        more = f" and {len(cause.cases) - CASES_SHOWN} more" if len(cause.cases) > CASES_SHOWN else ""
        yield (
            f"<tr><td>{len(cause.cases)}</td><td>{html_line(cause.cause)}</td>"
            f"<td>{html_line(', '.join(cause.rules))}</td><td class=\"mono\">{shown}{more}</td></tr>"
        )
    yield "</tbody></table>"


def _generated(info: RunInfo) -> Iterator[str]:
    """The generated games the run added (--generated), apart from the corpus."""
    generated = info.generated
    if generated is None:
        return
    seeds = generated.seeds
    span = f"seeds {seeds[0]} to {seeds[-1]}" if seeds else "no seed"
    found = generated.disagreements
    yield '<h2 id="generated">Generated games</h2>'
    yield (f'<p class="note">{len(seeds)} games whose truth is known ({span}; docs/generated-games.md): '
           f"{len(found)} disagreement(s). <code>cardid fuzz --seed SEED --games 1</code> replays one.</p>")
    if not found:
        return
    yield "<table><thead><tr><th>seed</th><th>kind</th><th>rule</th><th>what</th></tr></thead><tbody>"
    for d in found:
        yield (f'<tr><td class="mono">{html_line(str(d.seed))}</td><td>{html_line(d.kind)}</td>'
               f'<td>{html_line(d.rule)}</td><td>{html_line(d.what)}</td></tr>')
    yield "</tbody></table>"


def _not_passed(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo, spec: Spec, root: Path | None
) -> Iterator[str]:
    shown = [outcome for outcome in outcomes if _kind(outcome) in _SHOWN]
    if not shown:
        yield '<h2 id="failures">Cases that did not pass</h2>'
        yield '<p class="note">None: every case that ran passed.</p>'
    index = 0
    for kind in _SHOWN:
        group = [outcome for outcome in shown if _kind(outcome) == kind]
        if not group:
            continue
        yield f'<h2 id="{kind}">{_GROUP[kind]} ({len(group)})</h2>'
        for outcome in group:
            yield from _case(index, outcome, cases.get(outcome.case_id), info, spec, root)
            index += 1


def _case(
    index: int, outcome: Outcome, case: Case | None, info: RunInfo, spec: Spec, root: Path | None
) -> Iterator[str]:
    kind = _kind(outcome)
    level = report.shown_level(outcome)
    tag = _TAG[kind] + (f" &middot; {html_line(level.name)}" if level and kind != "case-bug" else "")
    yield f'<article class="case {kind}" id="case-{index}">'
    yield f'<h3><code>{html_line(outcome.case_id)}</code> <span class="tag {kind}">{tag}</span></h3>'
    if case is not None:
        yield f'<p class="desc">{html_line(case.description)}</p>'
        yield from _facts([
            ("file", f"<code>{html_line(_relative(case.path, root))}</code>"),
            ("role", html_line(case.role)),
            ("CR", html_line(", ".join(case.cr)) if case.cr else "&mdash;"),
        ])
    differences = report.differences(outcome)
    broke = [d.rule for d, _ in differences]
    cited = list(case.rules) if case is not None else []
    rules = list(dict.fromkeys([*cited, *broke]))
    if rules:
        yield '<ul class="rules">'
        for rule_id in rules:
            rule = spec.rules.get(rule_id)
            summary = html_line(rule.summary) if rule else "(not a rule of this spec)"
            level_name = rule.level.name if rule else ""
            mark = ' class="broke"' if rule_id in broke else ""
            note = "" if rule_id in cited else ' <span class="label">(not cited by the case)</span>'
            yield (
                f"<li{mark}><code>{html_line(rule_id)}</code><span class=\"lvl\">{level_name}</span>"
                f"<span>{summary}{note}</span></li>"
            )
        yield "</ul>"
    message = report.message(outcome)
    if message and not isinstance(outcome, Failed):
        yield f'<p class="message">{html_line(message)}</p>'
    for difference, difference_level in differences:
        yield '<div class="difference">'
        yield (
            f'<p class="what"><code>{html_line(difference.rule)}</code> '
            f'<span class="label">{html_line(difference_level.name)}</span> '
            f'{html_line(difference.message)}</p>'
        )
        if difference.context:
            yield f"<pre>{html_block(chr(10).join(difference.context))}</pre>"
        yield "</div>"
    stderr = report.stderr(outcome).strip()
    if stderr:
        yield '<p class="label">standard error (its last lines)</p>'
        yield f'<pre class="stderr">{html_block(stderr)}</pre>'
    rerun = report.rerun(outcome, info)
    if rerun:
        yield f'<p class="label">rerun: <code>{html_line(rerun)}</code></p>'
    yield "</article>"


def _not_run(outcomes: Sequence[Outcome], word: Status, title: str) -> Iterator[str]:
    """The cases not run with this status (skipped, not applicable), grouped by reason."""
    chosen = [outcome for outcome in outcomes if status(outcome) is word]
    if not chosen:
        return
    by_reason: dict[str, list[str]] = {}
    for outcome in chosen:
        by_reason.setdefault(report.message(outcome), []).append(outcome.case_id)
    yield f'<h2 id="{word.value}">{title} ({len(chosen)})</h2>'
    yield f"<details><summary>{len(chosen)} case(s) not run, for {len(by_reason)} reason(s)</summary><ul>"
    for reason, ids in sorted(by_reason.items()):
        yield f'<li>{html_line(reason)}: <span class="mono">{", ".join(html_line(i) for i in ids)}</span></li>'
    yield "</ul></details>"


def _rules(outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec) -> Iterator[str]:
    by_rule = rule_results(outcomes, cases, spec)
    tally: dict[str, int] = {}
    for rule in by_rule:
        tally[rule.status] = tally.get(rule.status, 0) + 1
    told = ", ".join(f"{tally[status]} {status}" for status in RULE_STATUSES if status in tally)
    yield '<h2 id="rules">Results by rule</h2>'
    yield f"<details><summary>{len(by_rule)} rules: {html_line(told)}</summary>"
    yield (
        "<table><thead><tr><th>rule</th><th>level</th><th>status</th><th>cases citing it</th>"
        "<th>failed in</th><th>summary</th></tr></thead><tbody>"
    )
    for rule in by_rule:
        c = rule.counts
        citing = f"{len(rule.cases)}: {c['passed']} passed" + "".join(
            f", {c[key]} {word}"
            for key, word in (
                ("failed", "failed"), ("errored", "errored"), ("skipped", "skipped"),
                ("known_failures", "known"),
            )
            if c[key]
        )
        failed_in = ", ".join([*rule.failed_in, *(f"{case} (known)" for case in rule.known_failed_in)])
        yield (
            f"<tr><td><code>{html_line(rule.id)}</code></td><td>{rule.level.name}</td>"
            f'<td class="s-{rule.status}">{rule.status}</td><td>{citing}</td>'
            f'<td class="mono">{html_line(failed_in) or "&mdash;"}</td>'
            f"<td>{html_line(spec.rules[rule.id].summary)}</td></tr>"
        )
    yield "</tbody></table></details>"
    yield (
        '<p class="note">A rule is <b>failed</b> (MUST) or a <b>warning</b> (SHOULD) when a failure '
        "names it; <b>inconclusive</b> when a case citing it failed on other rules only; "
        "<b>untested</b> when no case citing it was judged.</p>"
    )


def _footer(environment: Mapping[str, str] | None) -> Iterator[str]:
    yield "<footer>"
    if environment:
        yield (
            f"Written by cardid {html_line(environment.get('cardid', '?'))} on Python "
            f"{html_line(environment.get('python', '?'))} ({html_line(environment.get('platform', '?'))}), "
            f"{html_line(environment.get('created', '?'))}. "
        )
    yield (
        "This page is self-contained: it loads nothing. certificate.json, next to it, holds the "
        "sha256 of this file; <code>cardid verify-certificate DIR</code> checks it."
    )
    yield "</footer>"
