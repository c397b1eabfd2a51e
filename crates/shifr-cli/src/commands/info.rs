//! `shifr info FILE`: the header of a shifr file, read without a key, and the sizes its length implies.

use crate::container_args::InfoArgs;
use crate::container_io::{name_paths, open_input};
use anyhow::Result;
use shifr::container::header::HEADER_LEN;
use shifr::container::{read_header, Header, Kdf};

pub fn run(args: &InfoArgs) -> Result<()> {
    let mut input = open_input(Some(&args.file))?;
    let header = read_header(&mut input.reader).map_err(|e| name_paths(e, &input.name, "-"))?;
    println!("file        {}", input.name);
    println!(
        "format      shifr version {}",
        shifr::container::header::VERSION
    );
    println!("algorithm   {}", header.algorithm.name());
    match header.kdf {
        Kdf::Argon2id { m_kib, t, p } => {
            println!("kdf         argon2id m={m_kib} KiB t={t} p={p}, then HKDF-SHA256")
        }
        Kdf::KeyFile => println!("kdf         key file, HKDF-SHA256"),
    }
    println!("chunk size  {} bytes", header.chunk_size);
    if let Some(size) = input.size {
        println!("file size   {size} bytes");
        match layout(&header, size) {
            Some((chunks, plain)) => {
                println!("chunks      {chunks}");
                println!("plaintext   {plain} bytes (from the file size; not verified)");
            }
            None => {
                println!("plaintext   unknown: the length fits no whole set of chunks (damaged)")
            }
        }
    }
    Ok(())
}

/// Chunk count and plaintext size implied by a container of `file_len` bytes, if it is consistent.
pub fn layout(header: &Header, file_len: u64) -> Option<(u64, u64)> {
    let body = file_len.checked_sub(HEADER_LEN as u64)?;
    let tag = header.algorithm.tag_len() as u64;
    let chunk = u64::from(header.chunk_size);
    let full = body / (chunk + tag);
    let rem = body % (chunk + tag);
    let last = rem.checked_sub(tag)?;
    Some((full + 1, full * chunk + last))
}
