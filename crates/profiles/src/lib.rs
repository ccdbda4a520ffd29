//! Profiles: the keys that other canonicalizers make, byte for byte, so that a crawler or an
//! archive that already holds keys made by one of them can switch to linksieve without
//! re-crawling.
//!
//! A profile is lossy by design and may equate different resources (w3lib sorts the query,
//! urlcanon's `aggressive` lower-cases the path, IA SURTs drop `www`): profiles sit above the
//! comparison ladder, not inside it. Each reproduces one library at one version, reads its
//! input as that library reads a string (not as the ladder's input modes do), and is named and
//! versioned so that a store of its keys can refuse keys of another profile
//! ([`Profile::identity`]). Every rule of each profile, and every place where it departs from
//! RFC 3986 and the URL Standard, is written down in `docs/profiles/<profile>.md` (the index,
//! and which profile is safe for what: `docs/profiles.md`).
//!
//! | profile | reproduces |
//! |---|---|
//! | `w3lib` | `w3lib.url.canonicalize_url` (Scrapy's request fingerprints) |
//! | `urlcanon-semantic` | IIPC urlcanon `semantic_precise` (Heritrix lineage) |
//! | `urlcanon-aggressive` | IIPC urlcanon `aggressive` |
//! | `surt-ia` | the Internet Archive's SURT key (`surt.surt`, CDX indexes) |
//! | `crawler-commons` | crawler-commons `BasicURLNormalizer` (Nutch, StormCrawler) |
//! | `gsb` | Google Safe Browsing URL canonicalization |
//!
//! ```
//! use linksieve_profiles::Profile;
//! let p: Profile = "w3lib".parse().unwrap();
//! assert_eq!(p.canonicalize("http://Example.com/a?b=2&a=1#top").unwrap(), "http://example.com/a?a=1&b=2");
//! ```

mod crawler_commons;
mod gsb;
mod idna2003;
mod python_ip;
mod surt_ia;
mod urlcanon;
mod w3lib;

use std::fmt;
use std::str::FromStr;

pub use crawler_commons::{IdnNormalization, QueryParamNames};

/// Which canonicalizer a [`Profile`] reproduces.
///
/// ```
/// use linksieve_profiles::ProfileKind;
/// assert_eq!("surt-ia".parse::<ProfileKind>().unwrap(), ProfileKind::SurtIa);
/// assert_eq!(ProfileKind::SurtIa.name(), "surt-ia");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProfileKind {
    /// `w3lib.url.canonicalize_url` (Scrapy).
    W3lib,
    /// IIPC urlcanon `semantic_precise`.
    UrlcanonSemantic,
    /// IIPC urlcanon `aggressive`.
    UrlcanonAggressive,
    /// The Internet Archive's SURT key (`surt.surt`).
    SurtIa,
    /// crawler-commons `BasicURLNormalizer`.
    CrawlerCommons,
    /// Google Safe Browsing canonicalization.
    Gsb,
}

impl ProfileKind {
    /// Every profile, in the order of the table above.
    ///
    /// ```
    /// assert_eq!(linksieve_profiles::ProfileKind::ALL.len(), 6);
    /// ```
    pub const ALL: [ProfileKind; 6] = [
        ProfileKind::W3lib,
        ProfileKind::UrlcanonSemantic,
        ProfileKind::UrlcanonAggressive,
        ProfileKind::SurtIa,
        ProfileKind::CrawlerCommons,
        ProfileKind::Gsb,
    ];

    /// The profile's name, as `--profile` takes it.
    ///
    /// ```
    /// assert_eq!(linksieve_profiles::ProfileKind::Gsb.name(), "gsb");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ProfileKind::W3lib => "w3lib",
            ProfileKind::UrlcanonSemantic => "urlcanon-semantic",
            ProfileKind::UrlcanonAggressive => "urlcanon-aggressive",
            ProfileKind::SurtIa => "surt-ia",
            ProfileKind::CrawlerCommons => "crawler-commons",
            ProfileKind::Gsb => "gsb",
        }
    }

    /// The library and version the profile reproduces, and the revision of linksieve's
    /// reproduction (`+N`), which changes whenever a key it makes changes.
    ///
    /// ```
    /// assert!(linksieve_profiles::ProfileKind::W3lib.version().starts_with("w3lib 2.5.0"));
    /// ```
    pub fn version(self) -> &'static str {
        match self {
            ProfileKind::W3lib => w3lib::VERSION,
            ProfileKind::UrlcanonSemantic | ProfileKind::UrlcanonAggressive => urlcanon::VERSION,
            ProfileKind::SurtIa => surt_ia::VERSION,
            ProfileKind::CrawlerCommons => crawler_commons::VERSION,
            ProfileKind::Gsb => gsb::VERSION,
        }
    }
}

impl fmt::Display for ProfileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProfileKind {
    type Err = ProfileSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProfileKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| ProfileSpecError::UnknownProfile(s.to_owned()))
    }
}

/// The options of the profiles; each profile reads only its own and rejects the others'
/// ([`Profile::parse`]). The defaults are the libraries' own defaults.
///
/// ```
/// let o = linksieve_profiles::ProfileOptions::default();
/// assert!(!o.keep_fragments && o.keep_blank_values && o.host_massage);
/// assert!(o.remove_params.is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileOptions {
    /// `w3lib`: keep the fragment (`keep_fragments`, default false).
    pub keep_fragments: bool,
    /// `w3lib`: keep `a=` query pairs with an empty value (`keep_blank_values`, default true).
    pub keep_blank_values: bool,
    /// `w3lib`: the encoding of a query with non-ASCII text (`encoding`, default UTF-8),
    /// by its WHATWG label.
    pub encoding: &'static encoding_rs::Encoding,
    /// `w3lib`: the byte between query pairs (`query_separator`, default `&`): one ASCII
    /// character other than `,`.
    pub query_separator: u8,
    /// `surt-ia`: strip `www\d*.` from the host (`host_massage`, default true, as the `surt`
    /// package does); false gives the fixed form, which keeps `www.` and `www2.` apart.
    pub host_massage: bool,
    /// `surt-ia`: keep the scheme in the key (`with_scheme`, default false).
    pub with_scheme: bool,
    /// `surt-ia`: end the host part with a comma (`trailing_comma`, default false).
    pub trailing_comma: bool,
    /// `crawler-commons`: what becomes of internationalized host names (`idn`:
    /// `punycode`, the default, `unicode` or `none`; `idnNormalization`).
    pub idn: IdnNormalization,
    /// `crawler-commons`: the query parameters to drop (`remove_params`, names joined by `|`,
    /// default none; `queryParamsToRemove`).
    pub remove_params: QueryParamNames,
}

impl Default for ProfileOptions {
    fn default() -> Self {
        ProfileOptions {
            keep_fragments: false,
            keep_blank_values: true,
            encoding: encoding_rs::UTF_8,
            query_separator: b'&',
            host_massage: true,
            with_scheme: false,
            trailing_comma: false,
            idn: IdnNormalization::Punycode,
            remove_params: QueryParamNames::EMPTY,
        }
    }
}

/// The options each profile takes, by name.
const PROFILE_OPTIONS: [(ProfileKind, &[&str]); 3] = [
    (
        ProfileKind::W3lib,
        &[
            "keep_fragments",
            "keep_blank_values",
            "encoding",
            "query_separator",
        ],
    ),
    (
        ProfileKind::SurtIa,
        &["host_massage", "with_scheme", "trailing_comma"],
    ),
    (ProfileKind::CrawlerCommons, &["idn", "remove_params"]),
];

/// A profile and its options: `NAME` or `NAME:KEY=VALUE,...` (`w3lib:keep_fragments=true`,
/// `surt-ia:host_massage=false`, `crawler-commons:remove_params=sid|jsessionid`).
///
/// ```
/// use linksieve_profiles::{Profile, ProfileKind};
/// let p = Profile::parse("w3lib:keep_fragments=true").unwrap();
/// assert_eq!(p.kind, ProfileKind::W3lib);
/// assert!(p.options.keep_fragments);
/// assert_eq!(p.to_string(), "w3lib:keep_fragments=true");
/// assert!(Profile::parse("gsb:keep_fragments=true").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The canonicalizer.
    pub kind: ProfileKind,
    /// Its options.
    pub options: ProfileOptions,
}

impl Profile {
    /// A profile with its library's defaults.
    ///
    /// ```
    /// use linksieve_profiles::{Profile, ProfileKind};
    /// assert_eq!(Profile::new(ProfileKind::Gsb).to_string(), "gsb");
    /// ```
    pub fn new(kind: ProfileKind) -> Profile {
        Profile {
            kind,
            options: ProfileOptions::default(),
        }
    }

    /// Reads `NAME[:KEY=VALUE,...]`. A boolean is `true` or `false`; `encoding` is a WHATWG
    /// encoding label; `query_separator` one ASCII character; `idn` is `punycode`, `unicode`
    /// or `none`; `remove_params` is names joined by `|` ([`QueryParamNames::parse`]).
    ///
    /// ```
    /// use linksieve_profiles::Profile;
    /// let p = Profile::parse("w3lib:encoding=latin1,keep_blank_values=false").unwrap();
    /// assert_eq!(p.options.encoding, encoding_rs::WINDOWS_1252);
    /// assert!(Profile::parse("w3lib:keep_fragments=yes").is_err());
    /// assert!(Profile::parse("nutch").is_err());
    /// let p = Profile::parse("crawler-commons:idn=none,remove_params=sid|phpsessid").unwrap();
    /// assert_eq!(p.to_string(), "crawler-commons:idn=none,remove_params=phpsessid|sid");
    /// assert!(Profile::parse("crawler-commons:idn=ascii").is_err());
    /// ```
    pub fn parse(spec: &str) -> Result<Profile, ProfileSpecError> {
        let (name, opts) = spec.split_once(':').unwrap_or((spec, ""));
        let mut p = Profile::new(name.parse()?);
        let allowed = PROFILE_OPTIONS
            .iter()
            .find(|(k, _)| *k == p.kind)
            .map_or(&[][..], |(_, o)| o);
        for pair in opts.split(',').filter(|s| !s.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !allowed.contains(&key) {
                return Err(ProfileSpecError::UnknownOption {
                    profile: p.kind,
                    option: key.to_owned(),
                });
            }
            let bad = || ProfileSpecError::BadValue {
                option: key.to_owned(),
                value: value.to_owned(),
            };
            let flag = || match value {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(bad()),
            };
            let o = &mut p.options;
            match key {
                "keep_fragments" => o.keep_fragments = flag()?,
                "keep_blank_values" => o.keep_blank_values = flag()?,
                "host_massage" => o.host_massage = flag()?,
                "with_scheme" => o.with_scheme = flag()?,
                "trailing_comma" => o.trailing_comma = flag()?,
                "idn" => o.idn = IdnNormalization::from_name(value).ok_or_else(bad)?,
                "remove_params" => {
                    o.remove_params = QueryParamNames::parse(value).ok_or_else(bad)?
                }
                "query_separator" => match value.as_bytes() {
                    [c] if c.is_ascii() => o.query_separator = *c,
                    _ => return Err(bad()),
                },
                _ => {
                    o.encoding =
                        encoding_rs::Encoding::for_label(value.as_bytes()).ok_or_else(bad)?
                }
            }
        }
        Ok(p)
    }

    /// What a store of this profile's keys records, and what `linksieve identity` prints: the
    /// name and options ([`Profile`]'s `Display`) and the version.
    ///
    /// ```
    /// use linksieve_profiles::Profile;
    /// let id = Profile::parse("surt-ia:host_massage=false").unwrap().identity();
    /// assert!(id.starts_with("surt-ia:host_massage=false@surt "));
    /// ```
    pub fn identity(&self) -> String {
        format!("{self}@{}", self.kind.version())
    }

    /// The profile's key of `input`, appended to `out` (left as it was on an error). An input
    /// that is already its own key allocates nothing but `out`'s growth.
    ///
    /// ```
    /// use linksieve_profiles::Profile;
    /// let mut out = String::new();
    /// Profile::parse("w3lib").unwrap().canonicalize_into("http://a.example", &mut out).unwrap();
    /// assert_eq!(out, "http://a.example/");
    /// ```
    pub fn canonicalize_into(&self, input: &str, out: &mut String) -> Result<(), ProfileError> {
        match self.kind {
            // text is what w3lib reads as a `str`: its fast path copies it without a check
            ProfileKind::W3lib => {
                let len = out.len();
                w3lib::canonicalize_str(input, &self.options, out)
                    .map_err(|r| self.error(r, out, len))
            }
            // `surt-ia`'s fast path works on text it knows to be UTF-8
            ProfileKind::SurtIa if surt_ia::canonicalize_fast(input, &self.options, out) => Ok(()),
            _ => self.canonicalize_bytes_into(input.as_bytes(), out),
        }
    }

    /// [`Profile::canonicalize_into`] for input that may not be UTF-8: urlcanon reads bytes,
    /// and a URL in a log or a WARC header may hold raw bytes of a legacy encoding.
    ///
    /// ```
    /// use linksieve_profiles::Profile;
    /// let mut out = String::new();
    /// Profile::parse("urlcanon-semantic").unwrap().canonicalize_bytes_into(b"http://\x01\x80.com/", &mut out).unwrap();
    /// assert_eq!(out, "http://%01%80.com/");
    /// ```
    pub fn canonicalize_bytes_into(
        &self,
        input: &[u8],
        out: &mut String,
    ) -> Result<(), ProfileError> {
        let len = out.len();
        let o = &self.options;
        let r = match self.kind {
            ProfileKind::W3lib => w3lib::canonicalize(input, o, out),
            ProfileKind::UrlcanonSemantic => urlcanon::semantic_precise(input, out),
            ProfileKind::UrlcanonAggressive => urlcanon::aggressive(input, out),
            ProfileKind::SurtIa => surt_ia::canonicalize(input, o, out),
            ProfileKind::CrawlerCommons => crawler_commons::canonicalize(input, o, out),
            ProfileKind::Gsb => gsb::canonicalize(input, out),
        };
        r.map_err(|r| self.error(r, out, len))
    }

    /// A rejection as this profile's error; `out` cut back to `len`, as it was.
    fn error(&self, r: Reject, out: &mut String, len: usize) -> ProfileError {
        out.truncate(len);
        ProfileError {
            profile: self.kind,
            reason: r.reason,
            offset: r.offset,
        }
    }

    /// The profile's key of `input`.
    ///
    /// ```
    /// use linksieve_profiles::Profile;
    /// let p = Profile::parse("w3lib:keep_fragments=true").unwrap();
    /// assert_eq!(p.canonicalize("http://a.example/#x").unwrap(), "http://a.example/#x");
    /// ```
    pub fn canonicalize(&self, input: &str) -> Result<String, ProfileError> {
        let mut out = String::with_capacity(input.len() + 8);
        self.canonicalize_into(input, &mut out)?;
        Ok(out)
    }
}

impl fmt::Display for Profile {
    /// `NAME`, then `:KEY=VALUE,...` for each option that differs from the default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        let d = ProfileOptions::default();
        let o = &self.options;
        let flags = [
            ("keep_fragments", o.keep_fragments, d.keep_fragments),
            (
                "keep_blank_values",
                o.keep_blank_values,
                d.keep_blank_values,
            ),
            ("host_massage", o.host_massage, d.host_massage),
            ("with_scheme", o.with_scheme, d.with_scheme),
            ("trailing_comma", o.trailing_comma, d.trailing_comma),
        ];
        let mut sep = ':';
        for (name, v, default) in flags {
            if v != default {
                write!(f, "{sep}{name}={v}")?;
                sep = ',';
            }
        }
        if o.query_separator != d.query_separator {
            write!(f, "{sep}query_separator={}", char::from(o.query_separator))?;
            sep = ',';
        }
        if o.encoding != d.encoding {
            write!(
                f,
                "{sep}encoding={}",
                o.encoding.name().to_ascii_lowercase()
            )?;
            sep = ',';
        }
        if o.idn != d.idn {
            write!(f, "{sep}idn={}", o.idn.name())?;
            sep = ',';
        }
        if !o.remove_params.is_empty() {
            write!(f, "{sep}remove_params={}", o.remove_params.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for Profile {
    type Err = ProfileSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::parse(s)
    }
}

/// A `--profile` value that names no profile, or an option the profile does not take.
///
/// ```
/// let e = linksieve_profiles::Profile::parse("w3lib:sort=false").unwrap_err();
/// assert_eq!(e.to_string(), "profile w3lib has no option `sort` (it takes keep_fragments, keep_blank_values, encoding, query_separator)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProfileSpecError {
    /// No profile has this name.
    #[error(
        "unknown profile `{0}` (w3lib, urlcanon-semantic, urlcanon-aggressive, surt-ia, crawler-commons, gsb)"
    )]
    UnknownProfile(String),
    /// The profile takes no such option.
    #[error("profile {profile} has no option `{option}` ({})", takes(*profile))]
    UnknownOption {
        /// The profile.
        profile: ProfileKind,
        /// The option given.
        option: String,
    },
    /// The option's value is not one it takes.
    #[error(
        "profile option {option}: bad value `{value}` (a boolean is true or false; encoding is a WHATWG label; idn is punycode, unicode or none; remove_params is names joined by |, {} bytes at most)",
        QueryParamNames::CAPACITY
    )]
    BadValue {
        /// The option.
        option: String,
        /// The value given.
        value: String,
    },
}

/// "it takes a, b" or "it takes no options", for [`ProfileSpecError::UnknownOption`].
fn takes(kind: ProfileKind) -> String {
    match PROFILE_OPTIONS.iter().find(|(k, _)| *k == kind) {
        Some((_, o)) => format!("it takes {}", o.join(", ")),
        None => "it takes no options".to_owned(),
    }
}

/// Why a profile gives no key: the library would raise (or return no URL) on this input. The
/// rule names what failed; the offset, when known, is a byte offset into the input.
///
/// ```
/// use linksieve_profiles::Profile;
/// let e = Profile::parse("w3lib").unwrap().canonicalize("http://[::1/").unwrap_err();
/// assert_eq!(e.profile.name(), "w3lib");
/// assert!(e.to_string().starts_with("w3lib profile: "));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{profile} profile: {reason}{}", offset.map(|o| format!(" at byte {o}")).unwrap_or_default())]
pub struct ProfileError {
    /// The profile.
    pub profile: ProfileKind,
    /// The rule that failed, in the library's words where it has them.
    pub reason: &'static str,
    /// Where, as a byte offset into the input, when known.
    pub offset: Option<usize>,
}

/// A profile's own error, before [`Profile::canonicalize_into`] names the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reject {
    reason: &'static str,
    offset: Option<usize>,
}

impl Reject {
    /// A rejection by `reason`, at `offset` when known.
    fn new(reason: &'static str, offset: Option<usize>) -> Reject {
        Reject { reason, offset }
    }
}

#[cfg(test)]
mod tests;
