//! The Linux system calls behind [`crate::AtomicOutput`]: an unnamed file in a directory
//! (`O_TMPFILE`), linking it to a name once complete (`linkat` through `/proc/self/fd`), and a rename
//! that never replaces an existing name (`renameat2` with `RENAME_NOREPLACE`). An unnamed file has no
//! directory entry, so a process killed at any moment (even by SIGKILL) leaves nothing behind: the
//! kernel frees the inode when its last descriptor closes.
//!
//! Every function returns `Ok(None)` / [`Unsupported`] where the kernel or the filesystem lacks the
//! feature, so that the caller can fall back to a named temporary file.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::path::Path;

/// The feature is missing here (old kernel, or a filesystem without it); the caller falls back.
#[derive(Debug)]
pub struct Unsupported;

fn c_path(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL"))
}

/// Opens an unnamed regular file (mode 0600) in `dir` for writing. `Ok(None)` where `O_TMPFILE` is
/// not supported (EOPNOTSUPP from the filesystem; EISDIR or EINVAL from a kernel without it) or where
/// `/proc/self/fd` is missing (the file could not be linked later).
pub fn create_in(dir: &Path) -> io::Result<Option<File>> {
    let path = c_path(dir.as_os_str().as_bytes())?;
    // SAFETY: `path` is a valid NUL-terminated string that outlives the call; open(2) with O_TMPFILE
    // takes a mode argument, given as the third (variadic) argument as its prototype requires.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
            0o600 as libc::c_uint,
        )
    };
    if fd < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL) => Ok(None),
            _ => Err(err),
        };
    }
    // SAFETY: `fd` was just returned by a successful open(2) and is owned by nobody else; the File
    // takes sole ownership and closes it.
    let file = unsafe { File::from_raw_fd(fd) };
    if std::fs::symlink_metadata(proc_fd_path(&file)).is_err() {
        return Ok(None);
    }
    Ok(Some(file))
}

fn proc_fd_path(file: &File) -> String {
    format!("/proc/self/fd/{}", file.as_raw_fd())
}

/// Gives the unnamed `file` the name `name` in the directory `dir`; fails with
/// [`io::ErrorKind::AlreadyExists`] if the name exists (linkat never replaces).
pub fn link_to(file: &File, dir: &File, name: &OsStr) -> io::Result<()> {
    let from = c_path(proc_fd_path(file).as_bytes())?;
    let to = c_path(name.as_bytes())?;
    // SAFETY: both strings are valid NUL-terminated paths that outlive the call; `dir` is an open
    // directory descriptor borrowed for the call. AT_SYMLINK_FOLLOW makes linkat follow the
    // /proc/self/fd magic link to the open (unnamed) inode, which the kernel allows for an O_TMPFILE
    // file opened without O_EXCL.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            dir.as_raw_fd(),
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Renames `from` to `to`, both in the directory `dir`, failing with [`io::ErrorKind::AlreadyExists`]
/// if `to` exists. `Err(Unsupported)` inside `Ok` where the kernel or filesystem lacks
/// `RENAME_NOREPLACE` (ENOSYS, EINVAL).
pub fn rename_no_replace(
    dir: &File,
    from: &OsStr,
    to: &OsStr,
) -> io::Result<Result<(), Unsupported>> {
    let from = c_path(from.as_bytes())?;
    let to = c_path(to.as_bytes())?;
    // Through syscall(2), not libc's renameat2 wrapper, which the musl of the static build lacks;
    // the kernel call is the same, and an old kernel without it answers ENOSYS.
    // SAFETY: both strings are valid NUL-terminated paths that outlive the call and `dir` is an open
    // directory descriptor; renameat2 takes (olddirfd, oldpath, newdirfd, newpath, flags), reads the
    // paths and touches no memory of ours.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::c_long::from(dir.as_raw_fd()),
            from.as_ptr(),
            libc::c_long::from(dir.as_raw_fd()),
            to.as_ptr(),
            libc::RENAME_NOREPLACE as libc::c_long,
        )
    };
    if rc == 0 {
        return Ok(Ok(()));
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ENOSYS | libc::EINVAL) => Ok(Err(Unsupported)),
        _ => Err(err),
    }
}
