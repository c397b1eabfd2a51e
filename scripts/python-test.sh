#!/usr/bin/env bash
# The Python package's tests (python/README section of README.md): builds the `shifr` CLI if it is
# missing (the tests run it for cross-compatibility), makes a virtual environment under
# target/python-venv with maturin, pytest and dask[distributed], installs ./python[dask] into it
# (a dev-profile build of the extension through maturin), and runs pytest over python/tests.
# Idempotent: a second run reuses the environment and the incremental build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
venv="$root/target/python-venv"
python="${PYTHON:-python3}"

# The OpenSSL headers (shifr.bench measures OpenSSL beside shifr through the shifr-bench crate).
if ! pkg-config --exists openssl 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  $sudo apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libssl-dev pkg-config
fi

export SHIFR_BIN="${SHIFR_BIN:-$CARGO_TARGET_DIR/debug/shifr}"
if [ ! -x "$SHIFR_BIN" ]; then
  echo "python-test.sh: building the shifr CLI ($SHIFR_BIN)"
  cargo build -q -p shifr-cli
fi

if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -m venv "$venv"; then
    # Debian's system Python keeps venv's pip bootstrap in a package of its own.
    rm -rf "$venv"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv
    "$python" -m venv "$venv"
  fi
fi
# Skip with a reason only when the package registry cannot be reached (nothing can be installed).
if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.7,<2" "pytest>=7" "dask[distributed]>=2024.1" "tqdm>=4" "numpy"; then
  if ! "$venv/bin/python" -c "import maturin, pytest, distributed" 2>/dev/null; then
    echo "python-test.sh: SKIPPED: the package registry is unreachable (maturin, pytest, dask could not be installed)"
    exit 0
  fi
fi
# The extension crate is a workspace of its own (python/Cargo.toml), outside the root's fmt and clippy.
cargo fmt --manifest-path python/Cargo.toml -- --check
cargo clippy --quiet --manifest-path python/Cargo.toml --all-targets -- -D warnings
# maturin's build backend runs the `maturin` command: the environment's bin comes first on PATH.
export PATH="$venv/bin:$PATH"
# The test build uses the package's dev profile (opt-level 1, no debug info): a release build of the
# extension and the bench crate's peers costs several more minutes on a fresh two-core machine.
# `pip install ./python` without this variable builds the release profile.
MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev}" \
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation "./python[dask]"
# From the repository root with the pytest script (not `python -m pytest`, which puts the working
# directory on sys.path): `import shifr` must find the installed package, not python/shifr.
cd "$root"
"$venv/bin/pytest" -q -p no:cacheprovider python/tests "$@"
