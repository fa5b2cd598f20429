"""One `cardid` command, of one shape: its name, the parser it declares, and what it performs.

Each command module exports its Command (`COMMAND`, or `COMMANDS` for a module of two), and
runner/cli.py lists them all in one tuple, which builds the `cardid` parser and dispatches by
name. `declare` adds the command's parser to the `cardid` subcommands (through
`options.add_command`) and returns it; `perform` reads the parsed options into typed values
(the Namespace goes no further) and runs the command with them, returning its exit code.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from cardid_runner.process.timing import DEFAULT, Timing

if TYPE_CHECKING:
    from cardid_runner.adapter import Launcher

#: The `cardid` parser's subcommands, which each command's parser is added to.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """What a command is given beside its options: the seams `cli.main` takes. `launcher`
    runs the implementation of `cardid run` instead of real processes of --impl, and `timing`
    replaces the waits of process handling (runner/process/timing.py) for `run` and `doctor`:
    the project's tests pass in-memory implementations and shorter waits."""

    launcher: Launcher | None = None
    timing: Timing = DEFAULT


@dataclass(frozen=True, slots=True)
class Command:
    """A `cardid` command: `declare(subcommands)` adds its parser (help, description, epilog
    with its exit codes, options) and returns it; `perform(args, context)` runs it and gives
    its exit code."""

    name: str
    declare: Callable[[Subcommands], argparse.ArgumentParser]
    perform: Callable[[argparse.Namespace, Context], int]
