//! Output that appears under its final name only when complete: data goes to a temporary file in the
//! target directory (mode 0600), which is fsynced and then renamed (with `--force`) or hard-linked (without
//! it, so that a file created meanwhile is still never replaced) to the final name, and the directory
//! is fsynced. Dropped without [`AtomicOutput::commit`], the temporary file is removed and the final name
//! was never touched. A process killed outright leaves at most a `.NAME.shifr-tmp-*` file behind.

use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A temporary file on its way to a final name.
pub struct AtomicOutput {
    file: File,
    temp: PathBuf,
    target: PathBuf,
    force: bool,
    committed: bool,
}

impl AtomicOutput {
    /// Creates the temporary file for `target`; fails if `target` exists and `force` is not set.
    pub fn create(target: &Path, force: bool) -> Result<AtomicOutput> {
        let shown = target.display();
        match std::fs::symlink_metadata(target) {
            Ok(_) if !force => bail!("{shown} exists (use --force to replace it)"),
            Ok(m) if m.is_dir() => bail!("{shown} is a directory"),
            _ => {}
        }
        let name = target
            .file_name()
            .with_context(|| format!("{shown} does not name a file"))?;
        let dir = parent_dir(target);
        let tag = hex::encode(crate::random::bytes::<6>()?);
        let temp = dir.join(format!(".{}.shifr-tmp-{tag}", name.to_string_lossy()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
        Ok(AtomicOutput {
            file,
            temp,
            target: target.to_path_buf(),
            force,
            committed: false,
        })
    }

    /// The temporary file to write.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes the data to disk and puts it under the final name.
    pub fn commit(mut self) -> Result<()> {
        let shown = self.target.display().to_string();
        self.file
            .sync_all()
            .with_context(|| format!("cannot write {shown}: fsync failed"))?;
        if self.force {
            std::fs::rename(&self.temp, &self.target)
                .with_context(|| format!("cannot rename the temporary file to {shown}"))?;
        } else {
            match std::fs::hard_link(&self.temp, &self.target) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    bail!("{shown} appeared while writing; not replaced (use --force)")
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {shown}"));
                }
            }
            std::fs::remove_file(&self.temp)
                .with_context(|| format!("cannot remove {}", self.temp.display()))?;
        }
        self.committed = true;
        // The rename is durable only once the directory entry is on disk.
        File::open(parent_dir(&self.target))
            .and_then(|d| d.sync_all())
            .with_context(|| format!("cannot fsync the directory of {shown}"))?;
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if !self.committed {
            // Nothing more can be done if the temporary file cannot be removed; it never had the final name.
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}
