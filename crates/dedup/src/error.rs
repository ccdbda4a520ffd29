//! Typed errors of the seen-sets.

use std::path::PathBuf;

/// Why a seen-set operation failed. The in-memory sets never fail; the spill set fails on I/O
/// of its run files, the persistent set on its store.
///
/// ```
/// use linksieve_dedup::DedupError;
/// let e = DedupError::InvalidConfig("fp_rate must be in (0, 1)".into());
/// assert_eq!(e.to_string(), "invalid seen-set configuration: fp_rate must be in (0, 1)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DedupError {
    /// A parameter is out of range (a Bloom error rate outside (0, 1), a zero budget...).
    #[error("invalid seen-set configuration: {0}")]
    InvalidConfig(String),
    /// The memory a seen-set asked for could not be had (an approximate filter's bits): the
    /// allocation failed, or it would pass the machine's memory.
    #[error("a seen-set of {bytes} bytes could not be allocated")]
    OutOfMemory {
        /// The bytes asked for.
        bytes: u64,
    },
    /// An I/O operation on a spill file or folder failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What was being done (`"create run file"`, `"read run file"`...).
        op: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A spill run file is shorter or longer than what was written to it.
    #[error("spill run file {} is damaged: {detail}", path.display())]
    CorruptRun {
        /// The run file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The persistent store could not be opened, read or written (the embedded database's
    /// error, kept as the source).
    #[error("seen store {}: {source}", path.display())]
    Store {
        /// The store file.
        path: PathBuf,
        /// The database's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The persistent store holds keys of another kind (another fingerprint version, rung, form
    /// or rule set) and refuses to mix them.
    #[error(
        "seen store {} was made with {field} {stored:?}, this run uses {requested:?}; \
         use another store",
        path.display()
    )]
    IdentityMismatch {
        /// The store file.
        path: PathBuf,
        /// Which field differs (`"fingerprint version"`, `"rung"`, `"form"`, `"rule-set version"`,
        /// `"store format"`).
        field: &'static str,
        /// The value recorded in the store.
        stored: String,
        /// The value this run asked for.
        requested: String,
    },
    /// The persistent store's contents are not in the expected format.
    #[error("seen store {} is damaged: {detail}", path.display())]
    CorruptStore {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A shared seen-set's server (Redis or Valkey) could not be reached, timed out, closed
    /// the connection or answered an error: the run cannot go on (the CLI exits with status 4).
    /// No answer was given for the batch in flight; its keys stay claimed by this run until
    /// its lease expires, then a later run answers them new again.
    #[error("seen-set server {store}: {op}: {detail}")]
    Remote {
        /// The server's URL, without its password.
        store: String,
        /// What was being done (`"connect"`, `"insert"`, `"sync"`...).
        op: &'static str,
        /// The client's or the server's error.
        detail: String,
    },
    /// This run's lease on a shared seen-set was lost: its process was stopped (`SIGSTOP`, a
    /// frozen machine) or cut off from the server for longer than the lease, or another
    /// process took over its name (`run=`). Another process may have given back the keys it
    /// answered new and did not sync, so they may be answered new again elsewhere. The run
    /// must stop.
    #[error(
        "seen-set server {store}: run {run} lost its lease (its process stopped or cut off \
         from the server for longer than the lease, or its name taken over); its unsynced \
         keys may have been given back: stop this run"
    )]
    LeaseLost {
        /// The server's URL, without its password.
        store: String,
        /// The run's name or number.
        run: String,
    },
    /// [`SeenSet::insert_batch`](crate::SeenSet::insert_batch) was called on a
    /// [`SpillSet`](crate::SpillSet) that still holds items pushed with
    /// [`SpillSet::push`](crate::SpillSet::push): flush them first.
    #[error("the spill set holds {0} pushed items: flush them before a batch insert")]
    PendingItems(usize),
}

/// Shorthand for results of this crate.
///
/// ```
/// fn f() -> linksieve_dedup::Result<u64> { Ok(1) }
/// assert_eq!(f().unwrap(), 1);
/// ```
pub type Result<T, E = DedupError> = std::result::Result<T, E>;
