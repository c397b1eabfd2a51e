"""shifr over a Dask cluster (``pip install ./python[dask]``; ``python -m shifr.dask --help``).

* :func:`encrypt_tree` / :func:`decrypt_tree`: every file of a directory tree as a task, relative
  paths kept (``NAME`` <-> ``NAME.shifr``). Each output is written atomically (a worker lost in the
  middle of a file leaves nothing under its name, and Dask runs the task again elsewhere); a journal
  entry is written after each file, so a rerun skips what is done; the manifest
  (``shifr-manifest.json``: path, size and SHA-256 of every plaintext) is written last.
* :func:`encrypt_object`: one file split into chunk ranges sealed on different workers and
  concatenated in order after the header: the same bytes as ``shifr encrypt`` with the same header.
  :func:`encrypt_tree` sends files above ``split_bytes`` this way.
* :func:`bench_fleet`: ``shifr bench`` (the CLI's ``--json``, or :func:`shifr.bench`) on every
  worker, one after another, merged into one multi-machine report.

Every path (sources, destinations, key files) must be the same on every worker: a shared file
system. Secrets travel as key-file paths, never as key bytes. Without a scheduler address an
embedded ``LocalCluster`` runs on this machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shutil
import socket
import stat
import subprocess
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import shifr
from shifr import _shifr
from shifr._errors import InvalidParameterError, ShifrIOError

#: Suffix of an encrypted file in a tree.
SUFFIX = ".shifr"
#: The manifest in the destination root, written last.
MANIFEST = "shifr-manifest.json"
#: The per-file journal (one JSON entry per finished file) in the destination root.
JOURNAL = ".shifr-journal"
#: Files above this size are split over the workers by :func:`encrypt_tree` (default 64 MiB).
SPLIT_BYTES = 64 << 20
#: Plaintext bytes per range of a split file (default 16 MiB, rounded to whole chunks).
RANGE_BYTES = 16 << 20
_TAG_LEN = {"magma-mgm": 8}


def _client(scheduler: Optional[str] = None, workers: int = 2, threads_per_worker: int = 1,
            quiet_logs: bool = False):
    """A client of ``scheduler`` (``tcp://host:port``), or of a new ``LocalCluster`` (its dashboard
    on a free port; with ``quiet_logs`` the workers log nothing, errors reach the caller anyway)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ImportError(
            "shifr.dask needs dask[distributed]: pip install './python[dask]' (or dask[distributed])"
        ) from e

    if scheduler:
        return Client(scheduler)
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.CRITICAL if quiet_logs else logging.WARNING,
    )
    return Client(cluster)


def _wait(futures: List[Any], label: str, progress: Optional[bool]) -> List[Any]:
    """Results in submission order, with a progress bar on a terminal."""
    from distributed import as_completed

    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show and futures:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(futures), desc=label, unit="task", file=sys.stderr)
        except ImportError:
            bar = None
    for _ in as_completed(futures):
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return [f.result() for f in futures]


def _write_json_atomic(path: str, value: Any) -> None:
    temp = f"{path}.tmp-{os.getpid()}"
    with open(temp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)


def _journal_path(dst_root: str, rel: str) -> str:
    digest = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(dst_root, JOURNAL, digest + ".json")


def _read_journal(dst_root: str, rel: str) -> Optional[Dict[str, Any]]:
    try:
        with open(_journal_path(dst_root, rel), encoding="utf-8") as f:
            entry = json.load(f)
        return entry if entry.get("path") == rel else None
    except (OSError, ValueError):
        return None


def _walk(src_root: str, skip: Callable[[str], bool]) -> List[Tuple[str, int, int]]:
    """(relative path, size, mtime_ns) of every regular file under ``src_root``, sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(src_root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src_root)
            if skip(rel):
                continue
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode):
                found.append((rel, st.st_size, st.st_mtime_ns))
    return found


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- tasks (run on the workers) ----


def _encrypt_one(src: str, dst: str, rel: str, dst_root: str, key_file: str, aead: Optional[str],
                 chunk_size: Optional[int], threads: Optional[int]) -> Dict[str, Any]:
    """Encrypts one file (atomically, replacing a leftover of an interrupted run) and journals it."""
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    st = os.stat(src)
    n, digest = _shifr.encrypt_file(
        src,
        dst,
        shifr._secret(key_file, None, None),
        shifr._new_file(aead, chunk_size, None, None),
        threads,
        True,
        True,
    )
    entry = {"path": rel, "size": n, "sha256": digest, "mtime_ns": st.st_mtime_ns, "split": False}
    _write_json_atomic(_journal_path(dst_root, rel), entry)
    return entry


def _seal_range(src: str, part: str, key_file: str, new_file: Dict[str, Any], first: int,
                count: int, last: bool, sealed_len: Optional[int], threads: Optional[int]) -> str:
    """Seals one chunk range of a split file into its part file (skipped when a complete part of a
    previous run is there: parts are written atomically, so a present part of the right size is whole)."""
    if sealed_len is not None:
        try:
            if os.path.getsize(part) == sealed_len:
                return part
        except OSError:
            pass
    _shifr.seal_range(src, part, shifr._secret(key_file, None, None), new_file, first, count, last, threads)
    return part


def _concat(dst: str, header: bytes, parts: List[str], force: bool) -> int:
    """Writes the header and the parts in order to ``dst`` atomically, then removes the parts."""
    out = _shifr.AtomicFile(dst, force)
    total = len(header)
    try:
        out.write(header)
        for part in parts:
            with open(part, "rb") as f:
                for block in iter(lambda: f.read(8 << 20), b""):
                    out.write(block)
                    total += len(block)
        out.commit()
    except BaseException:
        out.abort()
        raise
    for part in parts:
        try:
            os.remove(part)
        except FileNotFoundError:
            pass
    return total


def _finish_split(dst: str, header: bytes, parts: List[str], digest: str, rel: Optional[str],
                  dst_root: Optional[str], size: int, mtime_ns: int) -> Dict[str, Any]:
    _concat(dst, header, parts, True)
    entry = {"path": rel, "size": size, "sha256": digest, "mtime_ns": mtime_ns, "split": True}
    if rel is not None and dst_root is not None:
        _write_json_atomic(_journal_path(dst_root, rel), entry)
    return entry


def _decrypt_one(src: str, dst: str, key_file: str, threads: Optional[int]) -> Dict[str, Any]:
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    n = shifr.decrypt_file(src, dst, key_file=key_file, threads=threads, force=True)
    return {"path": dst, "size": n, "sha256": _sha256_file(dst)}


# ---- the split path ----


def _plan_ranges(size: int, chunk_size: int, range_bytes: int) -> List[Tuple[int, int, bool]]:
    """(first chunk, chunk count, last) of every range; the last range runs to the end of the file."""
    per = max(range_bytes // chunk_size, 1)
    full_chunks = size // chunk_size
    ranges = []
    first = 0
    while full_chunks - first > per:
        ranges.append((first, per, False))
        first += per
    ranges.append((first, full_chunks - first, True))
    return ranges


def _submit_object(client: Any, src: str, dst: str, key_file: str, aead: Optional[str],
                   chunk_size: Optional[int], range_bytes: int, salt: Optional[bytes],
                   nonce_prefix: Optional[bytes], threads: Optional[int], rel: Optional[str] = None,
                   dst_root: Optional[str] = None) -> Any:
    """Submits the range tasks, a hashing task and the concatenation of one split file; returns the
    future of the concatenation (its journal entry)."""
    key_file = os.path.abspath(os.fspath(key_file))
    new_file = shifr._new_file(aead, chunk_size, salt, nonce_prefix)
    header = _shifr.new_header(shifr._secret(key_file, None, None), new_file)
    info = _shifr.parse_header(header)
    cs, tag = info["chunk_size"], info["tag_len"]
    st = os.stat(src)
    directory, name = os.path.split(os.path.abspath(dst))
    ranges = _plan_ranges(st.st_size, cs, range_bytes)
    parts = []
    for i, (first, count, last) in enumerate(ranges):
        part = os.path.join(directory, f".{name}.shifr-part-{i:06d}")
        sealed_len = None if last else count * (cs + tag)
        parts.append(
            client.submit(_seal_range, src, part, key_file, new_file, first, count, last, sealed_len,
                          threads, pure=False)
        )
    digest = client.submit(_sha256_file, src, pure=False)
    return client.submit(_finish_split, os.path.abspath(dst), header, parts, digest, rel, dst_root,
                         st.st_size, st.st_mtime_ns, pure=False)


def encrypt_object(src: str, dst: str, *, key_file: str, aead: Optional[str] = None,
                   chunk_size: Optional[int] = None, range_bytes: int = RANGE_BYTES,
                   salt: Optional[bytes] = None, nonce_prefix: Optional[bytes] = None,
                   threads: Optional[int] = 1, client: Any = None, scheduler: Optional[str] = None,
                   progress: Optional[bool] = None) -> Dict[str, Any]:
    """Encrypts one file with its chunk ranges (``range_bytes`` each) sealed on different workers;
    ``dst`` is byte-identical to ``shifr encrypt`` of ``src`` with the same header (``salt`` and
    ``nonce_prefix``: random unless given). Returns ``{"path", "size", "sha256", "seconds"}``."""
    own = client is None
    client = client or _client(scheduler)
    try:
        start = time.perf_counter()
        os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
        done = _submit_object(client, os.path.abspath(src), dst, key_file, aead, chunk_size, range_bytes,
                              salt, nonce_prefix, threads)
        entry = _wait([done], "encrypt-object", progress)[0]
        entry["path"] = os.fspath(dst)
        entry["seconds"] = time.perf_counter() - start
        return entry
    finally:
        if own:
            _close(client)


def _close(client: Any) -> None:
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


# ---- trees ----


def encrypt_tree(src: str, dst: str, *, key_file: str, aead: Optional[str] = None,
                 chunk_size: Optional[int] = None, split_bytes: int = SPLIT_BYTES,
                 range_bytes: int = RANGE_BYTES, threads: Optional[int] = 1, client: Any = None,
                 scheduler: Optional[str] = None, progress: Optional[bool] = None) -> Dict[str, Any]:
    """Encrypts every regular file under ``src`` into ``dst/REL.shifr``, one task a file (files
    above ``split_bytes`` are split into ranges over the workers), skipping files a previous run
    finished (journalled with the same size and modification time, output present), and writes
    ``dst/shifr-manifest.json`` last. Returns a summary: files, skipped, bytes, seconds, MB/s."""
    src_root = os.path.abspath(src)
    dst_root = os.path.abspath(dst)
    key_file = os.path.abspath(os.fspath(key_file))
    if not os.path.isdir(src_root):
        raise ShifrIOError(f"{src} is not a directory")
    if dst_root == src_root or dst_root.startswith(src_root + os.sep):
        raise InvalidParameterError("the destination must not be inside the source tree")
    os.makedirs(os.path.join(dst_root, JOURNAL), exist_ok=True)
    files = _walk(src_root, lambda rel: False)
    own = client is None
    client = client or _client(scheduler)
    try:
        start = time.perf_counter()
        futures, entries, skipped, todo_bytes = [], [], 0, 0
        for rel, size, mtime_ns in files:
            out = os.path.join(dst_root, rel + SUFFIX)
            entry = _read_journal(dst_root, rel)
            if (entry and entry["size"] == size and entry["mtime_ns"] == mtime_ns
                    and os.path.exists(out)):
                entries.append(entry)
                skipped += 1
                continue
            todo_bytes += size
            path = os.path.join(src_root, rel)
            if size > split_bytes:
                os.makedirs(os.path.dirname(out), exist_ok=True)
                futures.append(_submit_object(client, path, out, key_file, aead, chunk_size,
                                              range_bytes, None, None, threads, rel, dst_root))
            else:
                futures.append(client.submit(_encrypt_one, path, out, rel, dst_root, key_file, aead,
                                             chunk_size, threads, pure=False))
        entries.extend(_wait(futures, "encrypt-tree", progress))
        seconds = time.perf_counter() - start
        entries.sort(key=lambda e: e["path"])
        manifest = {
            "format": "shifr-manifest/1",
            "files": [{"path": e["path"], "size": e["size"], "sha256": e["sha256"]} for e in entries],
        }
        _write_json_atomic(os.path.join(dst_root, MANIFEST), manifest)
        return {
            "files": len(entries),
            "encrypted": len(futures),
            "skipped": skipped,
            "bytes": todo_bytes,
            "seconds": seconds,
            "mb_s": todo_bytes / seconds / 1e6 if seconds > 0 else 0.0,
        }
    finally:
        if own:
            _close(client)


def decrypt_tree(src: str, dst: str, *, key_file: str, threads: Optional[int] = 1,
                 client: Any = None, scheduler: Optional[str] = None, progress: Optional[bool] = None,
                 verify: bool = True) -> Dict[str, Any]:
    """Decrypts every ``REL.shifr`` under ``src`` into ``dst/REL``, one task a file; with a manifest
    in ``src`` and ``verify``, checks every plaintext's size and SHA-256 against it (a mismatch or a
    missing file raises :class:`shifr.AuthenticationError`). Returns a summary like
    :func:`encrypt_tree`'s."""
    src_root = os.path.abspath(src)
    dst_root = os.path.abspath(dst)
    key_file = os.path.abspath(os.fspath(key_file))
    if not os.path.isdir(src_root):
        raise ShifrIOError(f"{src} is not a directory")
    skip = lambda rel: rel == MANIFEST or rel.startswith(JOURNAL + os.sep) or not rel.endswith(SUFFIX)
    files = _walk(src_root, skip)
    own = client is None
    client = client or _client(scheduler)
    try:
        start = time.perf_counter()
        futures = [
            client.submit(_decrypt_one, os.path.join(src_root, rel),
                          os.path.join(dst_root, rel[: -len(SUFFIX)]), key_file, threads, pure=False)
            for rel, _, _ in files
        ]
        results = _wait(futures, "decrypt-tree", progress)
        seconds = time.perf_counter() - start
        total = sum(r["size"] for r in results)
        manifest_path = os.path.join(src_root, MANIFEST)
        if verify and os.path.exists(manifest_path):
            with open(manifest_path, encoding="utf-8") as f:
                manifest = json.load(f)
            got = {os.path.relpath(r["path"], dst_root): r for r in results}
            for e in manifest["files"]:
                r = got.get(e["path"])
                if r is None or r["size"] != e["size"] or r["sha256"] != e["sha256"]:
                    raise shifr.AuthenticationError(
                        f"{e['path']}: missing or differs from the manifest"
                    )
        return {"files": len(results), "bytes": total, "seconds": seconds,
                "mb_s": total / seconds / 1e6 if seconds > 0 else 0.0}
    finally:
        if own:
            _close(client)


# ---- bench over a fleet ----


def _machine() -> Dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"host": socket.gethostname(), "cpu": cpu, "cores": os.cpu_count()}


def _bench_task(algorithms: List[str], sizes: List[Any], peers: str, seconds: float,
                cli: Optional[str]) -> Dict[str, Any]:
    """One machine's rows: ``shifr bench --json`` when ``cli`` names the binary, else shifr.bench."""
    notes: List[str] = []
    if cli:
        cmd = [cli, "bench", "--json", "--peers", peers, "--seconds", str(seconds)]
        if algorithms:
            cmd += ["--alg", ",".join(algorithms)]
        if sizes:
            cmd += ["--size", ",".join(str(s) for s in sizes)]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise shifr.ShifrError(f"{cli} bench failed: {run.stderr.strip()}")
        rows = json.loads(run.stdout)
    else:
        rows = shifr.bench(algorithms, sizes, peers, seconds=seconds, notes=notes)
    return {"machine": _machine(), "rows": rows, "notes": notes}


def merge_report(fleet: Dict[str, Any], out_dir: str, cli: Optional[str] = None) -> List[str]:
    """Writes the report of ``shifr report merge`` for a :func:`bench_fleet` result into
    ``out_dir``: one JSON file of rows per machine (in ``out_dir/machines/``), merged by the CLI
    (``cli``, else ``shifr`` on PATH). Returns the files the CLI wrote."""
    exe = cli or shutil.which("shifr")
    if not exe:
        raise shifr.ShifrError("shifr report merge needs the shifr CLI: give its path (--cli) or put it on PATH")
    hosts = [m["host"] for m in fleet["machines"]]
    label: Dict[str, str] = {}
    for i, m in enumerate(fleet["machines"]):
        shared = hosts.count(m["host"]) > 1
        label[m["worker"]] = f"{m['host']}/{hosts[: i + 1].count(m['host'])}" if shared else m["host"]
    machines_dir = os.path.join(out_dir, "machines")
    os.makedirs(machines_dir, exist_ok=True)
    files = []
    for worker, name in label.items():
        rows = [dict(r, machine=name) for r in fleet["rows"] if r.get("worker") == worker]
        path = os.path.join(machines_dir, name.replace("/", "-") + ".json")
        _write_json_atomic(path, rows)
        files.append(path)
    run = subprocess.run([exe, "report", "merge", *files, "--out", out_dir],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise shifr.ShifrError(f"shifr report merge failed: {run.stderr.strip()}")
    return [line[len("wrote "):] for line in run.stdout.splitlines() if line.startswith("wrote ")]


def bench_fleet(algorithms: Iterable[str] = ("aes-256-gcm", "chacha20-poly1305"),
                sizes: Iterable[Any] = (16384, 1 << 20), peers: str = "none", seconds: float = 0.12,
                cli: Optional[str] = None, client: Any = None, scheduler: Optional[str] = None,
                report_dir: Optional[str] = None, merge_cli: Optional[str] = None
                ) -> Dict[str, Any]:
    """Runs the benchmark on every worker, one worker after another (so that workers sharing a
    machine do not disturb each other's samples), and merges the rows into one report: every row
    gains ``machine`` (host name), ``worker`` and ``cpu``. With ``report_dir``, also writes the
    multi-machine report of ``shifr report merge`` there (report.md, CSV, charts: one row per
    machine), running ``merge_cli`` (default: ``cli``, else ``shifr`` on PATH); workers that share
    a host are told apart as ``host/1``, ``host/2``..."""
    own = client is None
    client = client or _client(scheduler)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        machines, rows, notes = [], [], []
        for w in workers:
            result = client.submit(_bench_task, list(algorithms), list(sizes), peers, seconds, cli,
                                   workers=[w], allow_other_workers=False, pure=False).result()
            m = dict(result["machine"], worker=w)
            machines.append(m)
            for row in result["rows"]:
                rows.append(dict(row, machine=m["host"], worker=w, cpu=m["cpu"]))
            notes.extend(f"{w}: {n}" for n in result["notes"])
        fleet = {"format": "shifr-fleet-bench/1", "machines": machines, "rows": rows, "notes": notes}
        if report_dir is not None:
            fleet["report"] = merge_report(fleet, report_dir, merge_cli or cli)
        return fleet
    finally:
        if own:
            _close(client)
