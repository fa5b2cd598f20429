"""The bundled reference implementation of card identity 1.0.0 (writer, reader and adapter)."""

__version__ = "1.0.0"
