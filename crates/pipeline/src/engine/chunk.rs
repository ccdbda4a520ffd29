//! What passes between the stages: jobs (reader -> workers), chunk results (workers -> sink)
//! and the buffers the sink hands back.

use super::*;

/// Where a link came from.
#[derive(Debug)]
pub(super) struct StreamMeta {
    pub(super) input: String,
    pub(super) provenance: Option<String>,
}

/// One unit of work.
pub(super) enum Job {
    /// Raw bytes to decode and scan: `bytes[..body]` is this chunk, the rest look-ahead.
    Scan {
        meta: Arc<StreamMeta>,
        bytes: Vec<u8>,
        body: usize,
        offset: u64,
        /// The stream's first chunk (its lines are counted from 1).
        stream_start: bool,
        encoding: &'static Encoding,
        /// The chunk starts inside a token (no clean cut before it): hits before its
        /// [`handover`] belong to the previous chunk.
        mid_token: bool,
        /// The chunk after this one starts inside a token: this chunk takes the hits up to the
        /// [`handover`] of its look-ahead.
        next_mid_token: bool,
        /// Where `bytes` goes when the chunk is scanned, for the reader to fill again.
        recycle: Sender<Vec<u8>>,
    },
    /// Range `k` of a plain file that the worker reads itself (see [`Reader::ranges`]).
    #[cfg(unix)]
    Range {
        meta: Arc<StreamMeta>,
        file: Arc<std::fs::File>,
        /// The file's first byte after the BOM, and its size when it was opened.
        start: u64,
        len: u64,
        k: u64,
        encoding: RangeEncoding,
        /// Buffers to read into and to give back.
        free: (Sender<Vec<u8>>, Receiver<Vec<u8>>),
    },
    /// Hits already found in order (sequential streams): normalize only.
    Hits {
        meta: Arc<StreamMeta>,
        hits: Vec<Hit>,
        offset: u64,
    },
    /// The links a WARC record states outside a payload read as HTML ([`RecordLinks`]: a
    /// redirect's `Location`, `Link` fields, robots.txt `Sitemap:` lines, a WAT record's
    /// links), to resolve against `url`, the page's address (or the base it declares).
    /// Submitted before the record's payload.
    RecordLinks {
        meta: Arc<StreamMeta>,
        url: Option<WebUrl>,
        links: RecordLinks,
    },
    /// A whole document read as HTML (`crate::read_document`): `bytes` start at input offset
    /// `offset`; `transport`: the charset its HTTP head declares; `url`: its address.
    Document {
        meta: Arc<StreamMeta>,
        bytes: Vec<u8>,
        offset: u64,
        transport: Option<&'static Encoding>,
        url: Option<WebUrl>,
    },
}

/// One link, normalized. Its texts are ranges of its chunk's [`ChunkOut::text`]: a chunk's keys
/// cross to the sink (and are freed there) as one allocation, not one per link.
pub(super) struct Item {
    pub(super) fp: u128,
    /// `text[start..key_end]` is the key; `text[key_end..end]` the link as found, empty when the
    /// link is its own key.
    pub(super) start: usize,
    pub(super) key_end: usize,
    pub(super) end: usize,
    pub(super) offset: u64,
    pub(super) line: u64,
    /// uri-form fingerprints at the rungs below the chosen one (string, syntax, scheme).
    pub(super) lower: [u128; 3],
    /// The lowest rung whose key already equals the final one.
    pub(super) reached: Rung,
    /// The link came from a legacy encoding (keyed with NFC).
    pub(super) legacy: bool,
    /// Later links of the same chunk with exactly this text: duplicates caught at the string
    /// rung, counted without being keyed again.
    pub(super) repeats: u32,
    /// Where an outlink came from (an index into [`ChunkOut::sources`]), or [`FROM_TEXT`].
    pub(super) from: u32,
}

/// [`Item::from`] of a link found in the text.
pub(super) const FROM_TEXT: u32 = u32::MAX;

/// Where an outlink came from: an attribute of a document, or a record's header or robots.txt.
pub(super) enum LinkSource {
    Attribute {
        tag: &'static str,
        attr: &'static str,
        rel: Option<String>,
    },
    Record(RecordLinkKind),
}

/// A link without a key: counted by reason; listed in `--format jsonl`.
pub(super) struct Rejected {
    pub(super) reason: String,
    pub(super) error: String,
    pub(super) original: String,
    pub(super) offset: u64,
    pub(super) line: u64,
}

/// What a worker returns for a chunk.
#[derive(Default)]
pub(super) struct ChunkOut {
    /// Where the chunk's links came from (`None` for a chunk of nothing).
    pub(super) meta: Option<Arc<StreamMeta>>,
    /// The keys and originals of `items`, one after another.
    pub(super) text: String,
    pub(super) items: Vec<Item>,
    pub(super) rejected: Vec<Rejected>,
    pub(super) links: u64,
    pub(super) malformed: u64,
    pub(super) too_long: u64,
    /// The first chunk of a stream: the sink counts lines from 1 again.
    pub(super) stream_start: bool,
    /// Line feeds in the chunk (counted only when the output shows lines). Item lines are
    /// counted from the chunk's first byte; the sink adds the lines of the stream's earlier
    /// chunks, in sequence order.
    pub(super) body_lines: u64,
    /// The input could not be read to its end (a range read failed or came up short).
    pub(super) failed: Option<InputFailure>,
    /// The chunk is a whole document read as HTML (its links of the text say so in rows).
    pub(super) document: bool,
    /// Where its outlinks came from ([`Item::from`]): attributes, or a record's links.
    pub(super) sources: Vec<LinkSource>,
    /// Its outlinks' counters.
    pub(super) outlinks: crate::OutlinkStats,
    /// Its record links' counters.
    pub(super) record_links: crate::RecordLinkStats,
    /// `--format edges`: the document's own key (its address keyed), the source of its edges;
    /// `None` for a document without an address (or one that has no key).
    pub(super) page: Option<String>,
    /// `--format edges`: its page is a node of the graph even if it links nowhere (a row
    /// `page<TAB>page<TAB>0<TAB>node`): a document read as HTML, or a record of a visited URL
    /// (`linksieve_inputs::RecordLinks::visited`), as cc-pyspark makes every visited URL one.
    pub(super) node: bool,
    /// The encoding it was decoded with (for the summary).
    pub(super) encoding: Option<&'static str>,
    /// The last range of a file whose encoding was decided late: the sink counts the file's
    /// encoding when it takes this chunk, after every earlier range was worked.
    pub(super) late: Option<LateEncoding>,
}

/// The largest document read as HTML (whole, as one job); a larger one is read as text.
pub(crate) const MAX_DOCUMENT: usize = 64 << 20;

/// What reaches the sink, numbered in input order: a worked chunk, or (last) the reader's end
/// with its counters.
pub(super) enum Message {
    Chunk(ChunkOut),
    ReaderEnd(RunStats),
}

impl ChunkOut {
    /// The heap bytes the chunk holds while its items wait for decisions (counted against a
    /// spill set's budget), one byte of decision per item included.
    pub(super) fn held_bytes(&self) -> usize {
        self.text.capacity()
            + self.items.capacity() * std::mem::size_of::<Item>()
            + self.items.len()
            + self.rejected.capacity() * std::mem::size_of::<Rejected>()
            + self
                .rejected
                .iter()
                .map(|r| r.reason.capacity() + r.error.capacity() + r.original.capacity())
                .sum::<usize>()
    }

    pub(super) fn key(&self, item: &Item) -> &str {
        &self.text[item.start..item.key_end]
    }

    /// The type of a link whose [`Item::from`] is `from`, for `--format edges`.
    pub(super) fn link_type(&self, from: u32) -> linksieve_graph::LinkType {
        use linksieve_graph::LinkType;
        match self.sources.get(from as usize) {
            Some(LinkSource::Attribute { tag, attr, rel }) => {
                LinkType::of_attribute(tag, attr, rel.as_deref())
            }
            Some(LinkSource::Record(kind)) => crate::records::record_link_type(kind),
            None => LinkType::Text,
        }
    }

    /// The link as found.
    pub(super) fn original(&self, item: &Item) -> &str {
        if item.end > item.key_end {
            &self.text[item.key_end..item.end]
        } else {
            self.key(item)
        }
    }
}

/// Hashes of the texts keyed so far in a chunk -> their item, to count exact repeats without
/// keying them again. The hash is checked against the stored text (no false merges). One per
/// worker thread ([`REPEATS`]): it is not needed once the chunk is worked, so it does not wait
/// with the chunk for the chunk's decisions.
#[derive(Default)]
pub(super) struct Repeats(
    pub(super) std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<Prehashed>>,
);

thread_local! {
    /// The worker thread's [`Repeats`], emptied after each chunk and reused.
    pub(super) static REPEATS: std::cell::RefCell<Repeats> = Default::default();
}

/// A chunk's growable buffers, handed back by the sink when it is done with the chunk and
/// reused by the next job (fresh ones fault in new pages for every chunk: `run -j1` on the
/// 324 MB URL list took 78 K to 353 K page faults, depending on the allocator's mmap threshold,
/// and 13 K with the pool).
#[derive(Default)]
pub(super) struct Spare {
    pub(super) text: String,
    pub(super) items: Vec<Item>,
    pub(super) rejected: Vec<Rejected>,
}

/// The pool of [`Spare`]s: the sink sends, jobs take (or start empty when none is there). It
/// holds at most as many as there are chunks in flight ([`Sink::spare_limit`]): the chunks
/// that waited for a spill set's decisions are freed, not pooled.
pub(super) type Spares = (Sender<Spare>, Receiver<Spare>);

/// The identity hasher for keys that are already hashes.
#[derive(Default)]
pub(super) struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed here; fold anything else for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
