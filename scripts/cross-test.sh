#!/usr/bin/env bash
# Cross tests (issue 8): builds shifr for a 64-bit ARM, a 32-bit ARM and a big-endian target and runs,
# under QEMU user-mode emulation, the library's unit and differential tests and the known-answer
# runner on the shared vectors — once per backend that target offers, forced with SHIFR_BACKEND.
#
# Cost (CI: two cores): each target is compiled once (test profile, opt-level 1) and its test
# binaries and the runner are then started once per backend, in the background, while the next
# target compiles. The runner is shifr-kat's `kat` binary, the same checks as `shifr kat` without
# the CLI's clap / OpenSSL / benchmark dependencies (which a cross build would also have to link).
#
# Installs what it needs only when missing: the rustup targets, Debian's cross linkers and target libc
# (gcc-*-linux-gnu*, libc6-dev-*-cross) and qemu-user. Linkers and runners: .cargo/config.toml.
# `SHIFR_CROSS_TARGETS="t1 t2"` limits the run to some targets.
set -euo pipefail
cd "$(dirname "$0")/.."

vectors="${SHIFR_VECTORS:-../shared/vectors}"
# aarch64 first: it has the most to run under QEMU, which then overlaps the other targets' compiles.
targets="${SHIFR_CROSS_TARGETS:-aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf s390x-unknown-linux-gnu}"

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
    # `auto` is left out: on QEMU's CPU model it picks NEON for Magma, Kuznyechik and ChaCha20 and
    # the crypto extensions for AES and GHASH, which is exactly what forcing either one gives (a
    # forced backend an algorithm lacks falls back to its best one).
    aarch64-*) echo "neon armv8-crypto portable" ;;
    *) echo "portable" ;;
  esac
}

# The test binaries per target; each costs a cross compile and link.
# - every target: shifr's unit tests (every module's known-answer tests) and the differential tests
#   of each cipher and of the modes against RustCrypto, which is where 32-bit and byte-order bugs
#   show, run through whichever backend SHIFR_BACKEND forces;
# - aarch64 also: the *_backends tests (each backend this CPU runs against the portable oracle,
#   multi-stream included), aarch64_backends (ARMv8 crypto AES / GHASH / GCM) and MGM.
# Left out everywhere: shifr's error-path, container, engine, OpenSSL and vector-file tests and the
# text-format tests of shifr-kat, none of which depends on the word size, the byte order or the
# backend beyond what the runs below cover.
diff_tests="--lib --test aes_diff --test chacha_diff --test gcm_diff --test kuznyechik_diff
  --test magma_diff --test tdes_diff --test modes_diff"
tests_for() {
  case "$1" in
    aarch64-*) echo "$diff_tests --test modes_mgm --test aes_backends --test chacha_backends
                     --test kuznyechik_backends --test magma_backends --test tdes_backends
                     --test aarch64_backends" ;;
    *) echo "$diff_tests" ;;
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
vectors="$(cd "$vectors" && pwd)"

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# Compiles target $1's test binaries and the runner; writes their paths to $logs/$1.exe.
build() {
  local t=$1
  echo "== cross $t: build $(tests_for "$t" | tr -s ' \n' ' ')and the kat runner"
  # shellcheck disable=SC2046 # tests_for prints several arguments
  cargo test --no-run --quiet --target "$t" -p shifr $(tests_for "$t") --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' >"$logs/$t.exe"
  cargo build --quiet --target "$t" --profile test -p shifr-kat --bin kat
  echo "target/$t/debug/kat" >>"$logs/$t.exe"
}

# Runs target $1's binaries under QEMU once per backend; output in $logs/$1.log.
run() {
  local t=$1 b exe failed=0
  local qemu
  read -ra qemu <<<"$(qemu_for "$t")"
  for b in $(backends_for "$t"); do
    while read -r exe; do
      if [ "$(basename "$exe")" = kat ]; then
        printf '%s SHIFR_BACKEND=%s kat: ' "$t" "$b"
        SHIFR_BACKEND="$b" "${qemu[@]}" "$exe" "$vectors"/gost.txt "$vectors"/std.txt >"$logs/$t.kat" ||
          { failed=1; grep -v ': pass$' "$logs/$t.kat"; }
        tail -n 1 "$logs/$t.kat"
      else
        printf '%s SHIFR_BACKEND=%s %s: ' "$t" "$b" "$(basename "$exe" | sed 's/-[0-9a-f]*$//')"
        # Without binfmt_misc (containers, CI) an emulated process cannot start another guest
        # binary, so the tests that re-run their own binary with SHIFR_BACKEND set are skipped;
        # these runs force every backend through SHIFR_BACKEND instead.
        SHIFR_BACKEND="$b" "${qemu[@]}" "$exe" -q --skip environment_forces_portable_backend \
          --skip every_engine_in_a_child \
          >"$logs/$t.test" 2>&1 || failed=1
        grep -E '^test result|FAILED|panicked' "$logs/$t.test" || cat "$logs/$t.test"
      fi
    done <"$logs/$t.exe"
  done
  return $failed
}

status=0
pids=()
start=$SECONDS
for t in $targets; do
  build "$t"
  echo "== cross $t: built after $((SECONDS - start)) s; its QEMU runs start in the background"
  run "$t" >"$logs/$t.log" 2>&1 &
  pids+=($!)
done
set -- $targets
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
  echo "== cross $1: under $(qemu_for "$1" | cut -d' ' -f1), done after $((SECONDS - start)) s"
  cat "$logs/$1.log"
  shift
done
[ $status -eq 0 ] || echo "cross-test.sh: FAILED (see above)" >&2
exit $status
