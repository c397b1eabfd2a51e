//! The `files` study's corpus: 150 files like seed 002's (section 5.1) — 50 text files of 20–1000 B,
//! 50 "audio" files of 10–500 KB and 50 "image" files of 100–300 KB, sizes spread evenly over each
//! range — generated deterministically from a seed, or the user's own files from a directory.
//!
//! The seed's texts came from lipsum.com, its audio from Audacity (MP3) and its images from a stock
//! photo site (JPEG). Here text is pseudo-Latin words and audio/images are pseudo-random bytes behind
//! an MP3 (ID3) or JPEG (SOI/APP0) header: compressed media is close to random, and none of the
//! ciphers measured looks at the content, so only the sizes matter for the timings.

use std::fmt;
use std::io;
use std::path::Path;

/// The kind of a corpus file, as seed 002 groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Plain text (seed: lipsum.com texts).
    Text,
    /// Audio (seed: MP3 files).
    Audio,
    /// Images (seed: JPEG files).
    Image,
    /// A user file (`--corpus`).
    Other,
}

impl FileKind {
    /// Lowercase name for tables and CSV.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Text => "text",
            FileKind::Audio => "audio",
            FileKind::Image => "image",
            FileKind::Other => "other",
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One file of the corpus, held in memory.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// File name (generated: `text-07.txt`, ...; user corpus: the file name).
    pub name: String,
    /// What kind of file it is.
    pub kind: FileKind,
    /// The content.
    pub data: Vec<u8>,
}

/// Sizes of `count` files spread evenly over `min..=max` bytes (both ends included).
pub fn even_sizes(count: usize, min: usize, max: usize) -> Vec<usize> {
    match count {
        0 => Vec::new(),
        1 => vec![min],
        _ => (0..count)
            .map(|i| min + ((max - min) as u128 * i as u128 / (count - 1) as u128) as usize)
            .collect(),
    }
}

/// The corpus of seed 002 with `per_kind` files of each kind (50 reproduces the seed), from `seed`.
/// The same arguments always give the same bytes.
pub fn generate(seed: u64, per_kind: usize) -> Vec<CorpusFile> {
    let mut rng = SplitMix64(seed);
    let mut files = Vec::with_capacity(3 * per_kind);
    let kinds = [
        (FileKind::Text, 20, 1000, "txt"),
        (FileKind::Audio, 10_000, 500_000, "mp3"),
        (FileKind::Image, 100_000, 300_000, "jpg"),
    ];
    for (kind, min, max, ext) in kinds {
        for (i, size) in even_sizes(per_kind, min, max).into_iter().enumerate() {
            let data = match kind {
                FileKind::Text => lorem(&mut rng, size),
                FileKind::Audio => media(&mut rng, size, b"ID3\x04\x00\x00"),
                _ => media(&mut rng, size, b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
            };
            files.push(CorpusFile {
                name: format!("{}-{:02}.{ext}", kind.name(), i + 1),
                kind,
                data,
            });
        }
    }
    files
}

/// Reads every regular file directly in `dir` (not recursing), sorted by name; empty files are kept
/// (they measure the per-call overhead). Fails if the directory holds no file.
pub fn load(dir: &Path) -> io::Result<Vec<CorpusFile>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        files.push(CorpusFile {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind: FileKind::Other,
            data: std::fs::read(entry.path())?,
        });
    }
    if files.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("no regular files in {}", dir.display()),
        ));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator; corpus content only, never keys.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 24] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
];

/// Pseudo-Latin text of exactly `size` bytes.
fn lorem(rng: &mut SplitMix64, size: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(size + 16);
    while text.len() < size {
        text.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
        text.push(if rng.below(12) == 0 { b'.' } else { b' ' });
    }
    text.truncate(size);
    text
}

/// `header` followed by pseudo-random bytes, `size` bytes in all.
fn media(rng: &mut SplitMix64, size: usize, header: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(size + 8);
    data.extend_from_slice(&header[..header.len().min(size)]);
    while data.len() < size {
        data.extend_from_slice(&rng.next().to_le_bytes());
    }
    data.truncate(size);
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_spread_evenly_over_the_seed_ranges() {
        let s = even_sizes(50, 20, 1000);
        assert_eq!((s[0], s[49]), (20, 1000));
        let steps: Vec<usize> = s.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(steps.iter().all(|&d| d == 20 || d == 19), "{steps:?}");
        assert_eq!(even_sizes(1, 5, 9), vec![5]);
        assert!(even_sizes(0, 5, 9).is_empty());
    }

    #[test]
    fn the_full_corpus_has_150_files_of_the_seed_sizes() {
        let files = generate(2022, 50);
        assert_eq!(files.len(), 150);
        for (kind, min, max) in [
            (FileKind::Text, 20, 1000),
            (FileKind::Audio, 10_000, 500_000),
            (FileKind::Image, 100_000, 300_000),
        ] {
            let sizes: Vec<usize> = files
                .iter()
                .filter(|f| f.kind == kind)
                .map(|f| f.data.len())
                .collect();
            assert_eq!(sizes.len(), 50);
            assert_eq!(sizes.iter().min(), Some(&min));
            assert_eq!(sizes.iter().max(), Some(&max));
        }
        assert!(files[0].data.iter().all(|b| b.is_ascii()));
        assert!(files[60].data.starts_with(b"ID3"));
        assert!(files[120].data.starts_with(b"\xff\xd8\xff"));
    }

    #[test]
    fn generation_is_deterministic_and_depends_on_the_seed() {
        let a = generate(7, 3);
        let b = generate(7, 3);
        let c = generate(8, 3);
        assert!(a.iter().zip(&b).all(|(x, y)| x.data == y.data));
        assert!(a.iter().zip(&c).any(|(x, y)| x.data != y.data));
    }

    #[test]
    fn a_user_corpus_is_read_sorted_and_an_empty_one_refused() {
        let dir = std::env::temp_dir().join(format!("shifr-corpus-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("b.bin"), [1u8, 2, 3]).unwrap();
        std::fs::write(dir.join("a.txt"), b"hello").unwrap();
        let files = load(&dir).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "b.bin"]);
        assert_eq!(files[1].data, [1, 2, 3]);
        assert!(load(&dir.join("sub")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
