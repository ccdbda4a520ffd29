//! `linksieve graph` (issue 34): edge rows into `vertices.txt.gz` and `edges.txt.gz` as Common
//! Crawl publishes its graphs, and `--check` of such a folder. The expected files are computed
//! here from the rows (names sorted, IDs by position, edges as ID pairs sorted, self-loops
//! left out), and read back with flate2, not with linksieve.

use crate::common;
use common::{linksieve, tempdir};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// The text of a gzip file.
fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// Rows over 400 host names (some pairs repeated, some self-loops), and the files they make:
/// (vertices, edges with weights).
fn rows_and_files() -> (String, String, String) {
    let name = |i: u64| format!("org.example.h{}", (i * 7919) % 400);
    let mut rows = String::new();
    let mut pairs = BTreeMap::new();
    for i in 0..5000u64 {
        let (s, t) = (name(i), name(i / 2 + i % 3));
        let n = 1 + i % 4;
        rows.push_str(&format!("{s}\t{t}\t{n}\ta,img\n"));
        *pairs.entry((s, t)).or_insert(0) += n;
    }
    let names: Vec<&String> = pairs
        .keys()
        .flat_map(|(s, t)| [s, t])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let vertices: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{i}\t{n}\n"))
        .collect();
    let id = |n: &String| names.binary_search(&n).unwrap();
    let edges: BTreeMap<(usize, usize), u64> = pairs
        .iter()
        .filter(|((s, t), _)| s != t)
        .map(|((s, t), n)| ((id(s), id(t)), *n))
        .collect();
    let edges = edges
        .iter()
        .map(|((s, t), n)| format!("{s}\t{t}\t{n}\n"))
        .collect();
    (rows, vertices, edges)
}

#[test]
fn graph_files_are_common_crawls_layout_in_memory_and_spilled() {
    let d = tempdir("graph-files");
    let (rows, vertices, weighted) = rows_and_files();
    let plain: String = weighted
        .lines()
        .map(|l| l.rsplit_once('\t').unwrap().0.to_owned() + "\n")
        .collect();
    for memory in ["512M", "64K"] {
        let out = d.join(format!("g-{memory}"));
        let out_s = out.to_str().unwrap();
        let r = linksieve(&["graph", "--out", out_s, "--memory", memory], &rows);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(gunzip(&out.join("vertices.txt.gz")), vertices, "{memory}");
        assert_eq!(gunzip(&out.join("edges.txt.gz")), plain, "{memory}");
        assert!(
            r.stderr.contains("5000 lines read, 0 rejected"),
            "{}",
            r.stderr
        );
        let r = linksieve(&["graph", "--check", out_s], "");
        assert_eq!(r.code, 0, "{}", r.stderr);
        // again with weights, over the same folder (both files replaced)
        let r = linksieve(
            &[
                "graph",
                "-q",
                "--weights",
                "--out",
                out_s,
                "--memory",
                memory,
            ],
            &rows,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(gunzip(&out.join("edges.txt.gz")), weighted, "{memory}");
        let names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
        // the files get the mode of any new file there (the umask's), not a temporary
        // file's 0600
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            let plain = d.join(format!("plain-{memory}"));
            std::fs::write(&plain, "").unwrap();
            for name in ["vertices.txt.gz", "edges.txt.gz"] {
                assert_eq!(mode(&out.join(name)), mode(&plain), "{name}");
            }
        }
    }
}

#[test]
fn the_check_fails_on_unsorted_files() {
    let d = tempdir("graph-check");
    let write = |v: &str, e: &str| {
        let dir = d.join(format!("c{}", v.len() + e.len()));
        std::fs::create_dir_all(&dir).unwrap();
        let gz = |name: &str, text: &str| {
            let mut w = flate2::write::GzEncoder::new(
                std::fs::File::create(dir.join(name)).unwrap(),
                flate2::Compression::fast(),
            );
            std::io::Write::write_all(&mut w, text.as_bytes()).unwrap();
            w.finish().unwrap();
        };
        gz("vertices.txt.gz", v);
        gz("edges.txt.gz", e);
        dir
    };
    let check = |dir: &Path| linksieve(&["graph", "--check", dir.to_str().unwrap()], "");
    let ok = write("0\tcom.a\n1\tcom.b\n2\torg.a\n", "0\t2\n1\t0\n1\t2\n");
    assert_eq!(check(&ok).code, 0);
    // a release published unsorted (cc-webgraph #34): vertices, then edges
    let r = check(&write("0\tcom.b\n1\tcom.a\n", ""));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("vertices line 2: vertices not sorted"),
        "{}",
        r.stderr
    );
    let r = check(&write("0\tcom.a\n1\tcom.b\n2\torg.a\n", "1\t0\n0\t2\n"));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("edges line 2: edges not sorted"),
        "{}",
        r.stderr
    );
    // a missing folder
    assert_eq!(check(&d.join("none")).code, 1);
}

#[test]
fn rejected_rows_and_unreadable_inputs_exit_1_and_the_files_are_still_written() {
    let d = tempdir("graph-rejects");
    let out = d.join("g");
    let rows = "com.a\tcom.b\nlonely\n\ncom.a\tcom.b\tmany\ncom.b\tcom.a\t2\n";
    let input = d.join("rows.tsv");
    std::fs::write(&input, rows).unwrap();
    let args = [
        "graph",
        "--out",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
        "/nonexistent/rows",
    ];
    let r = linksieve(&args, "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("rows.tsv:2: no target (one column)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("rows.tsv:4: a count that is no whole number"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("/nonexistent/rows"), "{}", r.stderr);
    assert_eq!(gunzip(&out.join("edges.txt.gz")), "0\t1\n1\t0\n");
}

#[cfg(unix)]
#[test]
fn a_fifo_in_the_folder_is_never_replaced_and_usage_errors_exit_2() {
    let d = tempdir("graph-fifo");
    let out = d.join("g");
    std::fs::create_dir_all(&out).unwrap();
    let fifo = out.join("edges.txt.gz");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let r = linksieve(&["graph", "--out", out.to_str().unwrap()], "a.b\tc.d\n");
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(!out.join("vertices.txt.gz").exists());
    for args in [
        &["graph"][..],
        &["graph", "--check", "x", "--out", "y"],
        &["graph", "--out", "y", "--memory", "1K"],
    ] {
        assert_eq!(linksieve(args, "").code, 2, "{args:?}");
    }
}

#[test]
fn run_edges_piped_into_graph_gives_the_host_graph() {
    let d = tempdir("graph-run");
    let page = |i: u64| {
        let body = format!(
            "<a href='http://h{}.example.org/'>x</a> <a href='http://h{}.example.org/'>y</a>",
            i % 7,
            (i + 3) % 11
        );
        common::warc_response(
            &format!("http://h{}.example.org/p{i}", i % 5),
            "text/html",
            body.as_bytes(),
        )
    };
    let warc: Vec<u8> = (0..40).flat_map(page).collect();
    let input = d.join("c.warc");
    std::fs::write(&input, warc).unwrap();
    let (code, edges, err) =
        common::run_paths(&["-q", "--format", "edges", "--graph", "host"], &[&input]);
    assert_eq!(code, 0, "{err}");
    let out = d.join("g");
    let r = linksieve(&["graph", "-q", "--out", out.to_str().unwrap()], &edges);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // the test's own graph: hosts h0..h10, reversed, sorted; an edge for each different pair
    let host = |n: u64| format!("org.example.h{n}");
    let mut names: Vec<String> = (0..11).map(host).collect();
    names.sort();
    let id = |n: u64| names.iter().position(|x| *x == host(n)).unwrap();
    let mut want = BTreeSet::new();
    for i in 0..40u64 {
        for t in [i % 7, (i + 3) % 11] {
            if t != i % 5 {
                want.insert((id(i % 5), id(t)));
            }
        }
    }
    let got: BTreeSet<(usize, usize)> = gunzip(&out.join("edges.txt.gz"))
        .lines()
        .map(|l| {
            let (s, t) = l.split_once('\t').unwrap();
            (s.parse().unwrap(), t.parse().unwrap())
        })
        .collect();
    assert_eq!(got, want);
    let vertices: Vec<String> = gunzip(&out.join("vertices.txt.gz"))
        .lines()
        .map(|l| l.split_once('\t').unwrap().1.to_owned())
        .collect();
    assert_eq!(vertices, names);
}
