//! The keying choice: the comparison ladder (`linksieve_iri`), or another canonicalizer's
//! profile (`linksieve_profiles`) on top of it. The ladder knows nothing of profiles; this is
//! the one place that chooses, for `run`, `scan`, `normalize`, `compare`, `identity` and Python.

use linksieve_iri::{
    Comparison, InputMode, NormalizeError, NormalizeOptions, Rung, compare_str, normalize_str,
    normalize_str_into,
};
use linksieve_profiles::{Profile, ProfileError};

/// How keys are made: the ladder's options, and the profile that makes the key instead when
/// one is set.
///
/// A profile reads each text as given, as its library reads a string: the input mode, the
/// form and NFC do not apply to its key. The ladder's rung still counts with a profile: it is
/// the rung [`Keying::compare`] climbs to before the profile's step, the rung at which `run`
/// counts a duplicate that the profile caught, and part of the keys' identity.
///
/// ```
/// use linksieve_iri::InputMode;
/// use linksieve_pipeline::Keying;
/// let ladder = Keying::default();
/// assert_eq!(ladder.key("HTTP://h/?b&a", InputMode::Strict).unwrap(), "http://h/?b&a");
/// let w3lib = Keying { profile: Some("w3lib".parse().unwrap()), ..Default::default() };
/// assert_eq!(w3lib.key("HTTP://h/?b&a", InputMode::Strict).unwrap(), "http://h/?a=&b=");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Keying {
    /// The rung, the form, NFC, the protocol rung's rules and redirects.
    pub ladder: NormalizeOptions,
    /// A canonicalizer to reproduce: when set, a key is its key of the text as given.
    pub profile: Option<Profile>,
}

impl Keying {
    /// The same choice with the ladder at another rung.
    ///
    /// ```
    /// use linksieve_iri::Rung;
    /// assert_eq!(linksieve_pipeline::Keying::default().at(Rung::Syntax).ladder.rung, Rung::Syntax);
    /// ```
    pub fn at(&self, rung: Rung) -> Keying {
        Keying {
            ladder: self.ladder.at(rung),
            profile: self.profile,
        }
    }

    /// The key of `input`, read in `mode` (3987bis 6) by the ladder, or as given by the profile.
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// use linksieve_pipeline::{KeyError, Keying};
    /// let gsb = Keying { profile: Some("gsb".parse().unwrap()), ..Default::default() };
    /// assert!(matches!(gsb.key("http://[::1/", InputMode::Strict), Err(KeyError::Profile { .. })));
    /// ```
    pub fn key(&self, input: &str, mode: InputMode) -> Result<String, KeyError> {
        match &self.profile {
            Some(p) => p.canonicalize(input).map_err(|e| self.profile_error(e)),
            None => Ok(normalize_str(input, mode, &self.ladder)?),
        }
    }

    /// [`Keying::key`], appended to `out` (left as it was on an error).
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let mut out = String::from("k=");
    /// linksieve_pipeline::Keying::default().key_into("HTTP://h", InputMode::Leiri, &mut out).unwrap();
    /// assert_eq!(out, "k=http://h/");
    /// ```
    pub fn key_into(&self, input: &str, mode: InputMode, out: &mut String) -> Result<(), KeyError> {
        match &self.profile {
            Some(p) => p
                .canonicalize_into(input, out)
                .map_err(|e| self.profile_error(e)),
            None => Ok(normalize_str_into(input, mode, &self.ladder, out)?),
        }
    }

    /// Compares two texts: the ladder from `string` up to its rung ([`compare_str`]), then,
    /// when they differ up to it, the profile as the last step (profiles sit above the ladder;
    /// they read the texts as given).
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Rung};
    /// use linksieve_pipeline::Keying;
    /// let w3lib = Keying { profile: Some("w3lib".parse().unwrap()), ..Default::default() };
    /// let c = w3lib.compare("http://h/?b=1&a=2", "http://h/?a=2&b=1", InputMode::Strict).unwrap();
    /// assert_eq!(c.ladder.equivalent_at, None);
    /// assert!(c.profile.as_ref().unwrap().equal() && c.equivalent());
    /// let c = w3lib.compare("HTTP://h/", "http://h/", InputMode::Strict).unwrap();
    /// assert_eq!((c.ladder.equivalent_at, c.profile), (Some(Rung::Syntax), None));
    /// ```
    pub fn compare(&self, a: &str, b: &str, mode: InputMode) -> Result<Compared, KeyError> {
        let ladder = compare_str(a, b, mode, &self.ladder)?;
        let profile = match (&self.profile, ladder.equivalent_at) {
            (Some(p), None) => {
                let key = |t| p.canonicalize(t).map_err(|e| self.profile_error(e));
                Some(ProfileStep {
                    profile: *p,
                    keys: [key(a)?, key(b)?],
                })
            }
            _ => None,
        };
        Ok(Compared { ladder, profile })
    }

    /// A profile's error, at the rung that was asked for.
    fn profile_error(&self, source: ProfileError) -> KeyError {
        KeyError::Profile {
            rung: self.ladder.rung,
            source,
        }
    }
}

/// Why a text has no key: the ladder's reason, or the profile's (its library would raise).
///
/// ```
/// use linksieve_iri::{InputMode, Rung};
/// let e = linksieve_pipeline::Keying::default().key("http://a b/", InputMode::Strict).unwrap_err();
/// assert_eq!((e.rung(), e.offset()), (Rung::Scheme, Some(8)));
/// assert_eq!(e.to_string(), "scheme rung: invalid character U+0020 in ihost at byte 8");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The ladder gives no key.
    #[error(transparent)]
    Ladder(#[from] NormalizeError),
    /// The profile gives no key.
    #[error("{source}")]
    Profile {
        /// The rung that was asked for.
        rung: Rung,
        /// What the profile said.
        source: ProfileError,
    },
}

impl KeyError {
    /// The rung that was asked for.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Rung};
    /// let e = linksieve_pipeline::Keying::default().key("a b", InputMode::Strict).unwrap_err();
    /// assert_eq!(e.rung(), Rung::Scheme);
    /// ```
    pub fn rung(&self) -> Rung {
        match self {
            KeyError::Ladder(e) => e.rung(),
            KeyError::Profile { rung, .. } => *rung,
        }
    }

    /// The byte offset in the input, when known.
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let e = linksieve_pipeline::Keying::default().key("a b", InputMode::Strict).unwrap_err();
    /// assert_eq!(e.offset(), Some(1));
    /// ```
    pub fn offset(&self) -> Option<usize> {
        match self {
            KeyError::Ladder(e) => e.offset(),
            KeyError::Profile { source, .. } => source.offset,
        }
    }
}

/// The result of [`Keying::compare`]: the ladder's comparison, and the profile's step after it.
///
/// ```
/// use linksieve_iri::InputMode;
/// let c = linksieve_pipeline::Keying::default().compare("a:b", "a:b", InputMode::Strict).unwrap();
/// assert!(c.equivalent() && c.profile.is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compared {
    /// The rungs climbed, and the lowest with equal keys.
    pub ladder: Comparison,
    /// With a profile and keys that differ up to the requested rung: both keys under the
    /// profile.
    pub profile: Option<ProfileStep>,
}

impl Compared {
    /// True when the two are equal at some rung, or else under the profile.
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let c = linksieve_pipeline::Keying::default().compare("a:b", "a:c", InputMode::Strict).unwrap();
    /// assert!(!c.equivalent());
    /// ```
    pub fn equivalent(&self) -> bool {
        self.ladder.equivalent_at.is_some() || self.profile.as_ref().is_some_and(ProfileStep::equal)
    }
}

/// The profile step of a [`Compared`]: the profile and both keys under it.
///
/// ```
/// use linksieve_iri::InputMode;
/// use linksieve_pipeline::Keying;
/// let surt = Keying { profile: Some("surt-ia".parse().unwrap()), ..Default::default() };
/// let c = surt.compare("http://www.a.example/", "http://a.example/", InputMode::Strict).unwrap();
/// let step = c.profile.unwrap();
/// assert_eq!(step.keys[0], step.keys[1]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileStep {
    /// The profile.
    pub profile: Profile,
    /// The key of each input under it.
    pub keys: [String; 2],
}

impl ProfileStep {
    /// True when both keys are equal.
    ///
    /// ```
    /// use linksieve_pipeline::ProfileStep;
    /// let s = ProfileStep { profile: "gsb".parse().unwrap(), keys: ["a".into(), "a".into()] };
    /// assert!(s.equal());
    /// ```
    pub fn equal(&self) -> bool {
        self.keys[0] == self.keys[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Keyer;
    use linksieve_iri::Climb;

    /// What the ladder functions did with a profile before the profiles left the ladder
    /// (`crates/iri`'s old `the_ladder_functions_take_the_profile`), now asked of the keying.
    #[test]
    fn a_profile_keys_the_text_as_given_in_every_mode_and_compares_last() {
        let w3lib = Keying {
            profile: Some(Profile::parse("w3lib").unwrap()),
            ..Default::default()
        };
        let input = "HTTP://Example.com/?b=1&a=2#f";
        let key = "http://example.com/?a=2&b=1";
        // the profile reads the text as given, in every input mode
        for mode in InputMode::ALL {
            assert_eq!(w3lib.key(input, mode).unwrap(), key);
            let keyer = Keyer::new(mode, &w3lib);
            assert_eq!(keyer.key(input, true).unwrap(), key);
            // no ladder fast path: an input that is its own ladder key is still the profile's
            assert_eq!(keyer.fixed_point("http://h/?b&a", false), None);
        }
        let mut buf = String::from("x ");
        w3lib.key_into(input, InputMode::Strict, &mut buf).unwrap();
        assert_eq!(buf, format!("x {key}"));
        // an input the library raises on: the profile's error, at the rung asked for, and
        // `out` as it was
        let e = w3lib
            .key_into("http://[::1/", InputMode::Strict, &mut buf)
            .unwrap_err();
        assert!(
            matches!(
                e,
                KeyError::Profile {
                    rung: Rung::Scheme,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(buf, format!("x {key}"));
        assert_eq!(
            w3lib
                .at(Rung::Syntax)
                .key("http://[::1/", InputMode::Strict)
                .unwrap_err()
                .rung(),
            Rung::Syntax
        );
        // the ladder's climb is the ladder's: a profile has no rungs
        let mut c = Climb::default();
        Keyer::new(InputMode::Strict, &w3lib)
            .climb(input, false, &mut c)
            .unwrap();
        assert_eq!(c.top(), "http://example.com/?b=1&a=2#f");
        // compare: the ladder first, then the profile; a ladder error stays the ladder's
        let cmp = w3lib
            .compare("http://h/?b", "http://h/?a", InputMode::Strict)
            .unwrap();
        assert!(!cmp.equivalent() && !cmp.profile.unwrap().equal());
        let e = w3lib
            .compare("http://h/", "../a", InputMode::Strict)
            .unwrap_err();
        assert!(
            matches!(e, KeyError::Ladder(NormalizeError::Relative { .. })),
            "{e:?}"
        );
    }
}
