#!/usr/bin/env bash
# GPU acceptance run of issue 6 (docs/GPU.md). Two steps:
#
#   here (builds; needs cargo):       scripts/gpu-bench.sh --prepare        -> .gpu-carry/
#   on the device machine (no cargo): scripts/gpu-bench.sh                 (carry: [".gpu-carry"])
#
# The second step checks every kernel against the CPU library and the shared vectors on the GPU
# (gpu_vs_cpu, gpu_kuznyechik_streams, gpu_keystream, gpu_vectors), measures pinned host<->device copy
# bandwidth (PyTorch, present in the device image), then runs `shifr bench --backend gpu`:
# device-resident and host-to-host GB/s of every kernel (chacha20, magma-ctr tab / anf,
# kuznyechik-ctr, aes-128/256-ctr, ECB) and the multi-stream rows over 16,384 x 512 B sectors with
# their own keys (Magma and Kuznyechik CFB / CBC / MAC) — every row of issue 6's acceptance table —
# then `shifr study gost-streams --backend gpu` (its gpu.md: all five multi-stream modes of both
# ciphers) and `shifr encrypt|decrypt --backend gpu` against `--backend cpu` on a 1 GiB file.
#
# Everything printed is also written to $GPU_BENCH_OUT (default: $OUT, the device tool's folder that
# comes back, else .gpu-carry/results) as gpu-bench.md: date, device, command and commit first, the
# output in a code block, ready to paste into docs/GPU.md. GPU_BENCH_SKIP="study encrypt" leaves
# steps out; GPU_BENCH_SIZE (1024M), GPU_BENCH_STREAMS (16384) and GPU_BENCH_FILE (1G) scale it down
# for a PoCL rehearsal; a failing correctness test stops the run before anything is timed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.gpu-carry

if [ "${1:-}" = "--prepare" ]; then
  cargo build --release --quiet -p shifr-cli
  tests=$(cargo test --release -p shifr-gpu --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | cut -d'"' -f4)
  rm -rf "$dir" && mkdir -p "$dir"
  cp target/release/shifr "$dir/"
  for t in $tests; do
    name=$(basename "$t" | sed 's/-[0-9a-f]*$//')
    case "$name" in gpu_vs_cpu | gpu_vectors | gpu_kuznyechik_streams | gpu_keystream) cp "$t" "$dir/$name" ;; esac
  done
  # Debug info would push the carry over the device's 64 MiB limit.
  strip "$dir"/*
  cp -r "${SHIFR_VECTORS:-../shared/vectors}" "$dir/vectors"
  git rev-parse HEAD >"$dir/commit" 2>/dev/null || echo unknown >"$dir/commit"
  git status --porcelain | grep -q . && echo "(working tree had uncommitted changes)" >>"$dir/commit"
  chmod -R u+w "$dir"
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx "/$dir/" "$exclude" 2>/dev/null || echo "/$dir/" >>"$exclude"
  ls -l "$dir"
  echo "now: run(command='scripts/gpu-bench.sh', carry=['$dir'])"
  exit 0
fi

[ -x "$dir/shifr" ] || { echo "gpu-bench.sh: no $dir/shifr; run scripts/gpu-bench.sh --prepare first" >&2; exit 1; }
# NVRTC (opened at run time): the toolkit's lib64, else wherever a libnvrtc.so* is (e.g. a pip wheel).
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null | head -1 || true)
[ -n "$nvrtc" ] || nvrtc=$(find /usr/local /opt /usr/lib "$HOME/.local" -name 'libnvrtc.so*' 2>/dev/null | head -1 || true)
# cudarc opens libnvrtc.so or libnvrtc.so.12 (its bindings are built for CUDA 12.0), not libnvrtc.so.13:
# a link named libnvrtc.so reaches whichever was found; the real directory stays on the path for
# libnvrtc-builtins.
if [ -n "$nvrtc" ]; then
  link=$(mktemp -d)
  ln -s "$(readlink -f "$nvrtc")" "$link/libnvrtc.so"
  export LD_LIBRARY_PATH="$link:$(dirname "$nvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
echo "NVRTC: ${nvrtc:-not found}; driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
export SHIFR_GPU=${SHIFR_GPU:-cuda} SHIFR_GPU_CACHE=/tmp/shifr-ptx SHIFR_VECTORS="$dir/vectors"
size=${GPU_BENCH_SIZE:-1024M}
streams=${GPU_BENCH_STREAMS:-16384}
file_size=${GPU_BENCH_FILE:-1G}
skip=" ${GPU_BENCH_SKIP:-} "
results=${GPU_BENCH_OUT:-${OUT:-$dir/results}}
mkdir -p "$results"
md="$results/gpu-bench.md"
log=$(mktemp)
device=$(nvidia-smi -L 2>/dev/null | head -1 || true)
{
  echo "## GPU run: ${device:-$SHIFR_GPU device} (scripts/gpu-bench.sh)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- device: ${device:-unknown (no nvidia-smi)}; SHIFR_GPU=$SHIFR_GPU"
  echo "- command: \`SHIFR_GPU=$SHIFR_GPU GPU_BENCH_SIZE=$size GPU_BENCH_STREAMS=$streams GPU_BENCH_FILE=$file_size GPU_BENCH_SKIP='${GPU_BENCH_SKIP:-}' scripts/gpu-bench.sh\` (after \`--prepare\`; carry .gpu-carry)"
  echo "- commit: $(tr '\n' ' ' <"$dir/commit" 2>/dev/null || echo unknown)"
  echo
} >"$md"
# The output goes to the terminal and to the log that becomes the code block of $md.
exec > >(tee "$log") 2>&1
finish() {
  { echo '```text'; cat "$log"; echo '```'; } >>"$md"
  echo "(written: $md)"
}
trap finish EXIT

echo "== $(date -u +%Y-%m-%dT%H:%MZ) ${device}"
echo "== correctness on the GPU (kernels vs CPU library; shared vectors)"
"$dir/gpu_vs_cpu" --test-threads=1
"$dir/gpu_kuznyechik_streams" --test-threads=1 --nocapture
"$dir/gpu_keystream" --test-threads=1
"$dir/gpu_vectors" --nocapture
echo "== pinned host<->device copy bandwidth (PyTorch, 1 GiB, 10 copies each way)"
python3 - <<'PY' || echo "(PyTorch not available: pinned bandwidth not measured)"
import time, torch
n = 1 << 30
h = torch.empty(n, dtype=torch.uint8).pin_memory()
d = torch.empty(n, dtype=torch.uint8, device="cuda")
for name, copy in (("host->device", lambda: d.copy_(h, non_blocking=True)),
                   ("device->host", lambda: h.copy_(d, non_blocking=True))):
    copy(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(10):
        copy()
    torch.cuda.synchronize()
    print(f"{name}: {10 * n / (time.perf_counter() - t) / 1e9:.1f} GB/s")
PY
echo "== shifr bench --backend gpu --size $size --streams $streams"
"$dir/shifr" bench --backend gpu --size "$size" --streams "$streams"
if [ "${skip#* study }" = "$skip" ]; then
  echo "== shifr study gost-streams --quick --threads 1 --backend gpu (the GPU part: gpu.md)"
  study=$(mktemp -d)
  "$dir/shifr" study gost-streams --quick --threads 1 --backend gpu --out "$study" >/dev/null
  cat "$study/gpu.md"
fi
if [ "${skip#* encrypt }" = "$skip" ]; then
  echo "== shifr encrypt / decrypt, $file_size in /dev/shm, --backend cpu vs gpu (seconds, wall)"
  tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
  head -c 32 /dev/urandom >"$tmp/key"
  head -c "$file_size" /dev/urandom >"$tmp/in"
  bytes=$(stat -c %s "$tmp/in")
  for aead in chacha20-poly1305 aes-256-gcm kuznyechik-mgm magma-mgm; do
    for backend in cpu gpu; do
      t0=$(date +%s.%N)
      "$dir/shifr" encrypt -q --force -a "$aead" --key-file "$tmp/key" --backend "$backend" -o "$tmp/enc" "$tmp/in"
      t1=$(date +%s.%N)
      "$dir/shifr" decrypt -q --force --key-file "$tmp/key" --backend "$backend" -o "$tmp/dec" "$tmp/enc"
      t2=$(date +%s.%N)
      cmp -s "$tmp/in" "$tmp/dec" || { echo "$aead $backend: round trip FAILED"; exit 1; }
      awk -v a="$aead" -v b="$backend" -v n="$bytes" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
        'BEGIN { e = t1 - t0; d = t2 - t1; printf "%-20s %-4s encrypt %6.2f s (%6.3f GB/s)  decrypt %6.2f s (%6.3f GB/s)\n", a, b, e, n / e / 1e9, d, n / d / 1e9 }'
    done
  done
  rm -rf "$tmp"
fi
