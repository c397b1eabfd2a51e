"""Streaming access to shifr containers: :func:`open_encrypted` returns a file-like object that
writes (``"wb"``) or reads (``"rb"``) the plaintext of a container, byte-compatible with the CLI.

A writer to a path follows the CLI's atomic-output rule: nothing appears under the name until
``close()`` succeeds, and leaving a ``with`` block through an exception (or calling ``abort()``)
leaves nothing behind. A reader returns plaintext only from batches of chunks whose tags verified,
and raises :class:`~shifr.TruncatedError` or :class:`~shifr.AuthenticationError` at the first bad
batch, as ``shifr decrypt`` to stdout does."""

from __future__ import annotations

import io
import os
from typing import Any, BinaryIO, Optional, Union

from . import _shifr
from ._errors import InvalidParameterError, ShifrIOError, TruncatedError

HEADER_LEN = 80
#: Plaintext bytes sealed or opened per native call (rounded to whole chunks).
BATCH_BYTES = 1 << 20


def _name_of(target: Any) -> str:
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target)
    return str(getattr(target, "name", "<stream>"))


class EncryptedWriter(io.BufferedIOBase):
    """Writes a container: the header at once, then whole sealed chunks as plaintext comes in, and
    the final chunk at :meth:`close`."""

    def __init__(self, target: Any, secret: dict, new_file: dict, force: bool = False) -> None:
        super().__init__()
        self._name = _name_of(target)
        self._sealer = _shifr.ChunkSealer(secret, new_file)
        self._chunk = self._sealer.chunk_size
        self._batch = max(BATCH_BYTES // self._chunk, 1) * self._chunk
        self._atomic: Optional[Any] = None
        self._file: Optional[BinaryIO] = None
        if isinstance(target, (str, os.PathLike)):
            self._atomic = _shifr.AtomicFile(os.fspath(target), force)
        else:
            self._file = target
        self._pending = bytearray()
        self._next_chunk = 0
        self._emit(self._sealer.header())

    @property
    def name(self) -> str:
        return self._name

    def _emit(self, data: bytes) -> None:
        if self._atomic is not None:
            self._atomic.write(data)
        else:
            view = memoryview(data)
            while view:
                n = self._file.write(view)
                if n is None:
                    raise ShifrIOError(f"writing {self._name}: a non-blocking stream is not supported")
                view = view[n:]

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self.closed:
            raise ValueError("write to a closed shifr writer")
        view = memoryview(data).cast("B")
        self._pending += view
        if len(self._pending) > self._batch:
            # Whole chunks are never final (the final chunk holds fewer than chunk_size bytes).
            whole = len(self._pending) // self._chunk * self._chunk
            sealed = self._sealer.seal(self._next_chunk, bytes(self._pending[:whole]), False)
            self._emit(sealed)
            self._next_chunk += whole // self._chunk
            del self._pending[:whole]
        return len(view)

    def flush(self) -> None:
        if self._file is not None and not self.closed:
            self._file.flush()

    def close(self) -> None:
        """Seals the final chunk and, for a path, gives the file its name."""
        if self.closed:
            return
        try:
            sealed = self._sealer.seal(self._next_chunk, bytes(self._pending), True)
            self._emit(sealed)
            self._pending = bytearray()
            if self._atomic is not None:
                self._atomic.commit()
            elif self._file is not None:
                self._file.flush()
        except BaseException:
            self.abort()
            raise
        finally:
            super().close()

    def abort(self) -> None:
        """Drops what was written: nothing appears under a target path."""
        if self._atomic is not None:
            self._atomic.abort()
        self._pending = bytearray()
        if not self.closed:
            super().close()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self.abort()
        else:
            self.close()

    def __del__(self) -> None:
        # A writer dropped without close() is incomplete: it must not appear under its name.
        if not self.closed:
            self.abort()


class EncryptedReader(io.BufferedIOBase):
    """Reads the plaintext of a container, batch by verified batch."""

    def __init__(self, source: Any, secret: dict) -> None:
        super().__init__()
        self._name = _name_of(source)
        self._owned = isinstance(source, (str, os.PathLike))
        if self._owned:
            try:
                self._file = open(source, "rb")
            except OSError as e:
                raise ShifrIOError(f"cannot open {self._name}: {e.strerror or e}") from e
        else:
            self._file = source
        try:
            header = self._read_exact(HEADER_LEN)
            self._opener = _shifr.ChunkOpener(header, secret, self._name)
        except BaseException:
            self._close_source()
            raise
        self._slot = self._opener.sealed_chunk_size
        self._batch_slots = max(BATCH_BYTES // self._opener.chunk_size, 1)
        self._sealed = bytearray()
        self._plain = bytearray()
        self._next_chunk = 0
        self._eof = False
        self._done = False

    @property
    def name(self) -> str:
        return self._name

    def _read_exact(self, n: int) -> bytes:
        parts = []
        while n > 0:
            piece = self._file.read(n)
            if not piece:
                break
            parts.append(piece)
            n -= len(piece)
        return b"".join(parts)

    def _fill(self) -> None:
        """Opens the next batch of chunks into the plaintext buffer."""
        want = self._batch_slots * self._slot + 1
        while not self._eof and len(self._sealed) < want:
            piece = self._file.read(want - len(self._sealed))
            if not piece:
                self._eof = True
            else:
                self._sealed += piece
        if not self._eof:
            take = self._batch_slots * self._slot
            plain = self._opener.open(self._next_chunk, bytes(self._sealed[:take]), False, self._name)
            del self._sealed[:take]
            self._next_chunk += self._batch_slots
            self._plain += plain
            return
        rest = bytes(self._sealed)
        self._sealed = bytearray()
        self._done = True
        if len(rest) % self._slot == 0:
            # Only whole chunks (or nothing) before the end: the final chunk is gone. The chunks that
            # are there are checked first, so damage is reported as such.
            self._opener.open(self._next_chunk, rest, False, self._name)
            chunks = self._next_chunk + len(rest) // self._slot
            raise TruncatedError(
                f"{self._name}: truncated: the final chunk is missing after {chunks} chunks"
            )
        self._plain += self._opener.open(self._next_chunk, rest, True, self._name)

    def readable(self) -> bool:
        return True

    def read(self, size: Optional[int] = -1) -> bytes:
        if self.closed:
            raise ValueError("read from a closed shifr reader")
        if size is None or size < 0:
            while not self._done:
                self._fill()
            out = bytes(self._plain)
            self._plain = bytearray()
            return out
        while len(self._plain) < size and not self._done:
            self._fill()
        out = bytes(self._plain[:size])
        del self._plain[:size]
        return out

    def read1(self, size: int = -1) -> bytes:
        if not self._plain and not self._done:
            self._fill()
        if size is None or size < 0:
            size = len(self._plain)
        out = bytes(self._plain[:size])
        del self._plain[:size]
        return out

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def _close_source(self) -> None:
        if self._owned:
            self._file.close()

    def close(self) -> None:
        if not self.closed:
            self._close_source()
            super().close()


def open_encrypted(
    file: Union[str, "os.PathLike[str]", BinaryIO],
    mode: str = "rb",
    *,
    key_file: Any = None,
    key: Optional[bytes] = None,
    passphrase: Union[str, bytes, None] = None,
    aead: Optional[str] = None,
    chunk_size: Optional[int] = None,
    force: bool = False,
    salt: Optional[bytes] = None,
    nonce_prefix: Optional[bytes] = None,
    max_kdf_memory: Optional[int] = None,
    max_kdf_passes: Optional[int] = None,
) -> Union[EncryptedReader, EncryptedWriter]:
    """Opens a shifr container for streaming: ``"rb"`` reads its plaintext, ``"wb"`` writes a new
    container from the plaintext written to it. ``file`` is a path or a binary file object. The
    secret and the other keywords are those of :func:`shifr.encrypt_file`; ``aead``,
    ``chunk_size``, ``force``, ``salt`` and ``nonce_prefix`` apply to ``"wb"`` only,
    ``max_kdf_memory`` and ``max_kdf_passes`` (as in :func:`shifr.decrypt_file`) to ``"rb"`` only."""
    from . import _new_file, _secret

    secret = _secret(key_file, key, passphrase, max_kdf_memory, max_kdf_passes)
    if mode in ("rb", "r"):
        if aead is not None or chunk_size is not None or salt is not None or nonce_prefix is not None:
            raise InvalidParameterError("aead, chunk_size, salt and nonce_prefix are for mode 'wb'")
        return EncryptedReader(file, secret)
    if mode in ("wb", "w"):
        if max_kdf_memory is not None or max_kdf_passes is not None:
            raise InvalidParameterError("max_kdf_memory and max_kdf_passes are for mode 'rb'")
        return EncryptedWriter(file, secret, _new_file(aead, chunk_size, salt, nonce_prefix), force)
    raise InvalidParameterError(f"mode must be 'rb' or 'wb', not {mode!r}")
