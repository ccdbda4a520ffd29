//! Host names and IDNA: ToASCII (UTS 46 through the `idna` crate) in the two profiles linksieve
//! uses.

use std::borrow::Cow;

/// Which IDNA rules apply.
///
/// ```
/// use linksieve_iri::{domain_to_ascii, IdnaProfile};
/// assert_eq!(domain_to_ascii("Bücher.example", IdnaProfile::Lookup).unwrap(), "xn--bcher-kva.example");
/// assert!(domain_to_ascii("a_b.ü", IdnaProfile::Lookup).is_err());
/// assert_eq!(domain_to_ascii("a_b.ü", IdnaProfile::Web).unwrap(), "a_b.xn--tda");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdnaProfile {
    /// Domain name lookup (3987bis 3.4.2, RFC 5891 5.3-5.5 as UTS 46 processes it):
    /// nontransitional, STD3 ASCII rules, hyphens checked at label start and end.
    #[default]
    Lookup,
    /// WHATWG "domain to ASCII" with beStrict false, as of whatwg/url#914 (June 2026): an ASCII
    /// domain never fails IDNA (it is lowercased), a non-ASCII one must pass UTS 46 ToASCII; the
    /// forbidden domain code points fail either way.
    Web,
}

/// Why a host could not be converted.
///
/// ```
/// assert!(linksieve_iri::domain_to_ascii("a b", linksieve_iri::IdnaProfile::Web).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("host {host:?} fails IDNA ToASCII (UTS 46)")]
pub struct IdnaError {
    /// The host as given.
    pub host: String,
}

/// WHATWG forbidden host code points (URL Standard 3.2; all are ASCII): NUL, tab, LF, CR,
/// space, `#/:<>?@[\]^|`.
pub(crate) const fn forbidden_host_byte(b: u8) -> bool {
    matches!(
        b,
        0 | b'\t'
            | b'\n'
            | b'\r'
            | b' '
            | b'#'
            | b'/'
            | b':'
            | b'<'
            | b'>'
            | b'?'
            | b'@'
            | b'['
            | b'\\'
            | b']'
            | b'^'
            | b'|'
    )
}

/// WHATWG forbidden domain code points (URL Standard 3.2; all are ASCII): the forbidden host
/// code points, C0 controls, `%` and DEL.
pub(crate) const fn forbidden_domain_byte(b: u8) -> bool {
    forbidden_host_byte(b) || b <= 0x1F || b == b'%' || b == 0x7F
}

/// IDNA ToASCII of a domain name (its percent-encodings already decoded).
///
/// ```
/// use linksieve_iri::{domain_to_ascii, IdnaProfile};
/// assert_eq!(domain_to_ascii("RÉSUMÉ.example", IdnaProfile::Lookup).unwrap(), "xn--rsum-bpad.example");
/// assert_eq!(domain_to_ascii("xn--a.EXAMPLE", IdnaProfile::Web).unwrap(), "xn--a.example");
/// ```
pub fn domain_to_ascii(domain: &str, profile: IdnaProfile) -> Result<Cow<'_, str>, IdnaError> {
    use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
    let fail = || IdnaError {
        host: domain.to_owned(),
    };
    match profile {
        IdnaProfile::Lookup => Uts46::new()
            .to_ascii(
                domain.as_bytes(),
                AsciiDenyList::STD3,
                Hyphens::CheckFirstLast,
                DnsLength::Ignore,
            )
            .map_err(|_| fail()),
        IdnaProfile::Web => {
            match idna::domain_to_ascii_cow(domain.as_bytes(), AsciiDenyList::URL) {
                Ok(r) => Ok(r),
                Err(_) if domain.is_ascii() && !domain.bytes().any(forbidden_domain_byte) => {
                    Ok(Cow::Owned(domain.to_ascii_lowercase()))
                }
                Err(_) => Err(fail()),
            }
        }
    }
}
