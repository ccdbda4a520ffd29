//! Outlinks of HTML pages by three tokenizers, timed side by side (issue #20, "Finding
//! links" in `docs/decisions.md`):
//!
//! - `linksieve`: `linksieve_scan::html::outlinks` (our streaming tokenizer), the whole page in
//!   one feed, and `linksieve-64k`: the same fed in 64 KiB chunks;
//! - `html5ever`: `html5ever::tokenizer::Tokenizer` (no tree builder) with a sink that switches
//!   it to RCDATA/RAWTEXT/script data/PLAINTEXT after the start tags that do so, as the tree
//!   builder would;
//! - `lol_html`: an `HtmlRewriter` with one element content handler on the elements of the
//!   table (its own tree-builder simulator picks the text states), output discarded, values
//!   decoded with `linksieve_scan::html::decode_attribute` (lol_html hands them over raw).
//!
//! The two peers' attributes go through the same selection rules as linksieve's
//! (`url_attr_kind`, the first `<base href>`, `srcset_urls`, ping tokens, `refresh_url`, ASCII
//! whitespace stripped), so every row does the same work: tokenize, pick, decode, split. Each
//! row's outlinks are counted and hashed (tag, attr, value) so that the rows can be compared.
//!
//! One thread; pages are read into memory first; every implementation runs once as warm-up,
//! then `--rounds` timed passes over all pages, round-robin across implementations; MB/s is
//! the page bytes over the median pass.
//!
//! usage: html_bench [--rounds N] [--dump IMPL] DIR|FILE...
//!        html_bench --random N
//!        (`--dump` prints IMPL's outlinks as `file<TAB>tag<TAB>attr<TAB>value` and exits;
//!        `--random` builds N tag-soup documents from the pieces that move a tokenizer between
//!        its states, with a fixed seed, and counts the documents where an implementation's
//!        outlinks differ from linksieve's; SVG and MathML are left out, as the html5ever row
//!        has no tree builder to know them)

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use linksieve_scan::html::{
    AttrKind, HtmlScanner, decode_attribute, outlinks, refresh_url, srcset_urls, url_attr_kind,
};

/// What one implementation gave for one page.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
struct Tally {
    outlinks: u64,
    hash: u64,
}

struct Collect<'a> {
    tally: Tally,
    dump: Option<&'a mut Vec<(String, String, String)>>,
}

impl Collect<'_> {
    fn add(&mut self, tag: &str, attr: &str, value: &str) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (tag, attr, value).hash(&mut h);
        self.tally.outlinks += 1;
        // order-independent, so that rows differing only in order compare equal
        self.tally.hash = self.tally.hash.wrapping_add(h.finish());
        if let Some(d) = self.dump.as_deref_mut() {
            d.push((tag.to_string(), attr.to_string(), value.to_string()));
        }
    }
}

fn is_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// linksieve's selection rules on a tag a peer tokenized: `attrs` are (lowercase name,
/// decoded value), duplicates already dropped.
fn select(tag: &str, attrs: &[(&str, &str)], base_seen: &mut bool, out: &mut Collect<'_>) {
    let tag = if tag == "image" { "img" } else { tag };
    let get = |n: &str| attrs.iter().find(|a| a.0 == n).map(|a| a.1);
    match tag {
        "base" => {
            if !*base_seen && let Some(h) = get("href") {
                *base_seen = true;
                out.add("base", "href", h.trim_matches(is_ws));
            }
        }
        "meta" => {
            if get("http-equiv").is_some_and(|e| e.eq_ignore_ascii_case("refresh"))
                && let Some(c) = get("content")
                && let Some(r) = refresh_url(c)
            {
                out.add("meta", "content", &c[r]);
            }
        }
        _ => {
            for &(name, value) in attrs {
                match url_attr_kind(tag, name) {
                    Some(AttrKind::Url) => out.add(tag, name, value.trim_matches(is_ws)),
                    Some(AttrKind::Srcset) => {
                        for r in srcset_urls(value) {
                            out.add(tag, name, &value[r]);
                        }
                    }
                    Some(AttrKind::Ping) => {
                        for u in value.split(is_ws).filter(|u| !u.is_empty()) {
                            out.add(tag, name, u);
                        }
                    }
                    Some(AttrKind::Refresh) | None => {}
                }
            }
        }
    }
}

/// The elements of the table (and `image`).
const TAGS: &[&str] = &[
    "a",
    "area",
    "link",
    "base",
    "img",
    "image",
    "input",
    "button",
    "script",
    "iframe",
    "frame",
    "embed",
    "source",
    "track",
    "audio",
    "video",
    "form",
    "object",
    "blockquote",
    "q",
    "del",
    "ins",
    "meta",
];

fn run_linksieve(page: &str, out: &mut Collect<'_>) {
    outlinks(page, |o| out.add(o.tag, o.attr, &o.value));
}

fn run_linksieve_chunked(page: &str, out: &mut Collect<'_>) {
    let mut s = HtmlScanner::new();
    let mut from = 0;
    while from < page.len() {
        let mut to = (from + 65536).min(page.len());
        while !page.is_char_boundary(to) {
            to += 1;
        }
        s.feed(&page[from..to], |o| out.add(o.tag, o.attr, &o.value));
        from = to;
    }
    let _ = s.finish();
}

mod h5e {
    use super::*;
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{
        BufferQueue, StartTag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
    };

    struct Sink<'c, 'd> {
        out: RefCell<&'c mut Collect<'d>>,
        base_seen: RefCell<bool>,
    }

    impl TokenSink for Sink<'_, '_> {
        type Handle = ();

        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let TagToken(tag) = token else {
                return TokenSinkResult::Continue;
            };
            if tag.kind != StartTag {
                return TokenSinkResult::Continue;
            }
            let name: &str = &tag.name;
            if TAGS.contains(&name) {
                let attrs: Vec<(&str, &str)> = tag
                    .attrs
                    .iter()
                    .map(|a| (&*a.name.local, &*a.value))
                    .collect();
                select(
                    name,
                    &attrs,
                    &mut self.base_seen.borrow_mut(),
                    &mut self.out.borrow_mut(),
                );
            }
            match name {
                "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                    TokenSinkResult::RawData(RawKind::Rawtext)
                }
                "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                "plaintext" => TokenSinkResult::Plaintext,
                _ => TokenSinkResult::Continue,
            }
        }
    }

    pub(super) fn run(page: &str, out: &mut Collect<'_>) {
        let sink = Sink {
            out: RefCell::new(out),
            base_seen: RefCell::new(false),
        };
        let tok = Tokenizer::new(sink, Default::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(page));
        let _ = tok.feed(&input);
        tok.end();
    }
}

mod lol {
    use super::*;
    use lol_html::{HtmlRewriter, Settings, element};

    const SELECTOR: &str = "a, area, link, base, img, image, input, button, script, iframe, \
        frame, embed, source, track, audio, video, form, object, blockquote, q, del, ins, meta";

    pub(super) fn run(page: &str, out: &mut Collect<'_>) {
        let out = RefCell::new(out);
        let base_seen = RefCell::new(false);
        let mut rw = HtmlRewriter::new(
            Settings::new().append_element_content_handler(element!(SELECTOR, |el| {
                let tag = el.tag_name();
                let mut names: Vec<String> = Vec::new();
                let mut values: Vec<String> = Vec::new();
                for a in el.attributes() {
                    let n = a.name();
                    // the first of duplicates
                    if !names.contains(&n) {
                        values.push(decode_attribute(&a.value()).into_owned());
                        names.push(n);
                    }
                }
                let attrs: Vec<(&str, &str)> = names
                    .iter()
                    .zip(&values)
                    .map(|(n, v)| (n.as_str(), v.as_str()))
                    .collect();
                select(
                    &tag,
                    &attrs,
                    &mut base_seen.borrow_mut(),
                    &mut out.borrow_mut(),
                );
                Ok(())
            })),
            |_: &[u8]| {},
        );
        let _ = rw.write(page.as_bytes());
        let _ = rw.end();
    }
}

type Impl = (&'static str, fn(&str, &mut Collect<'_>));

const IMPLS: &[Impl] = &[
    ("linksieve", run_linksieve),
    ("linksieve-64k", run_linksieve_chunked),
    ("html5ever", h5e::run),
    ("lol_html", lol::run),
];

/// Pieces of random documents: state changes, and tags that hold links (`{}`: a number).
const SOUP: &[&str] = &[
    "<",
    ">",
    "/",
    "!",
    "-",
    "=",
    "\"",
    "'",
    " ",
    "\n",
    "\r",
    "&",
    ";",
    "#",
    "x",
    "a",
    "\u{e9}",
    "]",
    ",",
    "</a>",
    "<script>",
    "</script>",
    "<script",
    "<!--",
    "-->",
    "--!>",
    "<style>",
    "</style>",
    "<title>",
    "</title>",
    "<textarea>",
    "</textarea>",
    "&amp;",
    "&#x2F;",
    "&copy",
    "<p>",
    "<!DOCTYPE ",
    "<?",
    "</",
    "</script ",
    "<!-",
    "&#",
    "&#128;",
    "&notin",
    "<iframe>",
    "</iframe>",
    "<xmp>",
    "<plaintext>",
    "<![CDATA[",
    "]]>",
    "\0",
];
const TAGS_WITH_LINKS: &[&str] = &[
    "<a href=x{}>",
    "<a href='y{}'>",
    "<img src=\"i{}\" srcset=\"s{} 1x, t{} 2x\">",
    "<A HREF=u{}/>",
    "<link rel=r href=l{}>",
    "<meta http-equiv=refresh content='0;url=m{}'>",
    "<base href=b{}>",
    "<a ping='p{} q{}' href=h{}>",
    "<form action=f{}>",
    "<script src=j{}>",
    "<a href=\"z{}",
    "<a href='w{}",
];

/// `n` documents of up to 80 pieces, from a fixed seed (xorshift64).
fn soup(n: usize) -> Vec<(PathBuf, String)> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    (0..n)
        .map(|i| {
            let mut d = String::new();
            for k in 0..next(81) {
                if next(100) < 35 {
                    d.push_str(
                        &TAGS_WITH_LINKS[next(TAGS_WITH_LINKS.len())].replace("{}", &k.to_string()),
                    );
                } else {
                    d.push_str(SOUP[next(SOUP.len())]);
                }
            }
            (PathBuf::from(format!("random-{i}")), d)
        })
        .collect()
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "html" || e == "htm") {
        out.push(p.to_path_buf());
    }
}

fn main() {
    let mut rounds = 5usize;
    let mut dump: Option<String> = None;
    let mut random: Option<usize> = None;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).unwrap_or(5),
            "--dump" => dump = args.next(),
            "--random" => random = args.next().and_then(|v| v.parse().ok()),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let mut pages: Vec<(PathBuf, String)> = Vec::new();
    let mut not_utf8 = 0;
    for f in files {
        match std::fs::read_to_string(&f) {
            Ok(s) => pages.push((f, s)),
            Err(_) => not_utf8 += 1,
        }
    }
    if let Some(n) = random {
        pages = soup(n);
        let tallies: Vec<Vec<Tally>> = IMPLS
            .iter()
            .map(|&(_, run)| {
                pages
                    .iter()
                    .map(|(_, p)| {
                        let mut c = Collect {
                            tally: Tally::default(),
                            dump: None,
                        };
                        run(p, &mut c);
                        c.tally
                    })
                    .collect()
            })
            .collect();
        let outl: u64 = tallies[0].iter().map(|t| t.outlinks).sum();
        println!("{n} random documents, {outl} outlinks by linksieve");
        for (k, &(name, _)) in IMPLS.iter().enumerate().skip(1) {
            let differ: Vec<usize> = (0..n).filter(|&i| tallies[k][i] != tallies[0][i]).collect();
            println!("{name}: {} documents differ", differ.len());
            for &i in differ.iter().take(3) {
                println!("  {:?}", pages[i].1);
            }
        }
        return;
    }
    let bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    if let Some(name) = dump {
        let Some(&(_, run)) = IMPLS.iter().find(|i| i.0 == name) else {
            eprintln!("html_bench: no implementation {name}");
            std::process::exit(2);
        };
        for (f, page) in &pages {
            let mut rows = Vec::new();
            let mut c = Collect {
                tally: Tally::default(),
                dump: Some(&mut rows),
            };
            run(page, &mut c);
            for (t, a, v) in rows {
                println!("{}\t{t}\t{a}\t{}", f.display(), v.escape_debug());
            }
        }
        return;
    }
    eprintln!(
        "{} pages, {:.1} MB ({not_utf8} not UTF-8, left out), {rounds} rounds",
        pages.len(),
        bytes as f64 / 1e6
    );
    // warm-up, and what each gives per page
    let mut per_page: Vec<Vec<Tally>> = Vec::new();
    for &(_, run) in IMPLS {
        let t: Vec<Tally> = pages
            .iter()
            .map(|(_, p)| {
                let mut c = Collect {
                    tally: Tally::default(),
                    dump: None,
                };
                run(p, &mut c);
                c.tally
            })
            .collect();
        per_page.push(t);
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); IMPLS.len()];
    for _ in 0..rounds {
        for (k, &(_, run)) in IMPLS.iter().enumerate() {
            let t = Instant::now();
            let mut n = 0u64;
            for (_, p) in &pages {
                let mut c = Collect {
                    tally: Tally::default(),
                    dump: None,
                };
                run(std::hint::black_box(p), &mut c);
                n += c.tally.outlinks;
            }
            std::hint::black_box(n);
            times[k].push(t.elapsed().as_secs_f64());
        }
    }
    println!(
        "| implementation | outlinks | pages identical to linksieve | median s | best s | MB/s (median) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (k, &(name, _)) in IMPLS.iter().enumerate() {
        let mut t = times[k].clone();
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        let outl: u64 = per_page[k].iter().map(|t| t.outlinks).sum();
        let same = per_page[k]
            .iter()
            .zip(&per_page[0])
            .filter(|(a, b)| a == b)
            .count();
        println!(
            "| {name} | {outl} | {same}/{} | {median:.3} | {:.3} | {:.1} |",
            pages.len(),
            t[0],
            bytes as f64 / 1e6 / median
        );
    }
}
