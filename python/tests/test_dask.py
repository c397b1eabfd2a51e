"""shifr.dask on a LocalCluster of 2 worker processes: a tree with a file split over the workers,
reruns, a worker killed in the middle of a file, the split path against the CLI, the fleet bench."""

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import shifr
from conftest import pattern

distributed = pytest.importorskip("distributed")
sd = pytest.importorskip("shifr.dask")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def make_tree(root):
    files = {}
    for i in range(12):
        rel = os.path.join(f"d{i % 3}", f"sub{i % 2}", f"f{i}.bin")
        files[rel] = pattern(i * 997, i)
    files["empty"] = b""
    files["big.dat"] = pattern(3 * (1 << 20) + 12345, 99)  # split over the workers
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def test_encrypt_tree_splits_reruns_and_decrypts(tmp_path, client, cli, key_file):
    src, dst, back = tmp_path / "src", tmp_path / "dst", tmp_path / "back"
    files = make_tree(src)
    kw = dict(key_file=key_file, chunk_size=4096, split_bytes=1 << 20, range_bytes=256 << 10,
              client=client, progress=False)
    s = sd.encrypt_tree(src, dst, **kw)
    assert s["files"] == len(files) and s["encrypted"] == len(files) and s["skipped"] == 0
    manifest = json.loads((dst / sd.MANIFEST).read_text())
    listed = {e["path"]: e for e in manifest["files"]}
    assert set(listed) == set(files)
    for rel, data in files.items():
        assert listed[rel]["size"] == len(data)
        assert listed[rel]["sha256"] == hashlib.sha256(data).hexdigest()
        out = tmp_path / "cli-out"
        cli("decrypt", dst / (rel + ".shifr"), "-o", out, "--key-file", key_file, "-q", "--force")
        assert out.read_bytes() == data, rel
    # No parts or temporary files left beside the outputs.
    leftovers = [n for _, _, names in os.walk(dst) for n in names if n.startswith(".") and "shifr-" in n]
    assert leftovers == []

    # A rerun skips everything; a changed file is encrypted again (with the progress bar drawn).
    assert sd.encrypt_tree(src, dst, **kw)["skipped"] == len(files)
    changed = os.path.join("d1", "sub0", "f4.bin")
    (src / changed).write_bytes(b"new content")
    files[changed] = b"new content"
    s = sd.encrypt_tree(src, dst, **dict(kw, progress=True))
    assert s["encrypted"] == 1 and s["skipped"] == len(files) - 1

    s = sd.decrypt_tree(dst, back, key_file=key_file, client=client, progress=False)
    assert s["files"] == len(files)
    for rel, data in files.items():
        assert (back / rel).read_bytes() == data

    # A plaintext that differs from the manifest is reported.
    manifest = json.loads((dst / sd.MANIFEST).read_text())
    manifest["files"][0]["sha256"] = "00" * 32
    (dst / sd.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(shifr.AuthenticationError):
        sd.decrypt_tree(dst, tmp_path / "back2", key_file=key_file, client=client, progress=False)


@pytest.mark.parametrize("aead", ["chacha20-poly1305", "magma-mgm"])
def test_split_object_is_byte_identical_to_the_cli(tmp_path, client, cli, key_file, aead):
    plain = tmp_path / "object"
    plain.write_bytes(pattern(2 * (1 << 20) + 4096 * 3, 5))  # ends on a chunk boundary
    ref = tmp_path / "cli.shifr"
    cli("encrypt", plain, "-o", ref, "--key-file", key_file, "-a", aead, "--chunk-size", 4096, "-q")
    h = shifr.read_header(ref)
    out = tmp_path / "dask.shifr"
    e = sd.encrypt_object(plain, out, key_file=key_file, aead=aead, chunk_size=4096,
                          range_bytes=300_000, salt=h["salt"], nonce_prefix=h["nonce_prefix"],
                          client=client, progress=False)
    assert e["size"] == plain.stat().st_size
    assert out.read_bytes() == ref.read_bytes()
    cli("decrypt", out, "-o", tmp_path / "back", "--key-file", key_file, "-q")
    assert (tmp_path / "back").read_bytes() == plain.read_bytes()


def _open_writer(fifo, timeout=60):
    """Opens the FIFO for writing once a reader has it open (a task reading it)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        return fd


def test_a_killed_worker_leaves_no_partial_file_and_the_task_is_retried(tmp_path, client, cli, key_file):
    # The task reads a FIFO, so it is held in the middle of its file until this test writes more.
    dst_root = tmp_path / "dst"
    (dst_root / sd.JOURNAL).mkdir(parents=True)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = dst_root / "pipe.shifr"
    fut = client.submit(sd._encrypt_one, str(fifo), str(out), "pipe", str(dst_root), str(key_file),
                        None, 1024, 1, pure=False)
    fd = _open_writer(fifo)
    os.write(fd, pattern(5000))
    # Which worker holds the task; kill that process outright.
    deadline = time.monotonic() + 30
    holder = None
    while holder is None and time.monotonic() < deadline:
        for addr, keys in client.processing().items():
            if fut.key in keys:
                holder = addr
        time.sleep(0.05)
    assert holder is not None
    pid = client.run(os.getpid, workers=[holder])[holder]
    time.sleep(0.3)  # let it read what was written: it is now mid-file
    os.kill(pid, signal.SIGKILL)
    try:
        os.close(fd)
    except OSError:
        pass
    time.sleep(0.5)
    assert sorted(os.listdir(dst_root)) == [sd.JOURNAL]  # no partial file, no temporary name
    # The task runs again (on a live worker) and this time gets the whole file.
    full = pattern(20_000, 3)
    fd = _open_writer(fifo)
    os.write(fd, full)
    os.close(fd)
    entry = fut.result(timeout=120)
    assert entry["size"] == len(full)
    cli("decrypt", out, "-o", tmp_path / "back", "--key-file", key_file, "-q")
    assert (tmp_path / "back").read_bytes() == full
    client.wait_for_workers(2, timeout=60)


def test_fleet_bench_merges_every_worker(client, shifr_bin):
    report = sd.bench_fleet(["chacha20-poly1305"], [4096], "none", 0.01, cli=shifr_bin, client=client)
    assert len(report["machines"]) == 2
    assert len(report["rows"]) == 2 and {r["worker"] for r in report["rows"]} == {
        m["worker"] for m in report["machines"]
    }
    report = sd.bench_fleet(["aes-256-gcm"], ["4KiB"], "none", 0.01, client=client)
    assert len(report["rows"]) == 2 and all(r["mb_s"] > 0 for r in report["rows"])


def test_fleet_bench_writes_the_multi_machine_report(client, shifr_bin, tmp_path):
    out = tmp_path / "fleet"
    report = sd.bench_fleet(["aes-256-gcm"], [4096], "none", 0.01, cli=shifr_bin, client=client,
                            report_dir=str(out))
    text = (out / "report.md").read_text()
    # Both local workers share this host: two machines, told apart by number.
    host = report["machines"][0]["host"]
    assert f"{host}/1" in text and f"{host}/2" in text, text
    assert (out / "machines.csv").exists() and str(out / "report.md") in report["report"]
    assert len(list((out / "machines").glob("*.json"))) == 2


def test_the_command_line_prints_its_throughput(tmp_path, key_file):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a").write_bytes(pattern(10_000))
    run = subprocess.run(
        [sys.executable, "-m", "shifr.dask", "encrypt-tree", str(src), str(tmp_path / "dst"),
         "--key-file", str(key_file), "--workers", "1", "-q"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "encrypt-tree: 1 files, 10000 bytes in" in run.stdout and "MB/s" in run.stdout
    (src / "big").write_bytes(pattern(50_000, 4))
    run = subprocess.run(
        [sys.executable, "-m", "shifr.dask", "encrypt-object", str(src / "big"), str(tmp_path / "big.shifr"),
         "--key-file", str(key_file), "--chunk-size", "1024", "--range-bytes", "8192", "--workers", "2", "-q"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("encrypt-object: 50000 bytes in") and "MB/s" in run.stdout
    shifr.decrypt_file(tmp_path / "big.shifr", tmp_path / "big.out", key_file=key_file)
    assert (tmp_path / "big.out").read_bytes() == pattern(50_000, 4)
    assert sorted(os.listdir(tmp_path)) == ["big.out", "big.shifr", "dst", "key.hex", "src"]
    run = subprocess.run(
        [sys.executable, "-m", "shifr.dask", "decrypt-tree", str(tmp_path / "dst"), str(tmp_path / "back"),
         "--key-file", str(tmp_path / "missing.key"), "--workers", "1", "-q"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode == 8 and last.startswith("shifr.dask: error: cannot read key file"), run.stderr
