//! The reader: opens inputs, undoes compression, walks WARC records, decides encodings and
//! cuts streams into chunks (or hands out `pread` ranges of plain files).

use super::*;
use RangeEncoding::{Known, Late};

/// The reader's state.
pub(super) struct Reader<'a, 's> {
    pub(super) opts: &'a RunOptions,
    pub(super) dispatch: Dispatch<'a, 's>,
    /// Chunk buffers the workers are done with (reused: fresh large buffers cost page faults).
    pub(super) free: (Sender<Vec<u8>>, Receiver<Vec<u8>>),
    /// Chunk result buffers the sink is done with.
    pub(super) spares: Receiver<Spare>,
    /// The sink's error, inline: it stops the reading.
    pub(super) error: Option<RunError>,
    pub(super) seq: u64,
    pub(super) stats: RunStats,
    pub(super) progress: &'a Progress,
    pub(super) cancel: &'a Arc<AtomicBool>,
}

/// Where the reader's chunks go.
pub(super) enum Dispatch<'a, 's> {
    /// To rayon workers, at most `in_flight` chunks alive (tokens), results to the sink's queue.
    Pool {
        pool: &'a rayon::ThreadPool,
        token_rx: &'a Receiver<()>,
        result_tx: Sender<(u64, Message)>,
    },
    /// Worked and sunk at once on this thread.
    Inline(&'a mut Sink<'s>),
}

impl<'a, 's> Reader<'a, 's> {
    pub(super) fn new(
        opts: &'a RunOptions,
        dispatch: Dispatch<'a, 's>,
        spares: Receiver<Spare>,
        progress: &'a Progress,
        cancel: &'a Arc<AtomicBool>,
    ) -> Self {
        Reader {
            opts,
            dispatch,
            free: unbounded(),
            spares,
            error: None,
            seq: 0,
            stats: RunStats::default(),
            progress,
            cancel,
        }
    }

    pub(super) fn read_all(&mut self, inputs: &[InputSpec]) {
        for spec in inputs {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            self.input(spec);
        }
    }

    pub(super) fn input(&mut self, spec: &InputSpec) {
        let name = spec.name();
        // Each input is opened once (a FIFO or `/dev/fd/N` cannot be opened again without
        // losing what its writer sent): the range path gets the handle and gives it back when
        // the input is not a plain file it can read in ranges.
        let reader: Box<dyn Read + Send> = match spec {
            InputSpec::Stdin => Box::new(io::stdin()),
            InputSpec::File(path) => match open_file(path) {
                // a file read as HTML is one document, read whole
                Ok(file) if self.opts.html => Box::new(file),
                #[cfg(unix)]
                Ok(file) => match self.ranges(file, &name) {
                    Ok(()) => return,
                    Err(file) => Box::new(file),
                },
                #[cfg(not(unix))]
                Ok(file) => Box::new(file),
                Err(e) => return self.failed(name, &e),
            },
            InputSpec::Skipped { why, .. } => {
                return self.failed(name, &linksieve_inputs::skipped(why));
            }
        };
        // progress counts the input's own bytes (compressed ones included), as its size does
        let reader = Box::new(RawProgress {
            inner: reader,
            progress: self.progress.clone(),
        });
        let (r, _compression) = match decompress(reader) {
            Ok(x) => x,
            Err(e) => return self.failed(name, &e),
        };
        let mut r = Counted { inner: r, count: 0 };
        // A first read that fails (a damaged gzip header) fails the input: a decoder may
        // answer "end" to the reads after its error, which would read as an empty input.
        let is_warc = match r.fill_buf() {
            Ok(b) => b.starts_with(b"WARC/"),
            Err(e) => return self.failed(name, &e),
        };
        self.stats.inputs += 1;
        let result = if is_warc {
            self.warc(&name, &mut r)
        } else {
            let meta = Arc::new(StreamMeta {
                input: name.clone(),
                provenance: None,
            });
            let read = if self.opts.html {
                self.document(&meta, &mut r, 0, None, self.opts.base.clone())
            } else {
                self.stream(&meta, &mut r, 0, self.opts.scan.encoding)
                    .map(|_| ())
            };
            read.map_err(WarcError::Io)
        };
        self.stats.bytes_read += r.count;
        if let Err(e) = result {
            self.report(InputFailure {
                input: name,
                error: e.to_string(),
            });
        }
    }

    /// A plain file (uncompressed, not WARC) in an encoding that can be cut: its chunks are
    /// ranges that the workers read themselves (`pread`, see [`read_range`]); the reader only
    /// decides the encoding and hands out range numbers. So no thread copies input for another,
    /// and each chunk is scanned on the core that read it. A file is read up to the size it had
    /// when it was opened. Gives the file back, having counted nothing, when it takes the
    /// streaming path instead: not a regular file, compressed, WARC, an encoding that cannot be
    /// cut (UTF-16, ISO-2022-JP), or an error (which the streaming path then reports). `pread`
    /// does not move the file's offset, so the streaming path reads it from its start.
    #[cfg(unix)]
    pub(super) fn ranges(&mut self, file: std::fs::File, name: &str) -> Result<(), std::fs::File> {
        let len = match file.metadata() {
            Ok(m) if m.is_file() => m.len(),
            _ => return Err(file),
        };
        let mut head = vec![0u8; (linksieve_scan::AUTO_WINDOW as u64).min(len) as usize];
        if !matches!(pread_full(&file, &mut head, 0), Ok(n) if n == head.len()) {
            return Err(file);
        }
        if Compression::sniff(&head) != Compression::None || head.starts_with(b"WARC/") {
            return Err(file);
        }
        let whole = head.len() as u64 == len;
        let choice = self.opts.scan.encoding;
        let (encoding, bom) = linksieve_scan::detect_encoding(choice, &head, whole)
            .unwrap_or((encoding_rs::UTF_8, 0));
        if !cuttable(encoding) {
            return Err(file);
        }
        self.stats.inputs += 1;
        // an ASCII start leaves the decision to the file's first non-ASCII byte (`late`): the
        // sink counts the encoding then
        let encoding = if decides_late(choice, &head, whole, (encoding, bom)) {
            Late(LateEncoding::default())
        } else {
            *self.stats.encodings.entry(encoding.name()).or_default() += 1;
            Known(encoding)
        };
        let start = bom as u64;
        self.stats.skip("byte order marks", start);
        self.stats.bytes_read += start;
        self.progress.fetch_add(start, Ordering::Relaxed);
        let meta = Arc::new(StreamMeta {
            input: name.to_owned(),
            provenance: None,
        });
        let file = Arc::new(file);
        let chunk = self.opts.chunk_size.max(4096) as u64;
        let mut k = 0;
        while start + k * chunk < len {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            self.submit(Job::Range {
                meta: meta.clone(),
                file: file.clone(),
                start,
                len,
                k,
                encoding: encoding.clone(),
                free: self.free.clone(),
            });
            let n = chunk.min(len - start - k * chunk);
            self.stats.bytes_read += n;
            self.progress.fetch_add(n, Ordering::Relaxed);
            k += 1;
        }
        Ok(())
    }

    /// An input that could not be opened or read from its start.
    pub(super) fn failed(&mut self, input: String, e: &io::Error) {
        self.report(InputFailure {
            input,
            error: e.to_string(),
        });
    }

    /// An input failure: told to the options' hook now, counted for the summary.
    pub(super) fn report(&mut self, f: InputFailure) {
        record_failure(
            &mut self.stats.inputs_failed,
            self.opts.on_input_failure.as_ref(),
            f,
        );
    }

    /// A WARC (or WET) file, record by record ([`linksieve_inputs::walk`]): each scanned payload is a
    /// stream, decoded with the charset its headers declare (else `--encoding`).
    pub(super) fn warc(&mut self, name: &str, r: &mut dyn BufRead) -> Result<(), WarcError> {
        let records = self.opts.warc_records;
        linksieve_inputs::walk(r, records, &mut WarcInput { reader: self, name })
    }

    /// Reads one document as HTML: whole, up to `MAX_DOCUMENT` bytes, as one job
    /// (`Worker::document`: its `<base href>` applies to all of it). A larger one is read as
    /// text (its attributes unread), and counted so.
    pub(super) fn document(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut dyn BufRead,
        offset: u64,
        transport: Option<&'static Encoding>,
        url: Option<WebUrl>,
    ) -> io::Result<()> {
        let mut bytes = Vec::new();
        let mut fused = Fused {
            inner: r,
            err: None,
        };
        // `Fused` keeps a read error for after what was read
        let _ = (&mut fused)
            .take(MAX_DOCUMENT as u64 + 1)
            .read_to_end(&mut bytes);
        if bytes.len() > MAX_DOCUMENT {
            self.stats.html_too_large += 1;
            let choice = transport
                .map(EncodingChoice::Fixed)
                .unwrap_or(self.opts.scan.encoding);
            // (no error yet: `take` stopped before one)
            let mut chained = io::BufReader::new(io::Cursor::new(bytes).chain(&mut *fused.inner));
            let mut rest = Fused {
                inner: &mut chained,
                err: None,
            };
            self.stream_fused(meta, &mut rest, offset, choice)?;
            fused.err = rest.err;
        } else {
            if fused.err.is_some() {
                let enc = transport.unwrap_or(encoding_rs::UTF_8);
                self.drop_cut_tail(&mut bytes, enc);
            }
            self.submit(Job::Document {
                meta: meta.clone(),
                bytes,
                offset,
                transport,
                url,
            });
        }
        match fused.err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Takes a token (waits while `in_flight` chunks are alive) and gives the job a sequence
    /// number.
    pub(super) fn submit(&mut self, job: Job) {
        match &mut self.dispatch {
            Dispatch::Pool {
                pool,
                token_rx,
                result_tx,
            } => {
                if token_rx.recv().is_err() {
                    return;
                }
                let seq = self.seq;
                self.seq += 1;
                let tx = result_tx.clone();
                let opts = self.opts.clone();
                let spares = self.spares.clone();
                pool.spawn(move || {
                    let out = work(job, &opts, &spares);
                    let _ = tx.send((seq, Message::Chunk(out)));
                });
            }
            Dispatch::Inline(sink) => {
                if self.error.is_some() {
                    return;
                }
                if let Err(e) = sink.chunk(work(job, self.opts, &self.spares)) {
                    self.error = Some(e);
                    // Stop reading: nothing more can be written.
                    self.cancel.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Reads one stream to its end, cutting it into chunks; returns the bytes read.
    pub(super) fn stream(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut dyn BufRead,
        base: u64,
        choice: EncodingChoice,
    ) -> io::Result<u64> {
        // A read error (truncated compression, a vanished file) ends the stream like its end, so
        // that what was read before it is still scanned; the error is reported after that.
        let mut fused = Fused {
            inner: r,
            err: None,
        };
        let total = self.stream_fused(meta, &mut fused, base, choice)?;
        match fused.err {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }

    /// [`Reader::stream`] on a [`Fused`] reader: a read error is an end, after which the bytes
    /// that follow the last clean cut are dropped ([`Reader::drop_cut_tail`]).
    pub(super) fn stream_fused(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut Fused,
        base: u64,
        choice: EncodingChoice,
    ) -> io::Result<u64> {
        let chunk = self.opts.chunk_size.max(4096);
        let tail = self.opts.scan.max_link_len.max(64);
        // a chunk's look-ahead is twice `tail` (see `Worker::scan`)
        let mut buf: Vec<u8> = Vec::with_capacity(chunk + 2 * tail);
        let mut eof = false;
        // Decide the encoding on the first 64 KiB, as the scanner would.
        while buf.len() < linksieve_scan::AUTO_WINDOW && !eof {
            eof = fill(r, &mut buf, linksieve_scan::AUTO_WINDOW)?;
        }
        let (mut encoding, bom) =
            linksieve_scan::detect_encoding(choice, &buf, eof).unwrap_or((encoding_rs::UTF_8, 0));
        let mut total = buf.len() as u64;
        if !cuttable(encoding) {
            *self.stats.encodings.entry(encoding.name()).or_default() += 1;
            let head = Head { buf, eof, total };
            return self.sequential(meta, r, head, base, encoding);
        }
        // an ASCII start: ASCII chunks are read as UTF-8 until the first non-ASCII byte, where
        // the encoding is decided (`late`)
        let mut late = decides_late(choice, &buf, eof, (encoding, bom));
        buf.drain(..bom);
        self.stats.skip("byte order marks", bom as u64);
        let mut offset = base + bom as u64;
        let mut stream_start = true;
        let mut mid_token = false;
        // Whether the end was looked at: a read error's end drops the tail once, before any
        // chunk that reaches it is cut.
        let mut end_seen = false;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            while !eof && buf.len() < chunk + 2 * tail {
                let before = buf.len();
                eof = fill(r, &mut buf, chunk + 2 * tail)?;
                total += (buf.len() - before) as u64;
            }
            self.failed_end(r, &mut buf, eof, encoding, &mut end_seen);
            if late && let Some(p) = first_non_ascii(&buf) {
                let want = p + linksieve_scan::AUTO_WINDOW;
                while !eof && buf.len() < want {
                    let before = buf.len();
                    eof = fill(r, &mut buf, want)?;
                    total += (buf.len() - before) as u64;
                }
                let end = buf.len().min(want);
                encoding = detect_encoding_after_ascii(&buf[p..end], eof && end == buf.len());
                late = false;
                self.failed_end(r, &mut buf, eof, encoding, &mut end_seen);
            }
            if buf.is_empty() {
                break;
            }
            let (cut, clean) = if eof && buf.len() <= chunk {
                (buf.len(), true)
            } else {
                cut_point(&buf[..chunk], encoding)
            };
            let end = (cut + 2 * tail).min(buf.len());
            // The chunk takes the buffer; what follows the cut moves to a recycled one.
            let mut next = self.free.1.try_recv().unwrap_or_default();
            next.clear();
            next.reserve(chunk + 2 * tail);
            next.extend_from_slice(&buf[cut..]);
            let mut bytes = std::mem::replace(&mut buf, next);
            bytes.truncate(end);
            let job = Job::Scan {
                meta: meta.clone(),
                bytes,
                body: cut,
                offset,
                stream_start,
                encoding,
                mid_token,
                next_mid_token: !clean,
                recycle: self.free.0.clone(),
            };
            self.submit(job);
            stream_start = false;
            offset += cut as u64;
            mid_token = !clean;
            if eof && buf.is_empty() {
                break;
            }
        }
        *self.stats.encodings.entry(encoding.name()).or_default() += 1;
        Ok(total)
    }

    /// At the end of a stream that a read error ended (once, `seen`): drops the bytes after the
    /// last clean cut ([`Reader::drop_cut_tail`]).
    fn failed_end(
        &mut self,
        r: &Fused,
        buf: &mut Vec<u8>,
        eof: bool,
        enc: &'static Encoding,
        seen: &mut bool,
    ) {
        if eof && !*seen {
            *seen = true;
            if r.err.is_some() {
                self.drop_cut_tail(buf, enc);
            }
        }
    }

    /// Drops the bytes of a stream ended by a read error that follow its last clean cut
    /// ([`kept_before_error`]): a link there may have been cut short by the error, so it is
    /// not written as a key the input never held (the input is reported failed). The bytes
    /// dropped are counted as skipped.
    pub(super) fn drop_cut_tail(&mut self, buf: &mut Vec<u8>, enc: &'static Encoding) {
        let keep = kept_before_error(buf, enc);
        self.stats.skip(CUT_BY_AN_ERROR, (buf.len() - keep) as u64);
        buf.truncate(keep);
    }

    /// Streams that cannot be cut without decoding: scanned here, in order; normalized by workers.
    /// `head`: what was read of the stream to decide its encoding; `base`: the stream's offset
    /// in its input. Returns the bytes read in all.
    pub(super) fn sequential(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut Fused,
        head: Head,
        base: u64,
        encoding: &'static Encoding,
    ) -> io::Result<u64> {
        let Head {
            mut buf,
            mut eof,
            mut total,
        } = head;
        // decode_all: the summary counts every malformed sequence, not only those near links.
        let mut scanner = Scanner::new(&ScanOptions {
            encoding: EncodingChoice::Fixed(encoding),
            decode_all: true,
            lines: self.opts.format.shows_lines(),
            html: self.opts.html,
            ..self.opts.scan
        });
        let mut hits = Vec::new();
        let mut noted = linksieve_scan::ScanStats::default();
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            // Feeding cannot fail before `finish`.
            let _ = scanner.feed(&buf, &mut hits);
            buf.clear();
            // After a read error the scanner is not finished: a link it still holds runs to
            // the error, where it may have been cut short (see `drop_cut_tail`).
            if eof && r.err.is_none() {
                let _ = scanner.finish(&mut hits);
            }
            let s = *scanner.stats();
            if !hits.is_empty() || eof {
                let job = Job::Hits {
                    meta: meta.clone(),
                    hits: std::mem::take(&mut hits),
                    offset: base,
                };
                self.submit(job);
                self.stats.malformed_sequences += s.malformed_sequences - noted.malformed_sequences;
                self.stats.too_long += s.too_long - noted.too_long;
                noted = s;
            }
            if eof {
                break;
            }
            let before = buf.len();
            eof = fill(r, &mut buf, 1 << 20)?;
            total += (buf.len() - before) as u64;
        }
        Ok(total)
    }
}

/// The reader as a WARC walk's [`linksieve_inputs::Records`]: payloads become streams of this input,
/// counts go to the reader's stats.
struct WarcInput<'r, 'a, 's> {
    reader: &'r mut Reader<'a, 's>,
    name: &'r str,
}

impl WarcInput<'_, '_, '_> {
    /// Where a record's links come from: this input, the record's target URI.
    fn meta(&self, h: &WarcHeader) -> Arc<StreamMeta> {
        Arc::new(StreamMeta {
            input: self.name.to_owned(),
            provenance: h.target_uri.clone(),
        })
    }

    /// A record's address: its target URI (else `--base`), the base URL of its HTML (its
    /// fallback base URL) and of its record links.
    fn address(&self, h: &WarcHeader) -> Option<WebUrl> {
        match h.target_uri.as_deref().map(WebUrl::parse) {
            Some(Ok(u)) => Some(u),
            _ => self.reader.opts.base.clone(),
        }
    }
}

impl linksieve_inputs::Records for WarcInput<'_, '_, '_> {
    fn stop(&mut self) -> bool {
        let stop = self.reader.cancel.load(Ordering::Relaxed);
        if stop {
            self.reader.stats.interrupted = true;
        }
        stop
    }
    fn skip(&mut self, why: &str, n: u64) {
        self.reader.stats.skip(why, n);
    }
    fn coding(&mut self, what: String) {
        self.reader.stats.coding(what);
    }
    fn scan(
        &mut self,
        h: &WarcHeader,
        at: u64,
        charset: Option<&'static Encoding>,
        html: bool,
        reader: &mut dyn BufRead,
    ) -> io::Result<()> {
        let meta = self.meta(h);
        if html {
            let url = self.address(h);
            return self.reader.document(&meta, reader, at, charset, url);
        }
        let choice = charset
            .map(EncodingChoice::Fixed)
            .unwrap_or(self.reader.opts.scan.encoding);
        self.reader.stream(&meta, reader, at, choice).map(|_| ())
    }
    fn links(&mut self, h: &WarcHeader, mut links: RecordLinks) {
        if !self.reader.opts.record_links {
            links.links.clear();
        }
        // a visited URL without links still makes a node of the edges' graph
        let node = links.visited && self.reader.opts.format == OutputFormat::Edges;
        if !links.links.is_empty() || node {
            // a WAT record names the page it describes
            let url = match links.target.as_deref().map(WebUrl::parse) {
                Some(Ok(u)) => Some(u),
                _ => self.address(h),
            };
            let job = Job::RecordLinks {
                meta: self.meta(h),
                url,
                links,
            };
            self.reader.submit(job);
        }
    }
    fn record_failed(&mut self, error: String) {
        self.reader.report(InputFailure {
            input: self.name.to_owned(),
            error,
        });
    }
}

/// What the reader has of a stream when it hands it to [`Reader::sequential`]: the bytes read
/// to decide its encoding, whether the input ended there, and the bytes read so far.
pub(super) struct Head {
    pub(super) buf: Vec<u8>,
    pub(super) eof: bool,
    pub(super) total: u64,
}

/// Counts the bytes consumed from an input (after decompression), for the summary.
pub(super) struct Counted {
    pub(super) inner: Box<dyn BufRead + Send>,
    pub(super) count: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.count += n as u64;
        self.inner.consume(n);
    }
}

/// Adds the bytes read from an input as stored (before decompression) to the progress counter,
/// so that it runs to the inputs' total size.
pub(super) struct RawProgress {
    pub(super) inner: Box<dyn Read + Send>,
    pub(super) progress: Progress,
}

impl Read for RawProgress {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The summary's reason for the bytes [`Reader::drop_cut_tail`] drops.
pub(super) const CUT_BY_AN_ERROR: &str = "after the last delimiter before a read error";

/// A reader that reports its first error as the end of the input and keeps the error.
pub(super) struct Fused<'a> {
    pub(super) inner: &'a mut dyn BufRead,
    pub(super) err: Option<io::Error>,
}

impl Read for Fused<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.err.is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => {
                self.err = Some(e);
                Ok(0)
            }
            r => r,
        }
    }
}

impl BufRead for Fused<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.err.is_some() {
            return Ok(&[]);
        }
        match self.inner.fill_buf() {
            // Asked again to return the borrow: the buffer is full, so nothing is read twice.
            Ok(_) => self.inner.fill_buf(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.err = Some(e);
                Ok(&[])
            }
        }
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

/// Reads until `buf` holds `want` bytes or the input ends; returns true at the end (on an
/// error, `buf` keeps what was read before it). Reads straight into `buf`: a `BufReader` with
/// nothing buffered passes a read this large through to the file, so the input is not copied
/// once more through the reader's own buffer.
pub(crate) fn fill(r: &mut dyn BufRead, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    let mut len = buf.len();
    if len >= want {
        return Ok(false);
    }
    buf.resize(want, 0);
    let res = loop {
        if len == want {
            break Ok(false);
        }
        match r.read(&mut buf[len..]) {
            Ok(0) => break Ok(true),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    buf.truncate(len);
    res
}
