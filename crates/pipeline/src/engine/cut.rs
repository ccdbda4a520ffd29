//! Where chunks of raw bytes are cut. The rules (which encodings can be cut, where in a window,
//! which hits each chunk keeps) are the scanner's: [`linksieve_scan::chunk`].
//! What is the pipeline's is where it looks for a cut: the second half of a chunk.

use super::*;
pub(super) use linksieve_scan::chunk::{cut_in, cuttable, handover, kept_before_error};

/// Where to cut a chunk of raw bytes: [`cut_in`] its second half.
pub(super) fn cut_point(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
    let half = w.len() / 2;
    let (cut, clean) = cut_in(&w[half..], enc);
    ((half + cut).max(1), clean)
}
