#!/usr/bin/env bash
# Cross tests (issue 8): builds shifr for a 64-bit ARM, a 32-bit ARM and a big-endian target and runs,
# under QEMU user-mode emulation, the library's unit and differential tests and `shifr kat` on the
# shared vectors — once per backend that target offers, forced with SHIFR_BACKEND — and then the
# `shifr` binary itself: an encrypt / decrypt round trip with every container AEAD (and the decryption
# of containers made on the build machine), and `shifr bench --quick --full --peers none`.
# It also builds the fully static x86_64-unknown-linux-musl `shifr`, checks that it is static, and
# runs its known answers, its round trip and the CLI's feature tests (tests/features.rs) with it.
#
# The `shifr` built here has none of the CLI's optional features (`--no-default-features`: no
# OpenSSL peers, no GPU, no TLS study; README "Features"), which is what builds with nothing but
# the cross linker or statically.
#
# Cost (CI: two cores): each target is compiled once (test profile, opt-level 1; the CLI reuses the
# library the tests were built against) and its binaries are then started in the background while
# the next target compiles.
#
# Installs what it needs only when missing: the rustup targets, Debian's cross linkers and target libc
# (gcc-*-linux-gnu*, libc6-dev-*-cross) and qemu-user (the musl target needs no package: Rust ships
# its C library and start files). Linkers and runners: .cargo/config.toml.
# `SHIFR_CROSS_TARGETS="t1 t2"` limits the run to some targets; `SHIFR_CROSS_MUSL=0` skips the musl
# binary.
set -euo pipefail
cd "$(dirname "$0")/.."

vectors="${SHIFR_VECTORS:-../shared/vectors}"
# aarch64 first: it has the most to run under QEMU, which then overlaps the other targets' compiles.
targets="${SHIFR_CROSS_TARGETS:-aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf s390x-unknown-linux-gnu}"
musl_target=x86_64-unknown-linux-musl
musl="${SHIFR_CROSS_MUSL:-1}"
# The container AEADs of the round trips, and the plaintext size: a few MiB, not a whole number of
# chunks.
aeads="aes-256-gcm chacha20-poly1305 xchacha20-poly1305 kuznyechik-mgm magma-mgm"
plain_bytes=$((3 * 1024 * 1024 + 12345))

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
#   multi-stream included), aarch64_backends (ARMv8 crypto AES / GHASH / GCM, its fused CBC / CFB
#   decryption), aes_chains (the chain hooks and chained modes against RustCrypto) and MGM.
# Left out everywhere: shifr's error-path, container, engine, OpenSSL and vector-file tests and the
# text-format tests of shifr-kat, none of which depends on the word size, the byte order or the
# backend beyond what the runs below cover.
diff_tests="--lib --test aes_diff --test chacha_diff --test gcm_diff --test kuznyechik_diff
  --test magma_diff --test tdes_diff --test modes_diff"
tests_for() {
  case "$1" in
    aarch64-*) echo "$diff_tests --test modes_mgm --test aes_backends --test chacha_backends
                     --test kuznyechik_backends --test magma_backends --test tdes_backends
                     --test aarch64_backends --test aes_chains" ;;
    *) echo "$diff_tests" ;;
  esac
}

install_missing() {
  local installed
  installed="$(rustup target list --installed)"
  local want_targets=()
  local rust_targets="$targets"
  [ "$musl" = 0 ] || rust_targets="$rust_targets $musl_target"
  for t in $rust_targets; do
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

# Compiles target $1's test binaries and `shifr` (no optional features); writes their paths to
# $logs/$1.exe, `shifr` last. One cargo invocation for both, so that the library is compiled once:
# built apart, the CLI's dependency features differ from the tests' (rand's std on rand_core, libc's
# std) and the library would be compiled twice. The CLI's tests/features.rs comes with the binary
# (it is what makes `cargo test` build it); it is not run here: under qemu-user a guest binary
# cannot start another one.
build() {
  local t=$1
  echo "== cross $t: build $(tests_for "$t" | tr -s ' \n' ' ')and shifr (--no-default-features)"
  # shellcheck disable=SC2046 # tests_for prints several arguments
  cargo test --no-run --quiet --target "$t" -p shifr $(tests_for "$t") \
    -p shifr-cli --no-default-features --test features --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' >"$logs/$t.all"
  grep -v -e '/deps/features-' -e '/shifr$' "$logs/$t.all" >"$logs/$t.exe"
  grep '/shifr$' "$logs/$t.all" >>"$logs/$t.exe"
}

# Encrypts and decrypts $logs/plain with every container AEAD through `shifr` ($@: the command, a
# runner first where there is one), and decrypts the containers made on the build machine
# ($logs/host.*.shifr) when they exist. $work: a fresh directory for the files.
round_trips() {
  local work=$1 aead
  shift
  mkdir -p "$work"
  "$@" keygen -o "$work/key" || return 1
  for aead in $aeads; do
    "$@" encrypt -q --key-file "$work/key" -a "$aead" -o "$work/$aead.shifr" "$logs/plain" &&
      "$@" decrypt -q --key-file "$work/key" -o "$work/$aead.out" "$work/$aead.shifr" &&
      cmp -s "$logs/plain" "$work/$aead.out" || { echo "round trip $aead: FAILED"; return 1; }
    if [ -f "$logs/host.$aead.shifr" ]; then
      "$@" decrypt -q --key-file "$logs/host.key" -o "$work/$aead.host" "$logs/host.$aead.shifr" &&
        cmp -s "$logs/plain" "$work/$aead.host" ||
        { echo "decryption of the build machine's $aead container: FAILED"; return 1; }
    fi
    rm -f "$work/$aead.shifr" "$work/$aead.out" "$work/$aead.host"
  done
  local also=""
  [ -f "$logs/host.aes-256-gcm.shifr" ] && also=" (and the build machine's containers decrypted)"
  echo "round trips of $((plain_bytes / 1024)) KiB: ${aeads// /, }$also: pass"
}

# Runs target $1's binaries under QEMU once per backend, then the CLI checks once with the backends
# the target chooses itself; output in $logs/$1.log.
run() {
  local t=$1 b exe shifr failed=0
  local qemu
  read -ra qemu <<<"$(qemu_for "$t")"
  shifr="$(tail -n 1 "$logs/$t.exe")"
  for b in $(backends_for "$t"); do
    while read -r exe; do
      if [ "$exe" = "$shifr" ]; then
        printf '%s SHIFR_BACKEND=%s shifr kat: ' "$t" "$b"
        SHIFR_BACKEND="$b" "${qemu[@]}" "$exe" kat "$vectors"/gost.txt "$vectors"/std.txt >"$logs/$t.kat" ||
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
  printf '%s shifr: ' "$t"
  round_trips "$logs/$t.cli" "${qemu[@]}" "$shifr" || failed=1
  printf '%s shifr bench --quick --full --peers none: ' "$t"
  if "${qemu[@]}" "$shifr" bench --quick --full --peers none --alg kuznyechik-ctr,chacha20-poly1305 \
    >"$logs/$t.bench" 2>&1 && grep -q '^kuznyechik-ctr ' "$logs/$t.bench" &&
    grep -q '^chacha20-poly1305 ' "$logs/$t.bench"; then
    echo "$(grep -c -E '^(kuznyechik-ctr|chacha20-poly1305) ' "$logs/$t.bench") rows: pass"
  else
    failed=1
    echo FAILED
    cat "$logs/$t.bench"
  fi
  return $failed
}

# The static musl `shifr`, built with the CLI's feature tests; writes the test binary's path to
# $logs/musl.exe and the binary's to $logs/musl.shifr.
build_musl() {
  echo "== $musl_target: build the static shifr (--no-default-features) and tests/features.rs"
  cargo test --no-run --quiet --target "$musl_target" -p shifr-cli --no-default-features \
    --test features --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' >"$logs/musl.all"
  grep '/deps/features-' "$logs/musl.all" >"$logs/musl.exe"
  grep '/shifr$' "$logs/musl.all" >"$logs/musl.shifr"
}

# Checks that the musl `shifr` is static and runs its known answers, round trips and the feature
# tests; then encrypts $logs/plain with every AEAD into $logs/host.*.shifr for the QEMU runs.
run_musl() {
  local shifr failed=0 aead
  shifr="$(cat "$logs/musl.shifr")"
  printf '%s: ' "$musl_target"
  # ldd says "not a dynamic executable" for a static binary and "statically linked" for a
  # static-pie one (what Rust's musl target links by default).
  if LC_ALL=C ldd "$shifr" 2>&1 | grep -qE 'not a dynamic executable|statically linked'; then
    echo "static: pass"
  else
    failed=1
    echo "not static: FAILED"
    LC_ALL=C ldd "$shifr" 2>&1 || true
  fi
  printf '%s shifr kat: ' "$musl_target"
  "$shifr" kat "$vectors"/gost.txt "$vectors"/std.txt >"$logs/musl.kat" ||
    { failed=1; grep -v ': pass$' "$logs/musl.kat"; }
  tail -n 1 "$logs/musl.kat"
  printf '%s shifr: ' "$musl_target"
  round_trips "$logs/musl.cli" "$shifr" || failed=1
  printf '%s tests/features.rs: ' "$musl_target"
  "$(cat "$logs/musl.exe")" -q >"$logs/musl.test" 2>&1 || failed=1
  grep -E '^test result|FAILED|panicked' "$logs/musl.test" || cat "$logs/musl.test"
  "$shifr" keygen -o "$logs/host.key" || failed=1
  for aead in $aeads; do
    "$shifr" encrypt -q --key-file "$logs/host.key" -a "$aead" -o "$logs/host.$aead.shifr" \
      "$logs/plain" || failed=1
  done
  return $failed
}

head -c "$plain_bytes" /dev/urandom >"$logs/plain"

status=0
pids=()
start=$SECONDS
if [ "$musl" != 0 ]; then
  # First and in the foreground of the QEMU runs: its containers are what they decrypt.
  build_musl
  echo "== $musl_target: built after $((SECONDS - start)) s"
  run_musl >"$logs/musl.log" 2>&1 || status=1
  cat "$logs/musl.log"
fi
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
