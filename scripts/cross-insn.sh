#!/usr/bin/env bash
# Instructions per byte of each cipher backend on the cross targets, counted by QEMU (docs/BENCHMARKS.md,
# "Other platforms"). Needs what scripts/cross-test.sh installs (targets, cross linkers, qemu-user).
#
# It builds the library's `catalog_cipher` example per target (test profile forced to opt-level 2, as the table was counted; the CLI is
# not cross-built, since it also links OpenSSL) and, for every target, algorithm and backend, runs it
# (the catalogue's one-shot encryption, as `shifr cipher` makes it) under qemu-user with the
# instruction-counting plugin scripts/qemu-insn-count.c on SMALL and SMALL + DELTA bytes of input
# and prints (count(large) - count(small)) / DELTA: start-up, key setup and I/O set-up cancel out.
# Prints one Markdown table row per (target, algorithm): instructions per byte for each backend.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="${SHIFR_CROSS_TARGETS:-aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf s390x-unknown-linux-gnu}"
small=16384
delta=262144
plugin=target/qemu-insn-count.so
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

gcc -shared -fPIC -O2 -o "$plugin" scripts/qemu-insn-count.c
for t in $targets; do
  CARGO_PROFILE_TEST_OPT_LEVEL=2 cargo build --quiet --profile test -p shifr --example catalog_cipher --target "$t"
done
head -c 32 /dev/zero | tr '\0' '\7' >"$work/key"
head -c $((small + delta)) /dev/zero >"$work/large"
head -c "$small" /dev/zero >"$work/small"

qemu_for() {
  case "$1" in
    aarch64-*) echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
    armv7-*) echo "qemu-arm -L /usr/arm-linux-gnueabihf" ;;
    s390x-*) echo "qemu-s390x -L /usr/s390x-linux-gnu" ;;
  esac
}

# algorithm, key bytes, IV (hex, - for none), extra flag (- for none), AArch64 backends it offers
algorithms=(
  "magma-ecb 32 - --nopad neon"
  "magma-cbc 32 0001020304050607 - neon"
  "kuznyechik-ecb 32 - --nopad neon"
  "kuznyechik-cbc 32 000102030405060708090a0b0c0d0e0f - neon"
  "aes-128-ecb 16 - --nopad armv8-crypto"
  "aes-128-gcm 16 000102030405060708090a0b - armv8-crypto"
  "chacha20 32 00000000000000000000000000000000 - neon"
)

count() { # target backend algorithm keylen iv flags input
  local t=$1 b=$2 alg=$3 keylen=$4 iv=$5 flags=$6 input=$7
  local args=("$alg" "$work/key$keylen" "$iv")
  [ "$flags" = - ] || args+=("$flags")
  # shellcheck disable=SC2046 # the runner is a command plus its arguments
  SHIFR_BACKEND="$b" $(qemu_for "$t") -plugin "$plugin" "target/$t/debug/examples/catalog_cipher" "${args[@]}" \
    <"$input" 2>&1 >/dev/null | sed -n 's/^insns //p'
}

head -c 16 "$work/key" >"$work/key16"
cp "$work/key" "$work/key32"
echo "| target | algorithm | portable | neon | armv8-crypto |"
echo "|---|---|---|---|---|"
for t in $targets; do
  for spec in "${algorithms[@]}"; do
    read -r alg keylen iv flags offered <<<"$spec"
    row="| $t | $alg |"
    for b in portable neon armv8-crypto; do
      if [ "$b" != portable ] && { [[ "$t" != aarch64-* ]] || [ "$b" != "$offered" ]; }; then
        row+=" — |"
        continue
      fi
      c1=$(count "$t" "$b" "$alg" "$keylen" "$iv" "$flags" "$work/small")
      c2=$(count "$t" "$b" "$alg" "$keylen" "$iv" "$flags" "$work/large")
      row+=" $(awk -v a="$c1" -v b="$c2" -v d="$delta" 'BEGIN { printf "%.1f", (b - a) / d }') |"
    done
    echo "$row"
  done
done
