//! The ladder's vocabulary: its rungs ([`Rung`]) and the forms of a key ([`KeyForm`]), with
//! the names the command line, Python and the store's identity spell them with.

use std::fmt;

/// A rung of the comparison ladder (CMP 4), ordered from the cheapest to the most aggressive.
///
/// ```
/// use linksieve_iri::Rung;
/// assert!(Rung::String < Rung::Syntax && Rung::Scheme < Rung::Protocol);
/// assert_eq!("scheme".parse::<Rung>().unwrap(), Rung::Scheme);
/// assert_eq!(Rung::Protocol.to_string(), "protocol");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Rung {
    /// CMP 4.1 simple string comparison: the IRI as given.
    #[cfg_attr(feature = "clap", value(help = "The text as given (4.1)"))]
    String,
    /// CMP 4.2 syntax-based normalization.
    #[cfg_attr(
        feature = "clap",
        value(help = "Case, percent-encoding, dot segments (4.2)")
    )]
    Syntax,
    /// CMP 4.3 scheme-based normalization (the default).
    #[default]
    #[cfg_attr(
        feature = "clap",
        value(help = "Ports, empty path, IDNA hosts, IPv6 (4.3)")
    )]
    Scheme,
    /// CMP 4.4 protocol-based normalization.
    #[cfg_attr(
        feature = "clap",
        value(help = "No fragment; optional rules and redirects (4.4)")
    )]
    Protocol,
}

impl Rung {
    /// Every rung, from the lowest.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::Rung::ALL.len(), 4);
    /// ```
    pub const ALL: [Rung; 4] = [Rung::String, Rung::Syntax, Rung::Scheme, Rung::Protocol];

    /// The rung's name as the command line spells it.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::Rung::Syntax.name(), "syntax");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rung::String => "string",
            Rung::Syntax => "syntax",
            Rung::Scheme => "scheme",
            Rung::Protocol => "protocol",
        }
    }

    /// The section of draft-ietf-iri-comparison-00 that defines the rung.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::Rung::Scheme.section(), "4.3");
    /// ```
    pub fn section(self) -> &'static str {
        match self {
            Rung::String => "4.1",
            Rung::Syntax => "4.2",
            Rung::Scheme => "4.3",
            Rung::Protocol => "4.4",
        }
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a rung or a key form.
///
/// ```
/// assert!("nope".parse::<linksieve_iri::Rung>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown name {0:?}")]
pub struct UnknownName(pub String);

/// The value of `all` whose `name` is `s`: the `FromStr` of every option enum of the crate
/// (`Rung`, `KeyForm`, `InputMode`).
pub(crate) fn by_name<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|&v| name(v) == s)
        .ok_or_else(|| UnknownName(s.to_owned()))
}

impl std::str::FromStr for Rung {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(&Rung::ALL, Rung::name, s)
    }
}

/// How a key is written. All three are one-to-one rewritings of the `uri` key, so two IRIs have
/// equal keys in one form exactly when they have equal keys in the others.
///
/// ```
/// use linksieve_iri::{normalize_str, InputMode, KeyForm, NormalizeOptions};
/// let key = |form| {
///     let opts = NormalizeOptions { form, ..Default::default() };
///     normalize_str("http://www.Résumé.example:8080/p?q", InputMode::Strict, &opts).unwrap()
/// };
/// assert_eq!(key(KeyForm::Uri), "http://www.xn--rsum-bpad.example:8080/p?q");
/// assert_eq!(key(KeyForm::Iri), "http://www.résumé.example:8080/p?q");
/// assert_eq!(key(KeyForm::Surt), "http://(example,xn--rsum-bpad,www,:8080)/p?q");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum KeyForm {
    /// ASCII: punycode hosts, percent-encoded UTF-8 (RFC 3986 URI). The default.
    #[default]
    #[cfg_attr(
        feature = "clap",
        value(help = "ASCII URI: punycode hosts, percent-encoded UTF-8")
    )]
    Uri,
    /// Readable: the `uri` key converted with 3987bis 3.7 (U-label hosts from the scheme rung
    /// up, percent-encoded UTF-8 decoded where 3.7 allows).
    #[cfg_attr(feature = "clap", value(help = "Readable IRI (3987bis 3.7)"))]
    Iri,
    /// Heritrix SURT with the scheme: `http://(com,example,:8080@user)/path?query#frag`. Host
    /// labels reversed, each followed by `,`; IP addresses are not reversed; references
    /// without an authority keep the `uri` form. See [`from_surt`](super::from_surt) for the exact escaping.
    #[cfg_attr(
        feature = "clap",
        value(help = "SURT with the scheme: `http://(com,example,)/path`")
    )]
    Surt,
}

impl KeyForm {
    /// Every key form.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::KeyForm::ALL.len(), 3);
    /// ```
    pub const ALL: [KeyForm; 3] = [KeyForm::Uri, KeyForm::Iri, KeyForm::Surt];

    /// The form's name as the command line spells it.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::KeyForm::Surt.name(), "surt");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            KeyForm::Uri => "uri",
            KeyForm::Iri => "iri",
            KeyForm::Surt => "surt",
        }
    }
}

impl fmt::Display for KeyForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for KeyForm {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        by_name(&KeyForm::ALL, KeyForm::name, s)
    }
}
