//! Output that appears under its final name only when complete: the CLI's rule (docs/FORMAT.md,
//! "Errors and exit codes"). On Linux the data goes to an unnamed `O_TMPFILE` file (mode 0600) in the
//! target directory, which a process killed at any moment leaves nowhere; on commit it is fsynced
//! and linked to the final name (never over an existing one), or with `force` linked to a hidden
//! `.NAME.shifr-tmp-*` name and renamed over it. Where `O_TMPFILE` is unsupported a named
//! `.NAME.shifr-tmp-*` file is written instead and renamed into place; dropped without a commit it
//! is removed. The directory is fsynced after the new name appears.

use crate::errors::{Failure, Result};
use std::ffi::{CString, OsString};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

enum Staging {
    Unnamed,
    Named(PathBuf),
}

/// A file on its way to its final name.
pub struct AtomicOutput {
    file: File,
    staging: Staging,
    target: PathBuf,
    force: bool,
    committed: bool,
}

impl AtomicOutput {
    /// Creates the staging file for `target`. Errors: `target` exists and `force` is not set, or it
    /// is a directory.
    pub fn create(target: &Path, force: bool) -> Result<AtomicOutput> {
        let shown = target.display();
        match std::fs::symlink_metadata(target) {
            Ok(m) if m.is_dir() => {
                return Err(Failure::new(
                    "ShifrIOError",
                    format!("{shown} is a directory"),
                ))
            }
            Ok(_) if !force => {
                return Err(Failure::new(
                    "OutputExistsError",
                    format!("{shown} exists (use force=True to replace it)"),
                ))
            }
            _ => {}
        }
        let name = target
            .file_name()
            .ok_or_else(|| Failure::invalid(format!("{shown} does not name a file")))?;
        let dir = parent_dir(target);
        let unnamed = OpenOptions::new()
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_TMPFILE)
            .open(dir);
        let (file, staging) = match unnamed {
            Ok(file) => (file, Staging::Unnamed),
            Err(e) if unnamed_unsupported(&e) => {
                let (file, temp) = named_temp(dir, name)?;
                (file, Staging::Named(temp))
            }
            Err(e) => return Err(Failure::io("cannot create a file in", dir, &e)),
        };
        Ok(AtomicOutput {
            file,
            staging,
            target: target.to_path_buf(),
            force,
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

    /// Syncs the data and gives it its final name.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        let fail = |e: std::io::Error| Failure::io("cannot write", &target, &e);
        self.file.sync_all().map_err(fail)?;
        let dir = parent_dir(&target).to_path_buf();
        match &self.staging {
            Staging::Unnamed => {
                let proc_path = PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
                if self.force {
                    let name = target.file_name().unwrap_or_default();
                    let temp = loop {
                        let temp = dir.join(temp_name(name));
                        match link_following(&proc_path, &temp) {
                            Ok(()) => break temp,
                            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                            Err(e) => return Err(fail(e)),
                        }
                    };
                    if let Err(e) = std::fs::rename(&temp, &target) {
                        let _ = std::fs::remove_file(&temp);
                        return Err(fail(e));
                    }
                } else {
                    link_following(&proc_path, &target).map_err(exists_or(&target))?;
                }
            }
            Staging::Named(temp) => {
                if self.force {
                    std::fs::rename(temp, &target).map_err(fail)?;
                } else {
                    rename_noreplace(temp, &target).map_err(exists_or(&target))?;
                }
            }
        }
        self.committed = true;
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if let (false, Staging::Named(temp)) = (self.committed, &self.staging) {
            let _ = std::fs::remove_file(temp);
        }
    }
}

fn exists_or(target: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| {
        if e.kind() == ErrorKind::AlreadyExists {
            Failure::new(
                "OutputExistsError",
                format!("{} exists (use force=True to replace it)", target.display()),
            )
        } else {
            Failure::io("cannot write", target, &e)
        }
    }
}

fn parent_dir(target: &Path) -> &Path {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether an `O_TMPFILE` open failed because the file system or kernel lacks it.
fn unnamed_unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
    )
}

fn temp_name(name: &std::ffi::OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut s = OsString::from(".");
    s.push(name);
    s.push(format!(
        ".shifr-tmp-{}-{nanos:08x}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    s
}

fn named_temp(dir: &Path, name: &std::ffi::OsStr) -> Result<(File, PathBuf)> {
    loop {
        let temp = dir.join(temp_name(name));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
        {
            Ok(f) => return Ok((f, temp)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Failure::io("cannot create a file in", dir, &e)),
        }
    }
}

fn c_path(p: &Path) -> std::io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| ErrorKind::InvalidInput.into())
}

/// `linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW)`: names the file that the
/// `/proc/self/fd` link `from` points to; fails with `AlreadyExists` rather than replace `to`.
fn link_following(from: &Path, to: &Path) -> std::io::Result<()> {
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both pointers are NUL-terminated strings that live across the call.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Renames `from` to `to` unless `to` exists (`renameat2` with `RENAME_NOREPLACE`, or a hard link
/// and an unlink where the file system lacks that flag).
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    let (cf, ct) = (c_path(from)?, c_path(to)?);
    // SAFETY: both pointers are NUL-terminated strings that live across the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            cf.as_ptr(),
            libc::AT_FDCWD,
            ct.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
        std::fs::hard_link(from, to)?;
        return std::fs::remove_file(from);
    }
    Err(e)
}
