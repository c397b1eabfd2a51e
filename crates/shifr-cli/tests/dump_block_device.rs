//! `shifr dump` from and `shifr restore` to real block devices (loop devices over image files). It
//! needs root and a loop driver (`/dev/loop-control` and `losetup`), so it runs only where both are
//! there and prints why it did nothing otherwise. Checks: the dump of a device decrypts to all of the
//! device's bytes, a restore writes the image back to another device, and a restore onto a device one
//! sector too small (its size from BLKGETSIZE64; a device's metadata length is 0) is refused without
//! writing to it.

mod support;

use rand::RngCore;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{shifr, temp_path};

/// A loop device attached to a backing file, detached on drop.
struct Loop {
    device: String,
}

impl Loop {
    fn attach(backing: &Path) -> Result<Loop, String> {
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(backing)
            .output()
            .map_err(|e| format!("cannot run losetup: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "losetup -f --show failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Loop {
            device: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}

/// Why loop devices cannot be used here, if they cannot.
fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (attaching a loop device needs CAP_SYS_ADMIN)".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some(
            "no /dev/loop-control (loop driver missing in this kernel or container)".into(),
        );
    }
    None
}

fn random_file(tag: &str, len: usize) -> PathBuf {
    let mut data = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut data);
    let path = temp_path(tag);
    std::fs::write(&path, &data).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn dump_and_restore_through_loop_devices() {
    if let Some(why) = unavailable() {
        eprintln!("dump_and_restore_through_loop_devices: skipped: {why}");
        return;
    }
    // Not a multiple of the 64 KiB chunk or of the 1 MiB read, but of the 512-byte sector.
    let len = (3 << 20) + 7 * 512;
    let source_file = random_file("loop-src", len);
    let source = match Loop::attach(&source_file) {
        Ok(l) => l,
        Err(why) => {
            eprintln!("dump_and_restore_through_loop_devices: skipped: {why}");
            return;
        }
    };
    let key = temp_path("loop-key");
    std::fs::write(&key, [0x5cu8; 32]).unwrap();
    let image = temp_path("loop-image.shifr");
    shifr(
        &[
            "dump",
            &source.device,
            s(&image),
            "-q",
            "--key-file",
            s(&key),
        ],
        b"",
        &[],
    )
    .expect_ok("dump of a loop device");
    let info = String::from_utf8(shifr(&["info", s(&image)], b"", &[]).expect_ok("info")).unwrap();
    assert!(info.contains(&len.to_string()), "info: {info}");
    let plain = shifr(
        &["decrypt", "-q", "--key-file", s(&key), s(&image)],
        b"",
        &[],
    )
    .expect_ok("decrypt the image");
    assert!(
        plain == std::fs::read(&source_file).unwrap(),
        "the image differs from the device"
    );

    // Restore onto a second device of the same size.
    let target_file = temp_path("loop-dst");
    std::fs::write(&target_file, vec![0u8; len]).unwrap();
    let target = Loop::attach(&target_file).expect("second loop device");
    shifr(
        &[
            "restore",
            s(&image),
            &target.device,
            "-q",
            "--force",
            "--key-file",
            s(&key),
        ],
        b"",
        &[],
    )
    .expect_ok("restore to a loop device");
    drop(target);
    assert!(std::fs::read(&target_file).unwrap() == std::fs::read(&source_file).unwrap());

    // Restore with the image on stdin redirected from the file (read twice: verify, then write).
    std::fs::write(&target_file, vec![0u8; len]).unwrap();
    let target = Loop::attach(&target_file).expect("second loop device again");
    let status = Command::new(env!("CARGO_BIN_EXE_shifr"))
        .args([
            "restore",
            "-q",
            "--force",
            "--key-file",
            s(&key),
            "-",
            &target.device,
        ])
        .stdin(std::fs::File::open(&image).unwrap())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "restore from stdin redirected from a file"
    );
    drop(target);
    assert!(std::fs::read(&target_file).unwrap() == std::fs::read(&source_file).unwrap());

    // A device one sector too small is refused (its size from BLKGETSIZE64) and left untouched.
    let small_file = temp_path("loop-small");
    std::fs::write(&small_file, vec![0u8; len - 512]).unwrap();
    let small = Loop::attach(&small_file).expect("third loop device");
    let run = shifr(
        &[
            "restore",
            s(&image),
            &small.device,
            "-q",
            "--force",
            "--key-file",
            s(&key),
        ],
        b"",
        &[],
    );
    assert!(!run.ok(), "restore onto a too-small device succeeded");
    assert!(run.stderr.contains("holds"), "{}", run.stderr);
    drop(small);
    assert!(std::fs::read(&small_file).unwrap().iter().all(|&b| b == 0));
    drop(source);
    for f in [source_file, key, image, target_file, small_file] {
        std::fs::remove_file(f).unwrap();
    }
}
