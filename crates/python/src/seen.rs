//! `SeenSet`: the seen-sets of `linksieve_dedup` behind one Python class. Keys (`str` or
//! `bytes`) are reduced to the store's 128-bit fingerprint (XXH3-128) before they are kept,
//! so memory per key does not depend on the key's length.

use crate::options::{key_options, rung_name};
use linksieve_dedup::redirect::{self, Hop};
use linksieve_dedup::{Abandoned, CommitPolicy, DedupError, Fingerprint, SeenSet, StoreIdentity};
use linksieve_pipeline::seen::{DEFAULT_COMMIT, KeyIdentity, SeenKind, SeenOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyBytes, PyList, PyString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

create_exception!(
    linksieve,
    StoreError,
    PyRuntimeError,
    "A seen-set that cannot go on: a persistent store made with other options (its identity \
differs), damaged, locked by another process, or a disk that fails; and any use of a closed set.\n\n\
>>> import linksieve\n\
>>> s = linksieve.SeenSet()\n\
>>> s.close()\n\
>>> try:\n\
...     s.add(\"x\")\n\
... except linksieve.StoreError as e:\n\
...     print(e)\n\
the SeenSet is closed\n"
);

/// The fingerprint of a key given as `str` or `bytes`.
pub(crate) fn fingerprint_of(key: &Bound<'_, PyAny>) -> PyResult<Fingerprint> {
    if let Ok(s) = key.cast::<PyString>() {
        Ok(Fingerprint::of(s.to_str()?.as_bytes()))
    } else if let Ok(b) = key.cast::<PyBytes>() {
        Ok(Fingerprint::of(b.as_bytes()))
    } else {
        Err(PyTypeError::new_err("key: expected str or bytes"))
    }
}

/// The set behind a `SeenSet` (`None` once closed).
type Store = Option<Box<dyn SeenSet>>;

/// The open set, or the error of a closed one.
fn open_set(store: &mut Store) -> PyResult<&mut dyn SeenSet> {
    match store {
        Some(s) => Ok(s.as_mut()),
        None => Err(closed()),
    }
}

fn closed() -> PyErr {
    StoreError::new_err("the SeenSet is closed")
}

fn store_error(e: DedupError) -> PyErr {
    StoreError::new_err(e.to_string())
}

/// A set of keys that answers "new or seen", keeping a 16-byte fingerprint of each key
/// (XXH3-128 of its UTF-8 bytes; see fingerprint()).
///
/// kind: "memory" (exact, in memory: about 22 bytes a key), "approx" (a Bloom filter of
/// `expected` keys at `fp_rate` false "seen" answers, or at most `memory` bytes), "spill"
/// (exact, at most `memory` bytes of RAM, default 512 MiB, the rest in sorted runs under the
/// folder `path` or the temporary folder), or "persistent" (exact, a store at `path`, with its
/// runs in the folder `path` + ".runs", that outlives the process). A persistent store records what its keys are (the `rung`, `form`
/// and `profile` that made them, or your own `namespace`) and refuses other keys with
/// StoreError. Use it as a context manager, or call close().
///
/// Crash contract of a persistent store: a key answered new is recorded durably once it has
/// been returned to you, when the `commit` policy says so ("every": at the next call; "end":
/// at close(); a number of keys: once that many wait; a time, "250ms" or "2s": at the first
/// call after it; or both, "100000,1s", the default: a crash costs at most 100,000 keys or a
/// second of keys answered new twice), by sync() and by close(). A crash
/// between the answer and that record costs only this: those keys are answered new again by
/// the next process (at least once, never lost). With `abandoned="new"`, a process that never
/// reaches close() (killed) leaves keys that every later process counts as new: tie the store
/// to a checkpoint that close() marks (Scrapy's JOBDIR does).
///
/// kind="redis" shares the set with every process that opens the same `url` on a Redis or
/// Valkey server (`redis://HOST:PORT/DB?prefix=NAME`, `rediss://` for TLS,
/// `redis+cluster://HOST:PORT,HOST:PORT/?prefix=NAME` for a Redis Cluster): each key is
/// answered new once across them all; a key returned as new is recorded by the `commit`
/// policy (or close()), and the keys of a process that dies before that are answered new again
/// once its lease expires (the URL's `lease=`, default 30s). A server that fails or times out
/// raises StoreError. The identity is recorded on the server as for "persistent".
///
/// >>> import linksieve
/// >>> with linksieve.SeenSet() as seen:
/// ...     seen.add_many(["http://a/", "http://b/", "http://a/"])
/// ...     seen.add("http://b/"), "http://a/" in seen, len(seen)
/// [True, True, False]
/// (False, True, 2)
#[pyclass(module = "linksieve", name = "SeenSet")]
pub(crate) struct PySeenSet {
    store: Mutex<Store>,
    kind: &'static str,
    /// When the keys answered new are recorded durably (see `Commit`).
    commit: Commit,
}

/// The commit policy of a `SeenSet` and the time of its last sync.
struct Commit {
    policy: CommitPolicy,
    start: Instant,
    /// Nanoseconds from `start` to the last sync.
    last_sync: AtomicU64,
}

impl Commit {
    fn new(policy: CommitPolicy) -> Self {
        Commit {
            policy,
            start: Instant::now(),
            last_sync: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Records what earlier calls answered new (returned to the caller: delivered) when the
    /// policy says so; called before a call answers its own keys.
    fn before_insert(&self, set: &mut (dyn SeenSet + Send)) -> Result<(), DedupError> {
        let since = self
            .now()
            .saturating_sub(self.last_sync.load(Ordering::Relaxed));
        if self
            .policy
            .due(set.unsynced(), std::time::Duration::from_nanos(since))
        {
            self.sync(set)?;
        }
        Ok(())
    }

    fn sync(&self, set: &mut (dyn SeenSet + Send)) -> Result<(), DedupError> {
        set.sync()?;
        self.last_sync.store(self.now(), Ordering::Relaxed);
        Ok(())
    }
}

/// The commit policy given to `SeenSet(commit=...)`: "every", "end", a count of keys, a time
/// ("250ms", "2s"), or both joined by ",".
fn commit_policy(commit: &Bound<'_, PyAny>) -> PyResult<CommitPolicy> {
    let text = match commit.extract::<u64>() {
        Ok(n) => n.to_string(),
        Err(_) => commit.extract::<String>().map_err(|_| {
            PyTypeError::new_err("commit: expected \"every\", \"end\", a number of keys or a time")
        })?,
    };
    text.parse()
        .map_err(|e: DedupError| PyValueError::new_err(e.to_string()))
}

/// The chain given to `add(key, chain=...)`: (key, status) pairs, oldest first; a status that
/// is not an int (Scrapy's "meta refresh") is a temporary redirect.
fn chain_of(chain: &Bound<'_, PyAny>) -> PyResult<Vec<Hop>> {
    chain
        .try_iter()?
        .map(|hop| {
            let hop = hop?;
            let (key, status): (Bound<'_, PyAny>, Bound<'_, PyAny>) = hop
                .extract()
                .map_err(|_| PyTypeError::new_err("chain: expected (key, status) pairs"))?;
            Ok(Hop {
                key: fingerprint_of(&key)?,
                status: status.extract::<u16>().unwrap_or(0),
            })
        })
        .collect()
}

impl PySeenSet {
    /// Locks the set with the GIL released while it waits: a thread that holds the lock may
    /// itself be waiting for the GIL (after `add_many`).
    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, Store> {
        self.store
            .lock_py_attached(py)
            .unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl PySeenSet {
    #[new]
    #[pyo3(signature = (kind="memory", path=None, *, expected=10_000_000, fp_rate=0.001, memory=None,
        rung=None, level=None, form="uri", profile=None, namespace=None, commit=None, abandoned="seen",
        url=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        kind: &str,
        path: Option<std::path::PathBuf>,
        expected: u64,
        fp_rate: f64,
        memory: Option<usize>,
        rung: Option<&str>,
        level: Option<&str>,
        form: &str,
        profile: Option<&str>,
        namespace: Option<&str>,
        commit: Option<&Bound<'_, PyAny>>,
        abandoned: &str,
        url: Option<&str>,
    ) -> PyResult<Self> {
        let bad = |m: &str| Err(PyValueError::new_err(m.to_owned()));
        let rung = rung_name(rung, level)?;
        let policy = match commit {
            Some(c) => commit_policy(c)?,
            None => DEFAULT_COMMIT,
        };
        let abandoned = match abandoned {
            "seen" => Abandoned::Seen,
            "new" if kind == "persistent" => Abandoned::New,
            "new" => return bad("abandoned: only for kind=\"persistent\""),
            _ => return bad("abandoned: \"seen\" or \"new\""),
        };
        let kind = match kind {
            "memory" => "memory",
            "approx" => "approx",
            "spill" => "spill",
            "persistent" => "persistent",
            "redis" => "redis",
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind: unknown seen-set {other:?} (memory, approx, spill, persistent, redis)"
                )));
            }
        };
        if path.is_some() && kind != "persistent" && kind != "spill" {
            return bad("path: only for kind=\"persistent\" or \"spill\"");
        }
        if url.is_some() != (kind == "redis") {
            return bad("url: kind=\"redis\" needs the server's url, and only it takes one");
        }
        let persistent = kind == "persistent";
        let durable = persistent || kind == "redis";
        // one factory for every surface (the CLI's flags, these arguments): the same limits
        let options = SeenOptions {
            kind: match kind {
                "spill" => SeenKind::Spill,
                "approx" => SeenKind::Approx,
                _ => SeenKind::Memory,
            },
            memory,
            fp_rate,
            expected,
            store: if persistent { path.clone() } else { None },
            spill_dir: if persistent { None } else { path },
            shared: url.map(str::to_owned),
            commit: None,
        };
        if persistent && options.store.is_none() {
            return bad("path: kind=\"persistent\" needs the store's file");
        }
        let identity =
            if durable {
                match namespace {
                    // the keys are the caller's (Scrapy's request fingerprints): its name
                    Some(ns) => StoreIdentity::new(format!("{{\"namespace\":{ns:?}}}"))
                        .with_legacy(&format!("namespace {ns}"), "namespace", 0),
                    None => KeyIdentity::of(
                        &key_options(rung, form, "strict", profile, false)?.keying,
                        linksieve_iri::InputMode::Leiri,
                    )
                    .store(),
                }
            } else {
                StoreIdentity::new("")
            };
        let atomic = abandoned == Abandoned::New;
        let store = py
            .detach(|| options.open(&identity, atomic))
            .map_err(|e| match e {
                DedupError::OutOfMemory { .. } => {
                    pyo3::exceptions::PyMemoryError::new_err(e.to_string())
                }
                DedupError::InvalidConfig(m) => PyValueError::new_err(m),
                e => store_error(e),
            })?;
        let store = Some(store);
        Ok(PySeenSet {
            store: Mutex::new(store),
            kind,
            commit: Commit::new(policy),
        })
    }

    /// The kind of set: memory, approx, spill, persistent or redis.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Adds a key (str or bytes): True when it is new. With `chain`, the (key, status) pairs
    /// of the redirects that led to this key, oldest first: True also when the key equals a
    /// key of its chain (a page that redirects to itself is fetched), and the sources of 301
    /// and 308 redirects are added in the same batch (found again later, they are seen).
    #[pyo3(signature = (key, chain=None))]
    fn add(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        chain: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let fp = fingerprint_of(key)?;
        let hops = match chain {
            Some(c) => Some(chain_of(c)?),
            None => None,
        };
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        py.detach(|| {
            self.commit.before_insert(set)?;
            match &hops {
                Some(hops) => redirect::check(set, fp, hops, &mut (Vec::new(), Vec::new())),
                None => set.insert_one(fp),
            }
        })
        .map_err(store_error)
    }

    /// Records an edge found outside a request's chain: a 301 or 308 redirect makes `source`
    /// seen, a canonical link (`status="canonical"`, same site: check that yourself) makes
    /// `source` and `target` seen, a temporary redirect records nothing. Returns how many of
    /// those keys were new.
    ///
    /// >>> import linksieve
    /// >>> seen = linksieve.SeenSet()
    /// >>> seen.add_edge("http://a/old", "http://a/new", 301)
    /// 1
    /// >>> "http://a/old" in seen, "http://a/new" in seen
    /// (True, False)
    fn add_edge(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        status: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let (source, target) = (fingerprint_of(source)?, fingerprint_of(target)?);
        let status = match status.extract::<u16>() {
            Ok(s) if s != redirect::CANONICAL => s,
            Ok(_) => {
                return Err(PyValueError::new_err(
                    "status: an HTTP status or \"canonical\"",
                ));
            }
            Err(_) if status.extract::<String>().is_ok_and(|s| s == "canonical") => {
                redirect::CANONICAL
            }
            Err(_) => {
                return Err(PyValueError::new_err(
                    "status: an HTTP status or \"canonical\"",
                ));
            }
        };
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        py.detach(|| {
            self.commit.before_insert(set)?;
            redirect::record_edge(set, source, target, status)
        })
        .map_err(store_error)
    }

    /// Records durably every key answered new so far (a persistent store; the other kinds
    /// keep nothing beyond the process). The `commit` policy calls it for you.
    fn sync(&self, py: Python<'_>) -> PyResult<()> {
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        py.detach(|| self.commit.sync(set)).map_err(store_error)
    }

    /// Keys answered new and not yet recorded durably (0 for the kinds that keep nothing).
    #[getter]
    fn unsynced(&self, py: Python<'_>) -> PyResult<u64> {
        let mut store = self.lock(py);
        Ok(open_set(&mut store)?.unsynced())
    }

    /// The commit policy: "every", "end", a number of keys, a time, or both.
    #[getter]
    fn commit(&self) -> String {
        self.commit.policy.to_string()
    }

    /// Adds many keys, in order, with the GIL released: True for each first occurrence.
    fn add_many<'py>(&self, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let py = keys.py();
        let fps = match keys.cast::<PyList>() {
            Ok(list) => list
                .iter()
                .map(|k| fingerprint_of(&k))
                .collect::<PyResult<Vec<_>>>()?,
            Err(_) => keys
                .try_iter()?
                .map(|k| fingerprint_of(&k?))
                .collect::<PyResult<Vec<_>>>()?,
        };
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        let mut new = Vec::with_capacity(fps.len());
        py.detach(|| {
            self.commit.before_insert(set)?;
            set.insert_batch(&fps, &mut new)
        })
        .map_err(store_error)?;
        PyList::new(py, new)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let fp = fingerprint_of(key)?;
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        py.detach(|| set.knows(fp)).map_err(store_error)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let mut store = self.lock(py);
        Ok(open_set(&mut store)?.len() as usize)
    }

    /// The heap memory the set holds, in bytes.
    #[getter]
    fn memory_bytes(&self, py: Python<'_>) -> PyResult<usize> {
        let mut store = self.lock(py);
        Ok(open_set(&mut store)?.memory_bytes())
    }

    /// What the set says of its answers when they are weaker than asked, else None: an
    /// ``approx`` filter past its expected count; a ``redis`` set whose server evicts keys or
    /// whose buckets outgrew its layout (checked at open and once a lease period). The same
    /// line as ``warning:`` in the CLI's summary.
    #[getter]
    fn warning(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let mut store = self.lock(py);
        Ok(open_set(&mut store)?.report().warning)
    }

    /// Closes the set (a persistent store is marked finished and its file released); any later
    /// use raises StoreError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut store = self.lock(py);
        match store.take() {
            // syncs, then marks the run finished
            Some(s) => py.detach(|| s.finish()).map_err(store_error),
            None => Ok(()),
        }
    }

    /// Empties a kind="redis" set for every process that shares it (scrapy-redis's `clear`).
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        let mut store = self.lock(py);
        let set = open_set(&mut store)?;
        py.detach(|| set.clear()).map_err(|e| match e {
            DedupError::InvalidConfig(_) => PyValueError::new_err("clear: only for kind=\"redis\""),
            e => store_error(e),
        })
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let mut store = self.lock(py);
        match open_set(&mut store) {
            Ok(s) => format!("SeenSet(kind={:?}, len={})", self.kind, s.len()),
            Err(_) => format!("SeenSet(kind={:?}, closed)", self.kind),
        }
    }
}
