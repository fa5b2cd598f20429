"""The one error the reference raises for input it rejects as invalid."""

from __future__ import annotations


class RequestError(Exception):
    """The request (or card table text) is invalid: the adapter answers with a rejection."""
