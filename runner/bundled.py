"""`cardid reference`: the bundled reference implementation (cardid_reference), started as an
adapter; imported only when this command is performed."""

from __future__ import annotations

import argparse

from cardid_runner import options
from cardid_runner.subcommand import Command, Context, Subcommands


def _declare(commands: Subcommands) -> argparse.ArgumentParser:
    """`cardid reference`: its parser."""
    return options.add_command(
        commands,
        "reference",
        help="start the bundled reference implementation as an adapter",
        description=(
            "Start the bundled reference implementation as an adapter: it reads requests on "
            "standard input and answers on standard output, in per-case or persistent mode "
            "(spec/adapter-contract.md). `cardid run` uses it when no --impl is given."
        ),
        epilog='example:\n  echo \'{"role": "reader", "text": "#c1 \\"Island\\" owner=P1"}\' | cardid reference',
    )


def _perform(args: argparse.Namespace, context: Context) -> int:
    from cardid_reference.adapter import main as reference_main  # started as an adapter only

    return reference_main()


COMMAND = Command("reference", _declare, _perform)
