//! `linksieve.NormalizeError`: why an input has no key, as a `ValueError` that carries the
//! input, the rung, the rule that failed and the byte offset.

use linksieve_iri::{InputError, NormalizeError as LadderError};
use linksieve_pipeline::KeyError as Error;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    linksieve,
    NormalizeError,
    PyValueError,
    "An input with no key: a ValueError with `input`, `rung`, `rule` and `offset`.\n\n\
`rule` is the grammar rule that failed (3987bis 2.2: `ihost`, `ipath`...), `relative-ref` for a \
relative reference above the syntax rung (CMP 2), `url-standard` for a web address the WHATWG \
parser refused, or the profile's own rule; `offset` is a byte offset into the UTF-8 input, or \
None when the parser gives none.\n\n\
>>> import linksieve\n\
>>> try:\n\
...     linksieve.normalize(\"http://a b/\")\n\
... except linksieve.NormalizeError as e:\n\
...     print(e.rung, e.rule, e.offset)\n\
scheme ihost 8\n"
);

/// The rule that failed, by name.
fn rule(e: &Error) -> &'static str {
    match e {
        Error::Ladder(LadderError::Input {
            source: InputError::Parse(p),
            ..
        }) => p.component.rule(),
        Error::Ladder(LadderError::Input { .. }) => "url-standard",
        Error::Ladder(LadderError::Relative { .. }) => "relative-ref",
        Error::Profile { source, .. } => source.reason,
    }
}

/// The exception for `e`, raised on `input`.
pub(crate) fn normalize_error(py: Python<'_>, input: &str, e: &Error) -> PyErr {
    let err = NormalizeError::new_err(e.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("input", input)?;
        value.setattr("rung", e.rung().name())?;
        value.setattr("rule", rule(e))?;
        value.setattr("offset", e.offset())?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}
