//! Writing a tool's output file (`axe-opt -o`, `axe-translate -o`, `axe-layout show --html`): never a partial
//! file, and nothing in the destination's directory is trusted.
//!
//! [`write_file`] writes a regular file, or a path that does not exist yet, atomically: the bytes go to a new
//! temporary file in the same directory, which is then renamed over the destination, so a failed run leaves the
//! destination as it was. The temporary file is created exclusively (`O_CREAT | O_EXCL`: a file or a symlink
//! planted under its name is never opened, let alone followed) under an unpredictable name, and it takes the
//! permission bits of the file it replaces. The name has a fixed length ([`TEMPORARY_NAME_BYTES`]) and does not
//! repeat the destination's, so a destination whose name is at the file system's limit still works.
//!
//! Anything else that exists (`/dev/null`, a FIFO, a terminal) is opened and written in place, as a shell's `>`
//! does: renaming over it would replace the node with a regular file. A directory is an error.
//!
//! Nothing is synced to disk (as mlir-opt's and LLVM's output files are not): an `fsync` only guards against a
//! power cut, and it cost 2-3 ms of every run.
//!
//! This crate is std-only so that both the LLVM-linking tools and `axe-layout` (no LLVM) share it.

use std::collections::hash_map::RandomState;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// How many names [`write_file`] tries for its temporary file before giving up (each try fails only when a file
/// of that name exists, which for a random 64-bit name means someone is creating files there on purpose).
const TEMPORARY_TRIES: usize = 16;

/// The length of a temporary file's name: `.axe-` and 16 hex digits and `.tmp`.
pub const TEMPORARY_NAME_BYTES: usize = 25;

/// Writes `bytes` to `path`: see the module documentation.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let existing = fs::metadata(path).ok();
    match &existing {
        Some(m) if m.is_dir() => return Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory")),
        Some(m) if !m.is_file() => return write_in_place(path, bytes),
        _ => {}
    }
    if path.file_name().is_none() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"));
    }
    let directory = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (temporary, mut file) = create_temporary(directory)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| match &existing {
            // Permission bits only: a set-user-ID bit of the old file is not given to new contents.
            Some(m) => file.set_permissions(fs::Permissions::from_mode(m.permissions().mode() & 0o777)),
            None => Ok(()),
        })
        .and_then(|()| {
            drop(file);
            fs::rename(&temporary, path)
        });
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Writes an existing non-regular file (a device, a FIFO) where it is, without creating or replacing it.
fn write_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).truncate(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// A new, empty file in `directory` under a fresh unpredictable name, created exclusively.
fn create_temporary(directory: &Path) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..TEMPORARY_TRIES {
        let path = directory.join(temporary_name());
        match create_exclusive(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file name was free")))
}

/// Creates `path` for writing, failing if anything (a file, a symlink, even a dangling one) has that name.
fn create_exclusive(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// `.axe-<16 hex digits>.tmp`: 64 bits from the standard library's randomly keyed hasher (seeded from the
/// operating system's random source), mixed with the process, the time and a counter so that two names of one
/// process differ.
fn temporary_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(t.as_nanos());
    }
    format!(".axe-{:016x}.tmp", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    /// A fresh empty directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("axe-output-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_new_file_is_written_and_no_temporary_file_is_left() {
        let dir = scratch("new");
        write_file(&dir.join("out.txt"), b"hello\n").unwrap();
        assert_eq!(fs::read(dir.join("out.txt")).unwrap(), b"hello\n");
        assert_eq!(names(&dir), ["out.txt"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_replaced_file_keeps_its_permission_bits() {
        let dir = scratch("mode");
        let out = dir.join("out.txt");
        fs::write(&out, b"old").unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
        write_file(&out, b"new").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new");
        assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o7777, 0o640);
        // A set-user-ID bit is not carried over.
        fs::set_permissions(&out, fs::Permissions::from_mode(0o4755)).unwrap();
        write_file(&out, b"newer").unwrap();
        assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o7777, 0o755);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_planted_name_is_never_opened_or_followed() {
        let dir = scratch("planted");
        let victim = dir.join("victim");
        fs::write(&victim, b"precious").unwrap();
        let planted = dir.join(".axe-planted.tmp");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert_eq!(create_exclusive(&planted).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        let dangling = dir.join(".axe-dangling.tmp");
        std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
        assert_eq!(create_exclusive(&dangling).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert!(!dir.join("nothing").exists(), "a dangling symlink was followed");
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_are_fixed_length_and_do_not_repeat() {
        let a = temporary_name();
        let b = temporary_name();
        assert_ne!(a, b);
        assert_eq!((a.len(), b.len()), (TEMPORARY_NAME_BYTES, TEMPORARY_NAME_BYTES));
        assert!(a.starts_with(".axe-") && a.ends_with(".tmp"), "{a}");
    }

    #[test]
    fn a_name_at_the_file_system_limit_works() {
        // 255 bytes is NAME_MAX on Linux file systems; the old `.NAME.axe-tmp-PID` name did not fit.
        let dir = scratch("long");
        let out = dir.join("x".repeat(255));
        write_file(&out, b"long").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"long");
        write_file(&out, b"again").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"again");
        assert_eq!(names(&dir).len(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dev_null_stays_a_device() {
        write_file(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn a_fifo_is_written_in_place() {
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_file(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names(&dir), ["pipe"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_destination_and_no_temporary_file() {
        let dir = scratch("fail");
        fs::create_dir(dir.join("sub")).unwrap();
        assert_eq!(write_file(&dir.join("sub"), b"x").unwrap_err().kind(), io::ErrorKind::IsADirectory);
        assert!(write_file(&dir.join("missing").join("out"), b"x").is_err());
        assert_eq!(names(&dir), ["sub"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
