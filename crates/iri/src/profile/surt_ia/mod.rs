//! The `surt-ia` profile: the Internet Archive's SURT key, as `surt.surt` of the `surt`
//! package 0.3.1 writes it for CDX indexes (`com,example)/path?query`).

use super::{ProfileOptions, Reject};

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "surt 0.3.1+1";

/// `surt.surt(input, with_scheme, trailing_comma, host_massage)`.
pub(super) fn canonicalize(
    input: &[u8],
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    let _ = (input, o, out);
    Err(Reject::new("not built yet", None))
}
