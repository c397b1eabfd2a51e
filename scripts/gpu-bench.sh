#!/usr/bin/env bash
# GPU acceptance run of issue 6 (docs/GPU.md). Two steps:
#
#   here (builds; needs cargo):       scripts/gpu-bench.sh --prepare        -> .gpu-carry/
#   on the device machine (no cargo): scripts/gpu-bench.sh                 (carry: [".gpu-carry"])
#
# The second step checks every kernel against the CPU library and the shared vectors on the GPU,
# measures pinned host<->device copy bandwidth (PyTorch, present in the device image), then prints
# `shifr bench --backend gpu`: device-resident and host-to-host GB/s of every kernel and multi-stream
# Magma CFB over 16,384 x 512 B sectors with their own keys — the figures of the acceptance table.
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
    case "$name" in gpu_vs_cpu | gpu_vectors) cp "$t" "$dir/$name" ;; esac
  done
  # Debug info would push the carry over the device's 64 MiB limit.
  strip "$dir"/*
  cp -r "${SHIFR_VECTORS:-../shared/vectors}" "$dir/vectors"
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
[ -n "$nvrtc" ] || nvrtc=$(find /usr/local /opt /usr/lib -name 'libnvrtc.so*' 2>/dev/null | head -1 || true)
export LD_LIBRARY_PATH="${nvrtc:+$(dirname "$nvrtc"):}${LD_LIBRARY_PATH:-}"
echo "NVRTC: ${nvrtc:-not found}"
export SHIFR_GPU=${SHIFR_GPU:-cuda} SHIFR_GPU_CACHE=/tmp/shifr-ptx SHIFR_VECTORS="$dir/vectors"
size=${GPU_BENCH_SIZE:-1024M}

echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi -L 2>/dev/null | head -1)"
echo "== correctness on the GPU (kernels vs CPU library; shared vectors)"
"$dir/gpu_vs_cpu" --test-threads=1
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
echo "== shifr bench --backend gpu --size $size --streams 16384"
"$dir/shifr" bench --backend gpu --size "$size" --streams 16384
