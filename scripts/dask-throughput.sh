#!/usr/bin/env bash
# Measures `python -m shifr.dask encrypt-tree` / `decrypt-tree` on a local 2-worker cluster beside a
# plain loop of `shifr encrypt` / `shifr decrypt` (one process per file) over the same tree, checks
# that every file decrypts to its original, and writes the table between the dask-table markers of
# docs/BENCHMARKS.md. Release builds of the CLI and of the Python extension (in a virtual
# environment of its own, target/python-bench-venv). Run it on an idle machine.
#
#   scripts/dask-throughput.sh                 # 1,000 small files + 3 files of 200 MiB
#   SMALL=200 LARGE=1 LARGE_MIB=64 scripts/dask-throughput.sh   # a quicker trial (no doc update)
set -euo pipefail
trap 'echo "dask-throughput.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
. scripts/measure-lib.sh
root=$PWD
small="${SMALL:-1000}"
large="${LARGE:-3}"
large_mib="${LARGE_MIB:-200}"
workers="${WORKERS:-2}"
doc=docs/BENCHMARKS.md
begin='<!-- dask-table:begin -->'
end='<!-- dask-table:end -->'

cargo build --release --quiet -p shifr-cli
shifr="$root/target/release/shifr"
venv="$root/target/python-bench-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.7,<2" "dask[distributed]>=2024.1" "tqdm>=4"
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" \
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python
py="$venv/bin/python"

work="$(mktemp -d "${TMPDIR:-/tmp}/shifr-dask-XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The tree: SMALL files of 100 B .. 256 KiB (log-uniform, in 20 folders) and LARGE files of
# LARGE_MIB MiB, random bytes, from a fixed seed.
"$py" - "$work/src" "$small" "$large" "$large_mib" <<'EOF'
import os, random, sys
root, small, large, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(2026)
for i in range(small):
    d = os.path.join(root, f"dir{i % 20:02d}")
    os.makedirs(d, exist_ok=True)
    size = int(100 * (256 * 1024 / 100) ** rng.random())
    with open(os.path.join(d, f"file{i:04d}.bin"), "wb") as f:
        f.write(rng.randbytes(size))
os.makedirs(os.path.join(root, "large"), exist_ok=True)
for i in range(large):
    with open(os.path.join(root, "large", f"big{i}.bin"), "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(1 << 20))
EOF
head -c 32 /dev/urandom >"$work/key"
chmod 600 "$work/key"
files=$(find "$work/src" -type f | wc -l)
bytes=$(find "$work/src" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
cat $(find "$work/src" -type f) >"$work/warm" && rm "$work/warm"   # the tree into the page cache

now() { date +%s.%N; }
mbs() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.0f", b / s / 1e6 }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

wait_idle dask-throughput.sh
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

# 1. The CLI loop: one `shifr encrypt` per file (every core of the machine per file, its default).
t0=$(now)
(cd "$work/src" && find . -type f | while read -r f; do
  mkdir -p "$work/cli-enc/$(dirname "$f")"
  "$shifr" encrypt -q --key-file "$work/key" -o "$work/cli-enc/$f.shifr" "$f"
done)
t1=$(now)
(cd "$work/cli-enc" && find . -type f | while read -r f; do
  mkdir -p "$work/cli-dec/$(dirname "$f")"
  "$shifr" decrypt -q --key-file "$work/key" -o "$work/cli-dec/${f%.shifr}" "$f"
done)
t2=$(now)
diff -r "$work/src" "$work/cli-dec"

# 2. Dask: a LocalCluster of WORKERS workers; files above 64 MiB split into 16 MiB ranges.
t3=$(now)
enc_line="$("$py" -m shifr.dask encrypt-tree "$work/src" "$work/dask-enc" --key-file "$work/key" --workers "$workers" -q)"
t4=$(now)
dec_line="$("$py" -m shifr.dask decrypt-tree "$work/dask-enc" "$work/dask-dec" --key-file "$work/key" --workers "$workers" -q)"
t5=$(now)
diff -r -x .shifr-journal -x shifr-manifest.json "$work/src" "$work/dask-dec"
# Across the two: the CLI decrypts what Dask wrote.
(cd "$work/dask-enc" && find . -name '*.shifr' -type f | sort | sed -n '1,50p' | while read -r f; do
  "$shifr" decrypt -q --key-file "$work/key" -o "$work/x" "$f"
  cmp -s "$work/x" "$work/src/${f%.shifr}" || { echo "dask-throughput.sh: $f differs" >&2; exit 1; }
  rm "$work/x"
done)
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

inner() { sed -E 's/.* in ([0-9.]+) s:.*/\1/' <<<"$1"; }
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
table="$(mktemp)"
{
  echo "$begin"
  echo
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/dask-throughput.sh\` (release builds of commit"
  echo "$(git rev-parse --short HEAD)$(git diff --quiet -- crates python Cargo.toml Cargo.lock || echo ', with uncommitted code changes'); machine: $cpu, $(nproc) hardware threads)."
  echo "Tree: $files files, $bytes bytes ($small of 100 B to 256 KiB, $large of $large_mib MiB), page-cached; default AEAD."
  echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after. Every file of every run decrypted to its original."
  echo
  echo "| run | encrypt s | encrypt MB/s | decrypt s | decrypt MB/s |"
  echo "|---|---|---|---|---|"
  e=$(secs "$t0" "$t1"); d=$(secs "$t1" "$t2")
  echo "| \`shifr encrypt\` / \`decrypt\`, one process per file | $e | $(mbs "$e") | $d | $(mbs "$d") |"
  e=$(secs "$t3" "$t4"); d=$(secs "$t4" "$t5")
  echo "| \`python -m shifr.dask\`, $workers workers, whole command | $e | $(mbs "$e") | $d | $(mbs "$d") |"
  e=$(inner "$enc_line"); d=$(inner "$dec_line")
  echo "| the same, without the cluster's start and stop | $e | $(mbs "$e") | $d | $(mbs "$d") |"
  echo
  echo "$end"
} >"$table"
cat "$table"
if [ "$small" = 1000 ] && [ "$large" = 3 ] && [ "$large_mib" = 200 ]; then
  replace_block "$doc" "$begin" "$end" "$table"
  echo "dask-throughput.sh: $doc updated"
fi
rm -f "$table"
