//! A graph in Common Crawl's text layout (`vertices.txt.gz`, `edges.txt.gz`): vertex IDs given
//! in the sorted order of the names, edges as pairs of IDs, sorted, in bounded memory.
//!
//! The layout is cc-pyspark's `hostlinks_to_graph.py` (commit 49daea0), which makes Common
//! Crawl's host graphs: the vertices are every name of a source or target, distinct, sorted
//! (byte order), numbered from 0 (`id<TAB>name`); the edges are `s<TAB>t`, sorted by `s` then
//! `t` as numbers, self-loops removed after the IDs are given (so a node with only a link to
//! itself keeps its ID). cc-webgraph's tools take these files (its `HostToDomainGraph` fails on
//! vertices that are not sorted; cc-webgraph issue #34 was a release published unsorted), so
//! both files are checked as they are written: a name not above the one before, or an edge not
//! above the one before, is an error and no file is complete.
//!
//! Three external sorts ([`EdgeSet`]) do it in bounded memory: the names (the vertices), the
//! edges by target (to give each target its ID by a merge with the vertices), then the edges
//! by source and target ID (to give each source its ID by a second merge).

use crate::edges::{EdgeSet, GraphError};
use crate::types::LinkTypes;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

/// How [`write_graph_files`] writes.
///
/// ```
/// let o = linksieve_graph::GraphFileOptions::default();
/// assert!(!o.weights);
/// ```
#[derive(Clone, Debug)]
pub struct GraphFileOptions {
    /// Write each edge's count as a third column (`s<TAB>t<TAB>count`).
    pub weights: bool,
    /// The bytes the sorts may hold in memory (each of the three sorts takes a part; at least
    /// 64 KiB each).
    pub budget: usize,
    /// Where the sorts write their runs (a temporary folder is made under it).
    pub temp_base: PathBuf,
    /// Write the folder's tables as Parquet ([`crate::VERTICES_PARQUET`],
    /// [`crate::EDGES_PARQUET`]) instead of gzip text (with the `parquet` feature).
    pub parquet: bool,
}

impl Default for GraphFileOptions {
    fn default() -> Self {
        GraphFileOptions {
            weights: false,
            budget: 512 << 20,
            temp_base: std::env::temp_dir(),
            parquet: false,
        }
    }
}

/// What [`write_graph_files`] wrote.
///
/// ```
/// let t = linksieve_graph::GraphFileTotals::default();
/// assert_eq!((t.vertices, t.edges, t.self_loops), (0, 0, 0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphFileTotals {
    /// Vertices written.
    pub vertices: u64,
    /// Edges written.
    pub edges: u64,
    /// Self-loops left out (their node is a vertex).
    pub self_loops: u64,
}

/// Checks that values come in strictly increasing order: the vertices' names, the edges' ID
/// pairs.
struct Ascending<T> {
    last: Option<T>,
    what: &'static str,
}

impl<T: PartialOrd + std::fmt::Debug> Ascending<T> {
    fn new(what: &'static str) -> Ascending<T> {
        Ascending { last: None, what }
    }

    /// Takes the next value: an error when it is not above the last.
    fn next(&mut self, v: T) -> Result<(), String> {
        if let Some(l) = &self.last
            && *l >= v
        {
            return Err(format!("{} not sorted: {v:?} after {l:?}", self.what));
        }
        self.last = Some(v);
        Ok(())
    }
}

/// Where [`write_graph`] puts a graph's rows, in order: the vertices (IDs from 0, names
/// sorted), then the edges (sorted by source then target ID, self-loops left out).
///
/// ```
/// struct Count(u64, u64);
/// impl linksieve_graph::GraphRows for Count {
///     fn vertex(&mut self, _id: u64, _name: &str) -> std::io::Result<()> { self.0 += 1; Ok(()) }
///     fn edge(&mut self, _s: u64, _t: u64, _count: u64) -> std::io::Result<()> { self.1 += 1; Ok(()) }
/// }
/// let mut set = linksieve_graph::EdgeSet::new(1 << 20, std::env::temp_dir());
/// set.add("a", "b", Default::default(), 1).unwrap();
/// let mut c = Count(0, 0);
/// linksieve_graph::write_graph(set, &Default::default(), &mut c).unwrap();
/// assert_eq!((c.0, c.1), (2, 1));
/// ```
pub trait GraphRows {
    /// A vertex.
    fn vertex(&mut self, id: u64, name: &str) -> io::Result<()>;
    /// An edge and its count (the links it sums).
    fn edge(&mut self, s: u64, t: u64, count: u64) -> io::Result<()>;
}

/// The text layout: `id<TAB>name` lines to `vertices`, `s<TAB>t` (with `weights`,
/// `s<TAB>t<TAB>count`) lines to `edges`.
pub(crate) struct TextRows<'w> {
    vertices: &'w mut dyn Write,
    edges: &'w mut dyn Write,
    weights: bool,
}

impl<'w> TextRows<'w> {
    pub(crate) fn new(
        vertices: &'w mut dyn Write,
        edges: &'w mut dyn Write,
        weights: bool,
    ) -> TextRows<'w> {
        TextRows {
            vertices,
            edges,
            weights,
        }
    }
}

impl GraphRows for TextRows<'_> {
    fn vertex(&mut self, id: u64, name: &str) -> io::Result<()> {
        writeln!(self.vertices, "{id}\t{name}")
    }
    fn edge(&mut self, s: u64, t: u64, count: u64) -> io::Result<()> {
        if self.weights {
            writeln!(self.edges, "{s}\t{t}\t{count}")
        } else {
            writeln!(self.edges, "{s}\t{t}")
        }
    }
}

/// An ID as text whose byte order is its numeric order (20 digits: every `u64`).
fn padded(id: u64) -> String {
    format!("{id:020}")
}

/// A names file read back in order: the ID of a name is its line number from 0. Each lookup
/// must ask for a name not below the one asked before (the callers' streams are sorted so).
struct Names {
    lines: io::Lines<BufReader<File>>,
    /// The last name read and its ID.
    at: Option<(String, u64)>,
    next: u64,
}

impl Names {
    fn open(path: &std::path::Path) -> Result<Names, GraphError> {
        let file = File::open(path).map_err(|source| GraphError::Io {
            op: "read the vertices back from",
            path: path.to_owned(),
            source,
        })?;
        Ok(Names {
            lines: BufReader::new(file).lines(),
            at: None,
            next: 0,
        })
    }

    /// The ID of `name`, reading on to it.
    fn id(&mut self, name: &str) -> io::Result<u64> {
        loop {
            if let Some((n, id)) = &self.at
                && n == name
            {
                return Ok(*id);
            }
            let Some(line) = self.lines.next() else {
                return Err(io::Error::other(format!("no vertex {name:?}")));
            };
            self.at = Some((line?, self.next));
            self.next += 1;
        }
    }
}

/// Keeps the first error of a sort's consumer (a finish callback can return only an
/// `io::Error`) to give it back as it was.
#[derive(Default)]
struct Kept(Option<GraphError>);

impl Kept {
    fn keep<T>(&mut self, r: Result<T, GraphError>) -> io::Result<T> {
        r.map_err(|e| {
            let msg = e.to_string();
            self.0 = Some(e);
            io::Error::other(msg)
        })
    }

    /// The kept error, else `r`'s.
    fn or<T>(self, r: Result<T, GraphError>) -> Result<T, GraphError> {
        match (self.0, r) {
            (Some(e), Err(_)) => Err(e),
            (_, r) => r,
        }
    }
}

/// Writes the graph of `edges` (filled by the caller) as Common Crawl writes its text graphs:
/// `id<TAB>name` lines to `vertices`, `s<TAB>t` (`s<TAB>t<TAB>count` with
/// [`GraphFileOptions::weights`]) lines to `out`, both as they are (the caller compresses).
/// Every line is checked to be above the one before it (names in byte order, edges by source
/// then target ID); one that is not is an error ([`GraphError::Output`]).
///
/// ```
/// use linksieve_graph::{EdgeSet, GraphFileOptions, write_graph_files};
/// let mut set = EdgeSet::new(1 << 20, std::env::temp_dir());
/// for (s, t) in [("org.b", "com.a"), ("com.a", "org.b"), ("com.a", "net.c"), ("com.a", "com.a")] {
///     set.add(s, t, Default::default(), 1).unwrap();
/// }
/// let (mut v, mut e) = (Vec::new(), Vec::new());
/// let t = write_graph_files(set, &GraphFileOptions::default(), &mut v, &mut e).unwrap();
/// assert_eq!(String::from_utf8(v).unwrap(), "0\tcom.a\n1\tnet.c\n2\torg.b\n");
/// assert_eq!(String::from_utf8(e).unwrap(), "0\t1\n0\t2\n2\t0\n");
/// assert_eq!((t.vertices, t.edges, t.self_loops), (3, 3, 1));
/// ```
pub fn write_graph_files(
    edges: EdgeSet,
    opts: &GraphFileOptions,
    vertices: &mut dyn Write,
    out: &mut dyn Write,
) -> Result<GraphFileTotals, GraphError> {
    let mut rows = TextRows {
        vertices,
        edges: out,
        weights: opts.weights,
    };
    write_graph(edges, opts, &mut rows)
}

/// Gives the graph of `edges` (filled by the caller) to `rows`: the vertices, every name of a
/// source or target once, numbered from 0 in sorted (byte) order, then the edges as pairs of
/// IDs, sorted, self-loops left out. Each is checked to be above the one before it; one that
/// is not is an error ([`GraphError::Output`]). [`write_graph_files`] has an example.
pub fn write_graph(
    edges: EdgeSet,
    opts: &GraphFileOptions,
    rows: &mut dyn GraphRows,
) -> Result<GraphFileTotals, GraphError> {
    let dir = tempfile::Builder::new()
        .prefix("linksieve-graph-")
        .tempdir_in(&opts.temp_base)
        .map_err(|source| GraphError::Io {
            op: "make a folder for the graph's sorts in",
            path: opts.temp_base.clone(),
            source,
        })?;
    let quarter = opts.budget / 4;
    // 1. the names, and the edges by target (with the source's name)
    let mut names = EdgeSet::new(quarter, dir.path());
    let mut by_target = EdgeSet::new(quarter, dir.path());
    let mut kept = Kept::default();
    let r = edges.finish(|e| {
        kept.keep(names.add(e.source, "", LinkTypes::default(), 1))?;
        kept.keep(names.add(e.target, "", LinkTypes::default(), 1))?;
        kept.keep(by_target.add(e.target, e.source, e.types, e.count))
    });
    kept.or(r)?;
    // 2. the vertices, numbered in name order, and their names kept for the merges
    let names_path = dir.path().join("vertices");
    let io_err = |op, source| GraphError::Io {
        op,
        path: names_path.clone(),
        source,
    };
    let mut names_file =
        BufWriter::new(File::create(&names_path).map_err(|e| io_err("write the vertices to", e))?);
    let mut totals = GraphFileTotals::default();
    let mut order = Ascending::new("vertices");
    let mut kept = Kept::default();
    let r = names.finish(|v| {
        order.next(v.source.to_owned()).map_err(io::Error::other)?;
        rows.vertex(totals.vertices, v.source)?;
        kept.keep(
            writeln!(names_file, "{}", v.source).map_err(|e| io_err("write the vertices to", e)),
        )?;
        totals.vertices += 1;
        Ok(())
    });
    kept.or(r)?;
    names_file
        .flush()
        .map_err(|e| io_err("write the vertices to", e))?;
    drop(names_file);
    // 3. each target's ID, then the edges by source name and target ID
    let mut ids = Names::open(&names_path)?;
    let mut by_source = EdgeSet::new(opts.budget / 2, dir.path());
    let mut kept = Kept::default();
    let r = by_target.finish(|e| {
        let target = ids.id(e.source)?;
        kept.keep(by_source.add(e.target, &padded(target), e.types, e.count))
    });
    kept.or(r)?;
    // 4. each source's ID: the edges come out sorted by (source ID, target ID)
    let mut ids = Names::open(&names_path)?;
    let mut order = Ascending::new("edges");
    by_source.finish(|e| {
        let s = ids.id(e.source)?;
        let t: u64 = e.target.parse().map_err(io::Error::other)?;
        if s == t {
            totals.self_loops += 1;
            return Ok(());
        }
        order.next((s, t)).map_err(io::Error::other)?;
        totals.edges += 1;
        rows.edge(s, t, e.count)
    })?;
    Ok(totals)
}

/// Checks graph files in Common Crawl's text layout, as [`write_graph_files`] writes them or
/// as Common Crawl publishes them (decompressed by the caller): vertices `id<TAB>name` with the
/// IDs 0, 1, 2, ... and the names in strictly increasing byte order; edges `s<TAB>t` (a third
/// column, a weight, allowed) with both IDs vertices, no self-loop, the pairs in strictly
/// increasing order. The first line that breaks a rule is the error
/// ([`GraphError::Invalid`]).
///
/// ```
/// use linksieve_graph::check_graph_files;
/// let t = check_graph_files(&mut &b"0\tcom.a\n1\torg.b\n"[..], &mut &b"0\t1\n1\t0\n"[..]).unwrap();
/// assert_eq!((t.vertices, t.edges), (2, 2));
/// let e = check_graph_files(&mut &b"0\torg.b\n1\tcom.a\n"[..], &mut &b""[..]).unwrap_err();
/// assert!(e.to_string().contains("vertices line 2: vertices not sorted"));
/// ```
pub fn check_graph_files(
    vertices: &mut dyn BufRead,
    edges: &mut dyn BufRead,
) -> Result<GraphFileTotals, GraphError> {
    let invalid = |file, line, why| GraphError::Invalid { file, line, why };
    let unread = |file, at, e: io::Error| invalid(file, at, format!("cannot be read: {e}"));
    let mut check = GraphCheck::default();
    for (n, line) in vertices.lines().enumerate() {
        let at = n as u64 + 1;
        let line = line.map_err(|e| unread("vertices", at, e))?;
        let (id, name) = line
            .split_once('\t')
            .ok_or_else(|| invalid("vertices", at, "no tab".to_owned()))?;
        check
            .vertex(id.parse().ok(), id, name)
            .map_err(|why| invalid("vertices", at, why))?;
    }
    for (n, line) in edges.lines().enumerate() {
        let at = n as u64 + 1;
        let line = line.map_err(|e| unread("edges", at, e))?;
        let mut cols = line.split('\t');
        let mut id = || {
            let col = cols.next().unwrap_or("");
            check.id(col.parse().ok(), col)
        };
        let (s, t) = (id(), id());
        s.and_then(|s| check.edge(s, t?))
            .map_err(|why| invalid("edges", at, why))?;
    }
    Ok(check.totals)
}

/// The rules of graph files, row by row, whatever their layout (text lines, Parquet rows):
/// the vertices first, then the edges.
pub(crate) struct GraphCheck {
    pub(crate) totals: GraphFileTotals,
    names: Ascending<String>,
    pairs: Ascending<(u64, u64)>,
}

impl Default for GraphCheck {
    fn default() -> GraphCheck {
        GraphCheck {
            totals: GraphFileTotals::default(),
            names: Ascending::new("vertices"),
            pairs: Ascending::new("edges"),
        }
    }
}

impl GraphCheck {
    /// A vertex: its ID (`None`: not a whole number), as written (`shown`), and its name.
    pub(crate) fn vertex(
        &mut self,
        id: Option<u64>,
        shown: &str,
        name: &str,
    ) -> Result<(), String> {
        if id != Some(self.totals.vertices) {
            return Err(format!(
                "ID {shown:?} where {} was due",
                self.totals.vertices
            ));
        }
        self.names.next(name.to_owned())?;
        self.totals.vertices += 1;
        Ok(())
    }

    /// An edge's end: a vertex ID (`None`: not a whole number), as written (`shown`).
    pub(crate) fn id(&self, id: Option<u64>, shown: &str) -> Result<u64, String> {
        match id {
            Some(id) if id < self.totals.vertices => Ok(id),
            _ => Err(format!("{shown:?} is no vertex ID")),
        }
    }

    /// An edge between two vertex IDs.
    pub(crate) fn edge(&mut self, s: u64, t: u64) -> Result<(), String> {
        if s == t {
            return Err(format!("a self-loop on {s}"));
        }
        self.pairs.next((s, t))?;
        self.totals.edges += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The graph files of `pairs`, with a sort budget of `budget`.
    fn files(pairs: &[(String, String)], budget: usize, weights: bool) -> (String, String) {
        let mut set = EdgeSet::new(budget, std::env::temp_dir());
        for (s, t) in pairs {
            set.add(s, t, LinkTypes::default(), 1).unwrap();
        }
        let opts = GraphFileOptions {
            weights,
            budget,
            temp_base: std::env::temp_dir(),
            parquet: false,
        };
        let (mut v, mut e) = (Vec::new(), Vec::new());
        write_graph_files(set, &opts, &mut v, &mut e).unwrap();
        (String::from_utf8(v).unwrap(), String::from_utf8(e).unwrap())
    }

    #[test]
    fn the_same_files_in_memory_and_through_runs_on_disk() {
        // 6,000 edges among 500 names: spilled by every sort at 64 KiB each
        let name = |i: u64| format!("org.example.h{}", (i * 7919) % 500);
        let pairs: Vec<_> = (0..6000u64).map(|i| (name(i), name(i / 3 + 1))).collect();
        let small = files(&pairs, 256 << 10, true);
        let large = files(&pairs, 1 << 30, true);
        assert_eq!(small, large);
        // independent of the sorts: the vertices are the sorted names, the edges their IDs
        let mut names: Vec<&str> = pairs
            .iter()
            .flat_map(|(s, t)| [s.as_str(), t.as_str()])
            .collect();
        names.sort();
        names.dedup();
        let want: String = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i}\t{n}\n"))
            .collect();
        assert_eq!(small.0, want);
        let id = |n: &str| names.binary_search(&n).unwrap();
        let mut counts = std::collections::BTreeMap::new();
        for (s, t) in &pairs {
            if s != t {
                *counts.entry((id(s), id(t))).or_insert(0) += 1;
            }
        }
        let want: String = counts
            .iter()
            .map(|((s, t), n)| format!("{s}\t{t}\t{n}\n"))
            .collect();
        assert_eq!(small.1, want);
    }

    #[test]
    fn the_check_fails_on_each_broken_rule() {
        let check = |v: &str, e: &str| {
            check_graph_files(&mut v.as_bytes(), &mut e.as_bytes()).map_err(|e| e.to_string())
        };
        let v = "0\ta\n1\tb\n2\tc\n";
        assert!(check(v, "0\t1\n0\t2\t5\n2\t1\n").is_ok());
        let bad = [
            (
                "0\ta\n2\tb\n",
                "",
                "vertices line 2: ID \"2\" where 1 was due",
            ),
            ("0\tb\n1\tb\n", "", "vertices line 2: vertices not sorted"),
            ("0 a\n", "", "vertices line 1: no tab"),
            (v, "0\t2\n0\t1\n", "edges line 2: edges not sorted"),
            (v, "0\t1\n0\t1\n", "edges line 2: edges not sorted"),
            (v, "1\t1\n", "edges line 1: a self-loop on 1"),
            (v, "0\t3\n", "edges line 1: \"3\" is no vertex ID"),
            (v, "0\n", "edges line 1: \"\" is no vertex ID"),
        ];
        for (vertices, edges, want) in bad {
            let got = check(vertices, edges).unwrap_err();
            assert!(got.contains(want), "{got} / {want}");
        }
    }

    #[test]
    fn written_files_pass_the_check() {
        let name = |i: u64| format!("h{}", (i * 31) % 97);
        let pairs: Vec<_> = (0..500u64).map(|i| (name(i), name(i + 5))).collect();
        let (v, e) = files(&pairs, 1 << 20, false);
        let t = check_graph_files(&mut v.as_bytes(), &mut e.as_bytes()).unwrap();
        assert_eq!(t.vertices as usize, v.lines().count());
        assert_eq!(t.edges as usize, e.lines().count());
    }

    #[test]
    fn an_unsorted_vertex_stream_is_an_error() {
        // `Names` refuses a name it cannot find in order: a check the writer relies on
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v");
        std::fs::write(&path, "a\nb\nc\n").unwrap();
        let mut ids = Names::open(&path).unwrap();
        assert_eq!(ids.id("b").unwrap(), 1);
        assert!(ids.id("a").is_err());
    }
}
