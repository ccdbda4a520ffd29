//! An output file written whole or not at all (`--out`): a temporary file beside the target,
//! created new and locked, renamed over the target at the end; with a persistent seen-set, the
//! rename is part of the store's "run finished" step.

use crate::delivery::FdOutput;
use linksieve_dedup::{DedupError, SeenSet};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// A failure of the output file (a run-time failure, not a usage error).
///
/// ```
/// use linksieve_pipeline::output::OutputError;
/// let e = OutputError::Io {
///     action: "create",
///     path: "/x/.out.tmp".into(),
///     source: std::io::Error::other("no space"),
/// };
/// assert_eq!(e.to_string(), "cannot create /x/.out.tmp: no space");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A step on a file failed (create, lock, sync, rename).
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file it was done to.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: io::Error,
    },
    /// Another live process holds the lock of the temporary file just made (never expected:
    /// its name is new).
    #[error("{} is locked by another process", .0.display())]
    Locked(PathBuf),
    /// No free temporary name beside the target after 64 tries.
    #[error("no free temporary name beside {}", .0.display())]
    NoName(PathBuf),
    /// The persistent seen-set failed while it put the output in place.
    #[error("the seen-set, while putting the output in place: {0}")]
    Store(#[source] DedupError),
}

/// The output of a run, written to a temporary file beside its target and renamed over it by
/// [`persist`](AtomicOutput::persist): a reader of the target sees the old file or the whole
/// new one, never a part. The temporary file is created new (`O_CREAT|O_EXCL|O_NOFOLLOW`:
/// never an existing file, never through a planted symlink) under a name no one can guess, and
/// locked (`flock`) for as long as this value lives, which is how a later run tells a live
/// run's file from a killed run's, across PID namespaces and hosts too. Dropped without
/// `persist`, it removes its file.
///
/// ```
/// use linksieve_pipeline::output::AtomicOutput;
/// use std::io::Write;
/// let dir = std::env::temp_dir().join(format!("ls-atomic-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let target = dir.join("keys.txt");
/// let out = AtomicOutput::create(&target).unwrap();
/// let mut w = out.writer().unwrap();
/// writeln!(w, "http://a.example/").unwrap();
/// w.flush().unwrap();
/// assert!(!target.exists());
/// out.persist(None).unwrap();
/// assert_eq!(std::fs::read_to_string(&target).unwrap(), "http://a.example/\n");
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub struct AtomicOutput {
    /// The temporary file's path (empty once renamed).
    path: PathBuf,
    target: PathBuf,
    file: File,
}

impl AtomicOutput {
    /// Creates the temporary file for `target`, after removing the temporary files of this
    /// target that killed runs left (`.NAME.linksieve-*.tmp` that no live run holds locked).
    /// With a persistent seen-set, call it after the store is opened: the store decides whether
    /// a run killed while renaming its output finished by whether that run's file is still
    /// there, and removes it itself.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ls-atomic-create-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let out = linksieve_pipeline::output::AtomicOutput::create(&dir.join("k")).unwrap();
    /// assert!(out.temp_path().exists());
    /// drop(out); // not persisted: removed
    /// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    /// std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn create(target: &Path) -> Result<AtomicOutput, OutputError> {
        let dir = parent(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        remove_strays(dir, &name);
        // a name no one can guess in advance; an existing one is never opened, only another
        // name tried
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        for attempt in 0..64u64 {
            let tag = xxhash_rust::xxh3::xxh3_64(
                &[seed, u64::from(std::process::id()), attempt]
                    .map(u64::to_le_bytes)
                    .concat(),
            );
            let path = dir.join(format!(
                ".{name}.linksieve-{}-{tag:016x}.tmp",
                std::process::id()
            ));
            match create_new(&path) {
                Ok(file) => {
                    let locked = try_lock(&file).map_err(|source| OutputError::Io {
                        action: "lock",
                        path: path.clone(),
                        source,
                    })?;
                    if !locked {
                        return Err(OutputError::Locked(path));
                    }
                    return Ok(AtomicOutput {
                        path,
                        target: target.to_path_buf(),
                        file,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(source) => {
                    return Err(OutputError::Io {
                        action: "create",
                        path,
                        source,
                    });
                }
            }
        }
        Err(OutputError::NoName(target.to_path_buf()))
    }

    /// The temporary file's path.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ls-atomic-path-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let out = linksieve_pipeline::output::AtomicOutput::create(&dir.join("k")).unwrap();
    /// assert!(out.temp_path().file_name().unwrap().to_str().unwrap().starts_with(".k.linksieve-"));
    /// drop(out);
    /// std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn temp_path(&self) -> &Path {
        &self.path
    }

    /// A buffered writer to the temporary file (flush it before [`persist`](Self::persist)).
    ///
    /// ```
    /// use std::io::Write;
    /// let dir = std::env::temp_dir().join(format!("ls-atomic-w-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let out = linksieve_pipeline::output::AtomicOutput::create(&dir.join("k")).unwrap();
    /// out.writer().unwrap().write_all(b"x\n").unwrap();
    /// assert_eq!(std::fs::read(out.temp_path()).unwrap(), b"x\n");
    /// drop(out);
    /// std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn writer(&self) -> Result<FdOutput, OutputError> {
        let f = self.file.try_clone().map_err(|source| OutputError::Io {
            action: "open",
            path: self.path.clone(),
            source,
        })?;
        Ok(FdOutput::new(f))
    }

    /// Renames the file onto the target durably (the file's data, then the rename, are on disk
    /// when it returns). With a durable seen-set, the set does the rename as part of ending
    /// its run, so that a kill between the two is recovered ([`SeenSet::finish_with_output`]);
    /// another set is only dropped.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("ls-atomic-p-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("k"), "old").unwrap();
    /// let out = linksieve_pipeline::output::AtomicOutput::create(&dir.join("k")).unwrap();
    /// out.persist(None).unwrap();
    /// assert_eq!(std::fs::read(dir.join("k")).unwrap(), b"");
    /// std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn persist(mut self, store: Option<Box<dyn SeenSet>>) -> Result<(), OutputError> {
        self.file.sync_all().map_err(|source| OutputError::Io {
            action: "sync",
            path: self.path.clone(),
            source,
        })?;
        let (tmp, target) = (&self.path, &self.target);
        let mut rename = || {
            std::fs::rename(tmp, target)?;
            // The rename itself made durable: the directory's entry.
            File::open(parent(target))?.sync_all()
        };
        let io_error = |source| OutputError::Io {
            action: "rename the output to",
            path: target.clone(),
            source,
        };
        match store {
            // a failure there, the rename's included, is the store's (its own exit status)
            Some(store) if store.durable() => store
                .finish_with_output(tmp, &mut rename)
                .map_err(OutputError::Store)?,
            _ => rename().map_err(io_error)?,
        }
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Why a path cannot take a file that linksieve writes (`--out`, `--stats`) or a store it
/// creates (`--seen`): only a regular file, or a name where nothing is yet, is ever written or
/// replaced. A rename over a device node, a FIFO, a socket or a symlink would replace it (as root,
/// `--out /dev/null` would replace the system's `/dev/null`); a directory would fail only after
/// the whole run.
///
/// ```
/// use linksieve_pipeline::output::{check_target, TargetError};
/// assert!(matches!(check_target(std::path::Path::new("/")), Err(TargetError::NotAFile { .. })));
/// let new = std::env::temp_dir().join(format!("ls-target-doc-{}", std::process::id()));
/// assert!(check_target(&new).is_ok());
/// ```
pub fn check_target(path: &Path) -> Result<(), TargetError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        // nothing there yet: the folder must be there (the file is made beside its target)
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent(path);
            return match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(_) => Err(TargetError::NoFolder {
                    path: path.to_path_buf(),
                    source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
                }),
                Err(source) => Err(TargetError::NoFolder {
                    path: path.to_path_buf(),
                    source,
                }),
            };
        }
        Err(source) => {
            return Err(TargetError::Unreadable {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    let what = if t.is_symlink() {
        "a symbolic link (name the file itself)"
    } else if t.is_dir() {
        "a directory"
    } else {
        linksieve_inputs::special_kind(&t)
    };
    Err(TargetError::NotAFile {
        path: path.to_path_buf(),
        what,
    })
}

/// A path that [`check_target`] refuses (a usage error: the arguments name something that
/// cannot be written, found before any work).
///
/// ```
/// let e = linksieve_pipeline::output::TargetError::NotAFile { path: "/dev/null".into(), what: "a device" };
/// assert_eq!(e.to_string(), "/dev/null is a device: only a regular file is written");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// Something other than a regular file is there.
    #[error("{} is {what}: only a regular file is written", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What is there.
        what: &'static str,
    },
    /// The folder the file would be made in is missing or not a folder.
    #[error("{}: its folder cannot be used: {source}", path.display())]
    NoFolder {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The path cannot be looked at (no permission on its folder).
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// True when `a` and `b` name one file (by path, symlink or hard link), or would once made:
/// `--out` on the `--seen` store would replace the store with the key list.
///
/// ```
/// use linksieve_pipeline::output::same_file;
/// let dir = std::env::temp_dir();
/// assert!(same_file(&dir.join("not-made-yet"), &dir.join(".").join("not-made-yet")));
/// assert!(!same_file(&dir.join("a"), &dir.join("b")));
/// ```
pub fn same_file(a: &Path, b: &Path) -> bool {
    // the path as it will be, for a file not made yet: its folder resolved, then its name
    let resolved = |p: &Path| -> PathBuf {
        match (std::fs::canonicalize(parent(p)), p.file_name()) {
            (Ok(d), Some(n)) => d.join(n),
            _ => p.to_path_buf(),
        }
    };
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            (x.dev(), x.ino()) == (y.dev(), y.ino())
        }
        _ => resolved(a) == resolved(b),
    }
}

/// The folder of `p` (`.` for a bare name).
fn parent(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Opens `path` only if it is a new file: `O_CREAT|O_EXCL` (which fails on any existing name,
/// a planted symlink included) and `O_NOFOLLOW`.
fn create_new(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, NOFOLLOW);
    o.open(path)
}

#[cfg(unix)]
const NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;

/// Takes the lock (`flock`, exclusive) without waiting: false when another open file holds it
/// (a live run). Where there is no `flock`, every file counts as unlocked.
fn try_lock(f: &File) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use rustix::fs::{FlockOperation, flock};
        match flock(f, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(true),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = f;
        Ok(true)
    }
}

/// Removes the temporary outputs of target `name` in `dir` that killed runs left (no live run
/// holds them locked). A symlink at such a name is removed, never followed.
fn remove_strays(dir: &Path, name: &str) {
    let prefix = format!(".{name}.linksieve-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let ours = file
            .to_str()
            .is_some_and(|f| f.starts_with(&prefix) && f.ends_with(".tmp"));
        if !ours {
            continue;
        }
        let stale = match e.file_type() {
            Ok(t) if t.is_file() => open_nofollow(&e.path())
                // held by a live run: not lockable; our lock is dropped with `f`
                .is_ok_and(|f| matches!(try_lock(&f), Ok(true))),
            Ok(t) => t.is_symlink(),
            Err(_) => false,
        };
        if stale {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, NOFOLLOW);
    o.open(path)
}
