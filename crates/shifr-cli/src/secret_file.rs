//! Reading a key file or passphrase file: never the data itself, never more than a few KiB.
//!
//! A secret file that is the data input — the same file, or stdin or a pipe that also carries the data
//! (`--passphrase-file /dev/stdin` with data on stdin) — would swallow the data or leak the secret
//! into it, so it is refused before anything is read: the two are compared by device and inode, which
//! also catches `/dev/stdin`, `/proc/self/fd/0` and hard links. `-` names stdin.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use zeroize::Zeroizing;

/// A file's identity: device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of an open file; `None` where the system cannot say.
    pub fn of(file: &File) -> Option<FileId> {
        file.metadata().ok().map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    /// The identity of whatever stdin is (a file, a pipe, a terminal).
    pub fn of_stdin() -> Option<FileId> {
        let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
        FileId::of(&File::from(fd))
    }
}

/// Reads at most `limit` bytes of the secret file `path` (`-`: stdin), described as `what` ("key
/// file", "passphrase file") in errors. `data` is the identity of the data input, which the secret file
/// must not be. A file larger than `limit` gives `limit + 1` bytes, for the caller's size error.
pub fn read(
    path: &Path,
    what: &str,
    limit: usize,
    data: Option<FileId>,
) -> Result<Zeroizing<Vec<u8>>> {
    let shown = path.display();
    let is_stdin = path.as_os_str() == "-";
    let file = if is_stdin {
        let fd = std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .with_context(|| format!("cannot read {what} from stdin"))?;
        File::from(fd)
    } else {
        File::open(path).with_context(|| format!("cannot read {what} {shown}"))?
    };
    if let (Some(secret), Some(data)) = (FileId::of(&file), data) {
        if secret == data {
            bail!(
                "the {what} {shown} is the data input itself; give the {what} and the data separately"
            );
        }
    }
    // The whole capacity up front: a growing vector would leave copies of the secret behind in
    // freed memory that nothing zeroizes.
    let mut bytes = Zeroizing::new(Vec::with_capacity(limit + 1));
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} {shown}"))?;
    Ok(bytes)
}
