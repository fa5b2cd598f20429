"""The values `cardid` options take, checked before anything runs.

Each function is an argparse `type`: it returns the value, or raises ArgumentTypeError saying
what is allowed, which the parser turns into one line naming the option (`error: cardid run:
argument --timeout-multiplier: ...`) and exit status 2. Checking here, not where a value is
used, means a typo costs nothing: no case has run when it is reported.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from cardid_conformance import files, suite
from cardid_conformance.cases import Role
from cardid_conformance.sources.profile import RENDERERS
from cardid_runner import writing
from cardid_runner.process.command import split_command
from cardid_runner.process.errors import BadCommand

if TYPE_CHECKING:
    from cardid_runner.subcommand import Subcommands

#: `--timeout-multiplier` scales a 10 s case and a 30 s handshake: from 0.1 s to about 8 hours.
MULTIPLIERS = (0.01, 1000.0)
#: `-j`: each worker runs its own implementation process.
MAX_JOBS = 256

_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?")
_CASE_PATTERN = re.compile(r"[a-z0-9*?\[\]!-]+")
_CR_NUMBER = re.compile(r"[1-9][0-9]{2}(\.[0-9]+[a-z]?)?")
_TAG = re.compile(r"[a-z0-9-]+")


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _refuse(message: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(message)


def multiplier(text: str) -> float:
    """A finite decimal number within MULTIPLIERS (no nan, inf, signs or other digits)."""
    low, high = MULTIPLIERS
    allowed = f"takes a number from {low:g} to {high:g}, not {text!r}"
    if not _DECIMAL.fullmatch(text):
        raise _refuse(allowed)
    value = float(text)
    if not (math.isfinite(value) and low <= value <= high):
        raise _refuse(allowed)
    return value


def jobs(text: str) -> int:
    """`auto` (the usable CPUs) or a whole number from 1 to MAX_JOBS."""
    if text == "auto":
        return max(1, min(usable_cpus(), MAX_JOBS))
    allowed = f"takes 'auto' or a whole number from 1 to {MAX_JOBS}, not {text!r}"
    if not re.fullmatch(r"[0-9]{1,4}", text) or not 1 <= int(text) <= MAX_JOBS:
        raise _refuse(allowed)
    return int(text)


def case_pattern(text: str) -> str:
    """A case ID or a glob of one: lowercase letters, digits, `-`, and `* ? [ ] !`."""
    if not _CASE_PATTERN.fullmatch(text):
        raise _refuse(f"takes a case ID or glob (a-z, 0-9, '-', and * ? [ ] !), not {text!r}")
    return text


def cr_number(text: str) -> str:
    """A Comprehensive Rules number: a section (701), a rule (701.24) or a subrule (701.24a)."""
    if not _CR_NUMBER.fullmatch(text):
        raise _refuse(f"takes a CR number such as 701, 701.24 or 701.24a, not {text!r}")
    return text


def tag(text: str) -> str:
    """A case tag: lowercase letters, digits and `-`."""
    if not _TAG.fullmatch(text):
        raise _refuse(f"takes a tag (a-z, 0-9 and '-'), not {text!r}")
    return text


def command(text: str) -> str:
    """An implementation command that splits into at least a program."""
    try:
        split_command(text)
    except BadCommand as exc:
        raise _refuse(f"takes an implementation command: {exc.message}") from None
    return text


def _path(text: str, what: str) -> Path:
    if not text or "\0" in text:
        raise _refuse(f"takes {what}, not {text!r}")
    return Path(text)


def input_file(text: str) -> Path:
    """A file to read; its reader refuses what is not a regular file, naming it."""
    return _path(text, "a file path")


def case_source(text: str) -> Path:
    """An existing case directory, or one regular case file."""
    path = _path(text, "a case directory or file")
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise _refuse(f"takes a case directory or file: {text}: {files.describe(exc)}") from None
    what = files.kind(mode)
    if what is not None and what != "a directory":
        raise _refuse(f"takes a case directory or file: {text} is {what}")
    return path


def output_file(text: str) -> Path:
    """A file to write a report to: absent, or a regular file, in a folder that can be written;
    or a stream (runner/writing.py): `-` or another name of an open descriptor other than
    standard input, a character device or a FIFO.

    A symlink at the name is replaced by the report, never followed, unless it leads to a
    stream.
    """
    path = _path(text, "a file path")
    try:
        return _output_file(path, text)
    except OSError as exc:  # a name too long, a loop of symlinks, a folder denied
        raise _refuse(f"cannot write {text}: {files.describe(exc)}") from None


def _output_file(path: Path, text: str) -> Path:
    fd = writing.descriptor(path)
    if fd == 0:
        raise _refuse(f"takes a file to write: {text} is standard input")
    if fd is not None:
        try:
            os.fstat(fd)
        except OSError:
            raise _refuse(f"takes a file to write: {text} names descriptor {fd}, which is not open") from None
        return path
    if writing.is_stream(path):
        return path
    if path.is_symlink() or not path.exists():
        _check_folder(path.parent, text)
        return path
    what = files.kind(os.stat(path).st_mode)
    if what is not None:
        raise _refuse(f"takes a file to write: {text} is {what}")
    _check_folder(path.parent, text)
    return path


def output_dir(text: str) -> Path:
    """A folder to write into: an existing directory, or one that can be made in its parent."""
    path = _path(text, "a folder path")
    try:
        return _output_dir(path, text)
    except OSError as exc:  # a name too long, a loop of symlinks, a folder denied
        raise _refuse(f"cannot write {text}: {files.describe(exc)}") from None


def _output_dir(path: Path, text: str) -> Path:
    if path.exists():
        what = files.kind(os.stat(path).st_mode)
        if what != "a directory":
            raise _refuse(f"takes a folder: {text} is {what or 'a regular file'}")
        _check_folder(path, text)
        return path
    parent = next((p for p in path.absolute().parents if p.exists() or p.is_symlink()), Path("/"))
    _check_folder(parent, text)
    return path


def _check_folder(folder: Path, text: str) -> None:
    where = folder if str(folder) else Path(".")
    try:
        mode = os.stat(where).st_mode
    except OSError as exc:
        raise _refuse(f"cannot write {text}: {where}: {files.describe(exc)}") from None
    what = files.kind(mode)
    if what != "a directory":
        raise _refuse(f"cannot write {text}: {where} is {what or 'a regular file'}, not a folder")
    if not os.access(where, os.W_OK | os.X_OK):
        raise _refuse(f"cannot write {text}: no permission to write in {where}")


# --- options several commands take, defined once -----------------------------------------------


def add_timeout_multiplier(parser: argparse.ArgumentParser) -> None:
    low, high = MULTIPLIERS
    parser.add_argument("--timeout-multiplier", type=multiplier, default=1.0, metavar="X",
                        help=f"scale every time limit by X ({low:g} to {high:g})")


def add_command(
    commands: Subcommands,
    name: str,
    *,
    help: str,
    description: str,
    epilog: str,
    fill: bool = True,
) -> argparse.ArgumentParser:
    """Add one `cardid` command's parser (a Command's `declare`, runner/subcommand.py): its
    description, one paragraph, filled to 88 columns (never breaking a word such as
    `tab-separated` or a path), or with `fill=False` kept as written (paragraphs, a table), and
    its epilog (examples, exit status) kept as written."""
    if fill:
        description = textwrap.fill(description, width=88, break_on_hyphens=False, break_long_words=False)
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def add_selection(parser: argparse.ArgumentParser) -> None:
    """--cases and the options that select cases (conformance/selection.py), as `cardid run`
    and `cardid list` take them."""
    parser.add_argument("--cases", type=case_source, default=suite.CASES_DIR,
                        help="case directory or file")
    parser.add_argument("--case", action="append", default=[], metavar="ID", type=case_pattern,
                        help="case ID or glob")
    parser.add_argument("--rule", action="append", default=[], metavar="RULE", help="rule ID (ID-3) or family (LIB)")
    parser.add_argument("--cr", dest="cr_filter", action="append", default=[], metavar="NUMBER",
                        type=cr_number, help="CR number, e.g. 701.24")
    parser.add_argument("--tag", action="append", default=[], type=tag,
                        help="a case tag, such as library or token (`cardid list` shows each case's)")
    parser.add_argument("--level", action="append", default=[], choices=["MUST", "SHOULD", "MAY"],
                        help="the case's level")
    parser.add_argument("--role", action="append", default=[], choices=[role.value for role in Role],
                        help="the case's role")


def add_implementation(
    parser: argparse.ArgumentParser, *, required: bool = False, impl_help: str | None = None,
    isolate: str | None = "one process per case",
) -> None:
    """--impl, --isolate (unless `isolate` is None) and --timeout-multiplier, as `cardid run`
    takes them."""
    parser.add_argument("--impl", metavar="COMMAND", type=command, required=required,
                        help=impl_help or "implementation command (default: the bundled reference)")
    if isolate is not None:
        parser.add_argument("--isolate", action="store_true", help=isolate)
    add_timeout_multiplier(parser)


def games(text: str) -> int:
    """A count of games: a whole number from 1."""
    if not text.isdigit() or int(text) < 1:
        raise _refuse(f"takes a whole number from 1, not {text!r}")
    return int(text)


def add_generated(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--generated", type=games, default=0, metavar="N",
                        help="after the corpus, play N generated games whose truth is known (seeds 0 to N-1, "
                        "as cardid fuzz plays them), reported apart: a disagreement fails the run")


def add_jobs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-j", "--jobs", type=jobs, default="1", metavar="N",
                        help=f"parallel workers (1 to {MAX_JOBS}), or 'auto'")


def add_known_failures(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--expect", dest="known_failures", type=input_file, metavar="PATH",
                        help="known-failure file for this implementation")


#: The source formats a run can be declared for (--source): those with a renderer.
SOURCES = tuple(RENDERERS)


def source_format(text: str) -> str:
    """A source format a run can be declared for."""
    if text not in SOURCES:
        raise _refuse(f"takes one of {', '.join(SOURCES)}, not {text!r}")
    return text


def add_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source", type=source_format, metavar="FORMAT",
        help="judge the implementation as a reader of this source's logs (arena, mtgo): cases the "
             "format cannot express are reported as not applicable, with the reason, and never run",
    )
