"""Shared fixtures: the `shifr` CLI (SHIFR_BIN, default target/debug/shifr of this repository) and key
files. Passphrase tests lower Argon2id with SHIFR_TEST_ARGON2, as the CLI's own tests do."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shifr_bin():
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    path = os.environ.get("SHIFR_BIN", os.path.join(target, "debug", "shifr"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no shifr CLI at {path}: run `cargo build -p shifr-cli` or set SHIFR_BIN")
    return path


@pytest.fixture
def cli(shifr_bin):
    def run(*args, check=True, env=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        done = subprocess.run(
            [shifr_bin, *map(str, args)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=full_env,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"shifr {args} exited {done.returncode}: {done.stderr.decode()}")
        return done

    return run


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "key.hex"
    path.write_text(os.urandom(32).hex() + "\n")
    path.chmod(0o600)
    return path


def pattern(n, seed=0):
    """Deterministic bytes that are not all alike."""
    return bytes((i * 131 + seed * 7 + (i >> 8)) & 0xFF for i in range(n))
