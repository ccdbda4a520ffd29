//! The `linksieve` Python module (`linksieve._linksieve`, re-exported by the pure-Python
//! package in `crates/python/python/linksieve`): the library bound for Python, no logic of its
//! own. Built by maturin through the `pyproject.toml` at the repository root (`pip install .`);
//! see `docs/python.md`. The docstrings below are the Python documentation, and
//! `tests/python/test_docs.py` runs their examples.

mod batch;
mod errors;
mod links;
mod options;
mod records;
mod seen;

use linksieve_dedup::Fingerprint;
use linksieve_iri::Rung;
use linksieve_pipeline::seen::KeyIdentity;
use options::{key_options, keyword_options, mode_name, rung_name};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::cell::RefCell;

thread_local! {
    /// The key buffer of `normalize`: one allocation per thread, not per call.
    static KEY: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The key of one URL or IRI.
///
/// rung: the rung of the comparison ladder (draft-ietf-iri-comparison): "string", "syntax",
/// "scheme" (the default) or "protocol". form: "uri" (the default), "iri" or "surt".
/// input_mode: how the text is read (3987bis 6): "strict" (the IRI grammar), "leiri" or "web"
/// (the WHATWG URL parser). profile: the key another canonicalizer makes ("w3lib",
/// "surt-ia", "urlcanon-semantic"..., options as "w3lib:keep_fragments=true"); it reads the
/// input as its library does, so rung and input_mode do not apply. nfc: apply Unicode NFC.
/// `level` and `input`, the old names of `rung` and `input_mode`, are accepted too.
///
/// Raises NormalizeError (a ValueError) when the input has no key, ValueError for an unknown
/// option.
///
/// >>> import linksieve
/// >>> linksieve.normalize("HTTP://Example.COM:80/%7euser")
/// 'http://example.com/~user'
/// >>> linksieve.normalize("http://example.com/a?b=2&a=1#top", profile="w3lib")
/// 'http://example.com/a?a=1&b=2'
/// >>> linksieve.normalize("http://xn--caf-dma.example/", form="iri")
/// 'http://café.example/'
#[pyfunction]
#[pyo3(signature = (url, *, rung=None, level=None, form="uri", input_mode=None, input=None, profile=None, nfc=false))]
#[allow(clippy::too_many_arguments)]
fn normalize<'py>(
    url: &Bound<'py, PyString>,
    rung: Option<&str>,
    level: Option<&str>,
    form: &str,
    input_mode: Option<&str>,
    input: Option<&str>,
    profile: Option<&str>,
    nfc: bool,
) -> PyResult<Bound<'py, PyAny>> {
    key_one(
        url,
        &keyword_options([rung, level], form, [input_mode, input], profile, nfc)?,
    )
}

/// The key of `url` with `ko`: `url` itself when it is its own key.
fn key_one<'py>(
    url: &Bound<'py, PyString>,
    ko: &options::KeyOptions,
) -> PyResult<Bound<'py, PyAny>> {
    let text = url.to_str()?;
    let py = url.py();
    KEY.with_borrow_mut(|key| {
        key.clear();
        match ko.keying.key_into(text, ko.input, key) {
            // an unchanged input is returned as itself: no new string
            Ok(()) if key == text => Ok(url.clone().into_any()),
            Ok(()) => Ok(PyString::new(py, key).into_any()),
            Err(e) => Err(errors::normalize_error(py, text, &e)),
        }
    })
}

/// The keys of many URLs: normalize() on each, with the GIL released and, from 4096 URLs up,
/// on `threads` threads (None: every core).
///
/// urls: a list, a tuple, any iterable of str (None stays None), or a pyarrow string array
/// (or chunked array). The result is of the same kind (a list for other iterables; a pyarrow
/// large_string array for an array), with None (null) where an input has no key. Pass a list
/// as `errors` to get (index, NormalizeError) for each of those.
///
/// >>> import linksieve
/// >>> errors = []
/// >>> linksieve.normalize_many(["HTTP://A.example", "http://a b", None], errors=errors)
/// ['http://a.example/', None, None]
/// >>> [(i, e.rule) for i, e in errors]
/// [(1, 'ihost')]
#[pyfunction]
#[pyo3(signature = (urls, *, rung=None, level=None, form="uri", input_mode=None, input=None, profile=None, nfc=false,
    threads=None, errors=None))]
#[allow(clippy::too_many_arguments)]
fn normalize_many<'py>(
    urls: &Bound<'py, PyAny>,
    rung: Option<&str>,
    level: Option<&str>,
    form: &str,
    input_mode: Option<&str>,
    input: Option<&str>,
    profile: Option<&str>,
    nfc: bool,
    threads: Option<usize>,
    errors: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ko = keyword_options([rung, level], form, [input_mode, input], profile, nfc)?;
    batch::many_objects(urls, &ko, batch::thread_count(threads)?, errors)
}

/// normalize_many() over the buffers of a pyarrow string array (called by the Python wrapper).
#[pyfunction]
#[pyo3(signature = (validity, offsets, data, offset, length, large, data_start=0, *,
    rung=None, level=None, form="uri", input_mode=None, input=None, profile=None, nfc=false, threads=None,
    errors=None))]
#[allow(clippy::too_many_arguments)]
fn _normalize_arrow<'py>(
    py: Python<'py>,
    validity: Option<&Bound<'py, PyBytes>>,
    offsets: &Bound<'py, PyBytes>,
    data: &Bound<'py, PyBytes>,
    offset: usize,
    length: usize,
    large: bool,
    data_start: usize,
    rung: Option<&str>,
    level: Option<&str>,
    form: &str,
    input_mode: Option<&str>,
    input: Option<&str>,
    profile: Option<&str>,
    nfc: bool,
    threads: Option<usize>,
    errors: Option<&Bound<'py, PyList>>,
) -> PyResult<batch::ArrowOut<'py>> {
    let ko = keyword_options([rung, level], form, [input_mode, input], profile, nfc)?;
    let arrow = batch::ArrowIn {
        validity: validity.map(|v| v.as_bytes()),
        offsets: offsets.as_bytes(),
        data: data.as_bytes(),
        data_start,
        offset,
        len: length,
        large,
    };
    batch::many_arrow(py, &arrow, &ko, batch::thread_count(threads)?, errors)
}

/// normalize() with its options read once: for many calls with the same options (a
/// fingerprinter, a frontier), a call costs less than normalize(url, **options).
///
/// >>> import linksieve
/// >>> w3lib = linksieve.Normalizer(profile="w3lib")
/// >>> w3lib("http://Example.com/a?b=1&a=2#x"), w3lib.many(["http://a/?b&a", "http://a/ b"])
/// ('http://example.com/a?a=2&b=1', ['http://a/?a=&b=', 'http://a/%20b'])
/// >>> w3lib.options
/// {'rung': 'scheme', 'form': 'uri', 'input_mode': 'strict', 'profile': 'w3lib', 'nfc': False}
#[pyclass(module = "linksieve", frozen)]
struct Normalizer {
    /// The options (read by `extract(key=...)` too).
    pub(crate) ko: options::KeyOptions,
    spec: (String, String, String, Option<String>, bool),
}

#[pymethods]
impl Normalizer {
    #[new]
    #[pyo3(signature = (*, rung=None, level=None, form="uri", input_mode=None, input=None, profile=None, nfc=false))]
    fn new(
        rung: Option<&str>,
        level: Option<&str>,
        form: &str,
        input_mode: Option<&str>,
        input: Option<&str>,
        profile: Option<&str>,
        nfc: bool,
    ) -> PyResult<Self> {
        let (rung, input) = (rung_name(rung, level)?, mode_name(input_mode, input)?);
        Ok(Normalizer {
            ko: key_options(rung, form, input, profile, nfc)?,
            spec: (
                rung.into(),
                form.into(),
                input.into(),
                profile.map(Into::into),
                nfc,
            ),
        })
    }

    /// The key of one URL (normalize()).
    fn __call__<'py>(&self, url: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
        key_one(url, &self.ko)
    }

    /// The keys of many URLs (normalize_many() over a list, a tuple or an iterable).
    #[pyo3(signature = (urls, *, threads=None, errors=None))]
    fn many<'py>(
        &self,
        urls: &Bound<'py, PyAny>,
        threads: Option<usize>,
        errors: Option<&Bound<'py, PyList>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        batch::many_objects(urls, &self.ko, batch::thread_count(threads)?, errors)
    }

    /// The options, as keyword arguments of normalize().
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let (rung, form, input, profile, nfc) = &self.spec;
        d.set_item("rung", rung)?;
        d.set_item("form", form)?;
        d.set_item("input_mode", input)?;
        d.set_item("profile", profile)?;
        d.set_item("nfc", nfc)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let (rung, form, input, profile, nfc) = &self.spec;
        let profile = profile
            .as_ref()
            .map_or("None".to_owned(), |p| format!("'{p}'"));
        let nfc = if *nfc { "True" } else { "False" };
        format!(
            "Normalizer(rung='{rung}', form='{form}', input_mode='{input}', profile={profile}, nfc={nfc})"
        )
    }
}

/// The lowest rung at which two references are equivalent ("string", "syntax", "scheme" or
/// "protocol"), up to `rung`; "profile" when they differ up to `rung` and `profile` gives
/// them one key; None when they differ. Relative references compare at the string and syntax
/// rungs only (CMP 2).
///
/// >>> import linksieve
/// >>> linksieve.compare("http://a.example/%7e", "http://A.example:80/~")
/// 'scheme'
/// >>> linksieve.compare("http://a.example/?b&a", "http://a.example/?a&b") is None
/// True
/// >>> linksieve.compare("http://a.example/?b&a", "http://a.example/?a&b", profile="w3lib")
/// 'profile'
#[pyfunction]
#[pyo3(signature = (a, b, *, rung=None, level=None, input_mode=None, input=None, profile=None, nfc=false))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    a: &str,
    b: &str,
    rung: Option<&str>,
    level: Option<&str>,
    input_mode: Option<&str>,
    input: Option<&str>,
    profile: Option<&str>,
    nfc: bool,
) -> PyResult<Option<&'static str>> {
    let ko = keyword_options([rung, level], "uri", [input_mode, input], profile, nfc)?;
    let c = ko.keying.compare(a, b, ko.input).map_err(|e| {
        // the input the error is about: the first that has no key at the rung
        let which = match ko.keying.compare(a, a, ko.input) {
            Err(_) => a,
            Ok(_) => b,
        };
        errors::normalize_error(py, which, &e)
    })?;
    Ok(match (c.ladder.equivalent_at, &c.profile) {
        (Some(r), _) => Some(r.name()),
        (None, Some(p)) if p.equal() => Some("profile"),
        _ => None,
    })
}

/// The 128-bit fingerprint the seen-sets and stores keep of a key (XXH3-128, seed 0, of its
/// UTF-8 bytes), as 16 big-endian bytes: its hex() is the first column of
/// `linksieve normalize --format tsv`.
///
/// >>> import linksieve
/// >>> linksieve.fingerprint("").hex()
/// '99aa06d3014798d86001c324468d497f'
/// >>> len(linksieve.fingerprint(b"http://example.com/"))
/// 16
#[pyfunction]
fn fingerprint<'py>(key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let Fingerprint(fp) = seen::fingerprint_of(key)?;
    Ok(PyBytes::new(key.py(), &fp.to_be_bytes()))
}

/// What the keys made with these options are, as `linksieve identity` prints it: the hash and
/// its version, the rung, the form, the rule set's version, the profile (its name, options
/// and the version it reproduces), `nfc` and the input mode (`leiri`, as `run` reads links). Two key sets can be compared, or one store used, only when
/// their identities are equal.
///
/// >>> import linksieve
/// >>> linksieve.identity()["rung"], linksieve.identity(profile="w3lib")["profile"]
/// ('scheme', 'w3lib@w3lib 2.5.0+1')
#[pyfunction]
#[pyo3(signature = (*, rung=None, level=None, form="uri", profile=None))]
fn identity<'py>(
    py: Python<'py>,
    rung: Option<&str>,
    level: Option<&str>,
    form: &str,
    profile: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let id = KeyIdentity::of(
        &key_options(rung_name(rung, level)?, form, "strict", profile, false)?.keying,
        linksieve_iri::InputMode::Leiri,
    );
    let d = PyDict::new(py);
    d.set_item("hash", id.hash)?;
    d.set_item("hash_version", id.hash_version)?;
    d.set_item("rung", id.rung)?;
    d.set_item("form", id.form)?;
    d.set_item("ruleset_version", id.ruleset_version)?;
    d.set_item("profile", id.profile)?;
    d.set_item("nfc", id.nfc)?;
    d.set_item("input", id.input)?;
    Ok(d)
}

/// A reference resolved against a base IRI (RFC 3986 5.2; in web mode the WHATWG URL
/// parser with a base, its serialization), as `linksieve resolve` does.
///
/// input_mode (or `input`, its old name): how base and reference are read: "strict" (the
/// default), "leiri" or "web". strict:
/// False for RFC 3986 5.2.2's non-strict resolution (a reference with the base's scheme is
/// relative). Raises ValueError when the base or the reference cannot be read.
///
/// >>> import linksieve
/// >>> linksieve.resolve("http://a/b/c/d;p?q", "../g")
/// 'http://a/b/g'
/// >>> linksieve.resolve("http://a/b/", "..\\g", input_mode="web")
/// 'http://a/g'
/// >>> linksieve.resolve("http://a/b/c", "http:g", strict=False)
/// 'http://a/b/g'
#[pyfunction]
#[pyo3(signature = (base, reference, *, input_mode=None, input=None, strict=true))]
fn resolve(
    py: Python<'_>,
    base: &str,
    reference: &str,
    input_mode: Option<&str>,
    input: Option<&str>,
    strict: bool,
) -> PyResult<String> {
    let mode = options::input_mode(mode_name(input_mode, input)?)?;
    let strictness = if strict {
        linksieve_iri::Strictness::Strict
    } else {
        linksieve_iri::Strictness::NonStrict
    };
    py.detach(|| linksieve_iri::resolve_str(base, reference, mode, strictness))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// The rungs of the ladder, lowest first.
fn rung_names() -> Vec<&'static str> {
    Rung::ALL.iter().map(|r| r.name()).collect()
}

#[pymodule]
fn _linksieve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_many, m)?)?;
    m.add_function(wrap_pyfunction!(_normalize_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(identity, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(links::extract, m)?)?;
    m.add_class::<links::Link>()?;
    m.add_function(wrap_pyfunction!(records::records, m)?)?;
    m.add_class::<records::Record>()?;
    m.add_class::<records::Outlink>()?;
    m.add_class::<records::Records>()?;
    m.add_class::<Normalizer>()?;
    m.add_class::<seen::PySeenSet>()?;
    m.add("NormalizeError", py.get_type::<errors::NormalizeError>())?;
    m.add("StoreError", py.get_type::<seen::StoreError>())?;
    m.add("RUNGS", rung_names())?;
    m.add("PARALLEL_THRESHOLD", batch::PARALLEL_THRESHOLD)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
