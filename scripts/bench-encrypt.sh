#!/usr/bin/env bash
# Throughput of `shifr encrypt` / `shifr decrypt` on a 2 GiB file in tmpfs (/dev/shm) for every AEAD at
# 1 and 2 threads, against age (ChaCha20-Poly1305 STREAM) and `openssl enc` (docs/BENCHMARKS.md, issue 5).
# AEADS (space-separated) picks the AEADs, PEERS=0 leaves out age and openssl, SIZE_MIB sets the size.
# Every command runs ROUNDS times (default 3), the rounds interleaved so that a shared machine's changing
# load spreads over all commands; each run gets a fresh output name (no overwrite cost). Per command it
# prints the median wall time, the median user + system CPU time of the child (wait4), and MiB/s.
# Needs age, openssl and a release build (`cargo build --release -p shifr-cli`).
set -euo pipefail
cd "$(dirname "$0")/.."
export SHIFR="${SHIFR:-target/release/shifr}" ROUNDS="${ROUNDS:-3}" SIZE_MIB="${SIZE_MIB:-2048}"
export D=/dev/shm/shifr-bench-encrypt
rm -rf "$D"; mkdir -p "$D"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$D/plain"
"$SHIFR" keygen -o "$D/key"
age-keygen -o "$D/age.key" 2>/dev/null
python3 - <<'PY'
import os, statistics, subprocess, time, random
D, shifr, rounds, mib = os.environ["D"], os.environ["SHIFR"], int(os.environ["ROUNDS"]), int(os.environ["SIZE_MIB"])
recipient = subprocess.check_output(["age-keygen", "-y", f"{D}/age.key"], text=True).strip()
hexkey, iv = "00" * 32, "00" * 16
aeads = os.environ.get("AEADS", "chacha20-poly1305 aes-256-gcm xchacha20-poly1305 kuznyechik-mgm magma-mgm").split()
peers = os.environ.get("PEERS", "1") == "1"
cases = []  # (name, argv-maker producing (argv, output path) for run r, input needed)
for a in aeads:
    for t in (1, 2):
        cases.append((f"shifr encrypt -a {a} --threads {t}",
                      lambda r, a=a, t=t: ([shifr, "encrypt", "-q", "-a", a, "--threads", str(t), "--key-file", f"{D}/key", "-o", f"{D}/c-{a}", "--force", f"{D}/plain"], None)))
        cases.append((f"shifr decrypt ({a}) --threads {t}",
                      lambda r, a=a, t=t: ([shifr, "decrypt", "-q", "--threads", str(t), "--key-file", f"{D}/key", "-o", f"{D}/out", f"{D}/c-{a}"], f"{D}/out")))
if peers:
    cases.append(("age -e (X25519 recipient)", lambda r: (["age", "-e", "-r", recipient, "-o", f"{D}/c-age", f"{D}/plain"], None)))
    cases.append(("age -d", lambda r: (["age", "-d", "-i", f"{D}/age.key", "-o", f"{D}/out", f"{D}/c-age"], f"{D}/out")))
for c in ("chacha20", "aes-256-ctr") if peers else ():
    cases.append((f"openssl enc -{c} (no authentication)", lambda r, c=c: (["openssl", "enc", f"-{c}", "-K", hexkey, "-iv", iv, "-in", f"{D}/plain", "-out", f"{D}/out"], f"{D}/out")))
    cases.append((f"openssl enc -d -{c} (no authentication)", lambda r, c=c: (["openssl", "enc", "-d", f"-{c}", "-K", hexkey, "-iv", iv, "-in", f"{D}/plain", "-out", f"{D}/out"], f"{D}/out")))

def timed(argv):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return wall, ru.ru_utime, ru.ru_stime

results = {name: [] for name, _ in cases}
for r in range(rounds):
    for name, make in cases:
        argv, remove = make(r)
        # Remove the previous round's output first, so that no run pays for freeing it.
        out = argv[argv.index("-o") + 1] if "-o" in argv else argv[argv.index("-out") + 1]
        if os.path.exists(out):
            os.remove(out)
        results[name].append(timed(argv))
        if r == 0 and name.startswith(("shifr decrypt", "age -d")):
            subprocess.check_call(["cmp", f"{D}/plain", f"{D}/out"])
        if remove and os.path.exists(remove):
            os.remove(remove)
    print(f"# round {r + 1} of {rounds} done", flush=True)
print(f"| command | MiB/s (median wall) | wall s | user s | sys s | CPU s (user+sys) | MiB per CPU-s |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, _ in cases:
    runs = results[name]
    wall = statistics.median(w for w, _, _ in runs)
    user = statistics.median(u for _, u, _ in runs)
    sys_ = statistics.median(s for _, _, s in runs)
    cpu = statistics.median(u + s for _, u, s in runs)
    print(f"| {name} | {mib / wall:.0f} | {wall:.2f} | {user:.2f} | {sys_:.2f} | {cpu:.2f} | {mib / cpu:.0f} |")
PY
rm -rf "$D"
