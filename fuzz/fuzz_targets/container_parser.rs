//! Fuzzes the container header parser and the chunk parser: arbitrary bytes are parsed as a header
//! and, if that succeeds, opened as a whole container with a fixed key file (so that mutations of a
//! valid corpus file reach the chunk code). Nothing may panic; `cargo fuzz run container_parser`.
//! crates/shifr/tests/container_fuzz_smoke.rs runs the same body on random and mutated inputs in
//! `cargo test`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shifr::container::{read_header, FileCipher, Header, Secret};

fuzz_target!(|data: &[u8]| {
    let _ = Header::parse(data);
    let mut input = data;
    if let Ok(header) = read_header(&mut input) {
        if let Ok(mut cipher) = FileCipher::for_decryption(&header, Secret::KeyFile(&[0x42; 32])) {
            cipher.set_batch_bytes(usize::from(data.len().is_multiple_of(3)) * 4096);
            let _ = cipher.decrypt(input, std::io::sink(), 1 + data.len() % 3, &mut |_| {});
        }
    }
});
