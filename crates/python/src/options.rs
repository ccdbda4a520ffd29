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

/// An option given under its name `new` or its `old` one, kept as an alias (issue 32: one
/// name per concept): `default` when neither is given, a `TypeError` when both are.
fn aliased<'a>(
    [new, old]: [&str; 2],
    given: (Option<&'a str>, Option<&'a str>),
    default: &'a str,
) -> PyResult<&'a str> {
    match given {
        (Some(_), Some(_)) => Err(PyTypeError::new_err(format!(
            "{new} and {old} given: {old} is the old name of {new}, give one"
        ))),
        (by_new, by_old) => Ok(by_new.or(by_old).unwrap_or(default)),
    }
}

/// The rung's name from the keywords `rung` and `level` (its old name).
pub(crate) fn rung_name<'a>(rung: Option<&'a str>, level: Option<&'a str>) -> PyResult<&'a str> {
    aliased(["rung", "level"], (rung, level), "scheme")
}

/// The input mode's name from the keywords `input_mode` and `input` (its old name: "input"
/// names files elsewhere).
pub(crate) fn mode_name<'a>(
    input_mode: Option<&'a str>,
    input: Option<&'a str>,
) -> PyResult<&'a str> {
    aliased(["input_mode", "input"], (input_mode, input), "strict")
}

/// [`key_options`] from the keywords of a call that takes both names of the rung and of the
/// input mode (`normalize`, `normalize_many`, its pyarrow path, `compare`).
pub(crate) fn keyword_options(
    [rung, level]: [Option<&str>; 2],
    form: &str,
    [input_mode, input]: [Option<&str>; 2],
    profile: Option<&str>,
    nfc: bool,
) -> PyResult<KeyOptions> {
    let (rung, mode) = (rung_name(rung, level)?, mode_name(input_mode, input)?);
    key_options(rung, form, mode, profile, nfc)
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
