"""The pure core of the card-identity conformance suite: cases, spec, comparison, reports."""

from __future__ import annotations

__version__ = "0.1.0"
