"""The pytest plugin: `pytest conformance --impl COMMAND` runs every case as a pytest item
(`pytest --pyargs conformance --impl COMMAND` outside a checkout).

Items are named by case ID, so `-k`, `--lf`, `--junitxml` and pytest-xdist (`-n 2`) work as
pytest users expect; a failure shows the same domain diff and rule citation as `cardid run`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import console, escape, suite
from conformance.cases import Case, case_files, load_corpus
from conformance.errors import CaseError, UsageError
from conformance.outcome import CaseBug, Errored, Failed, Passed, Skipped
from conformance.spec import load_spec
from runner import execute, options
from runner.adapter import Persistent
from runner.process import split_command


def pytest_addoption(parser: pytest.Parser) -> None:
    low, high = options.MULTIPLIERS
    group = parser.getgroup("cardid", "card-identity conformance")
    group.addoption("--impl", metavar="COMMAND", type=options.command,
                    help="implementation to certify (default: the reference)")
    group.addoption("--cardid-cases", metavar="PATH", type=options.case_source, default=None,
                    help="case directory or file (default: the suite's cases/)")
    group.addoption("--isolate", action="store_true", help="one implementation process per case")
    group.addoption("--timeout-multiplier", type=options.multiplier, default=1.0, metavar="X",
                    help=f"scale every time limit by X ({low:g} to {high:g})")


#: The `conformance` package's directory: `pytest conformance` in a checkout names it, and so
#: does `pytest --pyargs conformance` wherever the suite is installed.
_PACKAGE_DIR = Path(suite.__file__).resolve().parent


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect the suite's `conformance` package directory as the case corpus."""
    if path.resolve() == _PACKAGE_DIR:
        return Corpus.from_parent(parent, path=path)
    return None


def _worker(config: pytest.Config) -> execute.Worker:
    """One implementation per pytest process (each xdist worker has its own)."""
    if _WORKER not in config.stash:
        command = config.getoption("--impl")
        try:
            argv = tuple(split_command(command)) if command else execute.REFERENCE_ARGV
        except UsageError as exc:
            raise pytest.UsageError(exc.render()) from None
        options = execute.Options.scaled(
            argv,
            multiplier=config.getoption("--timeout-multiplier"),
            isolate=config.getoption("--isolate"),
        )
        # The probe's process serves the cases, rather than being stopped and started again.
        started = None if options.isolate else execute.start_session(options)
        session = started if isinstance(started, Persistent) else None
        config.stash[_WORKER] = execute.Worker(
            options, load_spec(), isolate=session is None, session=session
        )
    return config.stash[_WORKER]


_WORKER = pytest.StashKey[execute.Worker]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cardid_rule(id): the spec rules a conformance case cites")


def pytest_unconfigure(config: pytest.Config) -> None:
    worker = config.stash.get(_WORKER, None)
    if worker is not None:
        worker.close()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop the implementation; a breach it revealed only at the end fails the session."""
    worker = session.config.stash.get(_WORKER, None)
    if worker is None:
        return
    worker.close()
    if worker.late_violations and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Protocol breaches seen only after a case's item finished (a second answer to it)."""
    worker = config.stash.get(_WORKER, None)
    if worker is None:
        return
    for case_id, reason in sorted(worker.late_violations.items()):
        line = escape.visible(f"ERROR {case_id}: {reason} (seen after the item finished)")
        terminalreporter.write_line(line, red=True)


class Corpus(pytest.Directory):
    """The case corpus, collected as one item per case, in case-ID order."""

    def collect(self) -> Iterator[pytest.Item]:
        root = self.config.getoption("--cardid-cases") or suite.CASES_DIR
        spec = load_spec()
        corpus = load_corpus(case_files(root), spec)
        for bug in corpus.bugs:
            yield BrokenCase.from_parent(self, name=bug.path.stem, error=bug)
        for case in corpus.cases:
            item = CaseItem.from_parent(self, name=case.id, case=case)
            for rule in case.rules:
                item.add_marker(pytest.mark.cardid_rule(rule))
            yield item


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

    def runtest(self) -> None:
        outcome = _worker(self.config).outcome(self.case)
        match outcome:
            case Passed():
                return
            case Skipped(reason=reason):
                pytest.skip(reason)
            case Failed() | Errored() | CaseBug():
                raise ConformanceFailure(console.failure_lines(outcome, self._rerun()))

    def _rerun(self) -> str:
        command = self.config.getoption("--impl")
        impl = f" --impl {command!r}" if command else ""
        return f"pytest conformance{impl} -k {self.case.id}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            return "\n".join([escape.visible(self.case.description), *excinfo.value.lines])
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.case.path, 0, f"case {self.case.id} [{', '.join(self.case.rules)}]"


class BrokenCase(pytest.Item):
    """A case file that does not load: a bug in the case, reported as such."""

    def __init__(self, *, error: CaseError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise ConformanceFailure([escape.visible(f"BUG IN CASE: {self.error.message}")])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.error.path, (self.error.line or 1) - 1, "broken case file"
