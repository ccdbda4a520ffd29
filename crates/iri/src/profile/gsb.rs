//! The `gsb` profile: Google Safe Browsing URL canonicalization, as google/safebrowsing's
//! `urls.go` does it.

use super::Reject;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "google/safebrowsing urls.go+1";

/// The canonical URL of `input`.
pub(super) fn canonicalize(input: &[u8], out: &mut String) -> Result<(), Reject> {
    let _ = (input, out);
    Err(Reject::new("not built yet", None))
}
