"""`python -m runner`: the same as the `cardid` command."""

from runner.cli import main

raise SystemExit(main())
