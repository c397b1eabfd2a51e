#!/usr/bin/env bash
# CUDA compile check without a GPU (docs/GPU.md, "CUDA compile check without a GPU"). NVRTC and ptxas need
# no GPU or driver: this fetches them as pip wheels (nvidia-cuda-nvrtc-cu12, nvidia-cuda-nvcc-cu12, about
# 130 MB) into a cache directory if they are not there yet, compiles the kernels of every Magma S-box set
# through shifr-gpu's own NVRTC code path (tests/nvrtc_compile.rs: any NVRTC error or warning, or a
# kernel the host launches missing from the PTX, fails it), then assembles each PTX with `ptxas -v` for
# the real architecture and prints registers, stack frame, spills and shared memory per kernel. It fails
# if any kernel uses local memory (a stack frame or spills) or more than 48 KiB of static shared memory.
#
#   scripts/nvrtc-check.sh                                    # sm_90 (H100)
#   NVRTC_ARCHES=sm_90,sm_80 scripts/nvrtc-check.sh # more architectures
#   NVRTC_CACHE=DIR      where the wheels are unpacked (default ${XDG_CACHE_HOME:-~/.cache}/shifr-nvrtc)
#   NVRTC_VERSION=12.9.86  pins the wheels' version (default: the newest cu12 release)
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${NVRTC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shifr-nvrtc}
arches=${NVRTC_ARCHES:-sm_90}
lib=$cache/nvidia/cuda_nvrtc/lib
ptxas=$cache/nvidia/cuda_nvcc/bin/ptxas
die() {
  echo "nvrtc-check.sh: $*" >&2
  exit 1
}

if [ ! -e "$lib/libnvrtc.so.12" ] || [ ! -e "$ptxas" ]; then
  pip=$(command -v pip3 || command -v pip || true)
  [ -n "$pip" ] || die "pip not found: install python3-pip, or unpack the wheels nvidia-cuda-nvrtc-cu12 and nvidia-cuda-nvcc-cu12 into $cache"
  wheels=$cache/wheels
  rm -rf "$wheels" && mkdir -p "$wheels"
  pin=${NVRTC_VERSION:+==$NVRTC_VERSION}
  echo "== fetching nvidia-cuda-nvrtc-cu12$pin and nvidia-cuda-nvcc-cu12$pin into $cache"
  "$pip" download --quiet --no-deps --only-binary=:all: -d "$wheels" \
    "nvidia-cuda-nvrtc-cu12$pin" "nvidia-cuda-nvcc-cu12$pin" ||
    die "pip download failed: no network or no package index reachable (the wheels are on pypi.org)"
  for w in "$wheels"/*.whl; do python3 -m zipfile -e "$w" "$cache"; done
  rm -rf "$wheels"
  [ -e "$lib/libnvrtc.so.12" ] && [ -e "$ptxas" ] || die "the wheels did not contain $lib/libnvrtc.so.12 and $ptxas"
  chmod +x "$ptxas"
fi
# cudarc tries libnvrtc.so before the versioned names; the link keeps this working whatever CUDA
# version its bindings are built for.
ln -sf libnvrtc.so.12 "$lib/libnvrtc.so"
version=$(ls -d "$lib"/../../../nvidia_cuda_nvrtc_cu12-*.dist-info 2>/dev/null | sed 's/.*cu12-\(.*\)\.dist-info/\1/' | head -1)
echo "== NVRTC ${version:-(version unknown)} from $lib; ptxas $("$ptxas" --version | grep -o "release.*")"

ptx=$(mktemp -d)
trap 'rm -rf "$ptx"' EXIT
echo "== NVRTC compile of every S-box set for $arches (cargo test -p shifr-gpu --test nvrtc_compile)"
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SHIFR_NVRTC_ARCHES=$arches SHIFR_PTX_OUT=$ptx \
  cargo test -q -p shifr-gpu --test nvrtc_compile -- --nocapture 2>&1 | tee "$ptx/test.log"
grep -q "every launched kernel present" "$ptx/test.log" || die "the test was skipped: libnvrtc did not load from $lib"

status=0
for f in "$ptx"/*.ptx; do
  name=$(basename "$f" .ptx)
  sm=$(echo "$name" | sed 's/^shifr-\(sm_[0-9a-z]*\)-.*/\1/')
  echo
  echo "== ptxas -arch=$sm -v ($name)"
  echo "| kernel | registers | stack frame B | spill stores / loads B | static smem B |"
  echo "|---|---|---|---|---|"
  "$ptxas" -arch="$sm" -v "$f" -o /dev/null 2>&1 | awk '
    /Compiling entry function/ { split($0, q, "\047"); k = q[2] }
    /bytes stack frame/ { stack = $1; st = $5; ld = $9 }
    /Used [0-9]+ registers/ {
      regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
      smem = 0; if ($0 ~ /bytes smem/) { smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.*, /, "", smem) }
      printf "| %s | %s | %s | %s / %s | %s |\n", k, regs, stack, st, ld, smem
      if (stack + st + ld > 0 || smem > 49152) bad = 1
    }
    END { exit bad }' || status=1
done
[ "$status" = 0 ] || die "a kernel uses local memory (stack frame or spills) or more than 48 KiB of static shared memory (table above)"
echo
echo "nvrtc-check.sh: OK"
