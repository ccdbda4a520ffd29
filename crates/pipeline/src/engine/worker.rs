//! The worker: decodes and scans a chunk (or reads its range first), then normalizes and
//! fingerprints each link at the chosen rung and those below it.

use super::*;

/// A worker's job: scan (if needed) and normalize.
pub(super) fn work(job: Job, opts: &RunOptions, spares: &Receiver<Spare>) -> ChunkOut {
    let spare = spares.try_recv().unwrap_or_default();
    let mut w = Worker {
        opts,
        keyer: Keyer::new(opts.input, &opts.keying),
        out: ChunkOut {
            text: spare.text,
            items: spare.items,
            rejected: spare.rejected,
            ..ChunkOut::default()
        },
        repeats: REPEATS.take(),
        climb: Climb::default(),
        bufs: LinkBuffers::default(),
        ascii: false,
    };
    match job {
        Job::Hits { meta, hits, offset } => {
            w.out.meta = Some(meta);
            // the sequential scanner counted the lines from the stream's start
            w.out.stream_start = true;
            for h in hits {
                w.link(
                    &h.text,
                    written(h.raw.as_deref(), h.trimmed.json_escapes),
                    &h.trimmed.trailing,
                    h.kind,
                    h.from_legacy,
                    offset + h.start,
                    h.line,
                );
            }
        }
        Job::Scan {
            meta,
            bytes,
            body,
            offset,
            stream_start,
            encoding,
            mid_token,
            next_mid_token,
            recycle,
        } => {
            w.out.meta = Some(meta);
            w.out.stream_start = stream_start;
            let cuts = Cuts {
                first: stream_start,
                mid_token,
                next_mid_token,
            };
            w.scan(&bytes, body, offset, encoding, cuts);
            let _ = recycle.send(bytes);
        }
        Job::Document {
            meta,
            bytes,
            offset,
            transport,
            url,
        } => {
            w.out.meta = Some(meta);
            w.out.stream_start = true;
            w.document(&bytes, offset, transport, url);
        }
        Job::RecordLinks { meta, url, links } => {
            w.out.meta = Some(meta);
            w.out.stream_start = true;
            w.record_links(url, links);
        }
        #[cfg(unix)]
        Job::Range {
            meta,
            file,
            start,
            len,
            k,
            encoding,
            free,
        } => {
            w.out.stream_start = k == 0;
            let mut buf = free.1.try_recv().unwrap_or_default();
            match read_range(&file, start, len, k, &encoding, opts, &mut buf) {
                Ok(r) => {
                    w.ascii = r.ascii;
                    w.scan(
                        &buf[r.from..r.to],
                        r.body,
                        r.offset,
                        r.encoding,
                        Cuts {
                            first: k == 0,
                            mid_token: r.mid_token,
                            next_mid_token: r.next_mid_token,
                        },
                    )
                }
                Err(e) => {
                    w.out.failed = Some(InputFailure {
                        input: meta.input.clone(),
                        error: e.to_string(),
                    })
                }
            }
            let chunk = opts.chunk_size.max(4096) as u64;
            if let RangeEncoding::Late(late) = encoding
                && start + (k + 1) * chunk >= len
            {
                w.out.late = Some(late);
            }
            w.out.meta = Some(meta);
            let _ = free.0.send(buf);
        }
    }
    let Worker {
        out, mut repeats, ..
    } = w;
    repeats.0.clear();
    REPEATS.set(repeats);
    out
}

/// Malformed sequences in UTF-8 bytes, as a WHATWG decoder counts them (one U+FFFD for each
/// maximal subpart, as `String::from_utf8_lossy` and encoding_rs replace them).
pub(super) fn malformed_utf8(mut b: &[u8]) -> u64 {
    // valid input, the common case, is checked with SIMD (several times the speed of
    // `str::from_utf8` on ASCII); only invalid input is walked sequence by sequence
    if simdutf8::basic::from_utf8(b).is_ok() {
        return 0;
    }
    let mut n = 0;
    while let Err(e) = std::str::from_utf8(b) {
        n += 1;
        match e.error_len() {
            Some(len) => b = &b[e.valid_up_to() + len..],
            // a sequence cut off by the end
            None => break,
        }
    }
    n
}

/// A worker's state for one chunk.
pub(super) struct Worker<'a> {
    pub(super) opts: &'a RunOptions,
    pub(super) keyer: Keyer,
    pub(super) out: ChunkOut,
    pub(super) repeats: Repeats,
    /// The keys of the link being keyed, at every rung up to the chosen one.
    pub(super) climb: Climb,
    /// The buffers of [`found_link`], kept from link to link.
    pub(super) bufs: LinkBuffers,
    /// The chunk is known to be ASCII (a late file's ASCII range): nothing malformed in it.
    pub(super) ascii: bool,
}

impl Worker<'_> {
    /// Scans one chunk of a stream: `bytes[..body]` is the chunk, the rest look-ahead; it starts
    /// at input offset `offset`; `cuts` says how it and the next chunk start.
    pub(super) fn scan(
        &mut self,
        bytes: &[u8],
        body: usize,
        offset: u64,
        encoding: &'static Encoding,
        cuts: Cuts,
    ) {
        let opts = self.opts;
        let lines = opts.format.shows_lines();
        // UTF-8 is scanned in place (decoded only around candidates: no copy of the chunk)
        // and validated on its own for the count of malformed sequences; other encodings are
        // decoded whole, which counts them.
        let utf8 = encoding == encoding_rs::UTF_8;
        let ascii = self.ascii;
        let mut scanner = Scanner::new(&ScanOptions {
            encoding: EncodingChoice::Exact(encoding),
            decode_all: !utf8,
            lines,
            html: opts.html,
            ..opts.scan
        });
        // Which hits are this chunk's: those from its handover to the handover of its
        // look-ahead (`linksieve_scan::chunk::handover`). At a clean cut that is where the
        // chunk starts, unless a `>` comes first: the hits before it may lie inside a link
        // wrapped in `<…>` across line breaks (RFC 3986 appendix C), found whole by the chunk
        // before. At a cut inside a token (no clean cut in the window, see `cut_in`) the hits
        // to the token's end, or to `tail` bytes after the cut where the token is longer,
        // may be the tail of a link that crossed the cut (issue #18 item 1: minified text,
        // CR-only and NUL-separated lines). So every start is owned by exactly one chunk and
        // none is lost. A chunk's look-ahead is twice `tail`: a link it owns starts up to
        // `tail` bytes after its cut and is at most `tail` bytes long, so the scan stops at
        // `until + tail` and one character more, the one that tells a link of `tail` bytes
        // from a longer one (a hit after `tail` bytes cannot be the tail of a link that
        // crossed the cut: links are at most `tail` bytes long).
        let tail = opts.scan.max_link_len.max(64);
        let from = if cuts.first {
            0
        } else {
            handover(bytes, cuts.mid_token, tail) as u64
        };
        let until = body + handover(&bytes[body..], cuts.next_mid_token, tail);
        let stop = (until + tail + 4).min(bytes.len());
        let until = until as u64;
        // overlong candidates are counted where they start, by the same rule
        scanner.count_overlong_in(from..until);
        let mut take = |h: HitRef<'_>| {
            if h.start < until && h.start >= from {
                self.link(
                    h.text,
                    written(h.raw, h.trimmed.json_escapes),
                    h.trimmed.trailing,
                    h.kind,
                    h.from_legacy,
                    offset + h.start,
                    h.line,
                );
            }
        };
        // Malformed sequences of the body only: the look-ahead is the next chunk's body.
        let _ = scanner.feed_with(&bytes[..body], &mut take);
        let malformed = if ascii {
            0
        } else if utf8 {
            malformed_utf8(&bytes[..body])
        } else {
            scanner.stats().malformed_sequences
        };
        let _ = scanner.feed_with(&bytes[body..stop], &mut take);
        let _ = scanner.finish_with(&mut take);
        self.out.malformed = malformed;
        self.out.too_long = scanner.stats().too_long;
        if lines {
            self.out.body_lines = memchr::memchr_iter(b'\n', &bytes[..body]).count() as u64;
        }
    }

    /// Reads a whole document as HTML (`crate::read_document`): its outlinks, resolved, and
    /// the links of its text, keyed in document order. Offsets are those of the decoded
    /// (UTF-8) document from input offset `offset`. A link of the text inside the value of an
    /// attribute that gave an outlink is that outlink, not a second link.
    pub(super) fn document(
        &mut self,
        bytes: &[u8],
        offset: u64,
        transport: Option<&'static Encoding>,
        url: Option<WebUrl>,
    ) {
        let opts = self.opts;
        if opts.format == OutputFormat::Edges {
            self.out.page = url
                .as_ref()
                .and_then(|u| self.keyer.key(u.as_str(), false).ok());
        }
        let doc = read_document(
            bytes,
            &DocumentOptions {
                url,
                transport,
                encoding: opts.scan.encoding,
                all_schemes: opts.all_schemes,
                foreign_as_html: false,
            },
        );
        self.out.document = true;
        self.out.node = true;
        self.out.outlinks = doc.stats;
        self.out.encoding = Some(doc.encoding.name());
        self.out.malformed = doc.malformed;
        let lines = opts.format.shows_lines();
        let scanned = doc.text_links(&ScanOptions { lines, ..opts.scan });
        self.out.too_long = scanned.stats.too_long;
        let text = doc.text.as_bytes();
        if lines {
            self.out.body_lines = memchr::memchr_iter(b'\n', text).count() as u64;
        }
        let base = offset + doc.bom as u64;
        let (ascii_only, max_len) = (opts.scan.ascii_only, opts.scan.max_link_len);
        let mut bufs = std::mem::take(&mut self.bufs);
        doc.in_order(&scanned.hits, ascii_only, |item| {
            let (offset, line, as_written, source) = match item {
                DocumentItem::Text(h) => (
                    base + h.start,
                    h.line,
                    written(h.raw.as_deref(), h.trimmed.json_escapes),
                    None,
                ),
                DocumentItem::Attribute(l) => (
                    base + l.start as u64,
                    if lines { l.line } else { 0 },
                    None,
                    Some(l),
                ),
            };
            match document_link(&item, ascii_only, max_len, &mut bufs) {
                DocumentLinkText::Keyed(link) => {
                    let from = match source {
                        Some(l) => {
                            self.out.sources.push(LinkSource::Attribute {
                                tag: l.tag,
                                attr: l.attr,
                                rel: l.rel.clone(),
                            });
                            self.out.sources.len() as u32 - 1
                        }
                        None => FROM_TEXT,
                    };
                    self.key_link(&Found {
                        original: as_written.unwrap_or(link.shown),
                        text: link.keyed,
                        legacy: item.from_legacy(&doc),
                        offset,
                        line,
                        from,
                    });
                }
                DocumentLinkText::Invalid(error) => {
                    self.out.links += 1;
                    self.out.rejected.push(Rejected {
                        reason: "invalid URL in an HTML attribute".to_owned(),
                        error,
                        original: source.map(|l| l.value.clone()).unwrap_or_default(),
                        offset,
                        line,
                    });
                }
                // counted in the document's stats
                DocumentLinkText::NotKeyed => {}
                DocumentLinkText::TooLong => self.out.too_long += 1,
            }
        });
        self.bufs = bufs;
    }

    /// Keys the links a WARC record states outside a payload read as HTML ([`RecordLinks`]),
    /// each resolved as a browser resolves a document's attributes (URL Standard): a
    /// `Location` against the page's address `url` (RFC 9110 10.2.2), a `Link` field's
    /// reference too (RFC 8288 3.2), a sitemap likewise, a WAT record's links against the base
    /// it declares (`Head.Base`, itself against `url`); counted apart
    /// ([`crate::RecordLinkStats`]). Their rows have line 0 (they are in no document's text).
    pub(super) fn record_links(&mut self, url: Option<WebUrl>, links: RecordLinks) {
        let opts = self.opts;
        if opts.format == OutputFormat::Edges {
            self.out.page = url
                .as_ref()
                .and_then(|u| self.keyer.key(u.as_str(), false).ok());
        }
        // a WAT record's links are those of an HTML document: its base applies to them
        self.out.document = links.document;
        self.out.node = links.visited;
        let base = crate::records::RecordBase::new(url, &links);
        for l in links.links {
            let stats = &mut self.out.record_links;
            let kind = match l.kind {
                RecordLinkKind::Redirect(_) => {
                    stats.redirects += 1;
                    "an HTTP Location field"
                }
                RecordLinkKind::LinkHeader => {
                    stats.link_fields += 1;
                    "an HTTP Link field"
                }
                RecordLinkKind::Sitemap => {
                    stats.sitemaps += 1;
                    "a robots.txt Sitemap: line"
                }
                RecordLinkKind::Element { .. } => {
                    stats.wat += 1;
                    "a WAT record's link"
                }
            };
            let iri = match base.resolve(&l, opts.all_schemes) {
                Ok(u) => web_to_iri(&u).map_err(|e| e.to_string()),
                Err(Unresolved::NoBase) => {
                    stats.no_base += 1;
                    continue;
                }
                Err(Unresolved::NotKeyed(_)) => {
                    stats.not_keyed += 1;
                    continue;
                }
                Err(Unresolved::Invalid(e)) => Err(e.to_string()),
            };
            if l.value.len() > opts.scan.max_link_len {
                self.out.too_long += 1;
                continue;
            }
            match iri {
                Ok(iri) => {
                    self.out.sources.push(LinkSource::Record(l.kind));
                    let from = self.out.sources.len() as u32 - 1;
                    self.key_link(&Found {
                        original: &l.value,
                        text: iri.as_str(),
                        legacy: false,
                        offset: l.at,
                        line: 0,
                        from,
                    });
                }
                Err(error) => {
                    self.out.links += 1;
                    self.out.rejected.push(Rejected {
                        reason: format!("invalid URL in {kind}"),
                        error,
                        original: l.value,
                        offset: l.at,
                        line: 0,
                    });
                }
            }
        }
    }

    /// Keys one link found in the text at input offset `offset`, line `line`; `written`: the
    /// link as written where the scanner undid its JSON escapes (the row shows it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn link(
        &mut self,
        found: &str,
        written: Option<&str>,
        trailing: &str,
        kind: LinkKind,
        legacy: bool,
        offset: u64,
        line: u64,
    ) {
        let html = (self.opts.html || self.out.document).then_some(self.opts.scan.ascii_only);
        let mut bufs = std::mem::take(&mut self.bufs);
        let link = found_link(found, trailing, kind, html, &mut bufs);
        self.key_link(&Found {
            original: written.unwrap_or(link.shown),
            text: link.keyed,
            legacy,
            offset,
            line,
            from: FROM_TEXT,
        });
        self.bufs = bufs;
    }

    /// Keys one link: `found.text` is what is keyed, `found.original` what the row shows.
    pub(super) fn key_link(&mut self, found: &Found<'_>) {
        self.out.links += 1;
        let Found {
            original,
            text,
            legacy,
            offset,
            line,
            ..
        } = *found;
        // One hash of the text: the string rung's fingerprint, the key when the link is its own
        // key, and (its low half) the chunk's repeat index.
        let fp = |s: &str| Fingerprint::of(s.as_bytes()).0;
        let fp_text = fp(text);
        let hash = fp_text as u64;
        if let Some(&i) = self.repeats.0.get(&hash) {
            let item = &self.out.items[i as usize];
            // an edge's types are counted per link: a repeat of another type is keyed apart
            let same_type = self.opts.format != OutputFormat::Edges
                || self.out.link_type(item.from) == self.out.link_type(found.from);
            if item.legacy == legacy && self.out.original(item) == original && same_type {
                self.out.items[i as usize].repeats += 1;
                return;
            }
        }
        let chosen = self.keyer.options().rung;
        let start = self.out.text.len();
        if self.keyer.profile().is_some() {
            // A profile sits above the ladder: its key comes from the text alone, and a
            // duplicate is caught either as the same text or by the profile (counted at the
            // chosen rung).
            if let Err(e) = self.keyer.key_into(text, legacy, &mut self.out.text) {
                self.reject(&e, original, offset, line);
                return;
            }
            let reached = if self.out.text[start..] == *text {
                Rung::String
            } else {
                chosen
            };
            let i = push_item(&mut self.out, found, fp_text, start, [fp_text; 3], reached);
            self.repeats.0.insert(hash, i);
            return;
        }
        // The climb's fast path: a link that is its own key at the chosen rung is its own key
        // at every rung below (a fixed point propagates down the ladder;
        // crates/iri/tests/ladder_properties.rs), so no rung below needs computing.
        if let Some(k) = self.keyer.fixed_point(text, legacy) {
            self.out.text.push_str(k);
            // a redirect target (protocol rung) is the only key that differs from the text
            let reached = if k == text { Rung::String } else { chosen };
            let i = push_item(&mut self.out, found, fp_text, start, [fp_text; 3], reached);
            self.repeats.0.insert(hash, i);
            return;
        }
        // One climb: the chosen key in the chosen form, and the `uri` key of every rung below,
        // each computed from the one below it (for "duplicates caught by each rung" and
        // `reached`).
        let climb = &mut self.climb;
        if let Err(e) = self.keyer.climb(text, legacy, climb) {
            self.reject(&e.into(), original, offset, line);
            return;
        }
        self.out.text.push_str(climb.top());
        let final_uri = climb.key(chosen).unwrap_or_default();
        // The string rung's key is the text as found (the climb's is the text as read, which
        // LEIRI mode may have encoded).
        let (lower, reached) = if final_uri == text {
            ([fp_text; 3], Rung::String)
        } else {
            let mut lower = [0u128; 3];
            let mut reached = chosen;
            for (i, rung) in LOWER_RUNGS.into_iter().enumerate() {
                if rung >= chosen {
                    break;
                }
                let k = match rung {
                    Rung::String => text,
                    _ => climb.key(rung).unwrap_or_default(),
                };
                // a key the rung left as it was below has the fingerprint below
                lower[i] = match rung {
                    Rung::String => fp_text,
                    Rung::Scheme if !climb.changed(rung) => lower[i - 1],
                    _ => fp(k),
                };
                if k == final_uri && reached == chosen {
                    reached = rung;
                }
            }
            (lower, reached)
        };
        let i = push_item(&mut self.out, found, fp_text, start, lower, reached);
        self.repeats.0.insert(hash, i);
    }

    /// Records a link that has no key.
    fn reject(&mut self, e: &KeyError, original: &str, offset: u64, line: u64) {
        self.out.rejected.push(Rejected {
            reason: reason(e),
            error: e.to_string(),
            original: original.to_owned(),
            offset,
            line,
        });
    }
}

/// The text of a link as written, for the row's `original`, where the scanner undid JSON
/// escapes in it (the link keyed is the text with them undone).
fn written(raw: Option<&str>, json_escapes: bool) -> Option<&str> {
    raw.filter(|_| json_escapes)
}

/// Records the item of a link whose key was just written at `start` of the chunk's text, and
/// returns its index.
fn push_item(
    out: &mut ChunkOut,
    found: &Found<'_>,
    fp_text: u128,
    start: usize,
    lower: [u128; 3],
    reached: Rung,
) -> u32 {
    let key_end = out.text.len();
    let key = &out.text[start..key_end];
    // The original is stored only when it differs from its key.
    let fp_key = if key == found.text {
        fp_text
    } else {
        Fingerprint::of(key.as_bytes()).0
    };
    if key != found.original {
        out.text.push_str(found.original);
    }
    let i = out.items.len() as u32;
    out.items.push(Item {
        fp: fp_key,
        start,
        key_end,
        end: out.text.len(),
        offset: found.offset,
        line: found.line,
        lower,
        reached,
        legacy: found.legacy,
        repeats: 0,
        from: found.from,
    });
    i
}

/// A link being keyed: the text as found, the text keyed, and where it was.
#[derive(Clone, Copy)]
pub(super) struct Found<'a> {
    pub(super) original: &'a str,
    pub(super) text: &'a str,
    pub(super) legacy: bool,
    pub(super) offset: u64,
    pub(super) line: u64,
    /// [`Item::from`].
    pub(super) from: u32,
}

/// A reason for the summary: the error without its positions and characters, so that reasons
/// group.
pub(super) fn reason(e: &KeyError) -> String {
    use linksieve_iri::{InputError, ParseErrorKind};
    match e {
        KeyError::Ladder(NormalizeError::Input {
            source: InputError::Parse(p),
            ..
        }) => match p.kind {
            ParseErrorKind::InvalidChar(_) => format!("invalid character in {}", p.component),
            ParseErrorKind::InvalidPercentEncoding => {
                format!("'%' not followed by two hex digits in {}", p.component)
            }
            ParseErrorKind::InvalidIpLiteral => "invalid IP-literal".to_owned(),
            ParseErrorKind::ColonInFirstSegment => {
                "colon in the first segment of a relative path".to_owned()
            }
        },
        KeyError::Ladder(NormalizeError::Input { source, .. }) => source.to_string(),
        KeyError::Ladder(NormalizeError::Relative { .. }) => {
            "relative reference (no scheme)".to_owned()
        }
        KeyError::Profile { source, .. } => {
            format!("{} profile: {}", source.profile, source.reason)
        }
    }
}

/// How a chunk and the next one start (see [`Worker::scan`]).
pub(super) struct Cuts {
    /// The chunk is the stream's first: every hit from its first byte is its own.
    pub(super) first: bool,
    /// The chunk starts inside a token (no clean cut before it).
    pub(super) mid_token: bool,
    /// The next chunk starts inside a token.
    pub(super) next_mid_token: bool,
}
