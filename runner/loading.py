"""Loading a large corpus with its YAML parsed in worker processes."""

from __future__ import annotations

import json
import marshal
import os
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conformance.cases import Corpus, load_corpus, read_files
from conformance.errors import CaseError
from conformance.spec import Spec

#: The directory holding the `conformance` and `runner` packages.
_PACKAGES = Path(__file__).resolve().parent.parent
#: Below this many files one process is quicker: starting the workers costs about 0.1 s.
PARALLEL_FROM = 2000
#: The worker: its own small process, not multiprocessing's, which would import this
#: program's `__main__` again in each worker (`python -m runner` would start a second run).
_WORKER = (sys.executable, "-c", "from runner.parse_worker import main; raise SystemExit(main())")


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def load_cases(paths: Sequence[Path], spec: Spec, *, jobs: int | None = None) -> Corpus:
    """`conformance.cases.load_corpus`, with the YAML of a large corpus parsed in `jobs` processes.

    Parsing is most of the cost of loading a case (PyYAML builds a Python object for every
    node, even on libyaml), and it needs nothing but the file: workers parse, the data comes
    back in marshal's compact form, and checking and modelling stay here, in order, so the
    corpus, its bugs and their messages are exactly those of loading in one process.
    """
    jobs = usable_cpus() if jobs is None else jobs
    if jobs < 2 or len(paths) < PARALLEL_FROM:
        return load_corpus(paths, spec)
    jobs = min(jobs, len(paths) // (PARALLEL_FROM // 2))  # a worker is worth a thousand files
    return load_corpus(paths, spec, read=lambda files: _read_in_workers(files, jobs))


def _read_in_workers(paths: Sequence[Path], jobs: int) -> Iterator[Any]:
    """Each file's data in order; worker k parses files k, k + jobs, k + 2 jobs, ..."""
    workers = [_Worker([str(path) for path in paths[k::jobs]]) for k in range(jobs)]
    try:
        for index, path in enumerate(paths):
            item = workers[index % jobs].next_item()
            if item is None:  # the worker could not start, or failed: this file is read here
                yield from read_files([path])
            else:
                yield _unpack(path, item)
    finally:
        for worker in workers:
            worker.stop()


class _Worker:
    """One parse worker; a thread drains its frames as they come, so it never waits for us."""

    def __init__(self, paths: list[str]) -> None:
        self._frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._batch: list[Any] = []
        self._failed = False
        # The worker imports these very packages, installed or not.
        search = os.pathsep.join(filter(None, (str(_PACKAGES), os.environ.get("PYTHONPATH"))))
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                _WORKER,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": search},
            )
        except OSError:
            self._process, self._failed = None, True
            return
        listing = json.dumps(paths).encode()
        threading.Thread(target=self._talk, args=(self._process, listing), daemon=True).start()

    def _talk(self, process: subprocess.Popen[bytes], listing: bytes) -> None:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(listing)
            process.stdin.close()
            while len(head := process.stdout.read(4)) == 4:
                (size,) = struct.unpack(">I", head)
                frame = process.stdout.read(size)
                if len(frame) < size:
                    break
                self._frames.put(frame)
        except (OSError, ValueError):
            pass  # the worker died or was stopped
        self._frames.put(None)

    def next_item(self) -> tuple[Any, ...] | None:
        """The worker's next parsed file, or None once it has failed (or never started)."""
        if self._failed:
            return None
        if not self._batch:
            frame = self._frames.get()
            try:
                batch = None if frame is None else marshal.loads(frame)
            except (ValueError, EOFError, TypeError):
                batch = None
            if not (isinstance(batch, list) and batch):
                self._failed = True
                return None
            batch.reverse()  # popped from the end, in order
            self._batch = batch
        item = self._batch.pop()
        if not (isinstance(item, tuple) and item):
            self._failed = True
            return None
        return item

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()


def _unpack(path: Path, item: tuple[Any, ...]) -> Any:
    match item:
        case ("data", value):
            return value
        case ("error", reason, line, hint):
            return CaseError(path, reason, line=line, hint=hint)
    return next(iter(read_files([path])))
