//! The `crawler-commons` profile: `BasicURLNormalizer` of crawler-commons (Nutch,
//! StormCrawler).

use super::Reject;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "crawler-commons 1.4+1";

/// `new BasicURLNormalizer().filter(input)`.
pub(super) fn canonicalize(input: &[u8], out: &mut String) -> Result<(), Reject> {
    let _ = (input, out);
    Err(Reject::new("not built yet", None))
}
