"""`python -m cardid_reference`: the reference adapter on standard input and output."""

from __future__ import annotations

from .adapter import main

raise SystemExit(main())
