//! The query: `canonicalize_url` step 1, `_parse_qsl` (split on the separator, drop empty
//! fields, and blank values unless `keep_blank_values`), a sort of the unquoted pairs, and
//! `_urlencode` (each pair `quote_plus`-ed, `=` between key and value, the separator between
//! pairs).

use super::super::ProfileOptions;
use super::{INLINE_PAIRS, UNRESERVED, escape_at, push_ascii, push_pct};
use std::cmp::Ordering;

/// One field of the query: the key and the value, as byte ranges of the query.
#[derive(Clone, Copy, Default)]
struct Pair {
    key: (usize, usize),
    value: (usize, usize),
}

/// Appends `?` and the sorted, requoted pairs of `q` (the query in the attempt's encoding),
/// or nothing when no pair is left.
pub(super) fn push(q: &[u8], o: &ProfileOptions, out: &mut String) {
    let sep = o.query_separator;
    let mut inline = [Pair::default(); INLINE_PAIRS];
    let mut heap: Vec<Pair> = Vec::new();
    let mut n = 0;
    let mut start = 0;
    while start <= q.len() {
        let end = q[start..]
            .iter()
            .position(|&c| c == sep)
            .map_or(q.len(), |p| p + start);
        if end > start {
            let eq = q[start..end]
                .iter()
                .position(|&c| c == b'=')
                .map(|p| p + start);
            let pair = match eq {
                Some(e) => Pair {
                    key: (start, e),
                    value: (e + 1, end),
                },
                None => Pair {
                    key: (start, end),
                    value: (end, end),
                },
            };
            if o.keep_blank_values || pair.value.1 > pair.value.0 {
                if n < INLINE_PAIRS {
                    inline[n] = pair;
                } else {
                    if heap.is_empty() {
                        heap.extend_from_slice(&inline);
                    }
                    heap.push(pair);
                }
                n += 1;
            }
        }
        start = end + 1;
    }
    if n == 0 {
        return;
    }
    let pairs: &mut [Pair] = if n <= INLINE_PAIRS {
        &mut inline[..n]
    } else {
        &mut heap
    };
    // list.sort() on (key, value) tuples of bytes; equal pairs write the same text, so an
    // unstable sort gives the same key.
    if pairs.len() > 1 {
        let field = |r: (usize, usize)| &q[r.0..r.1];
        pairs.sort_unstable_by(|a, b| {
            cmp_unquoted(field(a.key), field(b.key))
                .then_with(|| cmp_unquoted(field(a.value), field(b.value)))
        });
    }
    out.push('?');
    for (i, p) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(char::from(sep));
        }
        push_plus(&q[p.key.0..p.key.1], out);
        out.push('=');
        push_plus(&q[p.value.0..p.value.1], out);
    }
}

/// The bytes of `_unquote_plus(b)`: `+` is a space, `%XY` its byte.
struct Unquoted<'a> {
    b: &'a [u8],
    i: usize,
}

impl Iterator for Unquoted<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        if c == b'+' {
            self.i += 1;
            return Some(b' ');
        }
        match escape_at(self.b, self.i) {
            Some(d) => {
                self.i += 3;
                Some(d)
            }
            None => {
                self.i += 1;
                Some(c)
            }
        }
    }
}

/// The order of `_unquote_plus(a)` and `_unquote_plus(b)`, without building either.
pub(super) fn cmp_unquoted(a: &[u8], b: &[u8]) -> Ordering {
    if !a.contains(&b'%') && !a.contains(&b'+') && !b.contains(&b'%') && !b.contains(&b'+') {
        return a.cmp(b);
    }
    Unquoted { b: a, i: 0 }.cmp(Unquoted { b, i: 0 })
}

/// `_quote_into(_unquote_plus(b), quote_plus=True)`: unreserved bytes as they are, a space
/// `+`, every other byte `%XX`.
fn push_plus(b: &[u8], out: &mut String) {
    let mut i = 0;
    while i < b.len() {
        let run = b[i..]
            .iter()
            .take_while(|&&c| UNRESERVED[usize::from(c)])
            .count();
        if run > 0 {
            push_ascii(&b[i..i + run], out);
            i += run;
            continue;
        }
        let (c, n) = match b[i] {
            b'+' => (b' ', 1),
            c => escape_at(b, i).map_or((c, 1), |d| (d, 3)),
        };
        if UNRESERVED[usize::from(c)] {
            out.push(char::from(c));
        } else if c == b' ' {
            out.push('+');
        } else {
            push_pct(c, out);
        }
        i += n;
    }
}
