//! Output that appears under its final name only when complete.
//!
//! On Linux the data goes to an unnamed file in the target directory (`O_TMPFILE`, mode 0600): it has
//! no directory entry while it is written, so a process killed at any moment, even by SIGKILL, leaves
//! nothing behind. On commit it is fsynced and linked to the final name (`linkat`, which never replaces
//! an existing name); with `--force` it is linked to a hidden temporary name and renamed over the final
//! name, so only a kill between those two system calls could leave a `.shifr-tmp-*` file. A replaced
//! file's permission bits (and, where the process may set them, its owner and group) carry over to the
//! new one. Only regular files (and links, which are replaced as `mv` would) are ever replaced:
//! [`AtomicOutput::create`] refuses any other existing non-regular file, `force` or not; a caller that
//! streams into FIFOs and devices sends them elsewhere before.
//!
//! The temporary name has a fixed length (`.shifr-tmp-` and 12 random hex digits), whatever the final
//! name's: an output name up to the file system's limit never fails at the very end for want of room.
//!
//! Where `O_TMPFILE` is unsupported (other systems, or filesystems without it such as some network and
//! FUSE filesystems) the data goes to a named temporary file `.shifr-tmp-*` instead, renamed into
//! place without replacing (`renameat2` with `RENAME_NOREPLACE`, or a hard link where that flag is
//! unsupported) or over the target with `--force`; a process killed outright may then leave that
//! temporary file behind, never a partial file under the final name. Either way the directory is
//! fsynced after the rename, and dropped without [`AtomicOutput::commit`] nothing stays behind.

use crate::{io_error, OutputError, Result};
use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the data waits until the commit.
enum Staging {
    /// An `O_TMPFILE` file with no name yet.
    Unnamed,
    /// A named temporary file in the target directory.
    Named(PathBuf),
}

/// A file on its way to a final name.
pub struct AtomicOutput {
    file: File,
    staging: Staging,
    target: PathBuf,
    name: OsString,
    force: bool,
    /// The permission bits, owner and group of the regular file being replaced.
    replaced: Option<(u32, u32, u32)>,
    committed: bool,
}

impl AtomicOutput {
    /// Creates the staging file for `target`; fails if `target` exists and `force` is not set.
    pub fn create(target: &Path, force: bool) -> Result<AtomicOutput> {
        let owned = || target.to_path_buf();
        let mut replaced = None;
        match std::fs::symlink_metadata(target) {
            Ok(m) if m.is_dir() => return Err(OutputError::IsDirectory(owned())),
            Ok(m) if !(m.is_file() || m.file_type().is_symlink()) => {
                return Err(OutputError::NotRegular(owned()))
            }
            Ok(_) if !force => return Err(OutputError::Exists(owned())),
            Ok(m) if m.is_file() => replaced = Some((m.mode() & 0o7777, m.uid(), m.gid())),
            // A link (to a regular file, or dangling) is replaced by the new file, as `mv` would.
            Ok(_) | Err(_) => {}
        }
        let name = target
            .file_name()
            .ok_or_else(|| OutputError::NoFileName(owned()))?
            .to_os_string();
        let dir = parent_dir(target);
        let cannot = "cannot create a temporary file in";
        let (file, staging) = match unnamed(dir).map_err(io_error(cannot, dir))? {
            Some(file) => (file, Staging::Unnamed),
            None => {
                let temp = temp_name(dir)?;
                let file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&temp)
                    .map_err(io_error(cannot, dir))?;
                (file, Staging::Named(temp))
            }
        };
        Ok(AtomicOutput {
            file,
            staging,
            target: target.to_path_buf(),
            name,
            force,
            replaced,
            committed: false,
        })
    }

    /// The file to write.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Whether the data is in an unnamed (`O_TMPFILE`) file, which a killed process cannot leave behind.
    pub fn is_unnamed(&self) -> bool {
        matches!(self.staging, Staging::Unnamed)
    }

    /// Flushes the data to disk and puts it under the final name.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        if let Some((mode, uid, gid)) = self.replaced {
            // Owner first: changing it may clear set-id bits, which the mode then restores. Only a
            // privileged process may give a file away; anyone else keeps the new file as their own.
            let _ = std::os::unix::fs::fchown(&self.file, Some(uid), Some(gid));
            self.file
                .set_permissions(std::fs::Permissions::from_mode(mode))
                .map_err(io_error("cannot set the permissions of", &target))?;
        }
        self.file
            .sync_all()
            .map_err(io_error("cannot write (fsync failed)", &target))?;
        let dir_path = parent_dir(&self.target).to_path_buf();
        let dir =
            File::open(&dir_path).map_err(io_error("cannot open the directory", &dir_path))?;
        let exists = || OutputError::AppearedWhileWriting(target.clone());
        match &self.staging {
            Staging::Unnamed => {
                if self.force {
                    let temp = temp_name(&dir_path)?;
                    link_unnamed(&self.file, &dir, temp.file_name().unwrap_or_default())
                        .map_err(io_error("cannot create", &target))?;
                    // Moving the new name over the target is the only non-atomic step left: only a kill
                    // between these two calls can leave the temporary name.
                    if let Err(e) = std::fs::rename(&temp, &self.target) {
                        let _ = std::fs::remove_file(&temp);
                        return Err(io_error("cannot replace", &target)(e));
                    }
                } else {
                    match link_unnamed(&self.file, &dir, &self.name) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(exists()),
                        Err(e) => return Err(io_error("cannot create", &target)(e)),
                    }
                }
            }
            Staging::Named(temp) => {
                if self.force {
                    std::fs::rename(temp, &self.target)
                        .map_err(io_error("cannot rename the temporary file to", &target))?;
                } else {
                    let temp_leaf = temp.file_name().unwrap_or_default();
                    match rename_no_replace(&dir, temp, temp_leaf, &self.target, &self.name) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(exists()),
                        Err(e) => return Err(io_error("cannot create", &target)(e)),
                    }
                }
            }
        }
        self.committed = true;
        // The new name is durable only once the directory entry is on disk.
        dir.sync_all()
            .map_err(io_error("cannot fsync the directory of", &target))?;
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if let (false, Staging::Named(temp)) = (self.committed, &self.staging) {
            // Nothing more can be done if the temporary file cannot be removed; it never had the final
            // name. An unnamed file simply vanishes when its descriptor closes.
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// A hidden, random name beside the target, of a fixed short length whatever the target's name.
fn temp_name(dir: &Path) -> Result<PathBuf> {
    let mut tag = [0u8; 6];
    getrandom::getrandom(&mut tag).map_err(|e| OutputError::Io {
        what: "the system random generator failed for a temporary name in",
        path: dir.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    Ok(dir.join(format!(".shifr-tmp-{}", hex::encode(tag))))
}

#[cfg(target_os = "linux")]
fn unnamed(dir: &Path) -> std::io::Result<Option<File>> {
    crate::unnamed::create_in(dir)
}

#[cfg(not(target_os = "linux"))]
fn unnamed(_dir: &Path) -> std::io::Result<Option<File>> {
    Ok(None)
}

#[cfg(target_os = "linux")]
fn link_unnamed(file: &File, dir: &File, name: &OsStr) -> std::io::Result<()> {
    crate::unnamed::link_to(file, dir, name)
}

#[cfg(not(target_os = "linux"))]
fn link_unnamed(_file: &File, _dir: &File, _name: &OsStr) -> std::io::Result<()> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

/// Renames `temp` to `target` (the same directory `dir`; `*_leaf` are the names in it) unless `target`
/// exists: `renameat2(RENAME_NOREPLACE)`, or where that is unsupported a hard link (which never
/// replaces) followed by removing the temporary name.
fn rename_no_replace(
    dir: &File,
    temp: &Path,
    temp_leaf: &OsStr,
    target: &Path,
    target_leaf: &OsStr,
) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if crate::unnamed::rename_no_replace(dir, temp_leaf, target_leaf)?.is_ok() {
        return Ok(());
    }
    let _ = (dir, temp_leaf, target_leaf);
    std::fs::hard_link(temp, target)?;
    std::fs::remove_file(temp)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn scratch(tag: &str) -> PathBuf {
        let tag = format!(
            "{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos()
        );
        let dir = std::env::temp_dir().join(format!("shifr-atomic-{tag}"));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<OsString> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn unnamed_file_has_no_entry_until_commit_and_never_replaces() {
        let dir = scratch("unnamed");
        let target = dir.join("out");
        let mut out = AtomicOutput::create(&target, false).unwrap();
        assert!(
            out.is_unnamed(),
            "the test directory's filesystem should support O_TMPFILE"
        );
        out.file().write_all(b"payload").unwrap();
        assert!(
            names(&dir).is_empty(),
            "an entry appeared before the commit"
        );
        out.commit().unwrap();
        assert_eq!(names(&dir), [OsString::from("out")]);
        assert_eq!(std::fs::read(&target).unwrap(), b"payload");

        // A target created while writing is not replaced without --force, and nothing is left behind.
        let other = dir.join("late");
        let mut out = AtomicOutput::create(&other, false).unwrap();
        out.file().write_all(b"new").unwrap();
        std::fs::write(&other, b"first").unwrap();
        assert!(out.commit().is_err());
        assert_eq!(std::fs::read(&other).unwrap(), b"first");
        assert_eq!(names(&dir).len(), 2);

        // With --force it is replaced, and only the final name remains.
        let mut out = AtomicOutput::create(&other, true).unwrap();
        out.file().write_all(b"forced").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), b"forced");
        assert_eq!(names(&dir).len(), 2);

        // Dropped without a commit: nothing appears.
        let mut out = AtomicOutput::create(&dir.join("dropped"), false).unwrap();
        out.file().write_all(b"x").unwrap();
        drop(out);
        assert_eq!(names(&dir).len(), 2);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn named_fallback_renames_without_replacing() {
        let dir = scratch("named");
        let target = dir.join("out");
        let temp = temp_name(&dir).unwrap();
        std::fs::write(&temp, b"one").unwrap();
        let d = File::open(&dir).unwrap();
        let leaf = temp.file_name().unwrap();
        rename_no_replace(&d, &temp, leaf, &target, OsStr::new("out")).unwrap();
        assert_eq!(names(&dir), [OsString::from("out")]);
        std::fs::write(&temp, b"two").unwrap();
        let err = rename_no_replace(&d, &temp, leaf, &target, OsStr::new("out")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).unwrap(), b"one");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_regular_files_are_replaced_and_keep_their_mode() {
        let dir = scratch("kinds");
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for force in [false, true] {
            let e = AtomicOutput::create(&fifo, force)
                .err()
                .expect("a FIFO is never replaced");
            assert!(matches!(e, OutputError::NotRegular(_)), "{e}");
        }
        assert!(std::fs::metadata(&dir).unwrap().is_dir());
        assert!(matches!(
            AtomicOutput::create(&dir, true).err(),
            Some(OutputError::IsDirectory(_))
        ));
        let file = dir.join("file");
        std::fs::write(&file, b"old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(matches!(
            AtomicOutput::create(&file, false).err(),
            Some(OutputError::Exists(_))
        ));
        let mut out = AtomicOutput::create(&file, true).unwrap();
        out.file().write_all(b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
