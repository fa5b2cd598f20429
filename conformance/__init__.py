"""The pure core of the card-identity conformance suite: cases, spec, comparison, reports.

The suite's version is the installed package's (`suite.version()`); the spec's is in
spec/rules.yaml."""

from __future__ import annotations
