//! The capacity of a block device, from the `BLKGETSIZE64` ioctl: a device's metadata length is 0, and
//! the ioctl is what the kernel itself reports as its size (the same figure `blockdev --getsize64`
//! prints), without moving the file position.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;

/// `BLKGETSIZE64` from linux/fs.h: `_IOR(0x12, 114, size_t)`, which writes a u64 whatever size_t is.
const BLKGETSIZE64: libc::Ioctl = libc::_IOR::<libc::size_t>(0x12, 114);

/// Bytes of the block device open as `device`.
pub fn size(device: &File) -> io::Result<u64> {
    let mut bytes: u64 = 0;
    // SAFETY: `device` is an open descriptor borrowed for the call, and BLKGETSIZE64 writes exactly
    // one u64 through the pointer, which points to the live, writable `bytes`.
    let rc = unsafe { libc::ioctl(device.as_raw_fd(), BLKGETSIZE64, &mut bytes as *mut u64) };
    if rc == 0 {
        Ok(bytes)
    } else {
        Err(io::Error::last_os_error())
    }
}
