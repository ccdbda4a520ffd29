//! `records`: the records of a WARC or WAT file with their outlinks and edges, read on a
//! thread of its own while Python takes them one by one (`linksieve_pipeline::read_records`).

use crate::links::key_choice;
use linksieve_graph::{Graph, Www};
use linksieve_pipeline::{
    Keyer, Outlink as RustOutlink, RecordOptions, RecordOutlinks, WarcError, WarcRecords,
    decompress, open_file, read_records,
};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};
use std::collections::HashSet;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, sync_channel};

/// How many records the reading thread keeps ready ahead of Python.
const AHEAD: usize = 16;

/// One outlink of a record (`Record.links`).
///
/// >>> import linksieve
/// >>> body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=/b>b</a> http://b.example/"
/// >>> warc = b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n" \
/// ...     b"Content-Type: application/http; msgtype=response\r\n" \
/// ...     b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
/// >>> [r] = linksieve.records(warc)
/// >>> l = r.links[0]
/// >>> (l.type, l.tag, l.attr, l.value, l.url, l.key)
/// ('a', 'a', 'href', '/b', 'http://a.example/b', 'http://a.example/b')
#[pyclass(module = "linksieve", frozen, get_all)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outlink {
    /// Its type, as `run --format edges` names it (`a`, `img`, `canonical`, `redirect-301`,
    /// `link-header`, `sitemap`, `text`...).
    #[pyo3(name = "type")]
    link_type: &'static str,
    /// As written: an attribute's value, a header's reference, a link found in text.
    value: String,
    /// The URL an attribute or a header link resolves to (URL Standard); None for a link found
    /// in text.
    url: Option<String>,
    /// Its key as `linksieve run` makes it, or None (see `key_error`).
    key: Option<String>,
    /// Why it has no key.
    key_error: Option<String>,
    /// The HTML element of an attribute (lowercase), else None.
    tag: Option<String>,
    /// The attribute, else None.
    attr: Option<String>,
    /// The element's `rel`.
    rel: Option<String>,
    /// Where it is written in the input (decompressed); in an HTML payload, the payload's
    /// offset plus the offset in the document decoded to UTF-8.
    offset: u64,
}

#[pymethods]
impl Outlink {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let key = match &self.key {
            Some(k) => PyString::new(py, k).repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "Outlink(type='{}', value={}, key={key})",
            self.link_type,
            PyString::new(py, &self.value).repr()?
        ))
    }

    fn __eq__(&self, other: &Self) -> bool {
        self == other
    }
}

impl From<RustOutlink> for Outlink {
    fn from(l: RustOutlink) -> Outlink {
        let (key, key_error) = match l.key {
            Ok(k) => (Some(k), None),
            Err(e) => (None, Some(e)),
        };
        Outlink {
            link_type: l.link_type.name(),
            value: l.value,
            url: l.url,
            key,
            key_error,
            tag: l.tag.map(String::from),
            attr: l.attr.map(String::from),
            rel: l.rel,
            offset: l.offset,
        }
    }
}

/// One record of a WARC or WAT file that has a payload read or links stated.
///
/// >>> import linksieve
/// >>> body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=/b>b</a> http://b.example/"
/// >>> warc = b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n" \
/// ...     b"Content-Type: application/http; msgtype=response\r\n" \
/// ...     b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
/// >>> [r] = linksieve.records(warc)
/// >>> (r.type, r.target_uri, r.page, r.offset, len(r.links))
/// ('response', 'http://a.example/', 'http://a.example/', 0, 2)
/// >>> r.edges("host")
/// [('example.a', 'example.a'), ('example.a', 'example.b')]
#[pyclass(module = "linksieve", frozen)]
#[derive(Debug)]
pub(crate) struct Record {
    /// Where its `WARC/` line starts in the input (decompressed).
    #[pyo3(get)]
    offset: u64,
    /// `WARC-Type`, lowercase (`response`, `resource`, `metadata` for a WAT record...).
    #[pyo3(get, name = "type")]
    record_type: String,
    /// `WARC-Target-URI`.
    #[pyo3(get)]
    target_uri: Option<String>,
    /// The key of the page its links come from (a WAT record's page, else the target URI),
    /// keyed as the links are; the source of its edges.
    #[pyo3(get)]
    page: Option<String>,
    /// Its outlinks (`Outlink`), a tuple in the order written (links of the HTTP head first):
    /// made once, the same object at each access.
    #[pyo3(get)]
    links: Py<PyTuple>,
    /// Why its payload could not be read to the end (`links` has what was read before).
    #[pyo3(get)]
    error: Option<String>,
    /// The links' keys, for `edges`.
    keys: Vec<Option<String>>,
    /// Its page is a node even without links (`RecordOutlinks::node`), for `edges`.
    node: bool,
}

#[pymethods]
impl Record {
    /// The edges of this record, as `linksieve run --format edges --graph GRAPH --www WWW`
    /// counts them: (source node, target node) pairs, each once, in the order first found;
    /// `page`: keys (a link to itself included); `host`: reversed host names, `domain`:
    /// reversed registered domains (links within one are no edge). A link without a key, or
    /// whose key has no node, is no edge; nor is any link of a record without a page. First,
    /// for a response (or a WAT record of one, or an HTML payload), its own node as
    /// (source, source): `run`'s `node` row, which makes a page without links a vertex of the
    /// graph, as cc-pyspark's self-link does.
    ///
    /// >>> import linksieve
    /// >>> body = b"HTTP/1.1 301 Moved\r\nLocation: http://b.example/\r\n\r\n"
    /// >>> warc = b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n" \
    /// ...     b"Content-Type: application/http; msgtype=response\r\n" \
    /// ...     b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
    /// >>> [r] = linksieve.records(warc)
    /// >>> [l.type for l in r.links]
    /// ['redirect-301']
    /// >>> r.edges()
    /// [('http://a.example/', 'http://a.example/'), ('http://a.example/', 'http://b.example/')]
    #[pyo3(signature = (graph="page", www="keep"))]
    fn edges(&self, graph: &str, www: &str) -> PyResult<Vec<(String, String)>> {
        let graph = match graph {
            "page" => Graph::Page,
            "host" => Graph::Host,
            "domain" => Graph::Domain,
            g => {
                return Err(PyValueError::new_err(format!(
                    "graph: {g:?} is not page, host or domain"
                )));
            }
        };
        let www = match www {
            "keep" => Www::Keep,
            "strip" if graph == Graph::Host => Www::Strip,
            "strip" => {
                return Err(PyValueError::new_err(
                    "www: \"strip\" is for graph=\"host\"",
                ));
            }
            w => {
                return Err(PyValueError::new_err(format!(
                    "www: {w:?} is not keep or strip"
                )));
            }
        };
        let Some(source) = self.page.as_deref().and_then(|p| graph.node(p, www)) else {
            return Ok(Vec::new());
        };
        let mut seen = HashSet::new();
        let mut edges = Vec::new();
        if self.node {
            seen.insert(source.clone());
            edges.push((source.to_string(), source.to_string()));
        }
        for key in self.keys.iter().flatten() {
            if let Some(target) = graph.node(key, www)
                && (graph == Graph::Page || target != source)
                && seen.insert(target.clone())
            {
                edges.push((source.to_string(), target.into_owned()));
            }
        }
        Ok(edges)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let uri = match &self.target_uri {
            Some(u) => PyString::new(py, u).repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "Record(type={}, target_uri={uri}, offset={}, links={})",
            PyString::new(py, &self.record_type).repr()?,
            self.offset,
            self.keys.len()
        ))
    }
}

impl Record {
    fn new(py: Python<'_>, r: RecordOutlinks) -> PyResult<Record> {
        let keys = r
            .links
            .iter()
            .map(|l| l.key.as_ref().ok().cloned())
            .collect();
        let links = r
            .links
            .into_iter()
            .map(|l| Py::new(py, Outlink::from(l)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Record {
            offset: r.offset,
            record_type: r.record_type,
            target_uri: r.target_uri,
            page: r.page,
            links: PyTuple::new(py, links)?.unbind(),
            error: r.failure,
            keys,
            node: r.node,
        })
    }
}

/// Where the iterator of `records` is: ready with the reading thread's receiver, waiting in
/// one Python thread (which holds the receiver), or done.
enum State {
    Ready(Receiver<Result<RecordOutlinks, WarcError>>),
    Busy,
    Done,
}

/// The iterator `records` answers: the file is read on a thread of its own, a few records
/// ahead; dropping the iterator stops it.
#[pyclass(module = "linksieve")]
pub(crate) struct Records {
    state: Mutex<State>,
}

impl Records {
    fn set(&self, state: State) {
        if let Ok(mut s) = self.state.lock() {
            *s = state;
        }
    }
}

#[pymethods]
impl Records {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Record>> {
        // the receiver leaves the lock while this thread waits without the GIL
        let rx = {
            let mut state = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("records: a reader failed"))?;
            match std::mem::replace(&mut *state, State::Busy) {
                State::Ready(rx) => rx,
                State::Done => {
                    *state = State::Done;
                    return Ok(None);
                }
                State::Busy => {
                    return Err(PyRuntimeError::new_err(
                        "records: next() called from two threads at once",
                    ));
                }
            }
        };
        let (next, rx) = py.detach(move || (rx.recv(), rx));
        match next {
            Ok(Ok(record)) => {
                self.set(State::Ready(rx));
                Record::new(py, record).map(Some)
            }
            Ok(Err(e)) => {
                self.set(State::Done);
                Err(match e {
                    WarcError::Io(e) => PyOSError::new_err(e.to_string()),
                    e => PyValueError::new_err(e.to_string()),
                })
            }
            Err(_) => {
                self.set(State::Done);
                Ok(None)
            }
        }
    }
}

/// The records of a WARC or WAT file (gzip, zstd, bzip2 or xz, or not compressed), each
/// with the outlinks `linksieve run --format edges` makes edges of: an HTML payload's
/// attributes and text links, a redirect's `Location`, `Link` header fields, a robots.txt's
/// `Sitemap:` lines, a WAT record's link list (resolved against its page and `Head.Base`, as
/// cc-pyspark reads them); not the links of a text payload (`run` keys them, but no document
/// is their source). Records with no payload read and no links stated (requests, images,
/// `warcinfo`) are left out.
///
/// source: a path, or the file's bytes. key: True (the default: `linksieve run`'s keys) or a
/// `Normalizer`. record_links: False leaves out the links of the HTTP head and robots.txt
/// (`run --no-record-links`). all_records: read every record's block, as `run
/// --warc-records all`.
///
/// Raises OSError when the file cannot be opened; while iterating, OSError or ValueError
/// when the file is cut inside a record or is not WARC, after the records before it (and the
/// cut record, with what was read of it and the reason as its `error`).
///
/// >>> import linksieve
/// >>> body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=/b>b</a> http://b.example/"
/// >>> warc = b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n" \
/// ...     b"Content-Type: application/http; msgtype=response\r\n" \
/// ...     b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
/// >>> [r.target_uri for r in linksieve.records(warc)]
/// ['http://a.example/']
#[pyfunction]
#[pyo3(signature = (source, *, key=None, record_links=true, all_records=false))]
pub(crate) fn records(
    source: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    record_links: bool,
    all_records: bool,
) -> PyResult<Records> {
    let ko = match key {
        None => key_choice(&pyo3::types::PyBool::new(source.py(), true))?,
        Some(k) => key_choice(k)?,
    };
    let Some(ko) = ko else {
        return Err(PyValueError::new_err(
            "key: records are keyed: True or a linksieve.Normalizer",
        ));
    };
    let input: Box<dyn std::io::Read + Send> = if let Ok(b) = source.cast::<PyBytes>() {
        Box::new(std::io::Cursor::new(b.as_bytes().to_vec()))
    } else {
        let path: PathBuf = source.extract()?;
        Box::new(
            open_file(&path).map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?,
        )
    };
    let (mut reader, _): (Box<dyn BufRead + Send>, _) =
        decompress(input).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let opts = RecordOptions {
        keyer: Keyer::new(ko.input, &ko.keying),
        records: if all_records {
            WarcRecords::All
        } else {
            WarcRecords::Content
        },
        record_links,
        ..RecordOptions::default()
    };
    let (tx, rx) = sync_channel(AHEAD);
    std::thread::Builder::new()
        .name("linksieve-records".into())
        .spawn(move || {
            let read = read_records(&mut reader, &opts, |r| tx.send(Ok(r)).is_ok());
            if let Err(e) = read {
                let _ = tx.send(Err(e));
            }
        })
        .map_err(|e| PyOSError::new_err(format!("records: no reading thread: {e}")))?;
    Ok(Records {
        state: Mutex::new(State::Ready(rx)),
    })
}
