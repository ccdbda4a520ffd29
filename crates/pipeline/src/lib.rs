//! `linksieve run`: the parallel streaming pipeline and its dedup sink.
//!
//! Bytes -> text -> spans -> parsed IRIs -> keys -> sink: a reader thread opens the inputs
//! (files, directories, stdin; gzip, zstd, bzip2, xz and lzma recognised by content; WARC and
//! WET records: `linksieve-inputs`, whose items are re-exported here), cuts them into chunks
//! and hands them to `rayon` workers that decode, scan and normalize; the sink takes the
//! results back in input order, asks the seen-set which keys are new and writes those. See
//! [`run`].

pub mod delivery;
mod engine;
mod html;
mod keyer;
mod keying;
mod line_dedup;
mod ordered;
mod outlinks;
pub mod output;
mod printer;
mod records;
pub mod seen;
mod stats;

pub use engine::{EdgeOptions, FailureHook, Progress, RunError, RunOptions, run};
pub use html::unescape_link;
pub use keyer::{
    DocumentLinkText, FoundLink, Keyer, LinkBuffers, document_link, found_link, implied_scheme,
    keyable,
};
pub use keying::{Compared, KeyError, Keying, ProfileStep};
pub use line_dedup::{DedupStats, dedup_lines};
pub use linksieve_inputs::{
    Compression, HttpHead, InputProblem, InputSpec, WarcError, WarcHeader, WarcRecords, charset_of,
    decompress, expand_inputs, html_media, open_file, open_input, read_http_head, read_warc_header,
    skipped,
};
pub use outlinks::{
    Document, DocumentItem, DocumentLink, DocumentOptions, NOT_KEYED_SCHEMES, OutlinkStats,
    Unresolved, read_document,
};
pub use printer::{OutputFormat, tsv, write_row};
pub use records::{Outlink, RecordOptions, RecordOutlinks, read_records};
pub use stats::{EdgeStats, InputFailure, RecordLinkStats, Report, RunStats, peak_rss_bytes};
