//! The `w3lib` profile: `w3lib.url.canonicalize_url` of w3lib 2.5.0 (Scrapy's request
//! fingerprints).

use super::{ProfileOptions, Reject};

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "w3lib 2.5.0+1";

/// `canonicalize_url(input, keep_blank_values, keep_fragments, encoding)`.
pub(super) fn canonicalize(
    input: &[u8],
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    let _ = (input, o, out);
    Err(Reject::new("not built yet", None))
}
