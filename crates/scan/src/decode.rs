//! Streaming decode (encoding_rs) with an exact map from decoded text back to input bytes.
//!
//! One `encoding_rs::Decoder` is kept for the whole stream, so state carries across chunk
//! boundaries (ISO-2022-JP modes, UTF-16 surrogate pairs, multi-byte sequences split by a chunk).
//! The `_without_replacement` calls stop at every malformed sequence; we write U+FFFD ourselves,
//! count the sequence and note exactly which input bytes it covered.
//!
//! The offset map: for every encoding family the number of input bytes behind a decoded character
//! follows from the character alone (UTF-8: its UTF-8 length; single-byte: 1; UTF-16: 2 or 4;
//! Shift_JIS: 1 for U+0000-U+0080 and U+FF61-U+FF9F, else 2; EUC-KR: 1 or 2; Big5: 1 or 2, and 0
//! for the second character of the four two-character mappings). [`Map`] stores *anchors* only
//! where that default does not hold: around each U+FFFD, after each EUC-JP JIS X 0212 character
//! (3 bytes) and each gb18030 four-byte or `0x80` character (found by walking the input bytes in
//! step with the text right after decoding), and for ISO-2022-JP (decoded one byte per call) at
//! every character. Looking up an offset walks from the nearest anchor; lookups only move
//! forward, so the total cost is linear.

use std::collections::VecDeque;

use encoding_rs::{
    BIG5, DecoderResult, EUC_JP, EUC_KR, Encoding, GB18030, GBK, ISO_2022_JP, REPLACEMENT,
    SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE,
};

use crate::{EncodingChoice, ScanStats};

/// How the decoded characters relate to input bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Utf8,
    SingleByte,
    Utf16,
    ShiftJis,
    EucKr,
    Big5,
    EucJp,
    Gb18030,
    Iso2022Jp,
    Replacement,
}

impl Family {
    pub(crate) fn of(enc: &'static Encoding) -> Family {
        if enc == UTF_8 {
            Family::Utf8
        } else if enc == UTF_16LE || enc == UTF_16BE {
            Family::Utf16
        } else if enc == SHIFT_JIS {
            Family::ShiftJis
        } else if enc == EUC_KR {
            Family::EucKr
        } else if enc == BIG5 {
            Family::Big5
        } else if enc == EUC_JP {
            Family::EucJp
        } else if enc == GBK || enc == GB18030 {
            Family::Gb18030
        } else if enc == ISO_2022_JP {
            Family::Iso2022Jp
        } else if enc == REPLACEMENT {
            Family::Replacement
        } else {
            Family::SingleByte
        }
    }

    /// Whether the encoding is ASCII-compatible and stateless, so that candidates can be
    /// found in the raw bytes and only windows around them decoded (`engine/`): `:` `.` `/` are
    /// never part of a multi-byte character, and decoding can restart at a [`Family::is_sync`]
    /// byte.
    pub(crate) fn lazy(self) -> bool {
        !matches!(
            self,
            Family::Utf16 | Family::Iso2022Jp | Family::Replacement
        )
    }

    /// Whether a byte always starts a character of its own (or a malformed sequence), whatever
    /// precedes it: a decoder started fresh at that byte produces the same characters from
    /// there on as the decoder of the whole stream (WHATWG Encoding: in every case below an
    /// ASCII byte that does not fit a pending sequence is "restored" and decoded on its own).
    ///
    /// * UTF-8: any byte but a continuation byte (0x80-0xBF);
    /// * single-byte encodings: every byte;
    /// * EUC-JP: ASCII (trail bytes are 0xA1-0xFE);
    /// * Shift_JIS, EUC-KR, Big5: bytes below 0x40 (the lowest trail byte);
    /// * GBK / gb18030: bytes below 0x40 except the digits, which are the second and fourth
    ///   bytes of four-byte sequences.
    #[inline]
    pub(crate) fn is_sync(self, b: u8) -> bool {
        match self {
            Family::Utf8 => !(0x80..0xc0).contains(&b),
            Family::SingleByte => true,
            Family::EucJp => b < 0x80,
            Family::ShiftJis | Family::EucKr | Family::Big5 => b < 0x40,
            Family::Gb18030 => b < 0x30 || (0x3a..0x40).contains(&b),
            Family::Utf16 | Family::Iso2022Jp | Family::Replacement => false,
        }
    }

    /// [`Family::is_sync`] with the byte before: in Shift_JIS, EUC-KR, Big5 and GBK/gb18030 an
    /// ASCII byte after an ASCII byte also starts a character, and the decoder holds nothing
    /// unfinished before it (the first ASCII byte is a character of its own, or a trail byte
    /// that ends one, or it is given back and decoded on its own).
    #[inline]
    pub(crate) fn is_sync_after(self, prev: u8, b: u8) -> bool {
        self.is_sync(b)
            || (b < 0x80
                && prev < 0x80
                && matches!(
                    self,
                    Family::ShiftJis | Family::EucKr | Family::Big5 | Family::Gb18030
                ))
    }

    /// The most input bytes behind one character.
    pub(crate) fn max_char_len(self) -> u64 {
        match self {
            Family::SingleByte => 1,
            Family::ShiftJis | Family::EucKr | Family::Big5 => 2,
            Family::EucJp => 3,
            _ => 4,
        }
    }

    /// Whether a decoder that was fed `chunk` (not empty) last holds no unfinished character:
    /// ASCII ends or completes a character in every ASCII-compatible encoding here, except that
    /// a gb18030 digit may be the second byte of a four-byte sequence; UTF-8 that ends with a
    /// whole sequence leaves nothing behind either.
    #[inline]
    fn clean_after(self, chunk: &[u8]) -> bool {
        let b = chunk[chunk.len() - 1];
        match self {
            Family::SingleByte => true,
            Family::Gb18030 => b < 0x80 && !b.is_ascii_digit(),
            Family::Utf8 if b >= 0x80 => {
                // the last lead byte and the length it announces
                let tail = &chunk[chunk.len().saturating_sub(4)..];
                match tail.iter().rposition(|&x| !(0x80..0xc0).contains(&x)) {
                    Some(i) => {
                        let need = match tail[i] {
                            0xc2..=0xdf => 2,
                            0xe0..=0xef => 3,
                            0xf0..=0xf4 => 4,
                            _ => 0,
                        };
                        need == tail.len() - i
                    }
                    None => false,
                }
            }
            _ => b < 0x80,
        }
    }

    /// Input bytes behind `c` by default (see the module docs).
    #[inline]
    fn default_len(self, prev: char, c: char) -> u64 {
        let u = c as u32;
        match self {
            Family::Utf8 => c.len_utf8() as u64,
            Family::SingleByte => 1,
            Family::Utf16 => {
                if u > 0xffff {
                    4
                } else {
                    2
                }
            }
            Family::ShiftJis => {
                if u <= 0x80 || (0xff61..=0xff9f).contains(&u) {
                    1
                } else {
                    2
                }
            }
            Family::EucKr | Family::EucJp => {
                if u < 0x80 {
                    1
                } else {
                    2
                }
            }
            Family::Big5 => {
                if u < 0x80 {
                    1
                } else if (u == 0x304 || u == 0x30c) && (prev == '\u{ca}' || prev == '\u{ea}') {
                    0
                } else {
                    2
                }
            }
            Family::Gb18030 => {
                if u < 0x80 {
                    1
                } else if u > 0xffff {
                    4
                } else {
                    2
                }
            }
            Family::Iso2022Jp | Family::Replacement => 0,
        }
    }
}

/// "The character at text offset `text` starts at input offset `src`."
#[derive(Clone, Copy, Debug)]
struct Anchor {
    text: u64,
    src: u64,
}

/// Maps absolute text offsets to absolute input offsets, forward only.
#[derive(Debug)]
pub(crate) struct Map {
    family: Family,
    anchors: VecDeque<Anchor>,
    cur_text: u64,
    cur_src: u64,
    prev: char,
}

impl Map {
    pub(crate) fn new(family: Family, text0: u64, src0: u64) -> Map {
        Map {
            family,
            anchors: VecDeque::new(),
            cur_text: text0,
            cur_src: src0,
            prev: '\0',
        }
    }

    fn push(&mut self, text: u64, src: u64) {
        if let Some(last) = self.anchors.back_mut()
            && last.text == text
        {
            last.src = src;
            return;
        }
        self.anchors.push_back(Anchor { text, src });
    }

    /// Text offset `text` (the end of all text so far) is input offset `src`: the decoder
    /// restarts there after skipping input.
    pub(crate) fn restart(&mut self, text: u64, src: u64) {
        self.push(text, src);
    }

    /// The input offset of text offset `t` (a character boundary, `t >=` every earlier query).
    /// `window` holds the text from absolute offset `base` on.
    pub(crate) fn src_of(&mut self, t: u64, window: &str, base: u64) -> u64 {
        while let Some(a) = self.anchors.front() {
            if a.text > t {
                break;
            }
            if a.text >= self.cur_text {
                self.cur_text = a.text;
                self.cur_src = a.src;
                self.prev = '\0';
            }
            self.anchors.pop_front();
        }
        if t <= self.cur_text {
            return self.cur_src;
        }
        if self.family == Family::Utf8 {
            // every character outside the anchors (U+FFFD) has its own UTF-8 length
            self.cur_src += t - self.cur_text;
            self.cur_text = t;
            return self.cur_src;
        }
        let from = (self.cur_text - base) as usize;
        let to = (t - base) as usize;
        let s = &window[from..to];
        let add = if s.is_ascii() && self.family.lazy() {
            // one input byte per ASCII character in these families
            s.len() as u64
        } else {
            self.default_span_len(s)
        };
        if let Some(c) = s.chars().next_back() {
            self.prev = c;
        }
        self.cur_text = t;
        self.cur_src += add;
        self.cur_src
    }

    /// Input bytes behind the text `s` by the family defaults (no anchor inside).
    fn default_span_len(&self, s: &str) -> u64 {
        match self.family {
            Family::Utf8 => s.len() as u64,
            Family::SingleByte => count_chars(s),
            Family::Utf16 => 2 * count_chars(s) + 2 * count_supplementary(s),
            _ => match bulk_len(self.family, s) {
                Some(n) => n,
                None => {
                    let mut n = 0;
                    let mut prev = self.prev;
                    for c in s.chars() {
                        n += self.family.default_len(prev, c);
                        prev = c;
                    }
                    n
                }
            },
        }
    }
}

/// The default input length of `s` without a per-character loop, for the multi-byte families:
/// ASCII characters are one byte, others two (four for supplementary characters in gb18030),
/// with the exceptions of Shift_JIS (U+0080 and half-width katakana are one byte) counted by
/// their UTF-8 patterns. `None` for Big5 text that may hold a two-character mapping.
fn bulk_len(family: Family, s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let (mut ascii, mut lead, mut lead4) = (0u64, 0u64, 0u64);
    // byte-sized counters per block of 255 so that the loop vectorizes with byte lanes
    for block in b.chunks(255) {
        let (mut a, mut l, mut l4) = (0u8, 0u8, 0u8);
        for &x in block {
            a += (x < 0x80) as u8;
            l += (x >= 0xc0) as u8;
            l4 += (x >= 0xf0) as u8;
        }
        ascii += a as u64;
        lead += l as u64;
        lead4 += l4 as u64;
    }
    let base = ascii + 2 * lead;
    match family {
        Family::EucKr | Family::EucJp => Some(base),
        Family::Gb18030 => Some(base + 2 * lead4),
        Family::Big5 => (!b.contains(&0xcc)).then_some(base),
        Family::ShiftJis => {
            // U+0080 is C2 80; U+FF61-U+FF9F are EF BD A1-BF and EF BE 80-9F
            let mut one = memchr::memchr_iter(0xc2, b)
                .filter(|&i| b.get(i + 1) == Some(&0x80))
                .count() as u64;
            one += memchr::memchr_iter(0xef, b)
                .filter(|&i| match (b.get(i + 1), b.get(i + 2)) {
                    (Some(0xbd), Some(&c)) => (0xa1..=0xbf).contains(&c),
                    (Some(0xbe), Some(&c)) => (0x80..=0x9f).contains(&c),
                    _ => false,
                })
                .count() as u64;
            Some(base - one)
        }
        _ => None,
    }
}

/// Characters in `s` (bytes that are not UTF-8 continuation bytes).
fn count_chars(s: &str) -> u64 {
    let mut n = 0u64;
    for block in s.as_bytes().chunks(255) {
        let mut k = 0u8;
        for &x in block {
            k += ((x as i8) >= -0x40) as u8;
        }
        n += k as u64;
    }
    n
}

/// Supplementary characters in `s` (UTF-8 lead bytes of four-byte sequences).
fn count_supplementary(s: &str) -> u64 {
    let mut n = 0u64;
    for block in s.as_bytes().chunks(255) {
        let mut k = 0u8;
        for &x in block {
            k += (x >= 0xf0) as u8;
        }
        n += k as u64;
    }
    n
}

/// Bytes looked at by `auto` before deciding (also the most input held back before the first
/// hit can be reported).
pub(crate) const AUTO_WINDOW: usize = 64 * 1024;

/// Decides the encoding from the start of the input. `prefix` is everything buffered so far;
/// returns `None` when more input is needed. The result is the encoding and the BOM length.
pub(crate) fn decide(
    choice: EncodingChoice,
    prefix: &[u8],
    last: bool,
) -> Option<(&'static Encoding, usize)> {
    if let EncodingChoice::Exact(enc) = choice {
        return Some((enc, 0));
    }
    if prefix.len() < 3 && !last {
        return None;
    }
    // WHATWG "decode": a BOM wins over any label
    if let Some((enc, n)) = Encoding::for_bom(prefix) {
        return Some((enc, n));
    }
    match choice {
        EncodingChoice::Fixed(enc) | EncodingChoice::Exact(enc) => Some((enc, 0)),
        EncodingChoice::Auto => {
            if prefix.len() < AUTO_WINDOW && !last {
                return None;
            }
            let w = &prefix[..prefix.len().min(AUTO_WINDOW)];
            Some((guess(w, last && prefix.len() <= AUTO_WINDOW), 0))
        }
    }
}

/// `auto` without a BOM: UTF-16 if the window has the NUL pattern of UTF-16 text, else
/// ISO-2022-JP if it is 7-bit and designates a Japanese set by escape sequence (RFC 1468 3), else
/// UTF-8 if the window is valid UTF-8 (a sequence cut by the window's end is fine, and so is one
/// cut by the end of the input when the text before has non-ASCII UTF-8: a file cut
/// mid-character is UTF-8 with one malformed sequence, not windows-1252), else chardetng.
pub(crate) fn guess(w: &[u8], whole: bool) -> &'static Encoding {
    let pairs = w.len() / 2;
    if pairs >= 8 {
        let (mut even, mut odd) = (0usize, 0usize);
        for p in w.chunks_exact(2) {
            if p[0] == 0 && p[1] != 0 {
                even += 1;
            } else if p[1] == 0 && p[0] != 0 {
                odd += 1;
            }
        }
        if odd * 3 > pairs && even * 20 < pairs {
            return UTF_16LE;
        }
        if even * 3 > pairs && odd * 20 < pairs {
            return UTF_16BE;
        }
    }
    if is_iso_2022_jp(w) {
        return ISO_2022_JP;
    }
    match std::str::from_utf8(w) {
        Ok(_) => return UTF_8,
        Err(e) if e.error_len().is_none() && (!whole || !w[..e.valid_up_to()].is_ascii()) => {
            return UTF_8;
        }
        Err(_) => {}
    }
    let mut det = chardetng::EncodingDetector::new();
    det.feed(w, whole);
    det.guess(None, false)
}

/// Whether `w` looks like ISO-2022-JP: no byte above 0x7F and an escape sequence that
/// designates JIS X 0208 (`ESC $ @`, `ESC $ B`) or JIS X 0201 (`ESC ( J`, `ESC ( I`), the
/// sets of RFC 1468 and its common extensions. Such text is valid ASCII, so this comes before
/// the UTF-8 test.
fn is_iso_2022_jp(w: &[u8]) -> bool {
    let mut designates = false;
    for i in memchr::memchr_iter(0x1b, w) {
        designates |= matches!(w.get(i + 1..i + 3), Some(b"$@" | b"$B" | b"(J" | b"(I"));
        if designates {
            break;
        }
    }
    designates && w.is_ascii()
}

/// A decoder for one stream.
pub(crate) struct Stream {
    pub(crate) encoding: &'static Encoding,
    family: Family,
    decoder: encoding_rs::Decoder,
    /// absolute input offset of the next byte to feed
    src_pos: u64,
    // eager walk (EUC-JP, gb18030): the next character not yet walked
    ls_text: u64,
    ls_src: u64,
    carry: [u8; 4],
    // per-byte mode (ISO-2022-JP)
    char_start: Option<u64>,
    escape_left: u8,
    /// the decoder holds no unfinished character (lazy families only)
    clean: bool,
}

impl Stream {
    /// A stream decoding `encoding`, whose first byte to feed is at absolute offset `src0` and
    /// whose text starts at absolute text offset `text0`.
    pub(crate) fn new(encoding: &'static Encoding, src0: u64, text0: u64) -> (Stream, Map) {
        let family = Family::of(encoding);
        (
            Stream {
                encoding,
                family,
                decoder: encoding.new_decoder_without_bom_handling(),
                src_pos: src0,
                ls_text: text0,
                ls_src: src0,
                carry: [0; 4],
                char_start: None,
                escape_left: 0,
                clean: family.lazy(),
            },
            Map::new(family, text0, src0),
        )
    }

    /// Absolute input offset of the next byte to feed.
    pub(crate) fn src_pos(&self) -> u64 {
        self.src_pos
    }

    /// Restarts decoding at input offset `src0` (a [`Family::is_sync`] byte), whose text will
    /// start at absolute text offset `text0`; whatever the decoder held is dropped.
    pub(crate) fn reset(&mut self, src0: u64, text0: u64) {
        self.decoder = self.encoding.new_decoder_without_bom_handling();
        self.src_pos = src0;
        self.ls_text = text0;
        self.ls_src = src0;
        self.carry = [0; 4];
        self.char_start = None;
        self.escape_left = 0;
        self.clean = self.family.lazy();
    }

    /// Decodes `chunk` onto `text` (whose first byte is absolute text offset `base`).
    pub(crate) fn decode(
        &mut self,
        chunk: &[u8],
        last: bool,
        text: &mut String,
        base: u64,
        map: &mut Map,
        stats: &mut ScanStats,
    ) {
        if chunk.is_empty() && !last {
            // nothing to do; and an empty call would make encoding_rs drop a lead byte it
            // holds (Big5, 0.8.35)
            return;
        }
        let mut chunk = chunk;
        if self.clean {
            // from a clean state, valid UTF-8 is itself, and ASCII is itself in every lazy
            // family: no decoder call, and every character has its default length, as the map
            // assumes
            let valid = if self.family == Family::Utf8 {
                match std::str::from_utf8(chunk) {
                    Ok(t) => t,
                    Err(e) => std::str::from_utf8(&chunk[..e.valid_up_to()]).unwrap_or_default(),
                }
            } else {
                let n = Encoding::ascii_valid_up_to(chunk);
                std::str::from_utf8(&chunk[..n]).unwrap_or_default()
            };
            let n = valid.len();
            text.push_str(valid);
            self.src_pos += n as u64;
            self.ls_text += n as u64;
            self.ls_src += n as u64;
            self.keep_carry(&chunk[..n]);
            if n == chunk.len() && !last {
                return;
            }
            chunk = &chunk[n..];
        }
        let chunk_start = self.src_pos;
        if self.family == Family::Iso2022Jp {
            self.decode_per_byte(chunk, last, text, base, map, stats);
        } else {
            let mut rest = chunk;
            loop {
                let need = self
                    .decoder
                    .max_utf8_buffer_length_without_replacement(rest.len())
                    .unwrap_or(rest.len().saturating_mul(3))
                    + 4;
                text.reserve(need);
                let before = text.len();
                let (res, read) = self
                    .decoder
                    .decode_to_string_without_replacement(rest, text, last);
                self.src_pos += read as u64;
                rest = &rest[read..];
                if matches!(self.family, Family::EucJp | Family::Gb18030) {
                    self.walk(
                        &text[before..],
                        base + before as u64,
                        chunk,
                        chunk_start,
                        map,
                    );
                }
                match res {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(bad, after) => {
                        let bad_end = self.src_pos - after as u64;
                        self.replacement(bad_end - bad as u64, bad_end, text, base, map, stats);
                    }
                }
            }
        }
        if !chunk.is_empty() {
            self.clean = self.family.lazy() && self.family.clean_after(chunk);
        }
        self.keep_carry(chunk);
    }

    /// Keeps the last bytes for characters that straddle into the next chunk.
    fn keep_carry(&mut self, chunk: &[u8]) {
        if chunk.len() >= 4 {
            self.carry.copy_from_slice(&chunk[chunk.len() - 4..]);
        } else {
            let keep = 4 - chunk.len();
            self.carry.copy_within(4 - keep.., 0);
            self.carry[keep..].copy_from_slice(chunk);
        }
    }

    fn replacement(
        &mut self,
        start: u64,
        end: u64,
        text: &mut String,
        base: u64,
        map: &mut Map,
        stats: &mut ScanStats,
    ) {
        let t = base + text.len() as u64;
        map.push(t, start);
        text.push('\u{fffd}');
        map.push(t + 3, end);
        self.ls_text = t + 3;
        self.ls_src = end;
        stats.malformed_sequences += 1;
        stats.malformed_bytes += end - start;
    }

    /// EUC-JP and gb18030: walk the new text together with the input bytes and anchor every
    /// character whose byte length differs from the family default.
    fn walk(&mut self, new: &str, t0: u64, chunk: &[u8], chunk_start: u64, map: &mut Map) {
        let byte = |carry: &[u8; 4], at: u64| -> u8 {
            if at >= chunk_start {
                chunk.get((at - chunk_start) as usize).copied().unwrap_or(0)
            } else {
                let back = (chunk_start - at) as usize;
                if back <= 4 { carry[4 - back] } else { 0 }
            }
        };
        let mut t = t0;
        for c in new.chars() {
            let u = c as u32;
            let len = if u < 0x80 {
                1
            } else if self.family == Family::EucJp {
                if byte(&self.carry, self.ls_src) == 0x8f {
                    3
                } else {
                    2
                }
            } else if byte(&self.carry, self.ls_src) == 0x80 {
                1
            } else if (0x30..=0x39).contains(&byte(&self.carry, self.ls_src + 1)) {
                4
            } else {
                2
            };
            t += c.len_utf8() as u64;
            self.ls_src += len;
            if len != self.family.default_len('\0', c) {
                map.push(t, self.ls_src);
            }
        }
        self.ls_text = t;
    }

    /// ISO-2022-JP: one byte per call, an anchor at every character. Escape sequences are not
    /// counted as part of the character that follows them.
    fn decode_per_byte(
        &mut self,
        chunk: &[u8],
        last: bool,
        text: &mut String,
        base: u64,
        map: &mut Map,
        stats: &mut ScanStats,
    ) {
        let n = chunk.len();
        let mut i = 0;
        loop {
            let piece: &[u8] = if i < n { &chunk[i..i + 1] } else { &[] };
            let is_last = last && i + 1 >= n;
            if let Some(&b) = piece.first() {
                let at = self.src_pos;
                if self.escape_left > 0 {
                    self.escape_left -= 1;
                } else if b == 0x1b {
                    self.escape_left = 2;
                } else if self.char_start.is_none() {
                    self.char_start = Some(at);
                }
            }
            let mut rest = piece;
            loop {
                text.reserve(16);
                let before = text.len();
                let (res, read) = self
                    .decoder
                    .decode_to_string_without_replacement(rest, text, is_last);
                self.src_pos += read as u64;
                rest = &rest[read..];
                if text.len() > before {
                    let start = self.char_start.take().unwrap_or(self.src_pos);
                    map.push(base + before as u64, start);
                    map.push(base + text.len() as u64, self.src_pos);
                }
                match res {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(bad, after) => {
                        let bad_end = self.src_pos - after as u64;
                        let bad_start = bad_end.saturating_sub(bad as u64);
                        self.replacement(bad_start, bad_end, text, base, map, stats);
                        self.char_start = None;
                    }
                }
            }
            i += 1;
            if i >= n {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `input` split at every `step` bytes and returns text plus the input offset of
    /// every character boundary.
    fn offsets(enc: &'static Encoding, input: &[u8], step: usize) -> (String, Vec<(usize, u64)>) {
        let (mut s, mut map) = Stream::new(enc, 0, 0);
        let mut text = String::new();
        let mut stats = ScanStats::default();
        for c in input.chunks(step.max(1)) {
            s.decode(c, false, &mut text, 0, &mut map, &mut stats);
        }
        s.decode(&[], true, &mut text, 0, &mut map, &mut stats);
        let mut v = Vec::new();
        let idx: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        for i in idx {
            v.push((i, map.src_of(i as u64, &text, 0)));
        }
        (text, v)
    }

    /// Every character's input range, decoded on its own with a fresh decoder, gives back that
    /// character (Big5's two-character mappings: the pair).
    fn verify(enc: &'static Encoding, input: &[u8], text: &str, offs: &[(usize, u64)]) {
        for k in 0..offs.len() - 1 {
            let (ti, s) = offs[k];
            let e = offs[k + 1].1;
            let c = text[ti..].chars().next().unwrap_or('\0');
            assert!(s <= e, "{} char {k}: {s} > {e}", enc.name());
            if c == '\u{fffd}' {
                continue;
            }
            if s == e {
                // second half of a Big5 pair
                assert_eq!(enc, BIG5, "empty range for {c:?}");
                continue;
            }
            let mut want = c.to_string();
            if k + 2 < offs.len() && offs[k + 2].1 == e {
                want.push(text[offs[k + 1].0..].chars().next().unwrap_or('\0'));
            }
            let (got, _) = enc.decode_without_bom_handling(&input[s as usize..e as usize]);
            assert_eq!(got, want, "{} char {k} at {s}..{e}", enc.name());
        }
    }

    fn check(enc: &'static Encoding, input: &[u8]) {
        for step in [1, 2, 3, 7, 4096] {
            let (text, offs) = offsets(enc, input, step);
            let (whole, _) = enc.decode_without_bom_handling(input);
            assert_eq!(text, whole, "{} step {step}", enc.name());
            assert_eq!(offs.last().map(|x| x.1), Some(input.len() as u64));
            verify(enc, input, &text, &offs);
        }
    }

    #[test]
    fn exhaustive_two_byte_tables() {
        for enc in [SHIFT_JIS, EUC_KR, BIG5, EUC_JP, GBK] {
            let mut input = Vec::new();
            for lead in 0x80u8..=0xff {
                for trail in (0x30u8..=0x7f).chain(0x80..=0xff) {
                    input.extend_from_slice(&[b'a', lead, trail]);
                }
            }
            for step in [1, 5, 4096] {
                let (text, offs) = offsets(enc, &input, step);
                assert_eq!(text, enc.decode_without_bom_handling(&input).0);
                verify(enc, &input, &text, &offs);
            }
        }
    }

    #[test]
    fn gb18030_four_byte_and_euro() {
        let (s, _, _) = GB18030.encode("a€b\u{80}c😀d\u{e5e5}é中");
        let mut v = s.into_owned();
        v.push(0x80);
        v.extend_from_slice(b"x\x81\x30\x81\x30y");
        check(GBK, &v);
    }

    #[test]
    fn euc_jp_jis0212() {
        check(EUC_JP, b"a\x8f\xb0\xa1b\xa4\xa2c\x8e\xb1d\x8f\xff");
    }

    #[test]
    fn utf16_and_errors() {
        let (s, _, _) = UTF_16LE.encode("a😀b");
        let _ = s;
        let mut v: Vec<u8> = "a😀bé"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        v.extend_from_slice(&[0x00, 0xd8, 0x41, 0x00, 0x00, 0xdc, 0x42]);
        check(UTF_16LE, &v);
        let w: Vec<u8> = "x😀y"
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes())
            .collect();
        check(UTF_16BE, &w);
    }

    #[test]
    fn utf8_errors_and_single_byte() {
        check(
            UTF_8,
            b"ab\xe4\xbd\xa0c\xe4\xbdd\xff\xc3\xa9\xf0\x9f\x98\x80\xf0\x9f",
        );
        check(encoding_rs::WINDOWS_1258, b"Vi\xea\xf2t Nam \x80\x81");
    }

    /// An empty chunk between a lead byte and its trail byte changes nothing (encoding_rs
    /// drops a held Big5 lead byte when called with no input, so the stream does not call it).
    #[test]
    fn empty_chunk_between_lead_and_trail() {
        for (enc, input) in [(BIG5, &b"A\xa1\x43D"[..]), (SHIFT_JIS, b"A\x82\xa0D")] {
            let (mut s, mut map) = Stream::new(enc, 0, 0);
            let mut text = String::new();
            let mut stats = ScanStats::default();
            s.decode(&input[..2], false, &mut text, 0, &mut map, &mut stats);
            s.decode(&[], false, &mut text, 0, &mut map, &mut stats);
            s.decode(&input[2..], false, &mut text, 0, &mut map, &mut stats);
            s.decode(&[], true, &mut text, 0, &mut map, &mut stats);
            assert_eq!(
                text,
                enc.decode_without_bom_handling(input).0,
                "{}",
                enc.name()
            );
            assert_eq!(stats.malformed_sequences, 0);
        }
    }

    #[test]
    fn iso_2022_jp() {
        let (bytes, _, _) = ISO_2022_JP.encode("abc 日本語 http://example.jp/ テスト");
        let input = bytes.into_owned();
        for step in [1, 3, 4096] {
            let (text, offs) = offsets(ISO_2022_JP, &input, step);
            assert_eq!(text, "abc 日本語 http://example.jp/ テスト");
            // 'h' starts right after the escape back to ASCII
            let h = text.find("http").unwrap_or(0);
            let src = offs.iter().find(|(t, _)| *t == h).map(|x| x.1).unwrap_or(0) as usize;
            assert_eq!(&input[src..src + 4], b"http");
        }
    }

    #[test]
    fn auto() {
        assert_eq!(decide(EncodingChoice::Auto, b"abc", true), Some((UTF_8, 0)));
        assert_eq!(
            decide(EncodingChoice::Auto, b"\xef\xbb\xbfabc", true),
            Some((UTF_8, 3))
        );
        assert_eq!(
            decide(EncodingChoice::Auto, b"\xff\xfea\0", true),
            Some((UTF_16LE, 2))
        );
        assert_eq!(decide(EncodingChoice::Auto, b"ab", false), None);
        let le: Vec<u8> = "hello world, http://x"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(decide(EncodingChoice::Auto, &le, true), Some((UTF_16LE, 0)));
        let (sj, _, _) =
            SHIFT_JIS.encode("日本語のテキストです。http://example.jp/ を見てください。");
        let got = decide(EncodingChoice::Auto, &sj, true).map(|x| x.0);
        assert_eq!(got, Some(SHIFT_JIS));
    }
}
