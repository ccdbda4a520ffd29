//! The candidate search: trigger bytes (`:` always, `.` with `schemeless`, `@` with `email`)
//! with a cheap look at their neighbours, so that most `:` of running text (`Note: see`,
//! `12:30`, `a::b`) are never examined.
//!
//! The same search runs on decoded text and on the raw input bytes of ASCII-compatible
//! encodings (UTF-8, the single-byte encodings, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030).
//! There `:` `.` `/` are never part of a multi-byte character, and an ASCII byte that starts a
//! character is that character, so the look at the neighbours only says "no" when the decoded
//! text says "no" too:
//!
//! * the byte before a `:` is an ASCII letter or digit only if the character before is, or is
//!   the trail byte of a multi-byte character, which is not a scheme character either;
//! * the bytes after `:` start characters, so `//` in the bytes is `//` in the text;
//! * a registered opaque scheme (`mailto`, `urn`, ...) is a run of letters: the scheme the finder
//!   takes is a suffix of the run of scheme bytes before the `:`, so it is enough to look up the
//!   suffixes of two to eight letters.
//!
//! A candidate the look lets through is examined by the finder (`find/`) on decoded text,
//! which has the last word.
//!
//! Speed: 64 bytes at a time, the trigger test with its neighbour conditions is a loop of
//! byte-wise comparisons that the compiler vectorizes; the resulting 64 flags are packed into a
//! bit mask with eight multiplications, and only set bits are looked at one by one. On x86-64
//! the search is compiled twice, for the baseline (SSE2) and for AVX2 (x86-64-v3), and the
//! second is chosen at run time where the CPU has it (`pulp`'s safe API over
//! `#[target_feature]` functions, intrinsics and feature detection: this crate forbids
//! `unsafe`); there the test for `:` alone is written with AVX2 intrinsics, so the mask comes
//! from `vpmovmskb`. Tests compare the two versions on random text and on every pair of bytes
//! around a `:`.

use crate::schemes;

/// Which triggers to look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Triggers {
    pub schemeless: bool,
    pub email: bool,
}

/// Bytes around a slice: `before` holds the (up to) eight bytes that precede `b[0]` in the
/// input (right-aligned, zero where the input has none).
pub(crate) struct Hay<'a> {
    pub b: &'a [u8],
    pub before: [u8; 8],
    /// No input follows `b`.
    pub eof: bool,
}

impl Hay<'_> {
    /// The length of the run of ASCII scheme bytes (letters, digits, `+ - .`) that ends right
    /// before `i`, counting at most `max`.
    pub(crate) fn scheme_run(&self, i: usize, max: usize) -> usize {
        let lo = i.saturating_sub(max);
        let run = self.b[lo..i]
            .iter()
            .rev()
            .take_while(|&&c| is_scheme_byte(c))
            .count();
        if run == i - lo && run < max {
            // the run may go on in the bytes before the slice
            let more = (1..=8)
                .take_while(|&j| {
                    (run + j) <= max && self.at(-(j as isize)).is_some_and(is_scheme_byte)
                })
                .count();
            return run + more;
        }
        run
    }

    /// The byte at `i` (which may be up to eight bytes before the slice), `None` past the end.
    #[inline]
    fn at(&self, i: isize) -> Option<u8> {
        if i >= 0 {
            self.b.get(i as usize).copied()
        } else if i >= -8 {
            Some(self.before[(8 + i) as usize])
        } else {
            Some(0)
        }
    }
}

#[inline(always)]
fn is_alpha(c: u8) -> bool {
    (c | 0x20).wrapping_sub(b'a') < 26
}

#[inline(always)]
fn is_digit(c: u8) -> bool {
    c.wrapping_sub(b'0') < 10
}

#[inline(always)]
fn is_scheme_byte(c: u8) -> bool {
    is_alpha(c) || is_digit(c) || c == b'+' || c == b'-' || c == b'.'
}

/// What may follow `scheme:` in an opaque IRI (the finder's fast reject, `find/scheme.rs`); `,` and
/// `;` for `data:,text` and `data:;base64,...` (RFC 2397: the media type may be empty).
#[inline(always)]
fn is_opaque_start(c: u8) -> bool {
    is_alpha(c) || is_digit(c) || c >= 0x80 || matches!(c, b'%' | b'?' | b'+' | b'-' | b',' | b';')
}

/// A byte that may belong to a host name: ASCII letters, digits, `-`, `_`, and every byte that
/// may be part of a non-ASCII character in some ASCII-compatible encoding (0x40 and up).
#[inline(always)]
fn maybe_host(c: u8) -> bool {
    c >= 0x40 || is_digit(c) || c == b'-'
}

/// 64 flags (bytes 0 or 1) to a bit mask.
#[inline(always)]
fn pack(e: &[u8; 64]) -> u64 {
    let mut m = 0u64;
    for k in 0..8 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&e[k * 8..k * 8 + 8]);
        let w = u64::from_le_bytes(w);
        // byte j (0 or 1) lands on bit 56 + j; the partial products never collide
        m |= (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (k * 8);
    }
    m
}

/// The candidate mask of the 64 bytes `w[1..65]` (`w[0]` and `w[65]` are their neighbours): a
/// compare loop that the compiler vectorizes finds the trigger bytes; for `:` alone, a second
/// one keeps those that `//` follows, or that a letter (or a byte that may be part of a
/// non-ASCII character) precedes and neither a space nor a `:` follows (not `12:30`, `a :`,
/// `Note: `, `a::b`: a cheap part of [`confirm`]); only then is a bit mask made.
#[inline(always)]
fn block(w: &[u8; 66], t: Triggers) -> u64 {
    let mut e = [0u8; 64];
    if !t.schemeless && !t.email {
        // most blocks of running text have no `:` at all
        if w[1..65].iter().fold(0u8, |a, &c| a | (c == b':') as u8) == 0 {
            return 0;
        }
        for k in 0..64 {
            let (p, c, n) = (w[k], w[k + 1], w[k + 2]);
            // `:/` and `:\` (a JSON-escaped slash: `s3:\/\/`) after any byte; else a letter
            // (or a byte of a non-ASCII character) before, and a byte that may start an opaque
            // part after
            e[k] = ((c == b':')
                & ((n == b'/') | (n == b'\\') | ((p > b'@') & (n > b' ') & (n != b':'))))
                as u8;
        }
    } else {
        let (dot, at) = (t.schemeless, t.email);
        for k in 0..64 {
            let c = w[k + 1];
            e[k] = ((c == b':') | (dot & (c == b'.')) | (at & (c == b'@'))) as u8;
        }
    }
    if e.iter().fold(0u8, |a, &x| a | x) == 0 {
        return 0;
    }
    pack(&e)
}

/// Whether a registered opaque scheme ends at the end of `w` (the bytes before a `:`, the last
/// one a letter): one of the suffixes of two to eight letters.
#[inline]
fn opaque_suffix(w: &[u8]) -> bool {
    let mut buf = [0u8; 8];
    let mut n = 0;
    for &x in w.iter().rev().take(8) {
        if !is_alpha(x) {
            break;
        }
        n += 1;
        buf[8 - n] = x | 0x20;
    }
    if n < 2 || !schemes::opaque_ends(buf[6], buf[7]) {
        return false;
    }
    // the suffix of k letters, packed as `schemes::key` packs a name: the top k bytes
    let all = u64::from_le_bytes(buf);
    (2..=n).any(|k| {
        schemes::opaque_first(buf[8 - k])
            && schemes::opaque_key(all >> (64 - 8 * k as u32)).is_some()
    })
}

/// [`confirm`] for a `:` with its neighbours inside the slice (without `schemeless`).
#[inline(always)]
fn confirm_colon(b: &[u8], i: usize) -> bool {
    let n1 = b[i + 1];
    if n1 == b'/' {
        if b[i + 2] == b'/' {
            return is_scheme_byte(b[i - 1]);
        }
    } else if n1 == b'\\' {
        // a JSON-escaped slash, `\/` or `\u002F`, after a scheme that ends in a letter (the
        // block test above keeps only those; the finder reads the rest)
        return matches!(b[i + 2], b'/' | b'u') && is_scheme_byte(b[i - 1]);
    } else if !is_opaque_start(n1) {
        return false;
    }
    is_alpha(b[i - 1]) && opaque_suffix(&b[i - 8..i])
}

/// Whether the trigger byte at `i` can start a link (see the module docs); `true` also when the
/// neighbours are not there yet.
#[inline(always)]
fn confirm(h: &Hay<'_>, i: usize, t: Triggers) -> bool {
    // the common case inlined: a `:` with its neighbours, and the eight bytes a registered
    // scheme may take, in the slice
    if h.b[i] == b':' && !t.schemeless && i >= 8 && i + 2 < h.b.len() {
        return confirm_colon(h.b, i);
    }
    confirm_other(h, i, t)
}

/// [`confirm`] for the other triggers, and a `:` near the slice's ends or with `schemeless`.
#[inline(never)]
fn confirm_other(h: &Hay<'_>, i: usize, t: Triggers) -> bool {
    let ii = i as isize;
    let c = h.b[i];
    if c == b':' {
        if t.schemeless {
            // bare IPv6 addresses: every `:` is examined
            return true;
        }
        let Some(n1) = h.at(ii + 1) else {
            return !h.eof;
        };
        let prev = h.at(ii - 1).unwrap_or(0);
        if n1 == b'/' {
            match h.at(ii + 2) {
                None if !h.eof => return true,
                Some(b'/') => return is_scheme_byte(prev),
                _ => {}
            }
        } else if n1 == b'\\' {
            return match h.at(ii + 2) {
                None => !h.eof,
                Some(b'/' | b'u') => is_scheme_byte(prev),
                _ => false,
            };
        } else if !is_opaque_start(n1) {
            return false;
        }
        if !is_alpha(prev) {
            return false;
        }
        // a registered opaque scheme as a suffix of the letters before `:`
        let mut w = [0u8; 8];
        for (j, x) in w.iter_mut().enumerate() {
            *x = h.at(ii - 8 + j as isize).unwrap_or(0);
        }
        opaque_suffix(&w)
    } else if c == b'.' {
        maybe_host(h.at(ii - 1).unwrap_or(0))
            && match h.at(ii + 1) {
                None => !h.eof,
                Some(x) => maybe_host(x),
            }
    } else {
        true
    }
}

#[inline(always)]
fn is_trigger(c: u8, t: Triggers) -> bool {
    c == b':' || (t.schemeless && c == b'.') || (t.email && c == b'@')
}

/// AVX2 (x86-64-v3) where this CPU has it, detected once.
#[cfg(target_arch = "x86_64")]
fn v3() -> Option<pulp::x86::V3> {
    static V3: std::sync::OnceLock<Option<pulp::x86::V3>> = std::sync::OnceLock::new();
    *V3.get_or_init(pulp::x86::V3::try_new)
}

/// [`block`] for `:` alone with AVX2 intrinsics (pulp's safe wrappers): the same test, with
/// `vpmovmskb` where [`pack`] multiplies.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::__m256i;
    use pulp::x86::V3;

    #[inline(always)]
    fn load(v: &[u8; 66], at: usize) -> __m256i {
        let mut a = [0u8; 32];
        a.copy_from_slice(&v[at..at + 32]);
        pulp::bytemuck::cast(a)
    }

    /// `a >= lo`, unsigned, per byte.
    #[inline(always)]
    fn ge(s: V3, a: __m256i, lo: __m256i) -> __m256i {
        s.avx2._mm256_cmpeq_epi8(s.avx2._mm256_max_epu8(a, lo), a)
    }

    /// The bits of the `:` flags `e` that a `/` follows, or that a byte from `A` up precedes
    /// and a byte from `!` up other than `:` follows (`p` the bytes before, `n` after).
    #[inline(always)]
    fn keep(s: V3, e: __m256i, p: __m256i, n: __m256i) -> u32 {
        let y = s.avx2;
        let word = y._mm256_andnot_si256(
            y._mm256_cmpeq_epi8(n, s.avx._mm256_set1_epi8(b':' as i8)),
            y._mm256_and_si256(
                ge(s, p, s.avx._mm256_set1_epi8(b'A' as i8)),
                ge(s, n, s.avx._mm256_set1_epi8(b'!' as i8)),
            ),
        );
        let slash = y._mm256_or_si256(
            y._mm256_cmpeq_epi8(n, s.avx._mm256_set1_epi8(b'/' as i8)),
            y._mm256_cmpeq_epi8(n, s.avx._mm256_set1_epi8(b'\\' as i8)),
        );
        y._mm256_movemask_epi8(y._mm256_and_si256(e, y._mm256_or_si256(slash, word))) as u32
    }

    /// The candidate mask of `w[1..65]`, as [`super::block`] computes it without `schemeless`
    /// or `email`.
    #[inline(always)]
    pub(super) fn colon_block(s: V3, w: &[u8; 66]) -> u64 {
        let y = s.avx2;
        let colon = s.avx._mm256_set1_epi8(b':' as i8);
        let (e0, e1) = (
            y._mm256_cmpeq_epi8(load(w, 1), colon),
            y._mm256_cmpeq_epi8(load(w, 33), colon),
        );
        if y._mm256_movemask_epi8(y._mm256_or_si256(e0, e1)) == 0 {
            return 0;
        }
        let lo = keep(s, e0, load(w, 0), load(w, 2));
        let hi = keep(s, e1, load(w, 32), load(w, 34));
        u64::from(lo) | u64::from(hi) << 32
    }
}

/// The candidate mask of a block ([`block`]), in one instruction set.
trait Blocks: Copy {
    /// The candidate mask of the 64 bytes `w[1..65]`.
    fn mask(self, w: &[u8; 66]) -> u64;
}

/// [`block`] as the compiler vectorizes it for the caller's instruction set.
#[derive(Clone, Copy)]
struct Plain(Triggers);

impl Blocks for Plain {
    #[inline(always)]
    fn mask(self, w: &[u8; 66]) -> u64 {
        block(w, self.0)
    }
}

/// [`avx2::colon_block`]: [`block`] for `:` alone (no `schemeless`, no `email`).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx2Colon(pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Blocks for Avx2Colon {
    #[inline(always)]
    fn mask(self, w: &[u8; 66]) -> u64 {
        avx2::colon_block(self.0, w)
    }
}

/// A cursor over the candidates of one haystack, in increasing order.
pub(crate) struct Cands {
    /// start of the block whose mask is cached
    blk: usize,
    mask: u64,
    valid: bool,
}

impl Cands {
    pub(crate) fn new() -> Cands {
        Cands {
            blk: 0,
            mask: 0,
            valid: false,
        }
    }

    /// The first candidate at or after `from`: [`Cands::next_in`] compiled for AVX2 where the
    /// CPU has it (see the module documentation), else for the baseline.
    pub(crate) fn next(&mut self, h: &Hay<'_>, from: usize, t: Triggers) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = v3() {
            struct Op<'a, 'b, B> {
                c: &'a mut Cands,
                h: &'a Hay<'b>,
                from: usize,
                t: Triggers,
                blocks: B,
            }
            impl<B: Blocks> pulp::WithSimd for Op<'_, '_, B> {
                type Output = Option<usize>;
                // inlined into pulp's `#[target_feature(enable = "avx2", ...)]` function, so
                // that the compiler may use AVX2 all through `next_in`
                #[inline(always)]
                fn with_simd<S: pulp::Simd>(self, _simd: S) -> Option<usize> {
                    self.c.next_in(self.h, self.from, self.t, self.blocks)
                }
            }
            /// `next_in` with `blocks`, in pulp's AVX2 function.
            fn avx2_next<B: Blocks>(
                s: pulp::x86::V3,
                c: &mut Cands,
                h: &Hay<'_>,
                (from, t, blocks): (usize, Triggers, B),
            ) -> Option<usize> {
                pulp::Simd::vectorize(
                    s,
                    Op {
                        c,
                        h,
                        from,
                        t,
                        blocks,
                    },
                )
            }
            // the block test is chosen once per call, not per block
            return if t.schemeless || t.email {
                avx2_next(s, self, h, (from, t, Plain(t)))
            } else {
                avx2_next(s, self, h, (from, t, Avx2Colon(s)))
            };
        }
        self.next_in(h, from, t, Plain(t))
    }

    /// The first candidate at or after `from`, in whatever instruction set the caller has.
    #[inline(always)]
    fn next_in(
        &mut self,
        h: &Hay<'_>,
        from: usize,
        t: Triggers,
        blocks: impl Blocks,
    ) -> Option<usize> {
        let b = h.b;
        let n = b.len();
        let mut i = from;
        if self.valid && i >= self.blk && i < self.blk + 64 {
            let mut m = self.mask & (!0u64 << (i - self.blk));
            while m != 0 {
                let k = self.blk + m.trailing_zeros() as usize;
                m &= m - 1;
                if confirm(h, k, t) {
                    self.mask = m;
                    return Some(k);
                }
            }
            i = self.blk + 64;
        }
        self.valid = false;
        while i < n {
            if i >= 1 && i + 66 <= n {
                let w: &[u8; 66] = b[i - 1..i + 65].try_into().unwrap_or(&[0; 66]);
                let mut m = blocks.mask(w);
                while m != 0 {
                    let k = i + m.trailing_zeros() as usize;
                    m &= m - 1;
                    if confirm(h, k, t) {
                        self.blk = i;
                        self.mask = m;
                        self.valid = true;
                        return Some(k);
                    }
                }
                i += 64;
            } else if i == 0 {
                if is_trigger(b[0], t) && confirm(h, 0, t) {
                    return Some(0);
                }
                i = 1;
            } else {
                // the last bytes: find the trigger bytes one by one
                let rest = &b[i..];
                let k = match (t.schemeless, t.email) {
                    (false, false) => memchr::memchr(b':', rest),
                    (true, false) => memchr::memchr2(b':', b'.', rest),
                    (false, true) => memchr::memchr2(b':', b'@', rest),
                    (true, true) => memchr::memchr3(b':', b'.', b'@', rest),
                };
                let k = i + k?;
                if confirm(h, k, t) {
                    return Some(k);
                }
                i = k + 1;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(b: &[u8], t: Triggers, eof: bool) -> Vec<usize> {
        let h = Hay {
            b,
            before: [0; 8],
            eof,
        };
        let (mut c, mut base) = (Cands::new(), Cands::new());
        let mut v = Vec::new();
        let mut i = 0;
        while let Some(k) = c.next(&h, i, t) {
            // the version chosen for this CPU and the baseline one agree
            assert_eq!(base.next_in(&h, i, t, Plain(t)), Some(k), "{b:?} from {i}");
            v.push(k);
            i = k + 1;
        }
        assert_eq!(base.next_in(&h, i, t, Plain(t)), None, "{b:?} from {i}");
        v
    }

    /// The block path and the byte-by-byte path agree.
    fn slow(b: &[u8], t: Triggers, eof: bool) -> Vec<usize> {
        let h = Hay {
            b,
            before: [0; 8],
            eof,
        };
        (0..b.len())
            .filter(|&i| is_trigger(b[i], t) && confirm(&h, i, t))
            .collect()
    }

    #[test]
    fn pack_is_a_movemask() {
        let mut e = [0u8; 64];
        for i in [0, 1, 7, 8, 30, 63] {
            e[i] = 1;
        }
        assert_eq!(
            pack(&e),
            (1 << 0) | (1 << 1) | (1 << 7) | (1 << 8) | (1 << 30) | (1 << 63)
        );
    }

    #[test]
    fn block_and_bytes_agree() {
        let mut seed = 0x1234_5678_u64;
        let alphabet = b"ab:/.@ \nhttp mailto urn 12:30 s3:\\/ h.:\\u \xc3\xa9\xe4\xbd\xa0";
        for len in [0usize, 1, 2, 63, 64, 65, 66, 130, 200, 1000] {
            for _ in 0..50 {
                let b: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % alphabet.len() as u64) as usize]
                    })
                    .collect();
                for t in [
                    Triggers {
                        schemeless: false,
                        email: false,
                    },
                    Triggers {
                        schemeless: true,
                        email: true,
                    },
                    Triggers {
                        schemeless: false,
                        email: true,
                    },
                ] {
                    for eof in [false, true] {
                        assert_eq!(all(&b, t, eof), slow(&b, t, eof), "{:?}", b);
                    }
                }
            }
        }
    }

    /// The block test lets through every `:` that the byte-by-byte look accepts, whatever the
    /// byte before it and the two after (a `:` of `h.:\/\/`, JSON-escaped after a scheme that
    /// ends in a digit or `.`, was found only in the last 66 bytes of a text: fuzzing found it).
    #[test]
    fn blocks_miss_no_colon_the_byte_look_accepts() {
        let t = Triggers {
            schemeless: false,
            email: false,
        };
        for p in 0..=255u8 {
            for n in 0..=255u8 {
                for n2 in [b'/', b'u', b'x', b'\\', b' '] {
                    let mut b = [b'x'; 140];
                    b[69] = p;
                    b[70] = b':';
                    b[71] = n;
                    b[72] = n2;
                    assert_eq!(all(&b, t, true), slow(&b, t, true), "{p} {n} {n2}");
                }
            }
        }
    }

    /// The AVX2 block test and the portable one agree on every byte before and after a `:`,
    /// at both ends of both 32-byte halves.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_block_is_the_plain_block() {
        let Some(s) = v3() else {
            // the AVX2 test is never chosen on such a CPU, so there is nothing to compare
            eprintln!("no AVX2 on this CPU: the AVX2 block test is not run");
            return;
        };
        let t = Triggers {
            schemeless: false,
            email: false,
        };
        for k in [1, 2, 31, 32, 33, 34, 63, 64] {
            for p in 0..=255u8 {
                for n in 0..=255u8 {
                    let mut w = [b'x'; 66];
                    w[k - 1] = p;
                    w[k] = b':';
                    w[k + 1] = n;
                    assert_eq!(Avx2Colon(s).mask(&w), Plain(t).mask(&w), "{k} {p} {n}");
                }
            }
        }
    }

    #[test]
    fn look_alikes_are_not_candidates() {
        let t = Triggers {
            schemeless: false,
            email: false,
        };
        let text = b"Note: see 12:30, a::b, C:\\x, Re: hi, path:to:file, see http://x.org mailto:a@b urn:isbn:1 xmailto:q";
        let got: Vec<&[u8]> = all(text, t, true)
            .into_iter()
            .map(|i| &text[i.saturating_sub(7)..i])
            .collect();
        assert_eq!(got, [&b"ee http"[..], b" mailto", b"a@b urn", b"xmailto"]);
    }
}
