//! Punycode (RFC 3492), the one encoder and decoder of every profile: as Go's
//! `golang.org/x/net/idna` (`punycode.go`, the version vendored by google/safebrowsing) encodes
//! and decodes a label. Python's `punycode` codec (w3lib, surt, urlcanon) and Java's
//! `java.net.IDN` (crawler-commons) encode the same way: RFC 3492 section 6.3's output is unique.

const BASE: i32 = 36;
const TMIN: i32 = 1;
const TMAX: i32 = 26;
const SKEW: i32 = 38;
const DAMP: i32 = 700;
const INITIAL_BIAS: i32 = 72;
const INITIAL_N: i32 = 128;

/// RFC 3492 §6.1.
fn adapt(mut delta: i32, num_points: i32, first: bool) -> i32 {
    delta /= if first { DAMP } else { 2 };
    delta += delta / num_points;
    let mut k = 0;
    while delta > ((BASE - TMIN) * TMAX) / 2 {
        delta /= BASE - TMIN;
        k += BASE;
    }
    k + (BASE - TMIN + 1) * delta / (delta + SKEW)
}

/// The threshold of RFC 3492 §6.2 at `k`.
fn threshold(k: i32, bias: i32) -> i32 {
    (k - bias).clamp(TMIN, TMAX)
}

fn encode_digit(d: i32) -> u8 {
    match d {
        0..=25 => b'a' + d as u8,
        _ => b'0' + (d - 26) as u8,
    }
}

fn decode_digit(b: u8) -> Option<i32> {
    match b {
        b'0'..=b'9' => Some(i32::from(b - b'0') + 26),
        b'A'..=b'Z' => Some(i32::from(b - b'A')),
        b'a'..=b'z' => Some(i32::from(b - b'a')),
        _ => None,
    }
}

/// Appends the Punycode of the code points `s` to `out` (without the `xn--` prefix); `None` on
/// overflow (Go's `punyError`).
pub(crate) fn encode(s: &[u32], out: &mut Vec<u8>) -> Option<()> {
    let mut b = 0i32;
    for &c in s.iter().filter(|&&c| c < 0x80) {
        out.push(c as u8);
        b += 1;
    }
    let mut remaining = s.iter().filter(|&&c| c >= 0x80).count();
    let mut h = b;
    if b > 0 {
        out.push(b'-');
    }
    let (mut delta, mut n, mut bias) = (0i32, INITIAL_N, INITIAL_BIAS);
    while remaining != 0 {
        let m = s.iter().map(|&c| c as i32).filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(h + 1)?)?;
        n = m;
        for &c in s {
            let c = c as i32;
            if c < n {
                delta = delta.checked_add(1)?;
                continue;
            }
            if c > n {
                continue;
            }
            let mut q = delta;
            let mut k = BASE;
            loop {
                let t = threshold(k, bias);
                if q < t {
                    break;
                }
                out.push(encode_digit(t + (q - t) % (BASE - t)));
                q = (q - t) / (BASE - t);
                k += BASE;
            }
            out.push(encode_digit(q));
            bias = adapt(delta, h + 1, h == b);
            delta = 0;
            h += 1;
            remaining -= 1;
        }
        delta = delta.checked_add(1)?;
        n += 1;
    }
    Some(())
}

/// Go's `decode`: the code points of the Punycode `enc` (without `xn--`); `None` where Go
/// reports an error. The basic part is read as UTF-8 (an invalid byte is U+FFFD), as Go ranges
/// over a string.
pub(crate) fn decode(enc: &[u8]) -> Option<Vec<u32>> {
    if enc.is_empty() {
        return Some(Vec::new());
    }
    let pos0 = enc.iter().rposition(|&b| b == b'-').map_or(0, |i| i + 1);
    if pos0 == 1 {
        return None;
    }
    let mut output: Vec<u32> = Vec::with_capacity(enc.len());
    if pos0 == enc.len() {
        output.extend(runes(&enc[..enc.len() - 1]));
        return Some(output);
    }
    if pos0 != 0 {
        output.extend(runes(&enc[..pos0 - 1]));
    }
    let mut pos = pos0;
    let (mut i, mut n, mut bias) = (0i32, INITIAL_N, INITIAL_BIAS);
    while pos < enc.len() {
        let (old_i, mut w) = (i, 1i32);
        let mut k = BASE;
        loop {
            let digit = decode_digit(*enc.get(pos)?)?;
            pos += 1;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            if w >= i32::MAX / BASE {
                return None;
            }
            k += BASE;
        }
        let x = output.len() as i32 + 1;
        bias = adapt(i - old_i, x, old_i == 0);
        n = n.checked_add(i / x)?;
        i %= x;
        if n > 0x10FFFF || output.len() >= 1024 {
            return None;
        }
        output.insert(i as usize, n as u32);
        i += 1;
    }
    Some(output)
}

/// The code points of `s` as Go ranges over a string: each byte of an invalid sequence is one
/// U+FFFD.
pub(crate) fn runes(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = *rest.first()?;
        if first < 0x80 {
            rest = &rest[1..];
            return Some(u32::from(first));
        }
        let len = match first {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 0,
        };
        match rest.get(..len).map(std::str::from_utf8) {
            Some(Ok(c)) if len > 0 => {
                rest = &rest[len..];
                c.chars().next().map(u32::from)
            }
            _ => {
                rest = &rest[1..];
                Some(0xFFFD)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let s: Vec<u32> = "bücher".chars().map(u32::from).collect();
        let mut out = Vec::new();
        encode(&s, &mut out).unwrap();
        assert_eq!(out, b"bcher-kva");
        assert_eq!(decode(&out).unwrap(), s);
        out.clear();
        encode(&[0x2603], &mut out).unwrap();
        assert_eq!(out, b"n3h");
        assert!(decode(b"-abc").is_none());
        assert_eq!(decode(b"abc-").unwrap(), vec![97, 98, 99]);
        assert_eq!(
            runes(b"a\xff\xc3\xbc").collect::<Vec<_>>(),
            vec![97, 0xFFFD, 0xFC]
        );
    }
}
