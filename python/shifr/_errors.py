"""The exceptions of the shifr package.

Each class is one category of the ``shifr`` CLI's errors, and carries its exit code as
``exit_code`` (docs/FORMAT.md, "Errors and exit codes").
"""

from __future__ import annotations


class ShifrError(Exception):
    """Base class of every shifr error; ``exit_code`` is the CLI's exit status for it (1: other)."""

    exit_code = 1


class InvalidParameterError(ShifrError, ValueError):
    """A bad argument: unknown algorithm, wrong key, nonce or tag length, bad chunk size."""

    exit_code = 1


class OutputExistsError(ShifrError, FileExistsError):
    """The output file exists and ``force`` was not given."""

    exit_code = 1


class NotShifrError(ShifrError):
    """Not a shifr file, or a malformed header."""

    exit_code = 3


class UnsupportedVersionError(ShifrError):
    """A shifr file of a format version this build does not read."""

    exit_code = 4


class WrongKeyError(ShifrError):
    """Wrong key or passphrase, an altered header, or a passphrase for a key-file container (or the reverse)."""

    exit_code = 5


class TruncatedError(ShifrError):
    """The container ends without its final chunk."""

    exit_code = 6


class AuthenticationError(ShifrError):
    """A chunk (or an AEAD message) failed authentication: corrupted, reordered, cut or extended."""

    exit_code = 7


class ShifrIOError(ShifrError, OSError):
    """Reading or writing a file failed; the message names the path."""

    exit_code = 8


_BY_NAME = {
    cls.__name__: cls
    for cls in (
        ShifrError,
        InvalidParameterError,
        OutputExistsError,
        NotShifrError,
        UnsupportedVersionError,
        WrongKeyError,
        TruncatedError,
        AuthenticationError,
        ShifrIOError,
    )
}


def make(name: str, message: str) -> ShifrError:
    """The exception of class ``name`` with ``message`` (used by the native module)."""
    cls = _BY_NAME.get(name, ShifrError)
    if issubclass(cls, OSError):
        exc = cls(message)
        exc.strerror = message
        return exc
    return cls(message)


def for_exit_code(code: int) -> type:
    """The exception class of a CLI exit code (1 and unknown codes: ShifrError)."""
    for cls in _BY_NAME.values():
        if cls.exit_code == code and cls not in (InvalidParameterError, OutputExistsError):
            return cls
    return ShifrError
