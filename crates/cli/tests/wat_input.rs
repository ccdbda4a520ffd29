//! WAT files (issue 34): Common Crawl's JSON metadata records read as the links they list,
//! resolved against the page's `<base>` or address, keyed and typed like a document's
//! attributes. The expected keys are written here by hand from the JSON.

use crate::common;
use common::{run_paths, tempdir};

/// A WAT `metadata` record holding `json`.
fn wat_record(target: &str, json: &str) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        json.len()
    )
    .into_bytes();
    r.extend_from_slice(json.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn wat() -> Vec<u8> {
    let page = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://www.a.example/dir/p"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Response-Message":{"Status":"200"},"Headers":{"Link":"<https://cdn.example/f.woff2>; rel=preload"},"HTML-Metadata":{"Head":{"Base":"/base/","Link":[{"path":"LINK@/href","url":"s.css","rel":"stylesheet"}],"Scripts":[{"path":"SCRIPT@/src","url":"//cdn.example/j.js"}]},"Links":[{"path":"A@/href","url":"../up.html"},{"path":"A@/href","url":"javascript:void(0)"},{"path":"IMG@/src","url":"https://img.example/i.png"},{"path":"A@/href","url":"https://img.example/page"}]}}}}}"#;
    let redirect = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://www.a.example/old"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Response-Message":{"Status":"308"},"Headers":{"Location":"https://b.example/new"}}}}}"#;
    // a response without HTTP metadata is a node all the same (cc-pyspark's self-link); a
    // request is none
    let bare = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://lonely.example/"},"Payload-Metadata":{}}}"#;
    let request = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"request","WARC-Target-URI":"http://request.example/"},"Payload-Metadata":{}}}"#;
    let mut w = wat_record("http://www.a.example/dir/p", page);
    w.extend(wat_record("http://www.a.example/old", redirect));
    w.extend(wat_record("http://lonely.example/", bare));
    w.extend(wat_record("http://request.example/", request));
    w
}

#[test]
fn wat_links_are_keyed_against_the_pages_base_and_typed() {
    let d = tempdir("wat");
    let input = d.join("x.wat");
    std::fs::write(&input, wat()).unwrap();
    let (code, keys, err) = run_paths(&["-q"], &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        keys,
        "https://cdn.example/f.woff2\nhttp://www.a.example/base/s.css\nhttp://cdn.example/j.js\n\
         http://www.a.example/up.html\nhttps://img.example/i.png\nhttps://img.example/page\n\
         https://b.example/new\n"
    );
    let (_, rows, _) = run_paths(&["-q", "--format", "jsonl"], &[&input]);
    let first: serde_json::Value = serde_json::from_str(rows.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (&first["from"], &first["tag"], &first["attr"], &first["rel"]),
        (
            &serde_json::json!("attribute"),
            &serde_json::json!("link"),
            &serde_json::json!("href"),
            &serde_json::json!("stylesheet")
        )
    );
    let stats = d.join("s.json");
    let args = ["-q", "--format", "edges", "--graph", "host", "--stats"];
    let (code, edges, err) =
        run_paths(&[&args[..], &[stats.to_str().unwrap()]].concat(), &[&input]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        edges,
        "example.a.www\texample.a.www\t0\tnode\n\
         example.a.www\texample.b\t1\tredirect-308\n\
         example.a.www\texample.cdn\t2\tscript,link-header\n\
         example.a.www\texample.img\t2\ta,img\n\
         example.lonely\texample.lonely\t0\tnode\n"
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    // the page is a document; the redirect's record is not
    assert_eq!(s["edges"]["documents"], 1, "{s}");
    assert_eq!(s["record_links"]["wat"], 6, "{s}");
    assert_eq!(s["record_links"]["not_keyed"], 1, "{s}");
}
