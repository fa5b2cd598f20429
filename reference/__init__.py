"""The bundled reference implementation of card identity 1.2.0 (writer, reader and adapter).

Its version is the version of the spec it implements (tests/test_reference.py keeps them equal),
so that what an implementation's handshake says of the reference means that spec.
"""

__version__ = "1.2.0"
