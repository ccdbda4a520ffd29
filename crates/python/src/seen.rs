//! `SeenSet`: the seen-sets of `linksieve_dedup` behind one Python class. Keys (`str` or
//! `bytes`) are reduced to the store's 128-bit fingerprint (XXH3-128) before they are kept,
//! so memory per key does not depend on the key's length.

use crate::options::key_options;
use linksieve_dedup::{
    BloomSet, DedupError, Fingerprint, MemorySet, PersistentOptions, PersistentSet, RedisSet,
    SeenSet, SpillConfig, SpillSet, StoreIdentity,
};
use linksieve_pipeline::seen::{DEFAULT_SPILL_BUDGET, KeyIdentity};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyBytes, PyList, PyString};
use std::sync::{Mutex, MutexGuard};

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

/// The set behind a `SeenSet`.
enum Store {
    Memory(MemorySet),
    Approx(BloomSet),
    Spill(SpillSet),
    Persistent(PersistentSet),
    Redis(Box<RedisSet>),
    Closed,
}

impl Store {
    fn set(&mut self) -> PyResult<&mut (dyn SeenSet + Send)> {
        Ok(match self {
            Store::Memory(s) => s,
            Store::Approx(s) => s,
            Store::Spill(s) => s,
            Store::Persistent(s) => s,
            Store::Redis(s) => s.as_mut(),
            Store::Closed => return Err(closed()),
        })
    }

    fn contains(&mut self, fp: Fingerprint) -> Result<bool, DedupError> {
        match self {
            Store::Redis(s) => s.contains(fp),
            Store::Memory(s) => Ok(s.contains(fp)),
            Store::Approx(s) => Ok(s.contains(fp)),
            Store::Spill(s) => s.contains(fp),
            Store::Persistent(s) => s.contains(fp),
            Store::Closed => Ok(false),
        }
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
/// folder `path` or the temporary folder), or "persistent" (exact, a store file at `path` that
/// outlives the process: each add is durably committed before it returns, so a key answered
/// "new" is never lost by a crash). A persistent store records what its keys are (the `level`,
/// `form` and `profile` that made them, or your own `namespace`) and refuses other keys with
/// StoreError. Use it as a context manager, or call close().
///
/// kind="redis" shares the set with every process that opens the same `url` on a Redis or
/// Valkey server (`redis://HOST:PORT/DB?prefix=NAME`, `rediss://` for TLS,
/// `redis+cluster://HOST:PORT,HOST:PORT/?prefix=NAME` for a Redis Cluster): each key is
/// answered new once across them all; a key returned as new is recorded at the next call (or
/// close()), and the keys of a process that dies before that are answered new again once its
/// lease expires (the URL's `lease=`, default 30s). A server that fails or times out raises
/// StoreError. The identity is recorded on the server as for "persistent".
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
        level="scheme", form="uri", profile=None, namespace=None, url=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        kind: &str,
        path: Option<std::path::PathBuf>,
        expected: u64,
        fp_rate: f64,
        memory: Option<usize>,
        level: &str,
        form: &str,
        profile: Option<&str>,
        namespace: Option<&str>,
        url: Option<&str>,
    ) -> PyResult<Self> {
        let bad = |m: &str| Err(PyValueError::new_err(m.to_owned()));
        if url.is_some() != (kind == "redis") {
            return bad("url: kind=\"redis\" needs the server's url, and only it takes one");
        }
        let (store, kind) = match kind {
            "memory" | "persistent" if memory.is_some() => {
                return bad("memory: only for kind=\"approx\" or \"spill\"");
            }
            "memory" if path.is_some() => {
                return bad("path: only for kind=\"persistent\" or \"spill\"");
            }
            "memory" => (Store::Memory(MemorySet::new()), "memory"),
            "approx" if path.is_some() => {
                return bad("path: only for kind=\"persistent\" or \"spill\"");
            }
            "approx" => {
                if !(1..=linksieve_dedup::MAX_EXPECTED_ITEMS).contains(&expected) {
                    return Err(PyValueError::new_err(format!(
                        "expected: must be 1 to {}",
                        linksieve_dedup::MAX_EXPECTED_ITEMS
                    )));
                }
                // `memory` bounds the filter, its first stage included (never an allocation
                // that aborts: too large is a MemoryError)
                let set = BloomSet::bounded(expected, fp_rate, memory).map_err(|e| match e {
                    linksieve_dedup::DedupError::OutOfMemory { .. } => {
                        pyo3::exceptions::PyMemoryError::new_err(e.to_string())
                    }
                    e => PyValueError::new_err(e.to_string()),
                })?;
                (Store::Approx(set), "approx")
            }
            "spill" => {
                let budget = memory.unwrap_or(DEFAULT_SPILL_BUDGET);
                if budget < 1 << 20 {
                    return bad("memory: the spill budget must be at least 1 MiB (1048576)");
                }
                let mut config = SpillConfig::new(budget);
                if let Some(p) = path {
                    config = config.temp_dir(p);
                }
                let set = py.detach(|| SpillSet::new(config)).map_err(store_error)?;
                (Store::Spill(set), "spill")
            }
            "persistent" => {
                let Some(path) = path else {
                    return bad("path: kind=\"persistent\" needs the store's file");
                };
                let identity = match namespace {
                    Some(ns) => StoreIdentity::new(format!("namespace {ns}"), "namespace", 0),
                    None => {
                        KeyIdentity::of(&key_options(level, form, "strict", profile, false)?.opts)
                            .store()
                    }
                };
                let set = py
                    .detach(|| PersistentSet::open(&path, &identity, PersistentOptions::default()))
                    .map_err(store_error)?;
                (Store::Persistent(set), "persistent")
            }
            "redis" => {
                if path.is_some() || memory.is_some() {
                    return bad("path, memory: not for kind=\"redis\"");
                }
                let id = match namespace {
                    Some(ns) => StoreIdentity::new(format!("namespace {ns}"), "namespace", 0),
                    None => {
                        KeyIdentity::of(&key_options(level, form, "strict", profile, false)?.opts)
                            .store()
                    }
                };
                let identity = format!("{} {} {}", id.rung, id.form, id.ruleset_version);
                let url = url.unwrap_or_default();
                let mut set =
                    py.detach(|| RedisSet::open(url, &identity))
                        .map_err(|e| match e {
                            DedupError::InvalidConfig(m) => PyValueError::new_err(m),
                            e => store_error(e),
                        })?;
                // a key is delivered once returned: the next call records it
                set.sync_on_next_call(true);
                (Store::Redis(Box::new(set)), "redis")
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind: unknown seen-set {other:?} (memory, approx, spill, persistent, redis)"
                )));
            }
        };
        Ok(PySeenSet {
            store: Mutex::new(store),
            kind,
        })
    }

    /// The kind of set: memory, approx, spill, persistent or redis.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// Adds a key (str or bytes): True when it is new.
    fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let fp = fingerprint_of(key)?;
        let mut store = self.lock(py);
        let set = store.set()?;
        py.detach(|| set.insert_one(fp)).map_err(store_error)
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
        let set = store.set()?;
        let mut new = Vec::with_capacity(fps.len());
        py.detach(|| set.insert_batch(&fps, &mut new))
            .map_err(store_error)?;
        PyList::new(py, new)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let fp = fingerprint_of(key)?;
        let mut store = self.lock(py);
        if matches!(*store, Store::Closed) {
            return Err(closed());
        }
        let store: &mut Store = &mut store;
        py.detach(|| store.contains(fp)).map_err(store_error)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let mut store = self.lock(py);
        Ok(store.set()?.len() as usize)
    }

    /// The heap memory the set holds, in bytes.
    #[getter]
    fn memory_bytes(&self, py: Python<'_>) -> PyResult<usize> {
        let mut store = self.lock(py);
        Ok(store.set()?.memory_bytes())
    }

    /// Closes the set (a persistent store is marked finished and its file released); any later
    /// use raises StoreError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut store = self.lock(py);
        match std::mem::replace(&mut *store, Store::Closed) {
            Store::Persistent(s) => py.detach(|| s.finish()).map_err(store_error),
            Store::Redis(s) => py.detach(|| s.finish()).map_err(store_error),
            _ => Ok(()),
        }
    }

    /// Empties a kind="redis" set for every process that shares it (scrapy-redis's `clear`).
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        let mut store = self.lock(py);
        match &mut *store {
            Store::Redis(s) => py.detach(|| s.clear()).map_err(store_error),
            Store::Closed => Err(closed()),
            _ => Err(PyValueError::new_err("clear: only for kind=\"redis\"")),
        }
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
        match store.set() {
            Ok(s) => format!("SeenSet(kind={:?}, len={})", self.kind, s.len()),
            Err(_) => format!("SeenSet(kind={:?}, closed)", self.kind),
        }
    }
}
