//! Edges counted once each in bounded memory: a table in memory until its budget is reached,
//! then sorted runs on disk, merged at the end into one sorted stream (an external sort that
//! sums as it merges, as `sort | uniq -c` would, but without holding the rows twice).

use crate::types::LinkTypes;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// A failure of the edge set's spill files (a run-time failure: disk full, folder gone).
///
/// ```
/// let e = linksieve_graph::GraphError::Io {
///     op: "write a run to",
///     path: "/tmp/x".into(),
///     source: std::io::Error::other("no space"),
/// };
/// assert_eq!(e.to_string(), "cannot write a run to /tmp/x: no space");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// A file operation failed.
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        /// What was being done.
        op: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: io::Error,
    },
    /// The caller's writer failed (the output).
    #[error("{0}")]
    Output(#[source] io::Error),
    /// An input could not be read (the edge rows of [`crate::read_edge_rows`]).
    #[error("{0}")]
    Input(#[source] io::Error),
    /// Graph files break a rule of their layout ([`crate::check_graph_files`]).
    #[error("{file} line {line}: {why}")]
    Invalid {
        /// `vertices` or `edges`.
        file: &'static str,
        /// The line (from 1).
        line: u64,
        /// The rule it breaks.
        why: String,
    },
    /// A graph's Parquet table breaks a rule of the layout (`check_graph_dir`).
    #[error("{file} row {row}: {why}")]
    InvalidRow {
        /// `vertices.parquet` or `edges.parquet`.
        file: &'static str,
        /// The row (from 1).
        row: u64,
        /// The rule it breaks.
        why: String,
    },
}

/// One edge, as [`EdgeSet::finish`] hands it out: each (source, target) pair once, with the
/// number of links found between them and their types.
///
/// ```
/// use linksieve_graph::{Edge, LinkType};
/// let e = Edge { source: "a", target: "b", count: 2, types: LinkType::A.into() };
/// assert_eq!(e.types.to_string(), "a");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge<'a> {
    /// The node the links were found in.
    pub source: &'a str,
    /// The node they point to.
    pub target: &'a str,
    /// How many links from `source` to `target` were found (each occurrence counted).
    pub count: u64,
    /// The types of those links.
    pub types: LinkTypes,
}

/// Bytes counted per edge held in memory besides its two names: the table's slot (a boxed
/// name of 16 bytes, a count of 8, the types, control bytes and the slack of its load factor).
const PER_EDGE: usize = 64;
/// The most runs merged at once; more are merged into one run first (file descriptors).
const MAX_RUNS: usize = 64;
/// The smallest memory budget (`--memory`'s floor).
const MIN_BUDGET: usize = 64 << 10;

/// Edges, each (source, target) pair kept once with its count and types, in at most about
/// `budget` bytes of memory: when the table reaches it, it is written as a run sorted by
/// (source, target) into a temporary folder, and [`finish`](EdgeSet::finish) merges the runs
/// (summing counts and joining types) into one stream in that order. The order depends on the
/// edges only, never on the order they were added in (so not on `-j`).
///
/// ```
/// use linksieve_graph::{EdgeSet, LinkType};
/// let mut set = EdgeSet::new(64 << 10, std::env::temp_dir());
/// set.add("b", "c", LinkType::A.into(), 1).unwrap();
/// set.add("a", "c", LinkType::Img.into(), 1).unwrap();
/// set.add("b", "c", LinkType::Text.into(), 2).unwrap();
/// let mut rows = Vec::new();
/// let totals = set.finish(|e| Ok(rows.push(format!("{} {} {} {}", e.source, e.target, e.count, e.types)))).unwrap();
/// assert_eq!(rows, ["a c 1 img", "b c 3 a,text"]);
/// assert_eq!((totals.edges, totals.links), (2, 4));
/// ```
pub struct EdgeSet {
    /// `source_len (4 bytes LE) ++ source ++ target` -> (count, types).
    table: HashMap<Box<[u8]>, (u64, u32), NameHash>,
    /// The packed name of the edge being added (kept from call to call).
    name: Vec<u8>,
    held: usize,
    budget: usize,
    temp_base: PathBuf,
    dir: Option<tempfile::TempDir>,
    runs: Vec<PathBuf>,
    next_run: u64,
    links: u64,
}

/// The edge table's hasher: XXH3 of the packed name in one call, seeded at random per set as
/// std's SipHash is (names come from the web: a fixed seed would let crafted names share a
/// bucket). SipHash took 7% of a host-graph run over a WAT file (`perf record`), XXH3 less.
#[derive(Clone)]
struct NameHash(u64);

impl NameHash {
    /// A seed of std's per-process randomness.
    fn random() -> NameHash {
        use std::hash::BuildHasher;
        NameHash(std::collections::hash_map::RandomState::new().hash_one(0u8))
    }
}

impl std::hash::BuildHasher for NameHash {
    type Hasher = NameHasher;
    fn build_hasher(&self) -> NameHasher {
        NameHasher(self.0)
    }
}

/// [`NameHash`]'s hasher: each write hashes its bytes seeded with the state so far (a key is
/// its length, then its bytes).
struct NameHasher(u64);

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.0);
    }
    fn write_usize(&mut self, n: usize) {
        self.0 ^= (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// What [`EdgeSet::finish`] wrote, and what it took.
///
/// ```
/// let t = linksieve_graph::EdgeTotals::default();
/// assert_eq!((t.edges, t.links, t.runs), (0, 0, 0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeTotals {
    /// Distinct (source, target) pairs.
    pub edges: u64,
    /// Links counted over them.
    pub links: u64,
    /// Sorted runs written to disk (0: the edges fit in memory).
    pub runs: u64,
}

impl EdgeSet {
    /// An empty set that holds about `budget` bytes (at least 64 KiB) in memory and spills
    /// sorted runs into a temporary folder it makes under `temp_base` when it needs one.
    ///
    /// ```
    /// let set = linksieve_graph::EdgeSet::new(1 << 20, std::env::temp_dir());
    /// assert_eq!(set.held_bytes(), 0);
    /// ```
    pub fn new(budget: usize, temp_base: impl Into<PathBuf>) -> EdgeSet {
        EdgeSet {
            table: HashMap::with_hasher(NameHash::random()),
            name: Vec::new(),
            held: 0,
            budget: budget.max(MIN_BUDGET),
            temp_base: temp_base.into(),
            dir: None,
            runs: Vec::new(),
            next_run: 0,
            links: 0,
        }
    }

    /// The bytes counted against the budget now.
    ///
    /// ```
    /// let mut set = linksieve_graph::EdgeSet::new(1 << 20, std::env::temp_dir());
    /// set.add("a", "b", Default::default(), 1).unwrap();
    /// assert_eq!(set.held_bytes(), 64 + 4 + 2);
    /// ```
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Counts `count` links of `types` from `source` to `target`.
    ///
    /// ```
    /// let mut set = linksieve_graph::EdgeSet::new(1 << 20, std::env::temp_dir());
    /// set.add("a", "b", Default::default(), 1).unwrap();
    /// ```
    pub fn add(
        &mut self,
        source: &str,
        target: &str,
        types: LinkTypes,
        count: u64,
    ) -> Result<(), GraphError> {
        self.links += count;
        // packed in a kept buffer: an edge seen before costs no allocation
        let name = &mut self.name;
        name.clear();
        name.extend_from_slice(&(source.len() as u32).to_le_bytes());
        name.extend_from_slice(source.as_bytes());
        name.extend_from_slice(target.as_bytes());
        match self.table.get_mut(name.as_slice()) {
            Some(v) => {
                v.0 += count;
                v.1 |= types.bits();
            }
            None => {
                self.held += PER_EDGE + name.len();
                self.table
                    .insert(name.as_slice().into(), (count, types.bits()));
                if self.held >= self.budget {
                    self.spill()?;
                }
            }
        }
        Ok(())
    }

    /// Writes the table as a sorted run and empties it.
    fn spill(&mut self) -> Result<(), GraphError> {
        let rows = self.sorted_table();
        let path = self.new_run_path()?;
        let mut w = RunWriter::create(&path)?;
        for (name, (count, types)) in &rows {
            w.write(name, *count, *types)?;
        }
        w.finish()?;
        self.runs.push(path);
        self.held = 0;
        if self.runs.len() >= MAX_RUNS {
            // Merge them into one run, so that the last merge never opens more than MAX_RUNS.
            let runs = std::mem::take(&mut self.runs);
            let path = self.new_run_path()?;
            let mut w = RunWriter::create(&path)?;
            merge(&runs, None, |name, count, types| {
                w.write(name, count, types)
            })?;
            w.finish()?;
            for r in &runs {
                let _ = std::fs::remove_file(r);
            }
            self.runs.push(path);
        }
        Ok(())
    }

    /// The table's rows in (source, target) order; the table is left empty.
    fn sorted_table(&mut self) -> Vec<Row> {
        let empty = HashMap::with_hasher(self.table.hasher().clone());
        let mut rows: Vec<_> = std::mem::replace(&mut self.table, empty)
            .into_iter()
            .collect();
        rows.sort_unstable_by(|a, b| order(&a.0, &b.0));
        rows
    }

    fn new_run_path(&mut self) -> Result<PathBuf, GraphError> {
        if self.dir.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("linksieve-edges-")
                .tempdir_in(&self.temp_base)
                .map_err(|source| GraphError::Io {
                    op: "create a folder for edge runs in",
                    path: self.temp_base.clone(),
                    source,
                })?;
            self.dir = Some(dir);
        }
        let dir = self
            .dir
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new("."));
        self.next_run += 1;
        Ok(dir.join(format!("run-{}", self.next_run)))
    }

    /// Hands out every edge once, in (source, target) order (byte order of the names), and
    /// removes the runs.
    pub fn finish(
        mut self,
        mut f: impl FnMut(&Edge<'_>) -> io::Result<()>,
    ) -> Result<EdgeTotals, GraphError> {
        let mut totals = EdgeTotals {
            links: self.links,
            runs: self.next_run,
            ..EdgeTotals::default()
        };
        let table = self.sorted_table();
        let mut out = |name: &[u8], count: u64, types: u32| {
            let (source, target) = split(name);
            totals.edges += 1;
            f(&Edge {
                source: std::str::from_utf8(source).unwrap_or_default(),
                target: std::str::from_utf8(target).unwrap_or_default(),
                count,
                types: LinkTypes::from_bits(types),
            })
            .map_err(GraphError::Output)
        };
        if self.runs.is_empty() {
            for (name, (count, types)) in &table {
                out(name, *count, *types)?;
            }
        } else {
            merge(&self.runs, Some(table), out)?;
        }
        Ok(totals)
    }
}

/// A row of the table: the packed name, its count and its types' bits.
type Row = (Box<[u8]>, (u64, u32));

/// (source, target) order of two packed names.
fn order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    split(a).cmp(&split(b))
}

/// A packed name's source and target.
fn split(name: &[u8]) -> (&[u8], &[u8]) {
    let len = u32::from_le_bytes(name[..4].try_into().unwrap_or_default()) as usize;
    name[4..].split_at(len.min(name.len() - 4))
}

/// Merges sorted runs (and `table`, sorted, if given) into `out`, each name once with its
/// counts summed and its types joined.
fn merge(
    runs: &[PathBuf],
    table: Option<Vec<Row>>,
    mut out: impl FnMut(&[u8], u64, u32) -> Result<(), GraphError>,
) -> Result<(), GraphError> {
    let mut readers = Vec::with_capacity(runs.len());
    for r in runs {
        readers.push(RunReader::open(r)?);
    }
    let mut table = table.unwrap_or_default().into_iter().peekable();
    // Heads of every source; the smallest name is taken from all that hold it.
    let mut heads: Vec<Option<(Vec<u8>, u64, u32)>> = Vec::with_capacity(readers.len());
    for r in &mut readers {
        heads.push(r.next()?);
    }
    loop {
        let mut least: Option<&[u8]> = table.peek().map(|t| &*t.0);
        for (name, _, _) in heads.iter().flatten() {
            if least.is_none_or(|l| order(name, l).is_lt()) {
                least = Some(name);
            }
        }
        let Some(least) = least.map(<[u8]>::to_vec) else {
            return Ok(());
        };
        let (mut count, mut types) = (0u64, 0u32);
        if table.peek().is_some_and(|t| *t.0 == *least)
            && let Some((_, (c, t))) = table.next()
        {
            count += c;
            types |= t;
        }
        for (head, reader) in heads.iter_mut().zip(&mut readers) {
            if let Some((name, c, t)) = head
                && *name == least
            {
                count += *c;
                types |= *t;
                *head = reader.next()?;
            }
        }
        out(&least, count, types)?;
    }
}

/// A run file: per edge `name_len u32 LE, name, count u64 LE, types u32 LE`.
struct RunWriter {
    path: PathBuf,
    w: BufWriter<File>,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter, GraphError> {
        let file = File::create_new(path).map_err(|source| GraphError::Io {
            op: "create the edge run",
            path: path.to_owned(),
            source,
        })?;
        Ok(RunWriter {
            path: path.to_owned(),
            w: BufWriter::with_capacity(1 << 16, file),
        })
    }

    fn write(&mut self, name: &[u8], count: u64, types: u32) -> Result<(), GraphError> {
        let w = &mut self.w;
        (|| {
            w.write_all(&(name.len() as u32).to_le_bytes())?;
            w.write_all(name)?;
            w.write_all(&count.to_le_bytes())?;
            w.write_all(&types.to_le_bytes())
        })()
        .map_err(|source| GraphError::Io {
            op: "write the edge run",
            path: self.path.clone(),
            source,
        })
    }

    fn finish(mut self) -> Result<(), GraphError> {
        self.w.flush().map_err(|source| GraphError::Io {
            op: "write the edge run",
            path: self.path.clone(),
            source,
        })
    }
}

struct RunReader {
    path: PathBuf,
    r: BufReader<File>,
}

impl RunReader {
    fn open(path: &Path) -> Result<RunReader, GraphError> {
        let file = File::open(path).map_err(|source| GraphError::Io {
            op: "open the edge run",
            path: path.to_owned(),
            source,
        })?;
        Ok(RunReader {
            path: path.to_owned(),
            r: BufReader::with_capacity(1 << 16, file),
        })
    }

    /// The next edge, or `None` at the end of the run.
    fn next(&mut self) -> Result<Option<(Vec<u8>, u64, u32)>, GraphError> {
        let mut len = [0u8; 4];
        let r = &mut self.r;
        let read = (|| {
            if r.read(&mut len[..1])? == 0 {
                return Ok(None);
            }
            r.read_exact(&mut len[1..])?;
            let mut name = vec![0u8; u32::from_le_bytes(len) as usize];
            r.read_exact(&mut name)?;
            let mut count = [0u8; 8];
            r.read_exact(&mut count)?;
            let mut types = [0u8; 4];
            r.read_exact(&mut types)?;
            Ok(Some((
                name,
                u64::from_le_bytes(count),
                u32::from_le_bytes(types),
            )))
        })();
        read.map_err(|source| GraphError::Io {
            op: "read the edge run",
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinkType;
    use std::collections::BTreeMap;

    /// Edges with many repeats, added in a shuffled order, against a BTreeMap's sums.
    fn check(budget: usize, n: u64) -> EdgeTotals {
        let mut set = EdgeSet::new(budget, std::env::temp_dir());
        let mut expected: BTreeMap<(String, String), (u64, u32)> = BTreeMap::new();
        let types = [LinkType::A, LinkType::Img, LinkType::Text];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (s, t) = (
                format!("http://s{}/", x % 97),
                format!("t{}", (x >> 8) % 89),
            );
            let ty = types[(i % 3) as usize];
            set.add(&s, &t, ty.into(), 1 + i % 2).unwrap();
            let e = expected.entry((s, t)).or_default();
            e.0 += 1 + i % 2;
            e.1 |= crate::LinkTypes::from(ty).bits();
        }
        let mut got = Vec::new();
        let totals = set
            .finish(|e| {
                got.push((
                    (e.source.to_owned(), e.target.to_owned()),
                    (e.count, e.types.bits()),
                ));
                Ok(())
            })
            .unwrap();
        let want: Vec<_> = expected.into_iter().collect();
        assert_eq!(got, want);
        assert_eq!(totals.edges as usize, got.len());
        totals
    }

    #[test]
    fn sums_in_memory() {
        assert_eq!(check(1 << 30, 20_000).runs, 0);
    }

    #[test]
    fn sums_over_runs_and_merges_of_runs() {
        // 64 KiB holds about 700 of these edges: 8,633 distinct pairs make well over 64 runs
        let t = check(0, 200_000);
        assert!(t.runs > MAX_RUNS as u64, "{t:?}");
    }

    #[test]
    fn a_source_that_is_a_prefix_sorts_by_source_first() {
        let mut set = EdgeSet::new(0, std::env::temp_dir());
        set.add("ab", "a", LinkType::A.into(), 1).unwrap();
        set.add("a", "bz", LinkType::A.into(), 1).unwrap();
        let mut got = Vec::new();
        set.finish(|e| {
            got.push((e.source.to_owned(), e.target.to_owned()));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, [("a".into(), "bz".into()), ("ab".into(), "a".into())]);
    }

    #[test]
    fn a_spill_folder_that_cannot_be_made_is_an_error() {
        let mut set = EdgeSet::new(0, "/nonexistent/linksieve");
        let mut failed = false;
        for i in 0..10_000 {
            if set.add("a", &i.to_string(), LinkType::A.into(), 1).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }
}
