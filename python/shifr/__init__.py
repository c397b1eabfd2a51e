"""shifr from Python.

* :func:`algorithms` and :func:`algorithm_info`: the catalogue of ``shifr list``.
* :class:`Aead`: a keyed AEAD that seals and opens any writable buffer (bytearray, memoryview, NumPy
  array) in place, with the GIL released.
* :func:`encrypt_file`, :func:`decrypt_file`, :func:`open_encrypted`: the shifr container
  (docs/FORMAT.md), byte-compatible with ``shifr encrypt`` / ``shifr decrypt`` both ways, with the
  CLI's atomic-output rule and its error categories (:mod:`shifr._errors`).
* :func:`bench`: ``shifr bench``'s measurements as a list of dicts (``pandas.DataFrame(rows)``).
* :mod:`shifr.dask` (extra ``shifr[dask]``): whole trees and single huge files over a Dask cluster.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _shifr
from ._buffers import readonly_bytes, writable
from ._errors import (
    AuthenticationError,
    InvalidParameterError,
    NotShifrError,
    OutputExistsError,
    ShifrError,
    ShifrIOError,
    TruncatedError,
    UnsupportedVersionError,
    WrongKeyError,
)
from ._stream import EncryptedReader, EncryptedWriter, open_encrypted

__version__ = _shifr.__version__

__all__ = [
    "Aead",
    "AuthenticationError",
    "CONTAINER_AEADS",
    "EncryptedReader",
    "EncryptedWriter",
    "InvalidParameterError",
    "NotShifrError",
    "OutputExistsError",
    "ShifrError",
    "ShifrIOError",
    "TruncatedError",
    "UnsupportedVersionError",
    "WrongKeyError",
    "algorithm_info",
    "algorithms",
    "bench",
    "decrypt_file",
    "encrypt_file",
    "open_encrypted",
    "read_header",
]

PathLike = Union[str, "os.PathLike[str]"]

_ENTRIES: List[Dict[str, Any]] = _shifr.catalog_entries()

#: The AEADs of the container format, in header-id order.
CONTAINER_AEADS = [
    "aes-256-gcm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    "kuznyechik-mgm",
    "magma-mgm",
]


def algorithms(kind: Optional[str] = None) -> List[str]:
    """Every algorithm name of the catalogue (``shifr list``), or those of one ``kind``:
    ``"block mode"``, ``"stream"``, ``"aead"`` or ``"mac"``."""
    return [e["name"] for e in _ENTRIES if kind is None or e["kind"] == kind]


def algorithm_info(name: str) -> Dict[str, Any]:
    """The catalogue entry of ``name`` (case-insensitive): kind, key, IV and tag lengths, block
    size, whether the container takes it, the implementation this machine runs, a description."""
    for e in _ENTRIES:
        if e["name"].lower() == name.strip().lower():
            return dict(e)
    raise InvalidParameterError(f"unknown algorithm: {name}")


class Aead:
    """A keyed AEAD of the catalogue (``shifr.algorithms("aead")``).

    ``seal`` and ``open`` work in place on any C-contiguous writable buffer without copying it, and
    release the GIL while they run; ``encrypt`` and ``decrypt`` take any bytes-like input and return
    new ``bytes`` (ciphertext followed by the tag).
    """

    def __init__(self, name: str, key: bytes, *, tag_len: Optional[int] = None) -> None:
        self._native = _shifr.NativeAead(name, readonly_bytes(key), tag_len)

    @property
    def name(self) -> str:
        """The catalogue name."""
        return self._native.name

    @property
    def key_len(self) -> int:
        """Key bytes."""
        return self._native.key_len

    @property
    def tag_len(self) -> int:
        """Tag bytes ``seal`` returns and ``open`` expects."""
        return self._native.tag_len

    @property
    def nonce_len(self) -> int:
        """The usual nonce length in bytes (GCM also takes others)."""
        return self._native.nonce_len

    def seal(self, nonce: bytes, data: Any, aad: bytes = b"") -> bytes:
        """Encrypts the writable buffer ``data`` in place; returns the tag."""
        keeper, addr, n = writable(data)
        try:
            return self._native.seal_at(readonly_bytes(nonce), addr, n, readonly_bytes(aad))
        finally:
            del keeper

    def open(self, nonce: bytes, data: Any, tag: bytes, aad: bytes = b"") -> None:
        """Verifies ``tag`` and decrypts the writable buffer ``data`` in place. Raises
        :class:`AuthenticationError` (leaving ``data`` unchanged) when it does not verify."""
        keeper, addr, n = writable(data)
        try:
            self._native.open_at(
                readonly_bytes(nonce), addr, n, readonly_bytes(tag), readonly_bytes(aad)
            )
        finally:
            del keeper

    def encrypt(self, nonce: bytes, data: Any, aad: bytes = b"") -> bytes:
        """Ciphertext followed by the tag, as new bytes."""
        return self._native.encrypt(readonly_bytes(nonce), readonly_bytes(data), readonly_bytes(aad))

    def decrypt(self, nonce: bytes, data: Any, aad: bytes = b"") -> bytes:
        """The plaintext of ``data`` (ciphertext followed by the tag). Raises
        :class:`AuthenticationError` when it does not verify."""
        return self._native.decrypt(readonly_bytes(nonce), readonly_bytes(data), readonly_bytes(aad))

    def __repr__(self) -> str:
        return f"shifr.Aead({self.name!r}, tag_len={self.tag_len})"


def _secret(
    key_file: Optional[PathLike],
    key: Optional[bytes],
    passphrase: Union[str, bytes, None],
    max_kdf_memory: Optional[int] = None,
    max_kdf_passes: Optional[int] = None,
) -> Dict[str, Any]:
    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    return {
        "key_file": os.fspath(key_file) if key_file is not None else None,
        "key": readonly_bytes(key) if key is not None else None,
        "passphrase": readonly_bytes(passphrase) if passphrase is not None else None,
        "max_kdf_memory": max_kdf_memory,
        "max_kdf_passes": max_kdf_passes,
    }


def _new_file(
    aead: Optional[str],
    chunk_size: Optional[int],
    salt: Optional[bytes],
    nonce_prefix: Optional[bytes],
) -> Dict[str, Any]:
    def sixteen(value: Optional[bytes], what: str) -> bytes:
        if value is None:
            return os.urandom(16)
        value = readonly_bytes(value)
        if len(value) != 16:
            raise InvalidParameterError(f"{what} must be 16 bytes, not {len(value)}")
        return value

    return {
        "aead": aead,
        "chunk_size": chunk_size,
        "salt": sixteen(salt, "salt"),
        "nonce_prefix": sixteen(nonce_prefix, "nonce_prefix"),
    }


def encrypt_file(
    src: PathLike,
    dst: PathLike,
    *,
    key_file: Optional[PathLike] = None,
    key: Optional[bytes] = None,
    passphrase: Union[str, bytes, None] = None,
    aead: Optional[str] = None,
    threads: Optional[int] = None,
    chunk_size: Optional[int] = None,
    force: bool = False,
    salt: Optional[bytes] = None,
    nonce_prefix: Optional[bytes] = None,
) -> int:
    """Encrypts the file ``src`` into the shifr container ``dst``, as ``shifr encrypt``; returns the
    plaintext bytes.

    The secret is one of ``key_file`` (``shifr keygen``: 32 raw bytes or 64 hex digits), ``key``
    (32 bytes) or ``passphrase`` (Argon2id, m = 64 MiB, t = 3, p = 1; ``SHIFR_TEST_ARGON2=m,t,p``
    lowers it for tests). ``aead`` is a container AEAD (:data:`CONTAINER_AEADS`; default
    aes-256-gcm where the CPU has AES instructions, else chacha20-poly1305). ``dst`` appears only
    when complete (never over an existing file unless ``force``). ``salt`` and ``nonce_prefix`` are
    random unless given (fixed values are for test vectors only). ``threads``: default all cores.
    """
    n, _ = _shifr.encrypt_file(
        os.fspath(src),
        os.fspath(dst),
        _secret(key_file, key, passphrase),
        _new_file(aead, chunk_size, salt, nonce_prefix),
        threads,
        force,
    )
    return n


def decrypt_file(
    src: PathLike,
    dst: PathLike,
    *,
    key_file: Optional[PathLike] = None,
    key: Optional[bytes] = None,
    passphrase: Union[str, bytes, None] = None,
    threads: Optional[int] = None,
    force: bool = False,
    max_kdf_memory: Optional[int] = None,
    max_kdf_passes: Optional[int] = None,
) -> int:
    """Decrypts the container ``src`` into ``dst``, as ``shifr decrypt``; returns the plaintext
    bytes. ``dst`` appears only once every chunk verified. A passphrase file whose header asks for
    more Argon2id memory than ``max_kdf_memory`` bytes (default: half of this machine's memory) or
    more passes than ``max_kdf_passes`` (default: 3, what shifr writes) is refused before any key
    derivation (:class:`InvalidParameterError`), as the CLI's ``--max-kdf-*``. Errors:
    :class:`NotShifrError`, :class:`UnsupportedVersionError`, :class:`WrongKeyError`,
    :class:`TruncatedError`, :class:`AuthenticationError`, :class:`ShifrIOError`,
    :class:`OutputExistsError`, :class:`InvalidParameterError`."""
    return _shifr.decrypt_file(
        os.fspath(src),
        os.fspath(dst),
        _secret(key_file, key, passphrase, max_kdf_memory, max_kdf_passes),
        threads,
        force,
    )


def read_header(source: Union[PathLike, bytes]) -> Dict[str, Any]:
    """The header fields of a container (a path, or its first 80 bytes), as ``shifr info``:
    aead, kdf (and argon2 parameters), chunk_size, tag_len, salt, nonce_prefix."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        head = bytes(source[:80])
    else:
        try:
            with open(source, "rb") as f:
                head = f.read(80)
        except OSError as e:
            raise ShifrIOError(f"cannot open {os.fspath(source)}: {e.strerror or e}") from e
    return _shifr.parse_header(head)


_SIZE_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "k": 1 << 10, "mib": 1 << 20, "m": 1 << 20, "gib": 1 << 30}


def _size(value: Union[int, str]) -> int:
    if isinstance(value, int):
        return value
    text = value.strip().lower().replace(" ", "")
    digits = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = text[len(digits):]
    if not digits.isdigit() or unit not in _SIZE_UNITS:
        raise InvalidParameterError(f"bad size {value!r} (say 4096, 16KiB or 1MiB)")
    return int(digits) * _SIZE_UNITS[unit]


def bench(
    algorithms: Union[str, Sequence[str]],
    sizes: Union[int, str, Sequence[Union[int, str]]] = (16384,),
    peers: Union[str, Iterable[str]] = "none",
    *,
    seconds: float = 0.12,
    threads: int = 1,
    notes: Optional[List[str]] = None,
) -> List[Dict[str, Any]]:
    """Measures ``shifr bench``'s way (medians of interleaved samples, docs/BENCHMARKS.md): every
    algorithm at every size (bytes, or "16KiB", "1MiB"), beside ``peers`` ("openssl",
    "openssl-gost", "rustcrypto", "all" or "none"). Returns one dict a row, the fields of
    ``shifr bench --json`` (``pandas.DataFrame(rows)`` makes a table); what could not be measured is
    appended to ``notes`` when a list is given."""
    import json

    if isinstance(algorithms, str):
        algorithms = [algorithms]
    if isinstance(sizes, (int, str)):
        sizes = [sizes]
    if not isinstance(peers, str):
        peers = ",".join(peers) or "none"
    rows_json, why = _shifr.bench_json(
        list(algorithms), [_size(s) for s in sizes], peers, float(seconds), int(threads)
    )
    if notes is not None:
        notes.extend(why)
    return json.loads(rows_json)
