"""More mutants (spec 1.2.0): see the package docstring; registered on import of the package."""

from __future__ import annotations
