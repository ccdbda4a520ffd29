//! A graph folder (`vertices.txt.gz`, `edges.txt.gz`, or the same as Parquet tables) written
//! whole or not at all, checked, and the edge rows (`source<TAB>target[<TAB>count...]`) a
//! graph is read from.

use crate::edges::{EdgeSet, GraphError};
#[cfg(feature = "parquet")]
use crate::files::GraphRows;
use crate::files::{GraphFileOptions, GraphFileTotals, TextRows, check_graph_files, write_graph};
use crate::types::LinkTypes;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// The vertices file of a graph folder.
pub const VERTICES_FILE: &str = "vertices.txt.gz";
/// The edges file of a graph folder.
pub const EDGES_FILE: &str = "edges.txt.gz";
/// The vertices table of a graph folder written as Parquet: columns `id` (INT64) and `name`
/// (STRING).
pub const VERTICES_PARQUET: &str = "vertices.parquet";
/// The edges table of a graph folder written as Parquet: columns `s` and `t` (INT64), and
/// `count` (INT64) with weights.
pub const EDGES_PARQUET: &str = "edges.parquet";

/// Graph rows into two Parquet tables.
#[cfg(feature = "parquet")]
struct ParquetRows<W: Write> {
    vertices: (linksieve_columnar::Table, W),
    edges: (linksieve_columnar::Table, W),
    weights: bool,
}

#[cfg(feature = "parquet")]
impl<W: Write> ParquetRows<W> {
    fn new(v: W, e: W, weights: bool) -> Result<Self, linksieve_columnar::ColumnarError> {
        use linksieve_columnar::{Column, Table};
        let mut edge_cols = vec![Column::Int("s"), Column::Int("t")];
        if weights {
            edge_cols.push(Column::Int("count"));
        }
        Ok(ParquetRows {
            vertices: (
                Table::new("vertices", &[Column::Int("id"), Column::Str("name")])?,
                v,
            ),
            edges: (Table::new("edges", &edge_cols)?, e),
            weights,
        })
    }

    /// Writes both footers; gives back the writers.
    fn finish(self) -> Result<(W, W), linksieve_columnar::ColumnarError> {
        let (vt, mut v) = self.vertices;
        let (et, mut e) = self.edges;
        vt.finish(&mut v)?;
        et.finish(&mut e)?;
        Ok((v, e))
    }
}

#[cfg(feature = "parquet")]
impl<W: Write> GraphRows for ParquetRows<W> {
    fn vertex(&mut self, id: u64, name: &str) -> io::Result<()> {
        use linksieve_columnar::Value;
        let (t, w) = &mut self.vertices;
        t.push(&[Value::Int(id as i64), Value::Str(name)], w)
            .map_err(io::Error::other)
    }
    fn edge(&mut self, s: u64, t: u64, count: u64) -> io::Result<()> {
        use linksieve_columnar::Value;
        let (table, w) = &mut self.edges;
        let row = [
            Value::Int(s as i64),
            Value::Int(t as i64),
            Value::Int(count as i64),
        ];
        let n = if self.weights { 3 } else { 2 };
        table.push(&row[..n], w).map_err(io::Error::other)
    }
}

/// What [`read_edge_rows`] read.
///
/// ```
/// let t = linksieve_graph::EdgeRows::default();
/// assert_eq!((t.lines, t.rejected.len()), (0, 0));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeRows {
    /// Lines read (empty ones too).
    pub lines: u64,
    /// Lines that are not an edge row: (line number from 1, why).
    pub rejected: Vec<(u64, String)>,
}

/// Adds the edge rows of `r` to `set`: `source<TAB>target`, optionally a count (a whole
/// number, 1 when absent) and more columns (ignored: the types of `run --format edges`, say).
/// An empty line is skipped; a line with one column, an empty name or a count that is no
/// number is rejected (and listed). Names are taken as written.
///
/// ```
/// use linksieve_graph::{EdgeSet, read_edge_rows};
/// let mut set = EdgeSet::new(1 << 20, std::env::temp_dir());
/// let rows = read_edge_rows(&mut &b"a\tb\t2\ta,img\na\tb\nc\n"[..], &mut set).unwrap();
/// assert_eq!((rows.lines, rows.rejected), (3, vec![(3, "no target (one column)".to_owned())]));
/// let mut got = Vec::new();
/// set.finish(|e| Ok(got.push((e.source.to_owned(), e.count)))).unwrap();
/// assert_eq!(got, [("a".to_owned(), 3)]);
/// ```
pub fn read_edge_rows(r: &mut dyn BufRead, set: &mut EdgeSet) -> Result<EdgeRows, GraphError> {
    let mut rows = EdgeRows::default();
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).map_err(GraphError::Input)? == 0 {
            return Ok(rows);
        }
        rows.lines += 1;
        let text = line.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            continue;
        }
        let mut cols = text.split('\t');
        let (source, target) = (cols.next().unwrap_or(""), cols.next());
        let count = match cols.next().map(str::parse::<u64>) {
            None => Ok(1),
            Some(Ok(n)) => Ok(n),
            Some(Err(_)) => Err("a count that is no whole number"),
        };
        let why = match (target, count) {
            (None, _) => "no target (one column)",
            (Some(t), _) if source.is_empty() || t.is_empty() => "an empty name",
            (_, Err(why)) => why,
            (Some(target), Ok(count)) => {
                set.add(source, target, LinkTypes::default(), count)?;
                continue;
            }
        };
        rows.rejected.push((rows.lines, why.to_owned()));
    }
}

/// Writes the graph of `edges` into folder `dir` (made when missing) as
/// [`VERTICES_FILE`] and [`EDGES_FILE`] ([`crate::write_graph_files`], gzip-compressed), or
/// with [`GraphFileOptions::parquet`] as [`VERTICES_PARQUET`] and [`EDGES_PARQUET`], each through
/// a temporary file in the folder renamed at the end: both are replaced whole, or neither is
/// touched. A name in the folder that is not a regular file (a FIFO, a device, a folder) is
/// never replaced: an error before anything is written.
///
/// ```
/// use linksieve_graph::{EdgeSet, GraphFileOptions, check_graph_dir, write_graph_dir};
/// let dir = std::env::temp_dir().join(format!("ls-graph-dir-{}", std::process::id()));
/// let mut set = EdgeSet::new(1 << 20, std::env::temp_dir());
/// set.add("com.a", "org.b", Default::default(), 1).unwrap();
/// let t = write_graph_dir(set, &GraphFileOptions::default(), &dir).unwrap();
/// assert_eq!(check_graph_dir(&dir).unwrap(), t);
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn write_graph_dir(
    edges: EdgeSet,
    opts: &GraphFileOptions,
    dir: &Path,
) -> Result<GraphFileTotals, GraphError> {
    let io_err = |op, path: &Path| {
        let path = path.to_owned();
        move |source| GraphError::Io { op, path, source }
    };
    std::fs::create_dir_all(dir).map_err(io_err("make the graph folder", dir))?;
    let names = if opts.parquet {
        [VERTICES_PARQUET, EDGES_PARQUET]
    } else {
        [VERTICES_FILE, EDGES_FILE]
    };
    for name in names {
        let path = dir.join(name);
        if let Ok(m) = std::fs::symlink_metadata(&path)
            && !m.is_file()
        {
            return Err(GraphError::Io {
                op: "replace",
                path,
                source: io::Error::other("not a regular file: left as it is"),
            });
        }
    }
    let temp = |name: &str| {
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        // files to publish: the mode of any new file (0666 less the umask, as `run --out`
        // gets), not a temporary file's private 0600, which the rename would keep
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        builder
            .tempfile_in(dir)
            .map_err(io_err("make a temporary file in", dir))
    };
    let (vertices, edges_file) = (temp(names[0])?, temp(names[1])?);
    let open = |f: &tempfile::NamedTempFile| -> Result<_, GraphError> {
        let file = f.reopen().map_err(io_err("write", f.path()))?;
        Ok(BufWriter::with_capacity(1 << 16, file))
    };
    let (v, e) = (open(&vertices)?, open(&edges_file)?);
    let (totals, (mut v, mut e)) = if opts.parquet {
        parquet_tables(edges, opts, v, e)?
    } else {
        let gz = |w| flate2::write::GzEncoder::new(w, flate2::Compression::default());
        let (mut v, mut e) = (gz(v), gz(e));
        let mut rows = TextRows::new(&mut v, &mut e, opts.weights);
        let totals = write_graph(edges, opts, &mut rows)?;
        let finished = v.finish().and_then(|v| Ok((v, e.finish()?)));
        (totals, finished.map_err(io_err("write", dir))?)
    };
    for (w, f) in [(&mut v, &vertices), (&mut e, &edges_file)] {
        w.flush()
            .and_then(|()| f.as_file().sync_all())
            .map_err(io_err("write", f.path()))?;
    }
    for (f, name) in [(vertices, names[0]), (edges_file, names[1])] {
        let path = dir.join(name);
        f.persist(&path).map_err(|e| GraphError::Io {
            op: "rename the temporary file to",
            path,
            source: e.error,
        })?;
    }
    Ok(totals)
}

/// The graph of `edges` as two Parquet tables written to `v` and `e`.
#[cfg(feature = "parquet")]
fn parquet_tables<W: Write>(
    edges: EdgeSet,
    opts: &GraphFileOptions,
    v: W,
    e: W,
) -> Result<(GraphFileTotals, (W, W)), GraphError> {
    let parquet = |e: linksieve_columnar::ColumnarError| GraphError::Output(io::Error::other(e));
    let mut rows = ParquetRows::new(v, e, opts.weights).map_err(parquet)?;
    let totals = write_graph(edges, opts, &mut rows)?;
    Ok((totals, rows.finish().map_err(parquet)?))
}

/// Without the `parquet` feature: an error.
#[cfg(not(feature = "parquet"))]
fn parquet_tables<W: Write>(
    _edges: EdgeSet,
    _opts: &GraphFileOptions,
    _v: W,
    _e: W,
) -> Result<(GraphFileTotals, (W, W)), GraphError> {
    Err(GraphError::Output(io::Error::other(
        "this linksieve was built without the `parquet` feature",
    )))
}

/// Checks the graph folder `dir`: [`check_graph_files`] on its two text files (gzip or
/// plain), and the same rules on its Parquet tables ([`VERTICES_PARQUET`], [`EDGES_PARQUET`]:
/// IDs from 0, names strictly increasing, edges between vertices, no self-loop, pairs strictly
/// increasing), whichever layout it holds (both when it holds both); with neither, the text
/// files' absence is the error.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("ls-graph-check-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("vertices.txt.gz"), "0\tb\n1\ta\n").unwrap();
/// std::fs::write(dir.join("edges.txt.gz"), "").unwrap();
/// let e = linksieve_graph::check_graph_dir(&dir).unwrap_err();
/// assert!(e.to_string().contains("not sorted"));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn check_graph_dir(dir: &Path) -> Result<GraphFileTotals, GraphError> {
    let parquet = dir.join(VERTICES_PARQUET).exists();
    if parquet && !dir.join(VERTICES_FILE).exists() {
        return check_parquet(dir);
    }
    let open = |name: &str| -> Result<Box<dyn BufRead>, GraphError> {
        let path = dir.join(name);
        let mut r = BufReader::with_capacity(1 << 16, open_file(&path)?);
        let gzip = r
            .fill_buf()
            .map_err(|source| GraphError::Io {
                op: "read",
                path,
                source,
            })?
            .starts_with(&[0x1f, 0x8b]);
        Ok(if gzip {
            Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(r)))
        } else {
            Box::new(r)
        })
    };
    let totals = check_graph_files(&mut open(VERTICES_FILE)?, &mut open(EDGES_FILE)?)?;
    if parquet {
        check_parquet(dir)?;
    }
    Ok(totals)
}

fn open_file(path: &Path) -> Result<std::fs::File, GraphError> {
    std::fs::File::open(path).map_err(|source| GraphError::Io {
        op: "read",
        path: path.to_owned(),
        source,
    })
}

/// The rules of [`check_graph_files`] on a folder's Parquet tables (`id`, `name`; `s`, `t`).
#[cfg(feature = "parquet")]
fn check_parquet(dir: &Path) -> Result<GraphFileTotals, GraphError> {
    use linksieve_columnar::{Column, ColumnarError, Value, read_table};
    let read = |file: &'static str,
                cols: &[Column],
                each: &mut dyn FnMut(&[Value<'_>]) -> Result<(), String>|
     -> Result<(), GraphError> {
        let path = dir.join(file);
        let rows = read_table(open_file(&path)?, cols, |_, row| each(row));
        rows.map(drop).map_err(|e| match e {
            ColumnarError::Rejected { row, why } => GraphError::InvalidRow { file, row, why },
            e => GraphError::Io {
                op: "read",
                path,
                source: io::Error::other(e),
            },
        })
    };
    let mut check = crate::files::GraphCheck::default();
    let vertex_cols = [Column::Int("id"), Column::Str("name")];
    read(VERTICES_PARQUET, &vertex_cols, &mut |row| match row {
        [Value::Int(id), Value::Str(name)] => {
            check.vertex(u64::try_from(*id).ok(), &id.to_string(), name)
        }
        _ => Err("not an (id, name) row".to_owned()),
    })?;
    read(
        EDGES_PARQUET,
        &[Column::Int("s"), Column::Int("t")],
        &mut |row| match row {
            [Value::Int(s), Value::Int(t)] => {
                let s = check.id(u64::try_from(*s).ok(), &s.to_string())?;
                let t = check.id(u64::try_from(*t).ok(), &t.to_string())?;
                check.edge(s, t)
            }
            _ => Err("not an (s, t) row".to_owned()),
        },
    )?;
    Ok(check.totals)
}

/// Without the `parquet` feature: an error.
#[cfg(not(feature = "parquet"))]
fn check_parquet(_dir: &Path) -> Result<GraphFileTotals, GraphError> {
    Err(GraphError::Input(io::Error::other(
        "this linksieve was built without the `parquet` feature: its Parquet tables are not read",
    )))
}
