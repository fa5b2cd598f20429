"""`python -m cardid_runner`: the same as the `cardid` command."""

from cardid_runner.cli import main

raise SystemExit(main())
