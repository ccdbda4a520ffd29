//! `normalize_many`: many inputs keyed with the GIL released, on every core above a size
//! threshold. The inputs are borrowed (the UTF-8 of Python strings, or an Arrow array's data
//! buffer); each worker thread writes its keys into one buffer of its own, so keying allocates
//! per batch, not per URL.

use crate::errors::normalize_error;
use crate::options::KeyOptions;
use linksieve_pipeline::KeyError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use std::ops::Range;

/// Below this many inputs a batch is keyed on one thread: starting threads costs more than the
/// work (about 100 microseconds of keying).
pub(crate) const PARALLEL_THRESHOLD: usize = 4096;

/// What one input gave.
enum Item {
    /// No input (`None`, or an Arrow null).
    Null,
    /// The key, as a range of its worker's buffer.
    Key(Range<usize>),
    /// No key (boxed: errors are rare, and a small item keeps the batch's table small).
    Error(Box<KeyError>),
    /// An Arrow value that is not UTF-8 (Arrow promises it is; checked, never trusted).
    NotUtf8,
}

/// One input: a string, a null, or an Arrow value that is not UTF-8.
#[derive(Clone, Copy)]
enum Text<'a> {
    Str(&'a str),
    Null,
    NotUtf8(&'a [u8]),
}

impl<'a> Text<'a> {
    /// The input's bytes (empty for a null).
    fn bytes(self) -> &'a [u8] {
        match self {
            Text::Str(s) => s.as_bytes(),
            Text::NotUtf8(b) => b,
            Text::Null => b"",
        }
    }
}

/// The keys of one slice of the inputs, made by one thread.
struct Part {
    keys: String,
    items: Vec<Item>,
}

/// Keys `texts` in order, on up to `threads` threads (one below [`PARALLEL_THRESHOLD`]).
fn key_all(texts: &[Text<'_>], ko: &KeyOptions, threads: usize) -> Vec<Part> {
    let one = |texts: &[Text<'_>]| {
        // a key is about as long as its input: one allocation for the part's keys
        let bytes: usize = texts.iter().map(|t| t.bytes().len() + 2).sum();
        let mut part = Part {
            keys: String::with_capacity(bytes + bytes / 8),
            items: Vec::with_capacity(texts.len()),
        };
        for t in texts {
            let item = match *t {
                Text::Null => Item::Null,
                Text::NotUtf8(_) => Item::NotUtf8,
                Text::Str(s) => {
                    let start = part.keys.len();
                    match ko.keying.key_into(s, ko.input, &mut part.keys) {
                        Ok(()) => Item::Key(start..part.keys.len()),
                        Err(e) => Item::Error(Box::new(e)),
                    }
                }
            };
            part.items.push(item);
        }
        part
    };
    if texts.len() < PARALLEL_THRESHOLD {
        return vec![one(texts)];
    }
    // A large batch is keyed on spawned threads even when there is one: their allocator arenas
    // keep the batch's buffers between calls, where the main thread's heap gives the pages back
    // to the kernel and faults them in again (measured: 4.1 ms against 2.1 ms for the 48k URLs
    // of the kasztp list).
    let threads = threads.clamp(1, texts.len() / (PARALLEL_THRESHOLD / 4));
    let per = texts.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .chunks(per)
            .map(|chunk| s.spawn(move || one(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The number of threads a batch may use: `threads`, or every core when `None`.
pub(crate) fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err(
            "threads: must be at least 1 (None: every core)",
        )),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Appends `(index, NormalizeError)` to `errors` when the caller gave a list.
fn record(
    py: Python<'_>,
    errors: Option<&Bound<'_, PyList>>,
    index: usize,
    input: &[u8],
    item: &Item,
) -> PyResult<()> {
    let Some(errors) = errors else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(input);
    let err = match item {
        Item::Error(e) => normalize_error(py, &text, e),
        _ => PyValueError::new_err(format!("value {index} is not UTF-8")),
    };
    errors.append((index, err.value(py)))
}

/// `normalize_many` over a list, a tuple or any other iterable of `str` (or `None`): a list
/// (a tuple for a tuple) of keys, `None` where there is none. An output equal to its input is
/// the input object itself.
pub(crate) fn many_objects<'py>(
    urls: &Bound<'py, PyAny>,
    ko: &KeyOptions,
    threads: usize,
    errors: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = urls.py();
    let objects: Vec<Bound<'py, PyAny>> = match urls.cast::<PyList>() {
        Ok(list) => list.iter().collect(),
        Err(_) => urls.try_iter()?.collect::<PyResult<_>>()?,
    };
    let mut texts: Vec<Text<'_>> = Vec::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        if o.is_none() {
            texts.push(Text::Null);
            continue;
        }
        let s = o.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "urls[{i}]: expected str or None, not {}",
                o.get_type()
                    .name()
                    .map_or_else(|_| "?".to_owned(), |n| n.to_string())
            ))
        })?;
        texts.push(Text::Str(s.to_str()?));
    }
    let parts = py.detach(|| key_all(&texts, ko, threads));
    let mut out = Vec::with_capacity(objects.len());
    let mut i = 0;
    for part in &parts {
        for item in &part.items {
            let value = match item {
                Item::Null => py.None().into_bound(py),
                Item::Key(r) => {
                    let key = &part.keys[r.clone()];
                    match texts[i] {
                        Text::Str(t) if t == key => objects[i].clone(),
                        _ => PyString::new(py, key).into_any(),
                    }
                }
                Item::Error(_) | Item::NotUtf8 => {
                    record(py, errors, i, texts[i].bytes(), item)?;
                    py.None().into_bound(py)
                }
            };
            out.push(value);
            i += 1;
        }
    }
    if urls.is_instance_of::<PyTuple>() {
        Ok(PyTuple::new(py, out)?.into_any())
    } else {
        Ok(PyList::new(py, out)?.into_any())
    }
}

/// An Arrow string array taken apart: its buffers, as `bytes`.
pub(crate) struct ArrowIn<'a> {
    /// The validity bitmap, or `None` when every value is valid.
    pub validity: Option<&'a [u8]>,
    /// The offsets buffer (`int32`, or `int64` for `large_string`), little-endian.
    pub offsets: &'a [u8],
    /// The data buffer, or the part of it that starts at `data_start`.
    pub data: &'a [u8],
    /// Where `data` starts in the array's data buffer: subtracted from every offset (the caller
    /// may pass only the bytes the values use).
    pub data_start: usize,
    /// The array's offset into its validity and offsets buffers (a slice of a larger array).
    pub offset: usize,
    /// The number of values.
    pub len: usize,
    /// `large_string` (64-bit offsets).
    pub large: bool,
}

/// The buffers of the output array (always `large_string`: 64-bit offsets): validity (or
/// `None`), offsets, data, and the null count.
pub(crate) type ArrowOut<'py> = (
    Option<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    usize,
);

/// The values of an Arrow string array, checked against its buffers: the data in use is
/// validated as UTF-8 once (SIMD), then each value's ends must be character boundaries.
fn arrow_values<'a>(a: &ArrowIn<'a>) -> PyResult<Vec<Text<'a>>> {
    let width = if a.large { 8 } else { 4 };
    let offset_at = |i: usize| -> PyResult<usize> {
        let at = (a.offset + i) * width;
        let b = a
            .offsets
            .get(at..at + width)
            .ok_or_else(|| PyValueError::new_err("arrow: offsets buffer too short"))?;
        let v = match b.try_into() {
            Ok(b8) if a.large => i64::from_le_bytes(b8),
            _ => i64::from(i32::from_le_bytes(b.try_into().unwrap_or_default())),
        };
        let v = usize::try_from(v).map_err(|_| PyValueError::new_err("arrow: negative offset"))?;
        v.checked_sub(a.data_start)
            .ok_or_else(|| PyValueError::new_err("arrow: offsets outside the data"))
    };
    let (first, last) = (offset_at(0)?, offset_at(a.len)?);
    let used = a
        .data
        .get(first..last)
        .ok_or_else(|| PyValueError::new_err("arrow: offsets outside the data"))?;
    let whole = simdutf8::basic::from_utf8(used).ok();
    let mut values = Vec::with_capacity(a.len);
    let mut start = first;
    for i in 0..a.len {
        let end = offset_at(i + 1)?;
        let bit = a.offset + i;
        let valid = match a.validity {
            None => true,
            Some(v) => v.get(bit / 8).is_some_and(|b| b & (1 << (bit % 8)) != 0),
        };
        let bytes = a
            .data
            .get(start..end)
            .ok_or_else(|| PyValueError::new_err("arrow: offsets outside the data"))?;
        values.push(if !valid {
            Text::Null
        } else {
            match whole.and_then(|w| w.get(start - first..end - first)) {
                Some(s) => Text::Str(s),
                None => match std::str::from_utf8(bytes) {
                    Ok(s) => Text::Str(s),
                    Err(_) => Text::NotUtf8(bytes),
                },
            }
        });
        start = end;
    }
    Ok(values)
}

/// `normalize_many` over an Arrow string array: the buffers of a `large_string` array of keys,
/// null where the input is null or has no key.
pub(crate) fn many_arrow<'py>(
    py: Python<'py>,
    input: &ArrowIn<'_>,
    ko: &KeyOptions,
    threads: usize,
    errors: Option<&Bound<'py, PyList>>,
) -> PyResult<ArrowOut<'py>> {
    let texts = arrow_values(input)?;
    let (parts, total) = py.detach(|| {
        let parts = key_all(&texts, ko, threads);
        let total: usize = parts.iter().map(|p| p.keys.len()).sum();
        (parts, total)
    });
    let n = texts.len();
    let mut validity = vec![0u8; n.div_ceil(8)];
    let mut offsets = Vec::with_capacity((n + 1) * 8);
    offsets.extend_from_slice(&0i64.to_le_bytes());
    // `end`: the offset after the last value written (a null repeats it)
    let (mut i, mut nulls, mut base, mut end) = (0, 0, 0, 0i64);
    for part in &parts {
        for item in &part.items {
            match item {
                // a part's keys are its buffer in order: the output data is the buffers joined
                Item::Key(r) => {
                    validity[i / 8] |= 1 << (i % 8);
                    end = (base + r.end) as i64;
                }
                Item::Null | Item::Error(_) | Item::NotUtf8 => {
                    nulls += 1;
                    if !matches!(item, Item::Null) {
                        record(py, errors, i, texts[i].bytes(), item)?;
                    }
                }
            }
            offsets.extend_from_slice(&end.to_le_bytes());
            i += 1;
        }
        base += part.keys.len();
    }
    let data = PyBytes::new_with(py, total, |out| {
        let mut at = 0;
        for part in &parts {
            out[at..at + part.keys.len()].copy_from_slice(part.keys.as_bytes());
            at += part.keys.len();
        }
        Ok(())
    })?;
    let validity = (nulls > 0).then(|| PyBytes::new(py, &validity));
    Ok((validity, PyBytes::new(py, &offsets), data, nulls))
}
