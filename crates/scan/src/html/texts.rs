//! The text of elements as lxml gives it (XPath `string()`, what Scrapy's link extractor takes
//! as a link's text): libxml2 2.14's HTML parser, whose tokenizer follows HTML5 and whose tree
//! construction is still that of its HTML 4 parser (`HTMLparser.c`): an element is closed by
//! the start tags of its `htmlStartClose` table (`<td>` closes `<a>`, `<div>` closes `<p>`,
//! ... but only while it is the current element), by an end tag of an element below it when
//! no element of a higher `htmlEndPriority` lies between, and by `/>` (also that of a
//! misplaced `html`, `head` or `body` tag, which closes the current element); `html`, `head`
//! and `body` are implied; an end tag of no open element is ignored; void elements take no
//! text.
//! The table below is libxml2's (MIT licence).

use memchr::memchr;

use super::charref;

/// `htmlStartClose` of libxml2 2.14.6 `HTMLparser.c`: (element, start tag that closes it),
/// sorted.
#[rustfmt::skip]
const START_CLOSE: &[(&str, &str)] = &[
    ("a", "a"), ("a", "fieldset"), ("a", "table"), ("a", "td"), ("a", "th"), ("address", "dd"),
    ("address", "dl"), ("address", "dt"), ("address", "form"), ("address", "li"),
    ("address", "ul"), ("b", "center"), ("b", "p"), ("b", "td"), ("b", "th"), ("big", "p"),
    ("caption", "col"), ("caption", "colgroup"), ("caption", "tbody"), ("caption", "tfoot"),
    ("caption", "thead"), ("caption", "tr"), ("col", "col"), ("col", "colgroup"), ("col", "tbody"),
    ("col", "tfoot"), ("col", "thead"), ("col", "tr"), ("colgroup", "colgroup"),
    ("colgroup", "tbody"), ("colgroup", "tfoot"), ("colgroup", "thead"), ("colgroup", "tr"),
    ("dd", "dt"), ("dir", "dd"), ("dir", "dl"), ("dir", "dt"), ("dir", "form"), ("dir", "ul"),
    ("dl", "form"), ("dl", "li"), ("dt", "dd"), ("dt", "dl"), ("font", "center"), ("font", "td"),
    ("font", "th"), ("form", "form"), ("h1", "fieldset"), ("h1", "form"), ("h1", "li"),
    ("h1", "p"), ("h1", "table"), ("h2", "fieldset"), ("h2", "form"), ("h2", "li"), ("h2", "p"),
    ("h2", "table"), ("h3", "fieldset"), ("h3", "form"), ("h3", "li"), ("h3", "p"),
    ("h3", "table"), ("h4", "fieldset"), ("h4", "form"), ("h4", "li"), ("h4", "p"),
    ("h4", "table"), ("h5", "fieldset"), ("h5", "form"), ("h5", "li"), ("h5", "p"),
    ("h5", "table"), ("h6", "fieldset"), ("h6", "form"), ("h6", "li"), ("h6", "p"),
    ("h6", "table"), ("head", "a"), ("head", "abbr"), ("head", "acronym"), ("head", "address"),
    ("head", "b"), ("head", "bdo"), ("head", "big"), ("head", "blockquote"), ("head", "body"),
    ("head", "br"), ("head", "center"), ("head", "cite"), ("head", "code"), ("head", "dd"),
    ("head", "dfn"), ("head", "dir"), ("head", "div"), ("head", "dl"), ("head", "dt"),
    ("head", "em"), ("head", "fieldset"), ("head", "font"), ("head", "form"), ("head", "frameset"),
    ("head", "h1"), ("head", "h2"), ("head", "h3"), ("head", "h4"), ("head", "h5"), ("head", "h6"),
    ("head", "hr"), ("head", "i"), ("head", "iframe"), ("head", "img"), ("head", "kbd"),
    ("head", "li"), ("head", "listing"), ("head", "map"), ("head", "menu"), ("head", "ol"),
    ("head", "p"), ("head", "pre"), ("head", "q"), ("head", "s"), ("head", "samp"),
    ("head", "small"), ("head", "span"), ("head", "strike"), ("head", "strong"), ("head", "sub"),
    ("head", "sup"), ("head", "table"), ("head", "tt"), ("head", "u"), ("head", "ul"),
    ("head", "var"), ("head", "xmp"), ("hr", "form"), ("i", "center"), ("i", "p"), ("i", "td"),
    ("i", "th"), ("legend", "fieldset"), ("li", "li"), ("link", "body"), ("link", "frameset"),
    ("listing", "dd"), ("listing", "dl"), ("listing", "dt"), ("listing", "fieldset"),
    ("listing", "form"), ("listing", "li"), ("listing", "table"), ("listing", "ul"),
    ("menu", "dd"), ("menu", "dl"), ("menu", "dt"), ("menu", "form"), ("menu", "ul"),
    ("ol", "form"), ("option", "optgroup"), ("option", "option"), ("p", "address"),
    ("p", "blockquote"), ("p", "body"), ("p", "caption"), ("p", "center"), ("p", "col"),
    ("p", "colgroup"), ("p", "dd"), ("p", "dir"), ("p", "div"), ("p", "dl"), ("p", "dt"),
    ("p", "fieldset"), ("p", "form"), ("p", "frameset"), ("p", "h1"), ("p", "h2"), ("p", "h3"),
    ("p", "h4"), ("p", "h5"), ("p", "h6"), ("p", "head"), ("p", "hr"), ("p", "li"),
    ("p", "listing"), ("p", "menu"), ("p", "ol"), ("p", "p"), ("p", "pre"), ("p", "table"),
    ("p", "tbody"), ("p", "td"), ("p", "tfoot"), ("p", "th"), ("p", "title"), ("p", "tr"),
    ("p", "ul"), ("p", "xmp"), ("pre", "dd"), ("pre", "dl"), ("pre", "dt"), ("pre", "fieldset"),
    ("pre", "form"), ("pre", "li"), ("pre", "table"), ("pre", "ul"), ("s", "p"),
    ("script", "noscript"), ("small", "p"), ("span", "td"), ("span", "th"), ("strike", "p"),
    ("style", "body"), ("style", "frameset"), ("tbody", "tbody"), ("tbody", "tfoot"),
    ("td", "tbody"), ("td", "td"), ("td", "tfoot"), ("td", "th"), ("td", "tr"), ("tfoot", "tbody"),
    ("th", "tbody"), ("th", "td"), ("th", "tfoot"), ("th", "th"), ("th", "tr"), ("thead", "tbody"),
    ("thead", "tfoot"), ("title", "body"), ("title", "frameset"), ("tr", "tbody"), ("tr", "tfoot"),
    ("tr", "tr"), ("tt", "p"), ("u", "p"), ("u", "td"), ("u", "th"), ("ul", "address"),
    ("ul", "form"), ("ul", "menu"), ("ul", "pre"), ("xmp", "dd"), ("xmp", "dl"), ("xmp", "dt"),
    ("xmp", "fieldset"), ("xmp", "form"), ("xmp", "li"), ("xmp", "table"), ("xmp", "ul"),
];

/// `htmlEndPriority`: an end tag closes no element of a higher priority on its way.
fn end_priority(name: &str) -> u8 {
    match name {
        "div" => 150,
        "td" | "th" => 160,
        "tr" => 170,
        "thead" | "tbody" | "tfoot" => 180,
        "table" => 190,
        "head" | "body" => 200,
        "html" => 220,
        _ => 100,
    }
}

/// The elements libxml2's table marks empty: no content, closed by their start tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "br"
            | "col"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "isindex"
            | "link"
            | "meta"
            | "param"
    )
}

/// How the content of an element is tokenized (HTML5; libxml2's `dataMode`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Content {
    Rcdata,
    Rawtext,
    Plaintext,
}

fn content(name: &str) -> Option<Content> {
    match name {
        "title" | "textarea" => Some(Content::Rcdata),
        "iframe" | "noembed" | "noframes" | "script" | "style" | "xmp" => Some(Content::Rawtext),
        "plaintext" => Some(Content::Plaintext),
        _ => None,
    }
}

/// The open elements, their names lowercase one after another in one string.
#[derive(Default)]
struct Stack {
    names: String,
    ends: Vec<usize>,
    /// `html`, `head`, `body` start tags dropped as misplaced (their end tags are then too).
    discarded: usize,
    /// A `head`, a `body` was opened (libxml2's insertion mode).
    had_head: bool,
    had_body: bool,
    /// An end tag closed the root element (`</html>`): libxml2 puts what follows in further
    /// root elements, outside the tree that `getroot()` (and Scrapy) reads.
    root_closed: bool,
}

impl Stack {
    fn len(&self) -> usize {
        self.ends.len()
    }
    fn name(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.names[start..self.ends[i]]
    }
    fn top(&self) -> Option<&str> {
        self.len().checked_sub(1).map(|i| self.name(i))
    }
    fn contains(&self, name: &str) -> bool {
        (0..self.len()).any(|i| self.name(i) == name)
    }
    fn push(&mut self, name: &str) {
        self.had_head |= name == "head";
        self.had_body |= name == "body";
        self.names.push_str(name);
        self.ends.push(self.names.len());
    }
    fn truncate(&mut self, len: usize) {
        self.ends.truncate(len);
        self.names.truncate(self.ends.last().copied().unwrap_or(0));
    }
}

/// The elements whose text is asked for and is being gathered.
struct Texts {
    /// The offsets asked for, in ascending order, with their place in the answer.
    wanted: Vec<(usize, usize)>,
    next: usize,
    /// (stack depth of the element, place in the answer, its text so far)
    open: Vec<(usize, usize, String)>,
    out: Vec<Option<String>>,
    reps: Vec<charref::Rep>,
}

/// Raw text as HTML's input stream gives it: CR LF and CR as LF.
fn newlines(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains('\r') {
        return std::borrow::Cow::Borrowed(raw);
    }
    std::borrow::Cow::Owned(raw.replace("\r\n", "\n").replace('\r', "\n"))
}

impl Texts {
    fn text(&mut self, raw: &str, decode: bool) {
        if self.open.is_empty() || raw.is_empty() {
            return;
        }
        let t = if decode {
            charref::decode_text(raw, &mut self.reps)
        } else {
            newlines(raw)
        };
        for (_, _, s) in &mut self.open {
            s.push_str(&t);
        }
    }
    /// The elements above depth `len` are closed: their texts are done.
    fn closed(&mut self, len: usize) {
        while let Some((depth, _, _)) = self.open.last() {
            if *depth <= len {
                break;
            }
            if let Some((_, at, s)) = self.open.pop() {
                self.out[at] = Some(s);
            }
        }
    }
    /// The places asked for within `lt..=gt` (a start tag).
    fn asked(&mut self, lt: usize, gt: usize, mut f: impl FnMut(usize)) {
        while let Some(&(off, at)) = self.wanted.get(self.next) {
            if off > gt {
                break;
            }
            if off >= lt {
                f(at);
            }
            self.next += 1;
        }
    }
}

/// The text of the element whose start tag holds each offset of `within` (the element's
/// text nodes, in document order, character references decoded, as lxml's `string()` gives it:
/// see the module's notes), or `None` for an offset in no start tag, in one libxml2 drops, or
/// in an element after `</html>` closed the root element (libxml2 starts another root element
/// there, which is not in the tree of the document's root: Scrapy reads no link of it).
///
/// ```
/// use linksieve_scan::html::element_texts;
/// let page = "<p><a href=x>one <b>two</b></a> <a href=y>three<td>four</a>";
/// let t = element_texts(page, &[9, 40]);
/// assert_eq!(t, [Some("one two".to_owned()), Some("three".to_owned())]);
/// ```
pub fn element_texts(html: &str, within: &[usize]) -> Vec<Option<String>> {
    let mut wanted: Vec<(usize, usize)> = within.iter().copied().zip(0..).collect();
    wanted.sort_unstable();
    let mut t = Texts {
        wanted,
        next: 0,
        open: Vec::new(),
        out: vec![None; within.len()],
        reps: Vec::new(),
    };
    let mut st = Stack::default();
    let mut name = String::new();
    let b = html.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let lt = memchr(b'<', &b[i..]).map_or(b.len(), |k| i + k);
        if lt > i {
            char_data(&mut st, &mut t, &html[i..lt]);
            t.text(&html[i..lt], true);
        }
        if lt >= b.len() {
            break;
        }
        i = match b.get(lt + 1) {
            Some(b'/') => end_tag(&mut st, &mut t, html, lt, &mut name),
            Some(b'!') => markup(b, lt),
            Some(b'?') => to_gt(b, lt + 2),
            Some(c) if c.is_ascii_alphabetic() => start_tag(&mut st, &mut t, html, lt, &mut name),
            _ => {
                char_data(&mut st, &mut t, "<");
                t.text("<", false);
                lt + 1
            }
        };
    }
    t.closed(0);
    t.out
}

/// Text in a document: non-blank text where no body is open implies one (`htmlStartCharData`).
fn char_data(st: &mut Stack, t: &mut Texts, raw: &str) {
    if !matches!(st.top(), None | Some("html" | "head")) {
        return;
    }
    if raw
        .bytes()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'))
    {
        return;
    }
    auto_close(st, t, "p");
    implied(st, "p");
}

/// Pops the current element while `name`'s start tag closes it (`htmlAutoClose`).
fn auto_close(st: &mut Stack, t: &mut Texts, name: &str) {
    while let Some(top) = st.top() {
        if START_CLOSE.binary_search(&(top, name)).is_err() {
            break;
        }
        st.truncate(st.len() - 1);
        t.closed(st.len());
    }
}

/// The `html`, `head` or `body` a start tag implies (`htmlCheckImplied`).
fn implied(st: &mut Stack, name: &str) {
    if name == "html" {
        return;
    }
    if st.len() == 0 {
        st.push("html");
    }
    if name == "body" || name == "head" {
        return;
    }
    if st.len() <= 1
        && matches!(
            name,
            "script" | "style" | "meta" | "link" | "title" | "base"
        )
    {
        if !st.had_head && !st.had_body {
            st.push("head");
        }
    } else if !matches!(name, "noframes" | "frame" | "frameset")
        && !st.had_body
        && !st.contains("body")
        && !st.contains("head")
    {
        st.push("body");
    }
}

/// The end of a tag's attributes from `from` (HTML5: quoted values may hold `>`): the offset
/// of its `>`, and whether `/>` ends it; `None` when the input ends first.
fn tag_end(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    loop {
        // before an attribute name
        while i < b.len() && (ws(b[i]) || b[i] == b'/') {
            if b[i] == b'/' && b.get(i + 1) == Some(&b'>') {
                return Some((i + 1, true));
            }
            i += 1;
        }
        match b.get(i) {
            None => return None,
            Some(b'>') => return Some((i, false)),
            _ => {}
        }
        // the name (its first character may be `=`)
        i += 1;
        while i < b.len() && !ws(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                i = memchr(q, &b[i + 1..]).map(|k| i + 1 + k + 1)?;
            }
            Some(b'>') => return Some((i, false)),
            _ => {
                while i < b.len() && !ws(b[i]) && b[i] != b'>' {
                    i += 1;
                }
            }
        }
    }
}

/// A tag's name from `at`: up to whitespace, `/` or `>`, lowercase; and where it ends.
fn tag_name(html: &str, at: usize, name: &mut String) -> usize {
    let b = html.as_bytes();
    let mut end = at;
    while end < b.len() && !matches!(b[end], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>') {
        end += 1;
    }
    name.clear();
    name.push_str(&html[at..end]);
    name.make_ascii_lowercase();
    end
}

/// Just after the next `>` from `from` (a bogus comment, a DOCTYPE), or the end.
fn to_gt(b: &[u8], from: usize) -> usize {
    memchr(b'>', b.get(from..).unwrap_or(&[])).map_or(b.len(), |k| from + k + 1)
}

/// `<!`: a comment (HTML5 ends: `-->`, `--!>`, and `<!-->`, `<!--->`), else up to `>`.
fn markup(b: &[u8], lt: usize) -> usize {
    if !b[lt..].starts_with(b"<!--") {
        return to_gt(b, lt + 2);
    }
    let body = lt + 4;
    if b[body..].starts_with(b">") {
        return body + 1;
    }
    if b[body..].starts_with(b"->") {
        return body + 2;
    }
    let mut i = body;
    while let Some(k) = memchr(b'-', &b[i..]) {
        let d = i + k;
        if b[d..].starts_with(b"-->") {
            return d + 3;
        }
        if b[d..].starts_with(b"--!>") {
            return d + 4;
        }
        i = d + 1;
    }
    b.len()
}

/// A start tag at `lt`; `name` is a buffer kept from tag to tag.
fn start_tag(st: &mut Stack, t: &mut Texts, html: &str, lt: usize, name: &mut String) -> usize {
    let b = html.as_bytes();
    let after_name = tag_name(html, lt + 1, name);
    let name: &str = name;
    let Some((gt, self_closing)) = tag_end(b, after_name) else {
        // the input ends inside the tag: libxml2 drops it
        return b.len();
    };
    auto_close(st, t, name);
    implied(st, name);
    let misplaced = (name == "html" && st.len() > 0)
        || (name == "head" && st.len() != 1)
        || (name == "body" && st.contains("body"));
    if misplaced {
        st.discarded += 1;
        t.asked(lt, gt, |_| {});
        // libxml2 (`htmlParseElementInternal`) then takes the current element for the tag's
        // own and, at `/>`, closes it: `<a href=x>f<head/>g</a>` leaves `g` out of the link
        if self_closing && let Some(len) = st.len().checked_sub(1) {
            st.truncate(len);
            t.closed(len);
        }
        return gt + 1;
    }
    st.push(name);
    let depth = st.len();
    let mut asked = Vec::new();
    let in_root = !st.root_closed;
    t.asked(lt, gt, |at| {
        if in_root {
            asked.push(at)
        }
    });
    for at in asked {
        t.open.push((depth, at, String::new()));
    }
    if self_closing || is_void(name) {
        st.truncate(depth - 1);
        t.closed(depth - 1);
        return gt + 1;
    }
    let Some(kind) = content(name) else {
        return gt + 1;
    };
    // raw content up to its end tag (`</name` then whitespace, `/` or `>`), which is then read
    // as an end tag
    let from = gt + 1;
    let end = match kind {
        Content::Plaintext => b.len(),
        _ if name == "script" => script_end(b, from),
        _ => raw_end(b, from, name),
    };
    t.text(&html[from..end], kind == Content::Rcdata);
    end
}

/// Where the content of a `script` from `from` ends: its end tag's `<`, or the end. The
/// script data states of the HTML tokenizer (HTML 13.2.5.4-13.2.5.31), which libxml2 2.14
/// follows: after `<!--`, a `<script` tag name opens a double-escaped part in which `</script`
/// does not end the script but the part; `-->` goes back to plain script data.
fn script_end(b: &[u8], from: usize) -> usize {
    // the name of letters at `i`: where it ends, whether it is `script`, whether a tag name
    // ends there (white space, `/`, `>`)
    let name_at = |i: usize| {
        let end = i + b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let ends = matches!(
            b.get(end),
            Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
        );
        (end, ends && b[i..end].eq_ignore_ascii_case(b"script"))
    };
    #[derive(PartialEq)]
    enum State {
        Data,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Data;
    // `-` in a row just read in an escaped state: two or more, and `>` ends the escape
    let mut dashes = 0;
    let mut i = from;
    loop {
        let next = if state == State::Data {
            memchr(b'<', &b[i..])
        } else {
            memchr::memchr3(b'<', b'-', b'>', &b[i..])
        };
        let Some(k) = next else {
            return b.len();
        };
        if k > 0 {
            dashes = 0;
        }
        i += k;
        match b[i] {
            b'-' => {
                dashes += 1;
                i += 1;
            }
            b'>' => {
                if dashes >= 2 {
                    state = State::Data;
                }
                dashes = 0;
                i += 1;
            }
            _ => {
                // `<`: an end tag, `<!--`, or (escaped) a start tag's name
                dashes = 0;
                if b.get(i + 1) == Some(&b'/') {
                    let (end, script) = name_at(i + 2);
                    if script {
                        if state != State::DoubleEscaped {
                            return i;
                        }
                        state = State::Escaped;
                    }
                    i = end;
                } else if state == State::Data && b[i + 1..].starts_with(b"!--") {
                    state = State::Escaped;
                    dashes = 2;
                    i += 4;
                } else if state == State::Escaped {
                    let (end, script) = name_at(i + 1);
                    if script {
                        state = State::DoubleEscaped;
                    }
                    i = end.max(i + 1);
                } else {
                    i += 1;
                }
            }
        }
    }
}

/// Where the raw content of element `name` from `from` ends: its end tag's `<`, or the end.
fn raw_end(b: &[u8], from: usize, name: &str) -> usize {
    let mut i = from;
    while let Some(k) = memchr(b'<', &b[i..]) {
        let lt = i + k;
        let n = lt + 2 + name.len();
        if b.get(lt + 1) == Some(&b'/')
            && b.len() >= n
            && b[lt + 2..n].eq_ignore_ascii_case(name.as_bytes())
            && matches!(
                b.get(n),
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
            )
        {
            return lt;
        }
        i = lt + 1;
    }
    b.len()
}

/// An end tag (or `</` that is none) at `lt`; `name` is a buffer kept from tag to tag.
fn end_tag(st: &mut Stack, t: &mut Texts, html: &str, lt: usize, name: &mut String) -> usize {
    let b = html.as_bytes();
    match b.get(lt + 2) {
        None => {
            char_data(st, t, "</");
            t.text("</", false);
            return b.len();
        }
        Some(b'>') => return lt + 3,
        Some(c) if !c.is_ascii_alphabetic() => return to_gt(b, lt + 2),
        _ => {}
    }
    let after_name = tag_name(html, lt + 2, name);
    let name: &str = name;
    let Some((gt, _)) = tag_end(b, after_name) else {
        return b.len();
    };
    if st.discarded > 0 && matches!(name, "html" | "body" | "head") {
        st.discarded -= 1;
        return gt + 1;
    }
    // `htmlAutoCloseOnClose`: no element of a higher priority between
    let priority = end_priority(name);
    let Some(at) = (0..st.len()).rev().find(|&i| st.name(i) == name) else {
        return gt + 1;
    };
    if (at + 1..st.len()).any(|i| end_priority(st.name(i)) > priority) {
        return gt + 1;
    }
    st.truncate(at);
    t.closed(at);
    st.root_closed |= at == 0;
    gt + 1
}

#[cfg(test)]
mod tests {
    use super::element_texts;

    /// The text of the element whose value starts at the first `href=`/`src=` of each mark.
    fn texts(page: &str) -> Vec<Option<String>> {
        let at: Vec<usize> = page.match_indices("href=").map(|(i, _)| i + 5).collect();
        element_texts(page, &at)
    }

    fn one(page: &str) -> String {
        texts(page)[0].clone().unwrap_or_default()
    }

    // each expected text is what lxml 6.1.3 (libxml2 2.14.6) gives, through Scrapy 2.19's
    // link extractor (tests/python/test_link_extractor.py runs these and more against it)
    #[test]
    fn an_end_tag_closes_what_is_open_above_its_element() {
        assert_eq!(one("<div><a href=x>foo</div>after"), "foo");
        assert_eq!(one("<span><a href=x>foo</span>bar</a>"), "foo");
        assert_eq!(one("<b><a href=x>foo</b>bar</a>"), "foo");
        // an end tag of no open element is ignored
        assert_eq!(one("<a href=x>foo</span>bar</a>"), "foobar");
        assert_eq!(one("<a href=x>foo</div>bar</a>"), "foobar");
    }

    #[test]
    fn a_misplaced_html_head_or_body_tag_closed_by_slash_closes_the_current_element() {
        assert_eq!(one("<a href=x>f<head/>g</a>"), "f");
        assert_eq!(
            one("<html><body><a href=x>f<body/>g</a></body></html>"),
            "f"
        );
        assert_eq!(
            one("<html><body><a href=x>f<html/>g</a></body></html>"),
            "f"
        );
        // the current element is the one closed: here the `span`, so `g` stays in the link
        assert_eq!(one("<a href=x><span>f<head/>g</span>k</a>"), "fgk");
        // without `/>` the tag is only dropped
        assert_eq!(one("<a href=x>f<head>g</a>"), "fg");
    }

    #[test]
    fn elements_after_the_root_element_closed_are_outside_its_tree() {
        let t = texts("<p><a href=x>a</a></p></html> <a href=y>b</a></html><a href=z>c</a>");
        assert_eq!(t, [Some("a".into()), None, None]);
        // `</body>` closes the body, not the root; an `</html>` of no open `html` closes nothing
        let t = texts("<p>t</body><a href=x>a</a>");
        assert_eq!(t, [Some("a".into())]);
        assert_eq!(texts("</html><a href=x>a</a>"), [Some("a".into())]);
    }

    #[test]
    fn a_script_ends_by_the_script_data_states() {
        // `<!--<script>` double-escapes: the first `</script>` ends that part, not the script
        let page = "<a href=y>t<script><!--<script></script><td>--></script>u</a>";
        assert_eq!(one(page), "t<!--<script></script><td>-->u");
        let page = "<a href=y>t<script><!--<script></script>x</script>u</a>";
        assert_eq!(one(page), "t<!--<script></script>xu");
        // `-->` ends the escape; escaped or not, `</script>` then ends the script
        assert_eq!(
            one("<a href=y>t<script><!-- <b> </script>u</a>"),
            "t<!-- <b> u"
        );
        let page = "<a href=y>t<script><!--<script>--></script>v</script>u</a>";
        assert_eq!(one(page), "t<!--<script>-->vu");
        assert_eq!(one("<a href=y>t<script><!--></script>u</a>"), "t<!-->u");
        // `<scriptx` is no script tag; a script left open runs to the end
        let page = "<a href=y>t<script><!--<scriptx></script>u</a>";
        assert_eq!(one(page), "t<!--<scriptx>u");
        assert_eq!(
            one("<a href=y>t<script><!--<script></script>"),
            "t<!--<script></script>"
        );
    }

    #[test]
    fn no_mix_of_script_escapes_and_misplaced_tags_panics() {
        // the failure looked for is a panic (a slice out of bounds, a cut character) or a scan
        // that does not end (`script_end` must advance at every step)
        #[rustfmt::skip]
        const PARTS: &[&str] = &[
            "<script>", "</script>", "<SCRIPT/>", "</scripT ", "<!--", "-->", "-", "--", "<",
            ">", "/>", "<a href=x>", "</a>", "<head/>", "<body/>", "<html>", "</html>", "t",
            "é", "<td>", "<!---", "<scriptx>", "</", "<textarea>", "<!", "\r",
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..3000 {
            let mut page = String::new();
            for _ in 0..(x % 24) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                page.push_str(PARTS[(x % PARTS.len() as u64) as usize]);
            }
            let at: Vec<usize> = page.match_indices('<').map(|(i, _)| i).collect();
            element_texts(&page, &at);
        }
    }

    #[test]
    fn start_tags_close_the_current_element_by_libxml2s_table() {
        assert_eq!(
            one("<table><tr><td><a href=x>foo</td><td>bar</td></tr></table>"),
            "foo"
        );
        assert_eq!(
            one("<a href=x>foo<table><tr><td>c</td></tr></table>d</a>"),
            "foo"
        );
        assert_eq!(one("<a href=x>one<a href=y>two</a>"), "one");
        // ... only the current one: an `<a>` inside a `<p>` inside an `<a>` is nested
        let t = texts("<a href=x>foo<p>bar<a href=y>baz</a>");
        assert_eq!(t, [Some("foobarbaz".into()), Some("baz".into())]);
        assert_eq!(one("<ul><li><a href=x>one<li>two</ul>"), "onetwo");
    }

    #[test]
    fn text_is_decoded_as_html5_data_and_raw_text_is_kept() {
        assert_eq!(
            one("<a href=x>a &amp; b &check; &nbsp;c &amp d &ampx</a>"),
            "a & b \u{2713} \u{a0}c & d &x"
        );
        assert_eq!(one("<a href=x>x\r\ny\rz</a>"), "x\ny\nz");
        assert_eq!(
            one("<a href=x>t<script>var s='<b>';</script>u</a>"),
            "tvar s='<b>';u"
        );
        assert_eq!(
            one("<a href=x>foo<textarea>t<b>x</textarea>bar</a>"),
            "foot<b>xbar"
        );
        assert_eq!(one("<a href=x>t<!-- c -->u<3 v</a>"), "tu<3 v");
        assert_eq!(one("<a href=x>foo<br>bar<img src=i>!</a>"), "foobar!");
    }

    #[test]
    fn the_start_close_table_is_sorted_for_its_binary_search() {
        assert!(super::START_CLOSE.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(super::START_CLOSE.len(), 249);
    }

    #[test]
    fn offsets_in_no_start_tag_have_no_text() {
        let page = "<a href=x>a</a> text <!-- <a href=y> -->";
        let at = [
            page.find("text").unwrap_or(0),
            page.find("y>").unwrap_or(0),
            8,
        ];
        assert_eq!(element_texts(page, &at), [None, None, Some("a".into())]);
    }
}
