#!/usr/bin/env bash
# Cross tests (issue 8): builds shifr for a 64-bit ARM, a 32-bit ARM and a big-endian target and runs,
# under QEMU user-mode emulation, the library's unit and differential tests and `shifr kat` on the
# shared vectors — once per backend that target offers, forced with SHIFR_BACKEND.
#
# Installs what it needs only when missing: the rustup targets, Debian's cross linkers and target libc
# (gcc-*-linux-gnu*, libc6-dev-*-cross) and qemu-user. Linkers and runners: .cargo/config.toml.
# `SHIFR_CROSS_TARGETS="t1 t2"` limits the run to some targets.
set -euo pipefail
cd "$(dirname "$0")/.."

vectors="${SHIFR_VECTORS:-../shared/vectors}"
targets="${SHIFR_CROSS_TARGETS:-s390x-unknown-linux-gnu armv7-unknown-linux-gnueabihf aarch64-unknown-linux-gnu}"

# target -> Debian cross gcc, target libc, qemu binary, libc root, the backends forced in the kat run.
debian_gcc() {
  case "$1" in
    aarch64-*) echo gcc-aarch64-linux-gnu ;;
    armv7-*) echo gcc-arm-linux-gnueabihf ;;
    s390x-*) echo gcc-s390x-linux-gnu ;;
  esac
}
debian_libc() {
  case "$1" in
    aarch64-*) echo libc6-dev-arm64-cross ;;
    armv7-*) echo libc6-dev-armhf-cross ;;
    s390x-*) echo libc6-dev-s390x-cross ;;
  esac
}
qemu_for() {
  case "$1" in
    aarch64-*) echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
    armv7-*) echo "qemu-arm -L /usr/arm-linux-gnueabihf" ;;
    s390x-*) echo "qemu-s390x -L /usr/s390x-linux-gnu" ;;
  esac
}
backends_for() {
  case "$1" in
    aarch64-*) echo "auto neon armv8-crypto portable" ;;
    *) echo "auto portable" ;;
  esac
}

# What `cargo test` runs per target. Every test binary costs a cross compile and link at opt-level 2,
# and the three targets together must stay near ten minutes on two cores, so:
# - aarch64 (where the NEON and ARMv8-crypto backends live): every test of shifr and shifr-kat;
# - armv7 and s390x (portable code only): shifr's unit tests (every module's known-answer tests) and
#   the differential tests of each cipher and of the modes against RustCrypto, which is where 32-bit
#   and byte-order bugs show. Left out there: the text-format tests of shifr-kat and shifr's
#   error-path, multi-stream, OpenSSL and vector-file tests, none of which depends on the word size
#   or byte order beyond what the kat run below covers.
tests_for() {
  case "$1" in
    aarch64-*) echo "-p shifr -p shifr-kat" ;;
    *) echo "-p shifr --lib --test aes_diff --test chacha_diff --test gcm_diff --test kuznyechik_diff
             --test magma_diff --test tdes_diff --test modes_diff" ;;
  esac
}

install_missing() {
  local installed
  installed="$(rustup target list --installed)"
  local want_targets=()
  for t in $targets; do
    grep -qx "$t" <<<"$installed" || want_targets+=("$t")
  done
  if [ ${#want_targets[@]} -gt 0 ]; then
    echo "cross-test.sh: rustup target add ${want_targets[*]}"
    rustup target add "${want_targets[@]}"
  fi

  local missing=()
  for t in $targets; do
    for pkg in "$(debian_gcc "$t")" "$(debian_libc "$t")"; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
    done
  done
  command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "cross-test.sh: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  $sudo apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing

if [ ! -d "$vectors" ]; then
  echo "cross-test.sh: no vector directory at $vectors (set SHIFR_VECTORS)" >&2
  exit 1
fi

for t in $targets; do
  start=$SECONDS
  echo "== cross $t: cargo test $(tests_for "$t" | tr -s ' \n' ' ')(under $(qemu_for "$t" | cut -d' ' -f1))"
  # Without binfmt_misc (containers, CI) an emulated process cannot start another guest binary,
  # so the two tests that re-run their own binary with SHIFR_BACKEND set are skipped here; the kat
  # runs below force every backend through SHIFR_BACKEND instead.
  # shellcheck disable=SC2046 # tests_for prints several arguments
  cargo test --quiet --target "$t" $(tests_for "$t") -- --skip environment_forces_portable_backend
  # The test profile (opt-level 2) shares the already built library with the tests above.
  cargo build --quiet --target "$t" --profile test -p shifr-cli
  for b in $(backends_for "$t"); do
    printf '== cross %s: shifr kat, SHIFR_BACKEND=%s: ' "$t" "$b"
    # shellcheck disable=SC2046 # the runner is a command plus its arguments
    SHIFR_BACKEND="$b" $(qemu_for "$t") "target/$t/debug/shifr" kat "$vectors"/gost.txt "$vectors"/std.txt |
      tail -n 1
  done
  echo "== cross $t: $((SECONDS - start)) s"
done
