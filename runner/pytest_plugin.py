"""The pytest plugin: `pytest conformance --impl COMMAND` runs every case as a pytest item
(`pytest --pyargs cardid_conformance --impl COMMAND` outside a checkout).

Items are named by case ID, so `-k`, `--lf`, `--junitxml` and pytest-xdist (`-n 2`) work as
pytest users expect; a failure shows the same domain diff and rule citation as `cardid run`.

`--expect FILE` and `--cardid-report-json PATH` end the session as `cardid run` ends a run: the
outcomes the items recorded (each report carries its case's, every field of it, as ASCII JSON
text of `outcome.to_data`, so that under xdist it reaches the controller) go through
`runner.run.conclude`, the CLI's own code for known failures, verdict and report.

Why one module of about 500 lines: pytest's hooks and the items they collect share the
session's stash (the case runner, the known failures, the recorded outcomes); split in two, each
half would import the other. What is not pytest's lives elsewhere (runner/session.py runs the
cases, runner/run.py concludes).
"""

from __future__ import annotations

import argparse
import datetime
import errno
import functools
import json
import os
import shlex
import shutil
import warnings
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import console, escape, suite
from cardid_conformance.cases import Case, Role, case_files, load_corpus
from cardid_conformance.errors import CaseError, UsageError
from cardid_conformance.expect import KnownFailures, load_known_failures
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    Failed,
    NotApplicable,
    Outcome,
    Passed,
    Skipped,
    from_data,
    to_data,
)
from cardid_conformance.report import Mode
from cardid_conformance.selection import Selection
from cardid_conformance.sources.profile import not_applicable
from cardid_conformance.spec import Level, load_spec
from cardid_runner import execute, options
from cardid_runner.adapter import Hello
from cardid_runner.process.command import check_interpreter_line
from cardid_runner.process.errors import ProcessError
from cardid_runner.run import Outputs, Result, Run, conclude
from cardid_runner.session import CaseRunner
from cardid_runner.starting import cannot_start, usage_error
from cardid_runner.terminal import changed_lines

#: The plugin's options that take one value: the option, its dest, the check of its value and
#: the rest of its declaration. pytest_addoption declares them from here, and
#: _check_dropped_dash_dash checks them again from here.
_ONE_VALUE: tuple[tuple[str, str, Callable[[str], Any], dict[str, Any]], ...] = (
    ("--impl", "impl", options.command,
     {"metavar": "COMMAND", "help": "implementation to certify (default: the reference)"}),
    ("--cardid-cases", "cardid_cases", options.case_source,
     {"metavar": "PATH", "default": None, "help": "case directory or file (default: the suite's cases/)"}),
    ("--timeout-multiplier", "timeout_multiplier", options.multiplier,
     {"metavar": "X", "default": 1.0,
      "help": f"scale every time limit by X ({options.MULTIPLIERS[0]:g} to {options.MULTIPLIERS[1]:g})"}),
    ("--expect", "cardid_known_failures", options.input_file,
     {"metavar": "FILE", "default": None,
      "help": "known-failure file for this implementation, as in `cardid run`"}),
    ("--cardid-source", "cardid_source", options.source_format,
     {"metavar": "FORMAT", "default": None,
      "help": "judge the implementation as a reader of this source's logs (arena, mtgo), as "
              "`cardid run --source`: cases the format cannot express are skipped as not applicable"}),
    ("--cardid-report-json", "cardid_report_json", options.output_file,
     {"metavar": "PATH", "default": None,
      "help": "write the JSON report of `cardid run --report-json` at the end of the session"}),
)
_LEVELS = ("MUST", "SHOULD", "MAY")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cardid", "card-identity conformance")
    for option, dest, check, declared in _ONE_VALUE:
        group.addoption(option, dest=dest, type=check, **declared)
    group.addoption("--isolate", action="store_true", help="one implementation process per case")
    group.addoption("--rule", dest="cardid_rules", action="append", default=[], metavar="RULE",
                    help="run only the cases citing this rule (ID-3) or family (LIB); repeatable")
    group.addoption("--level", dest="cardid_levels", action="append", default=[],
                    choices=_LEVELS, help="run only the cases of this level; repeatable")


#: The `conformance` package's directory: `pytest conformance` in a checkout names it, and so
#: does `pytest --pyargs cardid_conformance` wherever the suite is installed.
_PACKAGE_DIR = Path(suite.__file__).resolve().parent


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect the suite's `conformance` package directory as the case corpus."""
    if path.resolve() == _PACKAGE_DIR:
        return CaseDirectory.from_parent(parent, path=path)
    return None


def _case_runner(config: pytest.Config) -> CaseRunner:
    """One implementation per pytest process (each xdist worker has its own)."""
    if _CASE_RUNNER not in config.stash:
        command = config.getoption("--impl")
        try:
            argv = execute.implementation_argv(command)
        except UsageError as exc:
            raise pytest.UsageError(exc.render()) from None
        options = execute.Invocation.scaled(
            argv,
            multiplier=config.getoption("--timeout-multiplier"),
            isolate=config.getoption("--isolate"),
        )
        case_runner = config.stash[_CASE_RUNNER] = CaseRunner.started(options, load_spec())
        if case_runner.mode.fallback_reason is not None:  # said in the report and the verdict
            config.stash[_FALLBACK] = case_runner.mode.fallback_reason  # block, as `cardid run` does
        if case_runner.mode.hello is not None:
            config.stash[_HELLO] = case_runner.mode.hello
    return config.stash[_CASE_RUNNER]


_CASE_RUNNER = pytest.StashKey[CaseRunner]()
#: The handshake of this process's implementation, when persistent mode started.
_HELLO = pytest.StashKey[Hello]()
#: Why this process runs a process per case, when persistent mode was not used.
_FALLBACK = pytest.StashKey[str]()


def _selection(config: pytest.Config) -> Selection:
    return Selection(
        rules=tuple(config.getoption("cardid_rules", None) or ()),
        levels=tuple(config.getoption("cardid_levels", None) or ()),
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the options once, before any item: a bad one is one usage error, not one failure
    per case (under xdist the controller checks them before a worker starts)."""
    config.addinivalue_line("markers", "cardid_rule(id): the spec rules a conformance case cites")
    try:
        _check_dropped_dash_dash(config)
        command = config.getoption("--impl", None)
        if command:
            argv = execute.implementation_argv(command)
            if shutil.which(argv[0]) is None:  # as `cardid run` says it: why, and what to write
                raise cannot_start(argv, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)))
            check_interpreter_line(argv)
        _selection(config).check(_spec())
        path = config.getoption("cardid_known_failures", None)
        if path is not None:
            config.stash[_KNOWN] = load_known_failures(path)
    except ProcessError as exc:  # a #! line that ends with CR LF
        raise pytest.UsageError(usage_error(exc).render()) from None
    except UsageError as exc:
        raise pytest.UsageError(exc.render()) from None
    config.stash[_RECORDED] = []
    if not _is_xdist_worker(config):
        config.pluginmanager.register(_Recorder(config.stash[_RECORDED]), "cardid-recorder")


def _check_dropped_dash_dash(config: pytest.Config) -> None:
    """Python 3.11's argparse, pytest's too, drops a `--` given as an option's value
    (`--impl=--`, `--rule=--`) and leaves an empty list in its place, which its check never
    saw: take `--`, the value written, and check it, as `cardid run` does."""
    for option, dest, check, _ in _ONE_VALUE:
        if config.getoption(dest, None) == []:
            try:
                setattr(config.option, dest, check("--"))
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"argument {option}: {exc}") from None
    rules = config.getoption("cardid_rules", [])
    config.option.cardid_rules = ["--" if rule == [] else rule for rule in rules]
    if [] in config.getoption("cardid_levels", []):
        choices = ", ".join(map(repr, _LEVELS))
        raise UsageError(f"argument --level: invalid choice: '--' (choose from {choices})")


_KNOWN = pytest.StashKey[KnownFailures]()
#: The entry (`_entry`) of every case item run (on the controller, those of all workers).
_RECORDED = pytest.StashKey[list[dict[str, Any]]]()
_RESULT = pytest.StashKey[Result]()
#: On the xdist controller: the late breaches each worker's implementation revealed.
_WORKERS_LATE = pytest.StashKey[dict[str, str]]()
#: The key of a worker's late breaches in what xdist sends the controller at its end.
_LATE_OUTPUT = "cardid_late_violations"


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The case's outcome rides on its call report: xdist sends a report's attributes on to
    the controller, where the session's report is made."""
    made = yield
    entry = getattr(item, "result_entry", None)
    if call.when == "call" and entry is not None:
        made.cardid_result = entry  # type: ignore[attr-defined]
    return made


class _Recorder:
    """Registered in the main process (not in an xdist worker): keeps the entry each case's
    call report carries."""

    def __init__(self, into: list[dict[str, Any]]) -> None:
        self._into = into

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = getattr(report, "cardid_result", None)
        if entry is not None:
            self._into.append(dict(entry))
        elif report.failed and str(report.when) == "???":  # pytest-xdist: its worker died running it
            self._into.append({"case": report.nodeid.rsplit("::", 1)[-1], "crashed": str(report.longrepr)[:500]})


def pytest_unconfigure(config: pytest.Config) -> None:
    case_runner = config.stash.get(_CASE_RUNNER, None)
    if case_runner is not None:
        case_runner.close()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop the implementation; a breach it revealed only at the end fails the session, and
    so does a wrong known-failure file or a report that cannot be written."""
    case_runner = session.config.stash.get(_CASE_RUNNER, None)
    if case_runner is not None:
        case_runner.close()
    if _is_xdist_worker(session.config):
        if case_runner is not None and case_runner.late_violations:
            # xdist sends this to the controller once this hook is done (pytest_testnodedown).
            late = dict(case_runner.late_violations)
            session.config.workeroutput[_LATE_OUTPUT] = late  # type: ignore[attr-defined]
        return
    if _late_violations(session.config) and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    result = _conclude(session.config)
    if result is None:
        return
    session.config.stash[_RESULT] = result
    changed = result.info.cases_changed
    if (result.known_failure_problems or result.unwritten or changed) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist, on the controller: a worker is done; keep the late breaches it saw."""
    late = getattr(node, "workeroutput", {}).get(_LATE_OUTPUT, {})
    node.config.stash.setdefault(_WORKERS_LATE, {}).update(late)


def _late_violations(config: pytest.Config) -> dict[str, str]:
    """Protocol breaches seen only after their case's item finished (a second answer to it),
    by case: this process's implementation's, and on an xdist controller its workers'."""
    case_runner = config.stash.get(_CASE_RUNNER, None)
    own = case_runner.late_violations if case_runner is not None else {}
    workers: dict[str, str] = config.stash.get(_WORKERS_LATE, {})
    return {**workers, **own}


def _run_value(config: pytest.Config) -> Run:
    """The session as a Run: what `cardid run` with the same options would be."""
    command = config.getoption("--impl")
    spec = load_spec()
    root = config.getoption("--cardid-cases") or suite.CASES_DIR
    return Run(
        impl=command,
        spec=spec,
        corpus=load_corpus(case_files(root), spec),
        cases_dir=root,
        selection=_selection(config),
        isolate=config.getoption("--isolate"),
        multiplier=config.getoption("--timeout-multiplier"),
        known_failures=config.stash.get(_KNOWN, None),
        outputs=Outputs(report_json=config.getoption("--cardid-report-json")),
        source=config.getoption("cardid_source", None),
    )


def _makes_result(config: pytest.Config) -> bool:
    """Whether the session makes a Result: --expect or --cardid-report-json asks for one. Only
    then does each item build its result entry (a tenth of a clean session's time otherwise)."""
    return _KNOWN in config.stash or config.getoption("--cardid-report-json") is not None


def _conclude(config: pytest.Config) -> Result | None:
    """The session's Result, made as `cardid run` makes it; None unless `_makes_result`."""
    if not _makes_result(config):
        return None
    run = _run_value(config)
    recorded_entries = config.stash.get(_RECORDED, [])
    # A case whose worker died running it has no entry: it errs, and is not left out of the
    # verdict as if it had not been selected.
    crashed = {e["case"]: e["crashed"] for e in recorded_entries if "crashed" in e}
    entries: dict[str, tuple[Outcome, dict[str, Any]]] = {}
    for entry in recorded_entries:
        if "crashed" not in entry:
            outcome = from_data(json.loads(entry["outcome"]))
            entries[outcome.case_id] = (outcome, entry)
    modes = {
        Mode(entry.get("mode", Mode.PER_CASE))
        for outcome, entry in entries.values() if not isinstance(outcome, NotApplicable)
    }
    fallbacks = sorted({reason for _, entry in entries.values() if (reason := entry.get("fallback"))})
    # Each entry names the handshake of the process that ran it (under xdist, a worker's).
    hellos = sorted(
        {(h["name"], h["version"], tuple(Role(r) for r in h["roles"])) for _, e in entries.values()
         if (h := e.get("hello"))}
    )
    recorded = {case_id: outcome for case_id, (outcome, _) in entries.items()}
    order = [case.id for case in run.corpus.cases]
    # As in `cardid run`: a breach seen only late errs its case (under xdist, whichever worker
    # saw it).
    late = _late_violations(config)
    levels = {case.id: case.level for case in run.corpus.cases}
    died = {
        case_id: f"the pytest-xdist worker running it died (the implementation may have killed it): {why}"
        for case_id, why in crashed.items()
        if case_id not in recorded
    }
    errs = {case_id: why for case_id, why in {**late, **died}.items() if case_id in recorded or case_id in died}
    outcomes = execute.erring(order, recorded, errs, levels)
    hello = Hello(name=hellos[0][0], version=hellos[0][1], roles=hellos[0][2]) if hellos else None
    # Each case as its item judged it (the corpus was loaded again just now).
    judged = {case_id: entry["case_sha256"] for case_id, (_, entry) in entries.items()}
    return conclude(
        run,
        outcomes,
        selected=len(outcomes),
        hello=hello,
        mode=Mode.PER_CASE if Mode.PER_CASE in modes else Mode.PERSISTENT,
        fallback_reason=fallbacks[0] if fallbacks else None,
        judged=judged,
    )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Protocol breaches seen only after a case's item finished (a second answer to it), and
    the session's known-failure problems and report, each once."""
    for case_id, reason in sorted(_late_violations(config).items()):
        line = escape.show(f"ERROR {case_id}: {reason} (seen after the item finished)")
        terminalreporter.write_line(line, red=True)
    result = config.stash.get(_RESULT, None)
    if result is None:
        return
    if result.info.cases_changed:
        for line in changed_lines(result.info.cases_changed):
            terminalreporter.write_line(line, red=True)
    for problem in result.known_failure_problems:
        terminalreporter.write_line(escape.show(f"KNOWN-FAILURE FILE: {problem}"), red=True)
    for message in result.unwritten:
        terminalreporter.write_line(escape.show(f"error: {message}"), red=True)
    path = config.getoption("--cardid-report-json")
    if path is not None and not result.unwritten:
        terminalreporter.write_line(escape.show(f"cardid report: {path}"))


class CaseDirectory(pytest.Directory):
    """The case corpus, collected as one item per case, in case-ID order."""

    def collect(self) -> Iterator[pytest.Item]:
        root = self.config.getoption("--cardid-cases") or suite.CASES_DIR
        spec = load_spec()
        corpus = load_corpus(case_files(root), spec)
        for bug in corpus.bugs:
            yield BrokenCase.from_parent(self, name=bug.path.stem, error=bug)
        for case in _selection(self.config).apply(corpus.cases):
            item = CaseItem.from_parent(self, name=case.id, case=case)
            for rule in case.rules:
                item.add_marker(pytest.mark.cardid_rule(rule))
            yield item


class CardidWarning(UserWarning):
    """A case failed at SHOULD level: a warning, not a failure."""


class ConformanceFailure(Exception):
    """Raised by an item whose case failed or errored; carries the lines to show."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class CaseItem(pytest.Item):
    """One conformance case run against the implementation."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        #: This case's outcome as plain data (`_entry`), once run (see pytest_runtest_makereport).
        self.result_entry: dict[str, Any] | None = None

    def runtest(self) -> None:
        source = self.config.getoption("cardid_source", None)
        reason = None if source is None else not_applicable(self.case, source)
        if reason is not None:  # never sent, as in `cardid run --source`
            if _makes_result(self.config):
                self.result_entry = _entry(NotApplicable(case_id=self.case.id, reason=reason), self.case.digest())
            pytest.skip(f"not applicable: {reason}")
        case_runner = _case_runner(self.config)
        try:
            outcome = case_runner.outcome(self.case)
        except Exception as exc:
            # The runner itself failed (no descriptor left, a bug): the item errs as pytest
            # shows it, and the session's report has the case errored, never missing from a
            # selection whose verdict would then pass without it.
            if _makes_result(self.config):
                reason = f"the runner failed running this case: {type(exc).__name__}: {exc}"
                self.result_entry = _entry(Errored(case_id=self.case.id, level=self.case.level, reason=reason),
                                           self.case.digest())
            raise
        if _makes_result(self.config):
            self.result_entry = _entry(outcome, self.case.digest(), case_runner.mode.name,
                                       self.config.stash.get(_HELLO, None), self.config.stash.get(_FALLBACK, None))
        known = self.config.stash.get(_KNOWN, None)
        listed = known.active(self.case.id, datetime.date.today()) if known else None
        if listed is not None and isinstance(outcome, Failed | Errored):
            pytest.xfail(f"known failure: {listed.reason}")
        match outcome:
            case Passed():
                return
            case Skipped(reason=reason):
                pytest.skip(reason)
            case Failed(level=level) | Errored(level=level) if level is not Level.MUST:
                # A SHOULD failure is a warning here as in every report: the item passes, and
                # pytest's warnings summary shows what the implementation should do.
                lines = console.failure_lines(outcome, None, case=self.case, spec=_spec())
                warnings.warn(CardidWarning("\n".join(lines)), stacklevel=1)
            case Failed() | Errored() | CaseBug():
                lines = console.failure_lines(outcome, self._rerun(), case=self.case, spec=_spec())
                raise ConformanceFailure(lines)

    def _rerun(self) -> str:
        """The pytest line that runs this case again; `--pyargs cardid_conformance` names the
        corpus wherever the suite is installed, in a checkout or not."""
        parts = ["pytest", "--pyargs", "cardid_conformance"]
        for option in ("--impl", "--cardid-cases", "--cardid-source"):
            value = self.config.getoption(option)
            if value:
                parts += [option, str(value)]
        if self.config.getoption("--isolate"):
            parts.append("--isolate")
        return shlex.join([*parts, "-k", self.case.id])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            return "\n".join([escape.show(self.case.description), *excinfo.value.lines])
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # A listed known failure: pytest shows its reason, never this text, and formatting
            # the traceback of the plugin's frames cost some 0.1 s an item (8 s for 82 of them).
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.case.path, 0, f"case {self.case.id} [{', '.join(self.case.rules)}]"


_spec = functools.cache(load_spec)


def _entry(
    outcome: Outcome, digest: str, mode: Mode | None = None, hello: Hello | None = None,
    fallback: str | None = None,
) -> dict[str, Any]:
    """A case's outcome, every field of it, as plain data: xdist sends nothing else between its
    processes, and no string a lone surrogate (which an implementation's text may hold) makes
    unencodable, so the outcome goes as ASCII JSON text, and the mode and roles as their words
    (plain str: execnet sends no enum). `mode` is that of the process that ran it (None: no process
    did), `fallback` why that process ran a process per case; `digest` is the case's
    (Case.digest) as this item judged it."""
    entry: dict[str, Any] = {"outcome": json.dumps(to_data(outcome), ensure_ascii=True), "case_sha256": digest}
    if mode is not None:
        entry["mode"] = str(mode)
    if fallback is not None:
        entry["fallback"] = fallback
    if hello is not None:
        entry["hello"] = {"name": hello.name, "version": hello.version, "roles": [str(role) for role in hello.roles]}
    return entry


class BrokenCase(pytest.Item):
    """A case file that does not load: a bug in the case, reported as such."""

    def __init__(self, *, error: CaseError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise ConformanceFailure([escape.show(f"BUG IN CASE: {self.error.message}")])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.error.path, (self.error.line or 1) - 1, "broken case file"
