"""The Python API: catalogue, in-place AEADs, files and streams byte-compatible with the CLI both
ways, and the CLI's error categories."""

import io
import os

import pytest

import shifr
from conftest import pattern

AEADS = shifr.CONTAINER_AEADS
# Around a 1 KiB chunk: empty, short, exactly one chunk (empty final chunk), one byte past.
SIZES = [0, 1, 1023, 1024, 1025, 5000]


def test_algorithms_come_from_the_catalogue():
    names = shifr.algorithms()
    assert "aes-256-gcm" in names and "magma-ctr" in names and "kuznyechik-mgm" in names
    aeads = shifr.algorithms("aead")
    assert set(AEADS) <= set(aeads) and "aes-128-ctr" not in aeads
    info = shifr.algorithm_info("AES-256-GCM")
    assert info["kind"] == "aead" and info["key_len"] == 32 and info["container"]
    assert not shifr.algorithm_info("aes-128-gcm")["container"]
    with pytest.raises(shifr.InvalidParameterError):
        shifr.algorithm_info("rot13")


@pytest.mark.parametrize("name", shifr.algorithms("aead"))
def test_aead_seals_and_opens_writable_buffers_in_place(name):
    aead = shifr.Aead(name, bytes(range(shifr.algorithm_info(name)["key_len"])))
    nonce = bytes([0x12] * aead.nonce_len)
    plain = pattern(3000)
    expected = aead.encrypt(nonce, plain, b"aad")
    assert aead.decrypt(nonce, expected, b"aad") == plain

    buf = bytearray(plain)
    tag = aead.seal(nonce, buf, b"aad")
    assert bytes(buf) + tag == expected
    aead.open(nonce, buf, tag, b"aad")
    assert buf == plain

    # A memoryview of part of a larger buffer: only that part changes.
    big = bytearray(b"\xee" * 10 + plain + b"\xee" * 10)
    tag = aead.seal(nonce, memoryview(big)[10:-10], b"aad")
    assert bytes(big[10:-10]) + tag == expected and big[:10] == b"\xee" * 10


def test_aead_in_place_on_numpy_arrays():
    np = pytest.importorskip("numpy")
    aead = shifr.Aead("chacha20-poly1305", b"k" * 32)
    arr = np.arange(4096, dtype=np.uint32)
    original = arr.copy()
    tag = aead.seal(b"n" * 12, arr)
    assert arr.tobytes() + tag == aead.encrypt(b"n" * 12, original.tobytes())
    aead.open(b"n" * 12, arr, tag)
    assert (arr == original).all()


def test_aead_tamper_raises_authentication_error_and_leaves_the_data():
    aead = shifr.Aead("aes-256-gcm", b"k" * 32)
    buf = bytearray(pattern(100))
    tag = aead.seal(b"n" * 12, buf)
    buf[5] ^= 1
    before = bytes(buf)
    with pytest.raises(shifr.AuthenticationError) as e:
        aead.open(b"n" * 12, buf, tag)
    assert e.value.exit_code == 7 and bytes(buf) == before
    with pytest.raises(shifr.AuthenticationError):
        aead.decrypt(b"n" * 12, b"short")
    with pytest.raises(TypeError):
        aead.seal(b"n" * 12, b"bytes are read-only")
    with pytest.raises(shifr.InvalidParameterError):
        shifr.Aead("aes-256-gcm", b"short key")
    with pytest.raises(shifr.InvalidParameterError):
        aead.seal(b"", bytearray(4))


@pytest.mark.parametrize("aead", AEADS)
def test_python_files_decrypt_with_the_cli_and_the_reverse(tmp_path, cli, key_file, aead):
    for size in SIZES:
        plain = tmp_path / f"p{size}"
        plain.write_bytes(pattern(size, size))
        enc = tmp_path / f"p{size}.shifr"
        assert shifr.encrypt_file(plain, enc, key_file=key_file, aead=aead, chunk_size=1024) == size
        assert shifr.read_header(enc)["aead"] == aead
        out = tmp_path / f"cli{size}"
        cli("decrypt", enc, "-o", out, "--key-file", key_file, "-q")
        assert out.read_bytes() == plain.read_bytes()

        enc2 = tmp_path / f"c{size}.shifr"
        cli("encrypt", plain, "-o", enc2, "--key-file", key_file, "-a", aead, "--chunk-size", 1024, "-q")
        back = tmp_path / f"py{size}"
        assert shifr.decrypt_file(enc2, back, key_file=key_file, threads=2) == size
        assert back.read_bytes() == plain.read_bytes()

        # Same header fields, same bytes: Python writes exactly what the CLI writes.
        h = shifr.read_header(enc2)
        enc3 = tmp_path / f"same{size}.shifr"
        shifr.encrypt_file(plain, enc3, key_file=key_file, aead=aead, chunk_size=1024,
                           salt=h["salt"], nonce_prefix=h["nonce_prefix"])
        assert enc3.read_bytes() == enc2.read_bytes()


def test_passphrase_files_cross_the_cli_both_ways(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("SHIFR_TEST_ARGON2", "64,1,1")
    pass_file = tmp_path / "pass"
    pass_file.write_text("correct horse\n")
    plain = tmp_path / "plain"
    plain.write_bytes(pattern(70000))
    shifr.encrypt_file(plain, tmp_path / "py.shifr", passphrase="correct horse")
    assert shifr.read_header(tmp_path / "py.shifr")["argon2"] == (64, 1, 1)
    cli("decrypt", tmp_path / "py.shifr", "-o", tmp_path / "a", "--passphrase-file", pass_file, "-q")
    assert (tmp_path / "a").read_bytes() == plain.read_bytes()
    cli("encrypt", plain, "-o", tmp_path / "cli.shifr", "--passphrase-file", pass_file, "-q")
    shifr.decrypt_file(tmp_path / "cli.shifr", tmp_path / "b", passphrase=b"correct horse")
    assert (tmp_path / "b").read_bytes() == plain.read_bytes()
    with pytest.raises(shifr.WrongKeyError):
        shifr.decrypt_file(tmp_path / "cli.shifr", tmp_path / "c", passphrase="wrong")
    with pytest.raises(shifr.WrongKeyError):
        shifr.decrypt_file(tmp_path / "cli.shifr", tmp_path / "c", key=b"k" * 32)
    assert not (tmp_path / "c").exists()


def test_a_costly_kdf_header_is_refused_before_any_derivation(tmp_path, monkeypatch):
    # Four passes: more than shifr writes (3), so refused by default, as `shifr decrypt` does.
    monkeypatch.setenv("SHIFR_TEST_ARGON2", "64,4,1")
    plain = tmp_path / "plain"
    plain.write_bytes(pattern(5000))
    enc = tmp_path / "four-passes.shifr"
    shifr.encrypt_file(plain, enc, passphrase="pass")
    with pytest.raises(shifr.InvalidParameterError, match=r"t = 4.*max_kdf_passes"):
        shifr.decrypt_file(enc, tmp_path / "out", passphrase="pass")
    with pytest.raises(shifr.InvalidParameterError, match="t = 4"):
        shifr.open_encrypted(enc, "rb", passphrase="pass").read()
    assert not (tmp_path / "out").exists()
    # Raised limits: the file decrypts, by file and by stream.
    shifr.decrypt_file(enc, tmp_path / "out", passphrase="pass", max_kdf_passes=4)
    assert (tmp_path / "out").read_bytes() == plain.read_bytes()
    with shifr.open_encrypted(enc, "rb", passphrase="pass", max_kdf_passes=4) as f:
        assert f.read() == plain.read_bytes()
    # A memory limit below the header's 64 KiB refuses it too.
    monkeypatch.setenv("SHIFR_TEST_ARGON2", "64,1,1")
    shifr.encrypt_file(plain, tmp_path / "small.shifr", passphrase="pass")
    with pytest.raises(shifr.InvalidParameterError, match="m = 64 KiB"):
        shifr.decrypt_file(tmp_path / "small.shifr", tmp_path / "x", passphrase="pass",
                           max_kdf_memory=32 * 1024)
    with pytest.raises(shifr.InvalidParameterError):
        shifr.open_encrypted(tmp_path / "y", "wb", key=b"k" * 32, max_kdf_passes=4)


@pytest.mark.parametrize("aead", ["aes-256-gcm", "magma-mgm"])
def test_streams_cross_the_cli_both_ways(tmp_path, cli, key_file, aead):
    plain = pattern(3 * (1 << 20) + 333)
    path = tmp_path / "stream.shifr"
    with shifr.open_encrypted(path, "wb", key_file=key_file, aead=aead, chunk_size=4096) as w:
        for i in range(0, len(plain), 100_003):
            w.write(plain[i:i + 100_003])
        assert not path.exists()  # nothing under the name before close
    cli("decrypt", path, "-o", tmp_path / "out", "--key-file", key_file, "-q")
    assert (tmp_path / "out").read_bytes() == plain

    (tmp_path / "plain").write_bytes(plain)
    cli("encrypt", tmp_path / "plain", "-o", tmp_path / "cli.shifr", "--key-file", key_file, "-a", aead, "-q")
    with shifr.open_encrypted(tmp_path / "cli.shifr", "rb", key_file=key_file) as r:
        first = r.read(10)
        rest = r.read()
    assert first + rest == plain
    # A file object works too, both ways.
    buf = io.BytesIO()
    with shifr.open_encrypted(buf, "wb", key_file=key_file, aead=aead) as w:
        w.write(plain[:5000])
    buf.seek(0)
    assert shifr.open_encrypted(buf, "rb", key_file=key_file).read() == plain[:5000]


def test_a_writer_left_by_an_exception_leaves_nothing(tmp_path, key_file):
    path = tmp_path / "never.shifr"
    with pytest.raises(RuntimeError):
        with shifr.open_encrypted(path, "wb", key_file=key_file) as w:
            w.write(b"x" * 200_000)
            raise RuntimeError("stop")
    assert os.listdir(tmp_path) == [key_file.name]


def _expect(cli, tmp_path, key_file, damaged, exc, code):
    """Python raises `exc` for the damaged file, the CLI exits with `code`, and neither leaves output."""
    with pytest.raises(exc) as e:
        shifr.decrypt_file(damaged, tmp_path / "py-out", key_file=key_file)
    assert e.value.exit_code == code
    assert cli("decrypt", damaged, "-o", tmp_path / "cli-out", "--key-file", key_file, check=False).returncode == code
    with pytest.raises(exc):
        shifr.open_encrypted(damaged, "rb", key_file=key_file).read()
    assert not (tmp_path / "py-out").exists() and not (tmp_path / "cli-out").exists()


def test_tamper_and_truncation_errors_match_the_cli(tmp_path, cli, key_file):
    plain = tmp_path / "plain"
    plain.write_bytes(pattern(10_000))
    enc = tmp_path / "f.shifr"
    shifr.encrypt_file(plain, enc, key_file=key_file, aead="chacha20-poly1305", chunk_size=1024)
    data = enc.read_bytes()
    slot = 1024 + 16
    cases = [
        ("flipped", data[:500] + bytes([data[500] ^ 1]) + data[501:], shifr.AuthenticationError, 7),
        ("cut-at-boundary", data[: 80 + 3 * slot], shifr.TruncatedError, 6),
        ("cut-inside", data[:-5], shifr.AuthenticationError, 7),
        ("appended", data + b"x", shifr.AuthenticationError, 7),
        ("not-shifr", b"hello world" * 10, shifr.NotShifrError, 3),
        ("empty", b"", shifr.NotShifrError, 3),
        ("version", data[:6] + b"\x02" + data[7:], shifr.UnsupportedVersionError, 4),
        ("header", data[:30] + bytes([data[30] ^ 1]) + data[31:], shifr.WrongKeyError, 5),
    ]
    for name, content, exc, code in cases:
        damaged = tmp_path / name
        damaged.write_bytes(content)
        _expect(cli, tmp_path, key_file, damaged, exc, code)
    other = tmp_path / "other.key"
    other.write_text("00" * 32)
    with pytest.raises(shifr.WrongKeyError):
        shifr.decrypt_file(enc, tmp_path / "x", key_file=other)
    with pytest.raises(shifr.ShifrIOError) as e:
        shifr.decrypt_file(tmp_path / "missing", tmp_path / "x", key_file=key_file)
    assert e.value.exit_code == 8 and "missing" in str(e.value)


def test_existing_outputs_need_force(tmp_path, key_file):
    plain = tmp_path / "plain"
    plain.write_bytes(b"abc")
    out = tmp_path / "out.shifr"
    out.write_bytes(b"keep")
    with pytest.raises(shifr.OutputExistsError):
        shifr.encrypt_file(plain, out, key_file=key_file)
    assert out.read_bytes() == b"keep"
    shifr.encrypt_file(plain, out, key_file=key_file, force=True)
    shifr.decrypt_file(out, tmp_path / "back", key_file=key_file)
    assert (tmp_path / "back").read_bytes() == b"abc"
    assert sorted(os.listdir(tmp_path)) == ["back", "key.hex", "out.shifr", "plain"]
    with pytest.raises(shifr.InvalidParameterError):
        shifr.encrypt_file(plain, tmp_path / "y", key_file=key_file, aead="aes-128-gcm")
    with pytest.raises(shifr.InvalidParameterError):
        shifr.encrypt_file(plain, tmp_path / "y", key_file=key_file, passphrase="both")


def test_bench_returns_rows_as_dicts():
    notes = []
    rows = shifr.bench(["chacha20-poly1305"], ["4KiB"], "none", seconds=0.01, notes=notes)
    assert len(rows) == 1
    row = rows[0]
    assert row["implementation"] == "shifr" and row["algorithm"] == "chacha20-poly1305"
    assert row["bytes"] == 4096 and row["mb_s"] > 0


def test_bench_measures_peers_side_by_side():
    notes = []
    rows = shifr.bench("aes-256-gcm", 4096, ["openssl"], seconds=0.01, notes=notes)
    if not rows or len(rows) == 1:
        pytest.skip(f"OpenSSL peer not measured here: {notes}")
    assert [r["implementation"] for r in rows] == ["shifr", "openssl"]
    assert rows[1]["ratio_vs_shifr"] > 0
    with pytest.raises(shifr.InvalidParameterError):
        shifr.bench("rot13", 4096)
    with pytest.raises(shifr.InvalidParameterError):
        shifr.bench("aes-256-gcm", "12 parsecs")
