//! The sink: takes chunk results in sequence order, asks the seen-set, counts duplicates by
//! rung and writes new keys (and rejected links) in order.

use super::*;
use crate::delivery::Recorder;
use linksieve_graph::{Graph, LinkType};

/// The rungs that can lie below the chosen one; rung `i` is tag `i` of the sink's Bloom filter.
pub(super) const LOWER_RUNGS: [Rung; 3] = [Rung::String, Rung::Syntax, Rung::Scheme];

/// Items whose lower-rung filter blocks [`Sink::drain`] has fetched in one go, ahead of them.
const TOUCH_AHEAD: usize = 8;
/// Keys per lower rung the sink's Bloom filter is sized for.
pub(super) const LOWER_RUNG_KEYS: usize = 4 << 20;

/// Keys per lower rung the first, cache-resident stage of that filter takes.
pub(super) const LOWER_RUNG_SMALL_KEYS: usize = 64 << 10;

/// The sink: reorders chunk results, deduplicates, writes.
pub(super) struct Sink<'a> {
    pub(super) opts: &'a RunOptions,
    pub(super) dedup: &'a mut dyn SeenSet,
    pub(super) printer: Printer<'a>,
    /// Syncs a durable set once what it answered is delivered.
    pub(super) recorder: Recorder,
    pub(super) lower: linksieve_dedup::StagedBits,
    /// How many of [`LOWER_RUNGS`] lie below the chosen rung (the filter's tags in use): the
    /// rungs that [`Sink::account`] and [`Sink::touch`] look at.
    lower_rungs: usize,
    /// Where finished chunks' buffers go back to the jobs.
    pub(super) spares: Spares,
    /// The most spares pooled (the chunks in flight; 1 with one thread).
    pub(super) spare_limit: usize,
    /// Chunks whose items wait for the seen-set's answers.
    pub(super) ordered: Ordered<ChunkOut>,
    /// Rejected links of the front waiting chunk already written.
    pub(super) rejected_done: usize,
    pub(super) counts: Vec<(String, u64)>,
    pub(super) count_index: std::collections::HashMap<u128, usize>,
    /// The line of the next chunk's first byte in its stream.
    pub(super) line_base: u64,
    /// `--format edges`: the edges so far (the seen-set is not asked then).
    pub(super) edges: Option<linksieve_graph::EdgeSet>,
    pub(super) stats: RunStats,
}

impl<'a> Sink<'a> {
    pub(super) fn new(
        opts: &'a RunOptions,
        dedup: &'a mut dyn SeenSet,
        out: &'a mut dyn Output,
    ) -> Self {
        // Rungs below the chosen one: blocked Bloom filters of 512-bit blocks, each rung's
        // keys under its own tag (a link that is its own key at every rung costs one cache
        // miss, not one per rung), at about 10 bits per key (about 1% false positives) and 7
        // hashes. Staged: a filter for 64 K keys per rung (80 KB a rung, stays in cache) takes
        // the first keys; one for 4 M keys per rung (5 MB a rung; allocated up front, its pages
        // untouched until then) takes the keys after them.
        // A run with few distinct links (sparse text: 7 K keys in 340 MB) then never misses
        // the cache here. Sized directly: `BloomSet::new` searches for the best parameters,
        // which costs ~30 ms at this size, a fixed start-up cost of every run.
        let rungs = LOWER_RUNGS
            .iter()
            .filter(|&&r| r < opts.keying.ladder.rung)
            .count();
        let lower = linksieve_dedup::StagedBits::new(
            rungs * LOWER_RUNG_SMALL_KEYS,
            rungs * LOWER_RUNG_KEYS,
            10,
            7,
        );
        // an approx set's "seen" answers are counted apart (see `account`)
        let approx_filter_seen = dedup.report().expected_false_drops.map(|_| 0);
        // `--counts` delivers every key at the end, and so does a Parquet table (readable
        // once its footer is written)
        let policy = if opts.counts || opts.format == OutputFormat::Parquet {
            CommitPolicy::END
        } else {
            opts.commit
        };
        Sink {
            opts,
            dedup,
            printer: Printer::new(out, opts.format, opts.counts),
            recorder: Recorder::new(policy),
            lower,
            lower_rungs: rungs,
            spares: unbounded(),
            spare_limit: 1,
            ordered: Ordered::default(),
            rejected_done: 0,
            counts: Vec::new(),
            count_index: Default::default(),
            line_base: 1,
            edges: (opts.format == OutputFormat::Edges).then(|| {
                let e = &opts.edges;
                let dir = e.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
                linksieve_graph::EdgeSet::new(e.memory, dir)
            }),
            stats: RunStats {
                approx_filter_seen,
                edges: (opts.format == OutputFormat::Edges).then(Default::default),
                ..RunStats::default()
            },
        }
    }

    pub(super) fn consume(
        &mut self,
        rx: &Receiver<(u64, Message)>,
        tokens: &Sender<()>,
    ) -> Result<RunStats, RunError> {
        let mut next = 0u64;
        let mut waiting: BTreeMap<u64, Message> = BTreeMap::new();
        let mut reader_stats = RunStats::default();
        for (seq, message) in rx.iter() {
            waiting.insert(seq, message);
            while let Some(message) = waiting.remove(&next) {
                next += 1;
                match message {
                    Message::Chunk(c) => {
                        self.chunk(c)?;
                        let _ = tokens.try_send(());
                    }
                    Message::ReaderEnd(s) => {
                        self.reader_done(&s)?;
                        reader_stats = s;
                    }
                }
            }
        }
        Ok(reader_stats)
    }

    /// The reader's closing message: its counters (and, in JSONL, the inputs it could not read).
    pub(super) fn reader_done(&mut self, s: &RunStats) -> Result<(), RunError> {
        for f in &s.inputs_failed {
            self.input_failed(f)?;
        }
        Ok(())
    }

    /// An input that could not be read (to its end): an object in JSONL, else only counted.
    pub(super) fn input_failed(&mut self, f: &InputFailure) -> Result<(), RunError> {
        self.printer.input_failed(f).map_err(RunError::Output)
    }

    pub(super) fn chunk(&mut self, mut c: ChunkOut) -> Result<(), RunError> {
        // The chunk's lines are counted from its first byte: add the stream's earlier lines.
        if c.stream_start {
            self.line_base = 1;
        }
        if self.opts.format.shows_lines() && self.line_base > 1 {
            let add = self.line_base - 1;
            c.items.iter_mut().for_each(|i| i.line += add);
            c.rejected.iter_mut().for_each(|r| r.line += add);
        }
        self.line_base += c.body_lines;
        // A file that shrank fails in each of its later ranges: reported once.
        if let Some(f) = c.failed.take()
            && self
                .stats
                .inputs_failed
                .last()
                .is_none_or(|last| last.input != f.input)
        {
            self.input_failed(&f)?;
            record_failure(
                &mut self.stats.inputs_failed,
                self.opts.on_input_failure.as_ref(),
                f,
            );
        }
        self.stats.links_found += c.links;
        self.stats.malformed_sequences += c.malformed;
        self.stats.outlinks += c.outlinks;
        self.stats.record_links += c.record_links;
        if let Some(e) = c.encoding {
            *self.stats.encodings.entry(e).or_default() += 1;
        }
        if let Some(late) = c.late.take() {
            let e = late.get().copied().unwrap_or(encoding_rs::UTF_8);
            *self.stats.encodings.entry(e.name()).or_default() += 1;
        }
        self.stats.too_long += c.too_long;
        if self.edges.is_some() {
            for r in &mut c.rejected {
                self.stats.reject(std::mem::take(&mut r.reason));
            }
            self.add_edges(&c)?;
            self.recycle(c);
            return Ok(());
        }
        let fps: Vec<Fingerprint> = c.items.iter().map(|i| Fingerprint(i.fp)).collect();
        // The chunk waits in `ordered` until its answers come: a spill set counts it.
        self.dedup
            .submit(&fps, c.held_bytes(), self.ordered.answers())?;
        // counted now (the reason is not written): moved, not copied
        for r in &mut c.rejected {
            self.stats.reject(std::mem::take(&mut r.reason));
        }
        if !c.items.is_empty() || !c.rejected.is_empty() {
            self.ordered.push(c);
        } else {
            self.recycle(c);
        }
        self.drain()?;
        // a durable set records what it answered once the output delivered it
        self.recorder.step(self.dedup, self.printer.output())
    }

    /// Writes the pending items that have a decision, in order, and the chunks' rejected
    /// links among them at their places in the input (so that the JSONL rows do not depend on
    /// where chunks were cut).
    pub(super) fn drain(&mut self) -> Result<(), RunError> {
        while let Some((c, mut i)) = self.ordered.take() {
            let mut r = self.rejected_done;
            let mut touched = i;
            while i < c.items.len() {
                if i == touched {
                    touched = self.touch(&c.items, i);
                }
                let Some(new) = self.ordered.answer() else {
                    break;
                };
                let item = &c.items[i];
                while let Some(rej) = c.rejected.get(r).filter(|x| x.offset < item.offset) {
                    self.write_rejected(&c, rej)?;
                    r += 1;
                }
                self.account(&c, item, new);
                if new {
                    self.write(&c, item)?;
                }
                i += 1;
            }
            if i < c.items.len() {
                // Answers owed (a spill or persistent set answers in bulk): resume here.
                self.rejected_done = r;
                self.ordered.put_back(c, i);
                break;
            }
            for rej in &c.rejected[r..] {
                self.write_rejected(&c, rej)?;
            }
            self.rejected_done = 0;
            self.recycle(c);
        }
        Ok(())
    }

    /// Hands a finished chunk's buffers back to the jobs, emptied; frees them when the pool
    /// is full.
    pub(super) fn recycle(&self, c: ChunkOut) {
        if self.spares.0.len() >= self.spare_limit {
            return;
        }
        let mut spare = Spare {
            text: c.text,
            items: c.items,
            rejected: c.rejected,
        };
        spare.text.clear();
        spare.items.clear();
        spare.rejected.clear();
        let _ = self.spares.0.send(spare);
    }

    /// A link without a key: an object in JSONL, else only counted (in [`Sink::chunk`]).
    pub(super) fn write_rejected(&mut self, c: &ChunkOut, r: &Rejected) -> Result<(), RunError> {
        let meta = c.meta.as_deref();
        self.printer
            .rejected(&RejectedRow {
                original: &r.original,
                error: &r.error,
                input: meta.map(|m| m.input.as_str()),
                offset: r.offset,
                line: r.line,
                provenance: meta.and_then(|m| m.provenance.as_deref()),
            })
            .map_err(RunError::Output)
    }

    /// Has the lower rungs' filter blocks of the next [`TOUCH_AHEAD`] items from `from` fetched
    /// together (each new text is a cache miss there once the filter outgrows the cache: a
    /// third of `run`'s time on a list of distinct non-normal links, one miss after another);
    /// returns the end of the items touched.
    fn touch(&self, items: &[Item], from: usize) -> usize {
        let end = items.len().min(from + TOUCH_AHEAD);
        let mut words = 0;
        for item in &items[from..end] {
            for &fp in &item.lower[..self.lower_rungs] {
                words ^= self.lower.touch(Fingerprint(fp));
            }
        }
        std::hint::black_box(words);
        end
    }

    pub(super) fn account(&mut self, c: &ChunkOut, item: &Item, new: bool) {
        let chosen = self.opts.keying.ladder.rung;
        let mut caught = None;
        for (i, &rung) in LOWER_RUNGS[..self.lower_rungs].iter().enumerate() {
            let seen = !self
                .lower
                .insert_tagged(Fingerprint(item.lower[i]), i as u8);
            if seen && caught.is_none() && !new {
                caught = Some(rung);
            }
        }
        if new {
            self.stats.unique_keys += 1;
        } else if let Some(rung) = caught {
            self.stats.duplicate(rung, 1);
        } else if let Some(n) = &mut self.stats.approx_filter_seen {
            // an approx filter's "seen" may be a wrong drop: not a duplicate of the rung
            *n += 1;
            self.stats.duplicates += 1;
        } else {
            self.stats.duplicate(chosen, 1);
        }
        // Exact repeats in the chunk: the string rung caught them (the first one's fingerprints
        // are in the filters now).
        let repeats = u64::from(item.repeats);
        if repeats > 0 {
            self.stats.duplicate(Rung::String, repeats);
        }
        if self.opts.counts {
            let n = 1 + repeats;
            match self.count_index.get(&item.fp) {
                Some(&i) => self.counts[i].1 += n,
                None if new => {
                    self.count_index.insert(item.fp, self.counts.len());
                    self.counts.push((c.key(item).to_owned(), n));
                }
                None => {}
            }
        }
    }

    pub(super) fn write(&mut self, c: &ChunkOut, item: &Item) -> Result<(), RunError> {
        let (input, provenance) = match &c.meta {
            Some(m) => (m.input.as_str(), m.provenance.as_deref()),
            None => ("", None),
        };
        let from = match c.sources.get(item.from as usize) {
            Some(LinkSource::Attribute { tag, attr, rel }) => Some(LinkFrom::Attribute {
                tag,
                attr,
                rel: rel.as_deref(),
            }),
            Some(LinkSource::Record(RecordLinkKind::Element { tag, attr, rel })) => {
                Some(LinkFrom::Attribute {
                    tag,
                    attr,
                    rel: rel.as_deref(),
                })
            }
            Some(LinkSource::Record(kind)) => Some(LinkFrom::Record(kind)),
            None => c.document.then_some(LinkFrom::Text),
        };
        // only the Parquet table has a column for it
        let link_type = from
            .as_ref()
            .filter(|_| self.opts.format == OutputFormat::Parquet)
            .map(|_| c.link_type(item.from).name());
        self.printer
            .key(&KeyRow {
                fp: item.fp,
                key: c.key(item),
                original: c.original(item),
                input,
                offset: item.offset,
                line: item.line,
                provenance,
                rung: item.reached.name(),
                from,
                link_type,
            })
            .map_err(RunError::Output)
    }

    /// `--format edges`: a chunk's links as edges from its document's node.
    fn add_edges(&mut self, c: &ChunkOut) -> Result<(), RunError> {
        let (Some(set), Some(stats)) = (&mut self.edges, &mut self.stats.edges) else {
            return Ok(());
        };
        let links =
            |c: &ChunkOut| -> u64 { c.items.iter().map(|i| 1 + u64::from(i.repeats)).sum() };
        let (graph, www) = (self.opts.edges.graph, self.opts.edges.www);
        let node = |key| graph.node(key, www);
        let Some(source) = c.page.as_deref().and_then(node) else {
            stats.documents_without_node += u64::from(c.document);
            stats.links_without_edge += links(c);
            return Ok(());
        };
        // a record's header links and sitemaps come in a chunk of their own (no document)
        stats.documents += u64::from(c.document);
        if c.node {
            set.add(&source, &source, LinkType::Node.into(), 0)
                .map_err(RunError::Edges)?;
        }
        for item in &c.items {
            let n = 1 + u64::from(item.repeats);
            match node(c.key(item)) {
                Some(target) if graph == Graph::Page || target != source => {
                    set.add(&source, &target, c.link_type(item.from).into(), n)
                        .map_err(RunError::Edges)?;
                }
                _ => stats.links_without_edge += n,
            }
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) -> Result<(), RunError> {
        if let Some(set) = self.edges.take() {
            let printer = &mut self.printer;
            let totals = set.finish(|e| printer.edge(e)).map_err(|e| match e {
                linksieve_graph::GraphError::Output(e) => RunError::Output(e),
                e => RunError::Edges(e),
            })?;
            if let Some(s) = &mut self.stats.edges {
                s.links += totals.links;
                s.edges += totals.edges;
                s.runs += totals.runs;
            }
            // the seen-set holds nothing of an edges run: this only flushes the output
            return self.recorder.end(self.dedup, self.printer.output());
        }
        self.dedup.answer_rest(self.ordered.answers())?;
        self.drain()?;
        if self.opts.counts {
            for (k, n) in std::mem::take(&mut self.counts) {
                self.printer.count(&k, n).map_err(RunError::Output)?;
            }
        }
        self.printer.finish().map_err(RunError::Output)?;
        self.recorder.end(self.dedup, self.printer.output())
    }

    /// After a failed write: no partial key left at the output's end.
    pub(super) fn cut_partial(&mut self) {
        crate::delivery::cut_partial(self.printer.output());
    }

    /// The sink's counters (links, keys, duplicates by rung, rejects, inputs that failed in a
    /// range read) with the seen-set's facts, for adding to the reader's.
    pub(super) fn take_stats(&mut self) -> RunStats {
        let mut s = std::mem::take(&mut self.stats);
        let report = self.dedup.report();
        s.store_keys_at_open = report.keys_at_open;
        s.store_commits = report.keys_at_open.map(|_| self.recorder.commits);
        s.expected_false_drops = report.expected_false_drops;
        s.expected_false_drops_error = report.false_drops_error;
        s.seen_set_warning = report.warning;
        s.seen_set_bytes = self.dedup.memory_bytes() as u64;
        s.peak_rss_bytes = crate::peak_rss_bytes();
        s
    }
}
