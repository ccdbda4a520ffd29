//! Real legacy-encoded text: every file of the chardet test corpus that
//! scripts/fetch-corpora.sh builds (`legacy/<LABEL>/...`) is scanned with its folder's label
//! and with `auto`. Every link must be free of U+FFFD and parse as an IRI (linksieve_iri), and
//! the same links must come out of the file converted to UTF-8 first (with NFC, the normalizing
//! transcoder of RFC 3987 3.1 variant B).
//!
//! The corpus is not in the repository (its publishers hold the copyright): scripts/test.sh
//! builds it and sets LINKSIEVE_CORPORA. Without that variable this test fails.

use std::path::{Path, PathBuf};

use linksieve_iri::{InputMode, IriRef, parse_input};
use linksieve_scan::{
    Encoding, EncodingChoice, Hit, LinkKind, ScanOptions, encoding_for_label, scan_bytes,
};

fn corpora() -> PathBuf {
    match std::env::var_os("LINKSIEVE_CORPORA") {
        Some(p) => PathBuf::from(p),
        None => panic!(
            "LINKSIEVE_CORPORA is not set: run scripts/test.sh, which builds the corpora with \
             scripts/fetch-corpora.sh and sets it (or set it to a folder that script has built)"
        ),
    }
}

/// The WHATWG encoding for a chardet folder name, or why there is none.
fn folder_encoding(folder: &str) -> Result<&'static Encoding, &'static str> {
    let alias = match folder.to_ascii_lowercase().as_str() {
        // names chardet uses that are not WHATWG labels, for encodings WHATWG has
        "cp932" => "windows-31j",
        "cp949" => "windows-949",
        "macroman" => "macintosh",
        "maccyrillic" => "x-mac-cyrillic",
        "utf-8-sig" => "utf-8",
        "euc-tw" | "johab" | "ibm855" => return Err("no WHATWG decoder for this encoding"),
        "utf-32" | "utf-32be" | "utf-32le" => return Err("UTF-32 is not a WHATWG encoding"),
        _ => "",
    };
    if !alias.is_empty() {
        return encoding_for_label(alias).map_err(|_| "alias unknown");
    }
    if let Ok(e) = encoding_for_label(folder) {
        return Ok(e);
    }
    // `iso-8859-2-czech`, `windows-1251-russian`: the label without the language
    let base = folder.rsplit_once('-').map(|(b, _)| b).unwrap_or(folder);
    encoding_for_label(base).map_err(|_| "unknown label")
}

fn opts(enc: EncodingChoice) -> ScanOptions {
    ScanOptions {
        encoding: enc,
        schemeless: true,
        email: true,
        ..ScanOptions::default()
    }
}

/// The link as an IRI reference the IRI parser can check: bare hosts get `http://`, bare
/// IPv6 addresses brackets, bare e-mail addresses `mailto:`.
fn as_iri(h: &Hit) -> String {
    match h.kind {
        LinkKind::Scheme | LinkKind::Opaque => h.text.clone(),
        LinkKind::Bare => format!("http://{}", h.text),
        LinkKind::Ip if h.text.contains(':') => format!("http://[{}]", h.text),
        LinkKind::Ip => format!("http://{}", h.text),
        LinkKind::Email => format!("mailto:{}", h.text),
    }
}

/// Checks every link: no U+FFFD, and it parses as an IRI (3987bis 2.2), or else as a LEIRI
/// (6.1: `{}|^` and the like, percent-encoded on the way to an IRI), or else as a Web Address
/// (6.2, WHATWG: `[]` in a path or query, a second `#`). The scanner keeps such characters, as
/// the peer suites and browsers do; the IRI crate maps them. Returns the counts of links that
/// needed the LEIRI and the Web Address reading.
fn check_links(path: &Path, how: &str, hits: &[Hit], bad: &mut Vec<String>) -> (usize, usize) {
    let (mut leiri, mut web) = (0, 0);
    for h in hits {
        if h.text.contains('\u{fffd}') {
            bad.push(format!(
                "{} ({how}): U+FFFD in {:?}",
                path.display(),
                h.text
            ));
        }
        let iri = as_iri(h);
        if IriRef::parse(&iri).is_ok() {
            continue;
        }
        if parse_input(&iri, InputMode::Leiri).is_ok() {
            leiri += 1;
        } else if parse_input(&iri, InputMode::Web).is_ok() {
            web += 1;
        } else {
            bad.push(format!(
                "{} ({how}): not an IRI, LEIRI or Web Address: {:?}",
                path.display(),
                iri
            ));
        }
    }
    (leiri, web)
}

#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn legacy_corpus() {
    use unicode_normalization::UnicodeNormalization;
    let root = corpora().join("legacy");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run scripts/test.sh to build the corpora)",
                root.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(
        folders.len() >= 40,
        "expected the chardet corpus in {}",
        root.display()
    );
    let mut bad = Vec::new();
    let (
        mut files,
        mut labelled,
        mut links_label,
        mut links_auto,
        mut legacy_links,
        mut nfc_changed,
    ) = (0, 0, 0, 0, 0, 0);
    let mut skipped = Vec::new();
    let (mut leiri, mut web) = (0, 0);
    for folder in &folders {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let enc = folder_encoding(&name);
        if let Err(why) = enc {
            skipped.push(format!("{name}: {why}"));
        }
        let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            files += 1;
            // auto
            let auto = scan_bytes(&bytes, &opts(EncodingChoice::Auto));
            let (l, w) = check_links(&path, "auto", &auto.hits, &mut bad);
            leiri += l;
            web += w;
            links_auto += auto.hits.len();
            let Ok(enc) = enc else { continue };
            labelled += 1;
            let r = scan_bytes(&bytes, &opts(EncodingChoice::Fixed(enc)));
            let (l, w) = check_links(&path, enc.name(), &r.hits, &mut bad);
            leiri += l;
            web += w;
            links_label += r.hits.len();
            legacy_links += r.hits.iter().filter(|h| h.from_legacy).count();
            nfc_changed += r.hits.iter().filter(|h| h.nfc_changed).count();
            // offsets point at the link in the original bytes
            for h in &r.hits {
                let raw = &bytes[h.start as usize..h.end as usize];
                let (dec, _) = r.encoding.decode_without_bom_handling(raw);
                let dec: String = if h.from_legacy {
                    dec.nfc().collect()
                } else {
                    dec.into_owned()
                };
                if dec != h.text && !h.trimmed.line_breaks && !h.trimmed.json_escapes {
                    bad.push(format!(
                        "{}: range {}..{} decodes to {:?}, link {:?}",
                        path.display(),
                        h.start,
                        h.end,
                        dec,
                        h.text
                    ));
                }
            }
            // converted to UTF-8 first (a BOM is handled the same way: WHATWG decode)
            let (text, used, _) = enc.decode(&bytes);
            let text: String = if r.hits.first().is_some_and(|h| h.from_legacy)
                || !matches!(used.name(), "UTF-8" | "UTF-16LE" | "UTF-16BE")
            {
                text.nfc().collect()
            } else {
                text.into_owned()
            };
            let utf8 = scan_bytes(
                text.as_bytes(),
                &opts(EncodingChoice::Fixed(
                    encoding_for_label("utf-8").expect("utf-8"),
                )),
            );
            let a: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
            let b: Vec<&str> = utf8.hits.iter().map(|h| h.text.as_str()).collect();
            if a != b {
                let first = a
                    .iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                bad.push(format!(
                    "{}: {} links from {}, {} from UTF-8; first difference at {first}: {:?} vs {:?}",
                    path.display(),
                    a.len(),
                    enc.name(),
                    b.len(),
                    a.get(first),
                    b.get(first)
                ));
            }
        }
    }
    println!(
        "legacy corpus: {files} files in {} folders; {labelled} scanned with their label ({links_label} links, {legacy_links} from non-Unicode text, {nfc_changed} changed by NFC), all {files} with auto ({links_auto} links)",
        folders.len()
    );
    println!("no label scan for: {}", skipped.join("; "));
    println!("links (both scans) that are LEIRIs but not IRIs: {leiri}; Web Addresses only: {web}");
    assert!(
        files >= 400 && links_label >= 10_000,
        "{files} files, {links_label} links"
    );
    assert!(
        bad.is_empty(),
        "{} problem(s):\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
