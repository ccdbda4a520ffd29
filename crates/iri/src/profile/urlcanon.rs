//! The `urlcanon-semantic` and `urlcanon-aggressive` profiles: IIPC urlcanon 0.3.1's
//! `semantic_precise` and `aggressive` canonicalizers (Heritrix lineage).

use super::Reject;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "urlcanon 0.3.1+1";

/// `urlcanon.semantic_precise(input)`.
pub(super) fn semantic_precise(input: &[u8], out: &mut String) -> Result<(), Reject> {
    let _ = (input, out);
    Err(Reject::new("not built yet", None))
}

/// `urlcanon.aggressive(input)`.
pub(super) fn aggressive(input: &[u8], out: &mut String) -> Result<(), Reject> {
    let _ = (input, out);
    Err(Reject::new("not built yet", None))
}
