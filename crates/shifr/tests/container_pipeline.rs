//! The threaded job pipeline behind `FileCipher::encrypt` / `decrypt`: the output is the same for every
//! thread count and job size (including one chunk per job, where many jobs are in flight and finish out
//! of order); decryption releases exactly the chunks before the first failure and reports the lowest
//! failing chunk; read and write errors surface as `Error::Input` / `Error::Output`, a read error only
//! after every chunk read before it was verified.

use rand::RngCore;
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};
use std::io::{Read, Write};

const KEY: [u8; 32] = [0x61; 32];
const CHUNK: usize = 1024;

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

fn params(alg: Algorithm) -> EncryptParams {
    let mut p = EncryptParams::new(alg, Kdf::KeyFile, [1; 16], [2; 16]);
    p.chunk_size = CHUNK as u32;
    p
}

fn seal(alg: Algorithm, plain: &[u8], threads: usize, batch: Option<usize>) -> Vec<u8> {
    let mut cipher = FileCipher::for_encryption(&params(alg), Secret::KeyFile(&KEY)).unwrap();
    if let Some(b) = batch {
        cipher.set_batch_bytes(b);
    }
    let mut out = Vec::new();
    let mut reported = 0;
    let n = cipher
        .encrypt(plain, &mut out, threads, &mut |b| reported += b)
        .unwrap();
    assert_eq!((n, reported), (plain.len() as u64, plain.len() as u64));
    out
}

/// Decrypts `file` into `out`, which keeps what was released before an error.
fn open_into<R: Read>(
    mut file: R,
    out: &mut Vec<u8>,
    threads: usize,
    batch: Option<usize>,
) -> Result<u64, Error> {
    let header = read_header(&mut file)?;
    let mut cipher = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY))?;
    if let Some(b) = batch {
        cipher.set_batch_bytes(b);
    }
    cipher.decrypt(file, out, threads, &mut |_| {})
}

#[test]
fn same_output_for_every_thread_count_and_job_size() {
    for alg in [Algorithm::ChaCha20Poly1305, Algorithm::MagmaMgm] {
        for len in [0, CHUNK, 37 * CHUNK + 5, 2 * (1 << 20)] {
            let plain = random_bytes(len);
            let reference = seal(alg, &plain, 1, None);
            for threads in [1, 2, 3, 8] {
                for batch in [None, Some(0), Some(3 * CHUNK + 1)] {
                    let file = seal(alg, &plain, threads, batch);
                    assert!(
                        file == reference,
                        "{alg:?} len {len} threads {threads} {batch:?}"
                    );
                    let mut out = Vec::new();
                    open_into(&file[..], &mut out, threads, batch).unwrap();
                    assert!(
                        out == plain,
                        "{alg:?} len {len} threads {threads} {batch:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn decryption_stops_at_the_lowest_failing_chunk() {
    let alg = Algorithm::ChaCha20Poly1305;
    let slot = CHUNK + alg.tag_len();
    let plain = random_bytes(40 * CHUNK + 100);
    let mut file = seal(alg, &plain, 2, None);
    let body = shifr::container::header::HEADER_LEN;
    file[body + 23 * slot + 5] ^= 1;
    file[body + 7 * slot + 9] ^= 0x80;
    for threads in [1, 2, 5] {
        for batch in [None, Some(0), Some(4 * CHUNK)] {
            let mut out = Vec::new();
            let e = open_into(&file[..], &mut out, threads, batch).unwrap_err();
            assert!(matches!(e, Error::ChunkAuthentication(7)), "{e:?}");
            // Whole jobs before the failing one are released, never a chunk at or after it.
            assert!(out.len() <= 7 * CHUNK, "released {} bytes", out.len());
            assert!(out == plain[..out.len()]);
            if batch == Some(0) {
                assert_eq!(
                    out.len(),
                    7 * CHUNK,
                    "one chunk per job: all before chunk 7"
                );
            }
        }
    }
}

/// Yields `data`, then fails.
struct FailingReader<'a> {
    data: &'a [u8],
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.data.is_empty() {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.data.len()).min(3000);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Accepts `room` bytes, then fails.
struct FailingWriter {
    room: usize,
}

impl Write for FailingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn read_and_write_errors_surface_in_order() {
    let alg = Algorithm::Aes256Gcm;
    let plain = random_bytes(20 * CHUNK);
    for threads in [1, 3] {
        let cipher = FileCipher::for_encryption(&params(alg), Secret::KeyFile(&KEY)).unwrap();
        let mut sink = Vec::new();
        let e = cipher
            .encrypt(
                FailingReader {
                    data: &plain[..5000],
                },
                &mut sink,
                threads,
                &mut |_| {},
            )
            .unwrap_err();
        assert!(matches!(e, Error::Input(_)), "{e:?}");
        let e = cipher
            .encrypt(
                &plain[..],
                FailingWriter { room: 9000 },
                threads,
                &mut |_| {},
            )
            .unwrap_err();
        assert!(matches!(e, Error::Output(_)), "{e:?}");

        // A damaged chunk read before the read error is reported first.
        let mut file = seal(alg, &plain, threads, Some(0));
        let body = shifr::container::header::HEADER_LEN;
        file[body + 2] ^= 4;
        let cut = body + 6 * (CHUNK + alg.tag_len());
        let mut out = Vec::new();
        let e = open_into(
            FailingReader { data: &file[..cut] },
            &mut out,
            threads,
            Some(0),
        )
        .unwrap_err();
        assert!(matches!(e, Error::ChunkAuthentication(0)), "{e:?}");
        assert!(out.is_empty());
        let intact = seal(alg, &plain, threads, Some(0));
        let mut out = Vec::new();
        let e = open_into(
            FailingReader {
                data: &intact[..cut],
            },
            &mut out,
            threads,
            Some(0),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Input(_)), "{e:?}");
        assert!(out == plain[..out.len()] && out.len() <= 6 * CHUNK);
    }
}
