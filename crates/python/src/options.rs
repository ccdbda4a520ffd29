//! The keyword options every call shares (`rung`, `form`, `input_mode`, `profile`, `nfc`), read
//! into the library's [`Keying`] and [`InputMode`]. A bad value is a plain
//! `ValueError` (the caller's mistake), not a `NormalizeError` (the input's).

use linksieve_iri::{InputMode, KeyForm, NormalizeOptions, Rung};
use linksieve_pipeline::Keying;
use linksieve_profiles::Profile;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// How keys are made: the input mode and the keying choice.
#[derive(Clone, Debug)]
pub(crate) struct KeyOptions {
    /// The input mode (3987bis 6): strict, LEIRI or web.
    pub input: InputMode,
    /// The rung, form and NFC, or the profile.
    pub keying: Keying,
}

/// The input mode by name.
pub(crate) fn input_mode(name: &str) -> PyResult<InputMode> {
    name.parse().map_err(|_| {
        let names: Vec<&str> = InputMode::ALL.iter().map(|m| m.name()).collect();
        PyValueError::new_err(format!(
            "input_mode: unknown input mode {name:?} ({})",
            names.join(", ")
        ))
    })
}

thread_local! {
    /// The last profile read, by its text: a per-call `normalize` does not parse it again.
    static LAST_PROFILE: std::cell::RefCell<Option<(String, Profile)>> =
        const { std::cell::RefCell::new(None) };
}

/// The profile `spec` names (`NAME[:KEY=VALUE,...]`).
fn parse_profile(spec: &str) -> PyResult<Profile> {
    LAST_PROFILE.with_borrow_mut(|last| {
        if let Some((text, p)) = last.as_ref()
            && text == spec
        {
            return Ok(*p);
        }
        let p = Profile::parse(spec).map_err(|e| PyValueError::new_err(format!("profile: {e}")))?;
        *last = Some((spec.to_owned(), p));
        Ok(p)
    })
}

/// The rung's name from the keywords `rung` and `level` (its old name, kept as an alias: issue
/// 32, one name per concept): "scheme" when neither is given, a `TypeError` when both are.
pub(crate) fn rung_name<'a>(rung: Option<&'a str>, level: Option<&'a str>) -> PyResult<&'a str> {
    match (rung, level) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "rung and level given: level is the old name of rung, give one",
        )),
        (rung, level) => Ok(rung.or(level).unwrap_or("scheme")),
    }
}

/// The input mode's name from the keywords `input_mode` and `input` (its old name, kept as an
/// alias: issue 32, "input" names files elsewhere): "strict" when neither is given, a
/// `TypeError` when both are.
pub(crate) fn mode_name<'a>(
    input_mode: Option<&'a str>,
    input: Option<&'a str>,
) -> PyResult<&'a str> {
    match (input_mode, input) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "input_mode and input given: input is the old name of input_mode, give one",
        )),
        (mode, input) => Ok(mode.or(input).unwrap_or("strict")),
    }
}

/// Reads the keyword options. `profile` makes keys in its library's own form, so a form other
/// than the default `uri` is refused with it (as the CLI refuses `--form` with `--profile`).
pub(crate) fn key_options(
    rung: &str,
    form: &str,
    input: &str,
    profile: Option<&str>,
    nfc: bool,
) -> PyResult<KeyOptions> {
    let rung: Rung = rung.parse().map_err(|e| {
        PyValueError::new_err(format!("rung: {e} (string, syntax, scheme, protocol)"))
    })?;
    let form: KeyForm = form
        .parse()
        .map_err(|e| PyValueError::new_err(format!("form: {e}")))?;
    let profile = profile.map(parse_profile).transpose()?;
    if profile.is_some() && form != KeyForm::Uri {
        return Err(PyValueError::new_err(
            "form: a profile makes keys in its library's own form; leave form at \"uri\"",
        ));
    }
    Ok(KeyOptions {
        input: input_mode(input)?,
        keying: Keying {
            ladder: NormalizeOptions {
                rung,
                form,
                nfc,
                ..NormalizeOptions::default()
            },
            profile,
        },
    })
}
