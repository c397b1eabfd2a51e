"""Writable buffers (bytearray, memoryview, NumPy arrays, mmap ...) as an address and a length for
the native module, without a copy. ``ctypes``' ``from_buffer`` holds a buffer export while the
returned object lives, so the buffer can be neither resized nor freed during the native call."""

from __future__ import annotations

import ctypes
from typing import Any, Tuple


def writable(obj: Any) -> Tuple[Any, int, int]:
    """``(keeper, address, length)`` of a C-contiguous writable buffer; keep ``keeper`` alive
    across the native call."""
    view = memoryview(obj)
    if view.readonly:
        raise TypeError(
            "a writable buffer is needed to work in place (bytearray, memoryview, NumPy array); "
            "use encrypt()/decrypt() for bytes"
        )
    if not view.c_contiguous:
        raise ValueError("the buffer must be C-contiguous")
    n = view.nbytes
    if n == 0:
        return view, 0, 0
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    keeper = (ctypes.c_char * n).from_buffer(view)
    return keeper, ctypes.addressof(keeper), n


def readonly_bytes(obj: Any) -> bytes:
    """Small read-only inputs (nonce, associated data, tag) as bytes."""
    if isinstance(obj, bytes):
        return obj
    return bytes(memoryview(obj).cast("B")) if not isinstance(obj, str) else _no_str()


def _no_str() -> bytes:
    raise TypeError("expected bytes or a bytes-like object, not str")
