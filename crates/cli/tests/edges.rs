//! `run --format edges` (issue 34): the link graph of WARC responses, each (source, target)
//! pair once with its count and link types, sorted, the same for every thread count and memory
//! budget (in memory, or merged from sorted runs on disk). The expected graph is computed here
//! from the links the test wrote, not by linksieve; the real-crawl oracle (wget through a proxy,
//! cc-pyspark's host rules) is `tests/oracles/test_graph.py`.

use crate::common;
use common::{linksieve, run_paths, tempdir, warc_http, warc_response};
use std::collections::BTreeMap;

/// (source, target) -> (count, link types), as the test computes it.
type Graph = BTreeMap<(String, String), (u64, Vec<&'static str>)>;

/// Pages on 37 hosts, each with 20 links to 53 hosts through three elements (and every fourth
/// link repeated as text), and every 50th page's image on a host of its own, and the graph
/// they make: (source, target) -> (count, types). Every response is a node, links or none:
/// a row (url, url, 0, node), as cc-pyspark's self-link of a visited URL.
fn crawl() -> (Vec<u8>, Graph) {
    let mut warc = Vec::new();
    let mut page_edges = Graph::new();
    let mut node =
        |url: &str| page_edges.insert((url.to_owned(), url.to_owned()), (0, vec!["node"]));
    for i in (0..300u64).step_by(50) {
        let image = format!("http://img{i}.example/i.png");
        warc.extend(warc_response(&image, "image/png", b"\x89PNG"));
        node(&image);
    }
    for i in 0..300u64 {
        let page = format!("http://s{}.example/p{i}", i % 37);
        page_edges.insert((page.clone(), page.clone()), (0, vec!["node"]));
        let mut body = String::from("<html><body>");
        for k in 0..20u64 {
            let target = format!("http://t{}.example/x{}", (i * 7 + k) % 53, k % 5);
            let (tag, ty) = match k % 3 {
                0 => (format!("<a href='{target}'>x</a>"), "a"),
                1 => (format!("<img src='{target}'>"), "img"),
                _ => (format!("<script src='{target}'></script>"), "script"),
            };
            body.push_str(&tag);
            let mut add = |ty| {
                let e = page_edges
                    .entry((page.clone(), target.clone()))
                    .or_default();
                e.0 += 1;
                if !e.1.contains(&ty) {
                    e.1.push(ty);
                }
            };
            add(ty);
            if k % 4 == 0 {
                body.push_str(&format!(" see {target} "));
                add("text");
            }
        }
        body.push_str("</body></html>");
        warc.extend(warc_response(&page, "text/html", body.as_bytes()));
    }
    (warc, page_edges)
}

/// The rows `--format edges` writes for `edges`, types in linksieve's order.
fn rows(edges: &Graph) -> String {
    let order = ["a", "img", "script", "text", "node"];
    edges
        .iter()
        .map(|((s, t), (n, types))| {
            let ty: Vec<_> = order
                .iter()
                .filter(|o| types.contains(o))
                .copied()
                .collect();
            format!("{s}\t{t}\t{n}\t{}\n", ty.join(","))
        })
        .collect()
}

/// `http://a.b.example/x` -> `example.b.a` (the test's own reversal).
fn host(url: &str) -> String {
    let host = url.split('/').nth(2).unwrap();
    host.rsplit('.').collect::<Vec<_>>().join(".")
}

#[test]
fn edges_are_each_pair_once_sorted_for_every_thread_count_and_budget() {
    let d = tempdir("edges");
    let (warc, page_edges) = crawl();
    let input = d.join("crawl.warc");
    std::fs::write(&input, warc).unwrap();
    let mut host_edges = Graph::new();
    for ((s, t), (n, types)) in &page_edges {
        let e = host_edges.entry((host(s), host(t))).or_default();
        e.0 += n;
        for ty in types {
            if !e.1.contains(ty) {
                e.1.push(ty);
            }
        }
    }
    for (graph, expected) in [("page", rows(&page_edges)), ("host", rows(&host_edges))] {
        for extra in [
            &["-j1"][..],
            &["-j2", "--chunk-size", "4K"],
            &["-j2", "--memory", "64K"],
        ] {
            let stats = d.join(format!("{graph}-{}.json", extra.join("")));
            let mut args = vec!["--format", "edges", "--graph", graph, "--stats"];
            args.push(stats.to_str().unwrap());
            args.extend_from_slice(extra);
            let (code, out, err) = run_paths(&args, &[&input]);
            assert_eq!(code, 0, "{graph} {extra:?}: {err}");
            assert_eq!(out, expected, "{graph} {extra:?}");
            let s: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            let e = &s["edges"];
            assert_eq!(e["documents"], 300);
            assert_eq!(e["edges"], expected.lines().count());
            let spilled = e["runs"].as_u64().unwrap() > 0;
            // neither 6,000 page edges nor 1,961 host edges fit in 64 KiB; both fit in 512 MiB
            assert_eq!(spilled, extra.contains(&"64K"), "{e}");
        }
    }
}

#[test]
fn host_nodes_follow_common_crawl_and_www_is_kept_or_stripped() {
    let d = tempdir("edges-hosts");
    let body = "<a href='http://WWW.Example.ORG./a'>a</a> <a href='/same-host'>s</a> \
                <a href='http://192.0.2.1/'>ip</a> <a href='http://localhost/'>l</a> \
                <a href='mailto:a@example.net'>m</a> <img src='http://b\u{fc}cher.example/i'>";
    let input = d.join("w.warc");
    std::fs::write(
        &input,
        warc_response("http://www.source.example/p", "text/html", body.as_bytes()),
    )
    .unwrap();
    let (code, keep, err) = run_paths(&["-q", "--format", "edges", "--graph", "host"], &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        keep,
        "example.source.www\texample.source.www\t0\tnode\n\
         example.source.www\texample.xn--bcher-kva\t1\timg\n\
         example.source.www\torg.example.www\t1\ta\n"
    );
    let args = [
        "-q", "--format", "edges", "--graph", "host", "--www", "strip",
    ];
    let (_, strip, _) = run_paths(&args, &[&input]);
    assert_eq!(
        strip,
        "example.source\texample.source\t0\tnode\n\
         example.source\texample.xn--bcher-kva\t1\timg\nexample.source\torg.example\t1\ta\n"
    );
}

#[test]
fn domain_nodes_fold_hosts_by_the_public_suffix_list() {
    let d = tempdir("edges-domains");
    // links from one page of shop.example.co.uk; the expected domains are the list's
    let body = "<a href='http://www.example.co.uk/'>same domain: no edge</a> \
                <a href='http://news.other.co.uk/'>a</a> <a href='http://www.other.co.uk/'>b</a> \
                <img src='https://me.github.io/i'> <img src='https://you.github.io/i'> \
                <a href='http://co.uk/'>a suffix: no node</a> <a href='http://x.internal/'>unknown</a> \
                <script src='http://a.b.c.ck/s.js'></script> <a href='http://WWW.CK./'>exception</a>";
    let input = d.join("w.warc");
    std::fs::write(
        &input,
        warc_response("http://shop.example.co.uk/", "text/html", body.as_bytes()),
    )
    .unwrap();
    let stats = d.join("s.json");
    let args = ["-q", "--format", "edges", "--graph", "domain", "--stats"];
    let (code, out, err) = run_paths(&[&args[..], &[stats.to_str().unwrap()]].concat(), &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "uk.co.example\tck.c.b\t1\tscript\n\
         uk.co.example\tck.www\t1\ta\n\
         uk.co.example\tio.github.me\t1\timg\n\
         uk.co.example\tio.github.you\t1\timg\n\
         uk.co.example\tuk.co.example\t0\tnode\n\
         uk.co.example\tuk.co.other\t2\ta\n"
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    // within the domain, a public suffix, an unknown top-level domain
    assert_eq!(s["edges"]["links_without_edge"], 3, "{s}");
}

/// A crawl's redirects, `Link` fields and robots.txt: a 301 with an HTML body, a 302 without
/// one, a 200 with a `Link` field, and a robots.txt with two sitemaps.
pub(crate) fn record_links_warc() -> Vec<u8> {
    let mut warc = warc_http(
        "http://a.example/old",
        "HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\nContent-Type: text/html\r\n",
        b"<a href='/new'>moved</a>",
    );
    warc.extend(warc_http(
        "http://a.example/new",
        "HTTP/1.1 302 Found\r\nLocation: https://b.example/login?next=%2F\r\n",
        b"",
    ));
    warc.extend(warc_http(
        "http://a.example/page",
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\
         Link: </s.css>; rel=preload, <https://cdn.example/f.woff2>; rel=preload\r\n",
        b"<img src='https://cdn.example/i.png'>",
    ));
    warc.extend(warc_http(
        "http://a.example/robots.txt",
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n",
        b"User-agent: *\nSitemap: https://a.example/sitemap.xml\nSitemap: /news.xml\n",
    ));
    warc
}

#[test]
fn redirects_link_fields_and_sitemaps_are_typed_outlinks() {
    let d = tempdir("edges-records");
    let input = d.join("r.warc");
    std::fs::write(&input, record_links_warc()).unwrap();
    // keys: each resolved against its record's target URI, in input order (a sitemap URL is
    // also in the robots.txt's text: the same key, once)
    let (code, keys, err) = run_paths(&["-q"], &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        keys,
        "http://a.example/new\nhttps://b.example/login?next=%2F\nhttp://a.example/s.css\n\
         https://cdn.example/f.woff2\nhttps://cdn.example/i.png\nhttps://a.example/sitemap.xml\n\
         http://a.example/news.xml\n"
    );
    // --no-record-links: the payloads' links only
    let (_, payloads, _) = run_paths(&["-q", "--no-record-links"], &[&input]);
    assert_eq!(
        payloads,
        "http://a.example/new\nhttps://cdn.example/i.png\nhttps://a.example/sitemap.xml\n"
    );
    // jsonl says where each came from
    let (_, rows, _) = run_paths(&["-q", "--format", "jsonl"], &[&input]);
    let rows: Vec<serde_json::Value> = rows
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let from = |key: &str| {
        let r = rows.iter().find(|r| r["key"] == key).unwrap();
        (r["from"].clone(), r["header"].clone(), r["status"].clone())
    };
    use serde_json::json;
    assert_eq!(
        from("https://b.example/login?next=%2F"),
        (json!("header"), json!("location"), json!(302))
    );
    assert_eq!(
        from("http://a.example/s.css"),
        (json!("header"), json!("link"), json!(null))
    );
    assert_eq!(
        from("http://a.example/news.xml"),
        (json!("sitemap"), json!(null), json!(null))
    );
    // edges: typed by where they came from
    let (code, page, err) = run_paths(&["-q", "--format", "edges"], &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        page,
        "http://a.example/new\thttp://a.example/new\t0\tnode\n\
         http://a.example/new\thttps://b.example/login?next=%2F\t1\tredirect-302\n\
         http://a.example/old\thttp://a.example/new\t2\ta,redirect-301\n\
         http://a.example/old\thttp://a.example/old\t0\tnode\n\
         http://a.example/page\thttp://a.example/page\t0\tnode\n\
         http://a.example/page\thttp://a.example/s.css\t1\tlink-header\n\
         http://a.example/page\thttps://cdn.example/f.woff2\t1\tlink-header\n\
         http://a.example/page\thttps://cdn.example/i.png\t1\timg\n\
         http://a.example/robots.txt\thttp://a.example/news.xml\t1\tsitemap\n\
         http://a.example/robots.txt\thttp://a.example/robots.txt\t0\tnode\n\
         http://a.example/robots.txt\thttps://a.example/sitemap.xml\t1\tsitemap\n"
    );
    let args = ["-q", "--format", "edges", "--graph", "host"];
    let (_, hosts, _) = run_paths(&args, &[&input]);
    assert_eq!(
        hosts,
        "example.a\texample.a\t0\tnode\nexample.a\texample.b\t1\tredirect-302\n\
         example.a\texample.cdn\t2\timg,link-header\n"
    );
    // without record links, every response is still a node (the 302 has no body, no links)
    let args = ["-q", "--format", "edges", "--no-record-links"];
    let (_, page, _) = run_paths(&args, &[&input]);
    assert_eq!(
        page,
        "http://a.example/new\thttp://a.example/new\t0\tnode\n\
         http://a.example/old\thttp://a.example/new\t1\ta\n\
         http://a.example/old\thttp://a.example/old\t0\tnode\n\
         http://a.example/page\thttp://a.example/page\t0\tnode\n\
         http://a.example/page\thttps://cdn.example/i.png\t1\timg\n\
         http://a.example/robots.txt\thttp://a.example/robots.txt\t0\tnode\n"
    );
}

#[test]
fn edge_options_out_of_place_are_usage_errors() {
    for args in [
        &["run", "--graph", "host"][..],
        &["run", "--www", "strip"],
        &["run", "--format", "edges", "--www", "strip"],
        &[
            "run", "--format", "edges", "--graph", "domain", "--www", "keep",
        ],
        &["run", "--format", "edges", "--counts"],
        &["run", "--format", "edges", "--dedup", "spill"],
        &["run", "--format", "edges", "--seen", "/nonexistent/store"],
    ] {
        let r = linksieve(args, "");
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_output_fails_an_edges_run_with_status_4() {
    let d = tempdir("edges-full");
    let input = d.join("p.warc");
    std::fs::write(
        &input,
        warc_response("http://a.example/", "text/html", b"<a href=/b>b</a>"),
    )
    .unwrap();
    let out = common::to_full_output(["run", "-q", "--format", "edges", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
}
