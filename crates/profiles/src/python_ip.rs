//! Python 3.11's `ipaddress`, as far as the profiles use it (w3lib's netloc, urlcanon's
//! `normalize_ip_address`): `ip_address(s)` (which strings are an
//! IPv4 or an IPv6 address, with the IPv6 zone `%scope`) and `str(IPv6Address)` (RFC 5952's
//! compressed text, the scope appended as given).

/// `ipaddress.IPv4Address(s)` (Python 3.11 ipaddress.py `_ip_int_from_string`): exactly four
/// dot-separated decimal octets of at most three ASCII digits, no leading zero, each ≤ 255.
pub(super) fn parse_ipv4(s: &str) -> Option<u32> {
    if s.contains('/') {
        return None;
    }
    let mut n = 0u32;
    let mut count = 0;
    for octet in s.split('.') {
        count += 1;
        if count > 4 || octet.is_empty() || octet.len() > 3 {
            return None;
        }
        if !octet.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if octet != "0" && octet.starts_with('0') {
            return None;
        }
        let v: u32 = octet.parse().ok()?;
        if v > 255 {
            return None;
        }
        n = (n << 8) | v;
    }
    (count == 4).then_some(n)
}

/// `ipaddress.IPv6Address(s)`: the address and the scope (`%zone`, any non-empty text without
/// `%`). Python 3.11 ipaddress.py `_split_scope_id` and `_ip_int_from_string`.
pub(super) fn parse_ipv6(s: &str) -> Option<(u128, Option<&str>)> {
    if s.contains('/') {
        return None;
    }
    let (addr, scope) = match s.split_once('%') {
        None => (s, None),
        Some((_, z)) if z.is_empty() || z.contains('%') => return None,
        Some((a, z)) => (a, Some(z)),
    };
    if addr.is_empty() {
        return None;
    }
    // The parts, as strings or (for an IPv4 suffix) as two computed hextets.
    let mut parts: [Part<'_>; 10] = [Part::Text(""); 10];
    let mut n = 0;
    for p in addr.split(':') {
        if n == parts.len() {
            return None; // more than 9 parts even before the IPv4 suffix
        }
        parts[n] = Part::Text(p);
        n += 1;
    }
    if n < 3 {
        return None;
    }
    if let Part::Text(last) = parts[n - 1]
        && last.contains('.')
    {
        let v4 = parse_ipv4(last)?;
        parts[n - 1] = Part::Value((v4 >> 16) as u16);
        if n == parts.len() {
            return None;
        }
        parts[n] = Part::Value(v4 as u16);
        n += 1;
    }
    if n > 9 {
        return None;
    }
    let parts = &parts[..n];
    let empty = |i: usize| matches!(parts[i], Part::Text(""));
    let mut skip = None;
    for i in 1..n - 1 {
        if empty(i) {
            if skip.is_some() {
                return None;
            }
            skip = Some(i);
        }
    }
    let (hi, lo, skipped) = match skip {
        Some(k) => {
            let mut hi = k;
            let mut lo = n - k - 1;
            if empty(0) {
                hi -= 1;
                if hi != 0 {
                    return None;
                }
            }
            if empty(n - 1) {
                lo -= 1;
                if lo != 0 {
                    return None;
                }
            }
            let total = hi + lo;
            if total >= 8 {
                return None;
            }
            (hi, lo, 8 - total)
        }
        None => {
            if n != 8 || empty(0) || empty(n - 1) {
                return None;
            }
            (n, 0, 0)
        }
    };
    let mut v: u128 = 0;
    for p in &parts[..hi] {
        v = (v << 16) | u128::from(p.hextet()?);
    }
    v = v.checked_shl(16 * skipped as u32).unwrap_or(0);
    for p in &parts[n - lo..] {
        v = (v << 16) | u128::from(p.hextet()?);
    }
    Some((v, scope))
}

/// One `:`-separated part of an IPv6 address.
#[derive(Clone, Copy)]
enum Part<'a> {
    /// As written.
    Text(&'a str),
    /// Computed from an IPv4 suffix.
    Value(u16),
}

impl Part<'_> {
    /// `_parse_hextet`: one to four ASCII hex digits.
    fn hextet(self) -> Option<u16> {
        match self {
            Part::Value(v) => Some(v),
            Part::Text(t) => {
                if t.is_empty() || t.len() > 4 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                u16::from_str_radix(t, 16).ok()
            }
        }
    }
}

/// `str(IPv6Address)`: lowercase hextets without leading zeros, the first longest run of two or
/// more zero hextets written `::` (Python 3.11 `_compress_hextets`), then `%scope`.
pub(super) fn push_ipv6(v: u128, scope: Option<&str>, out: &mut String) {
    let h: [u16; 8] = std::array::from_fn(|i| (v >> (112 - 16 * i)) as u16);
    let (mut best, mut best_len, mut cur, mut cur_len) = (0, 0, 0, 0);
    for (i, &x) in h.iter().enumerate() {
        if x == 0 {
            if cur_len == 0 {
                cur = i;
            }
            cur_len += 1;
            if cur_len > best_len {
                best = cur;
                best_len = cur_len;
            }
        } else {
            cur_len = 0;
        }
    }
    let hex = |out: &mut String, run: &[u16]| {
        for (i, x) in run.iter().enumerate() {
            if i > 0 {
                out.push(':');
            }
            push_hex(out, *x);
        }
    };
    if best_len > 1 {
        hex(out, &h[..best]);
        out.push_str("::");
        hex(out, &h[best + best_len..]);
    } else {
        hex(out, &h);
    }
    if let Some(z) = scope {
        out.push('%');
        out.push_str(z);
    }
}

/// `'%x' % x`.
fn push_hex(out: &mut String, x: u16) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut started = false;
    for shift in [12, 8, 4, 0] {
        let d = (x >> shift) & 0xf;
        if d != 0 || started || shift == 0 {
            started = true;
            out.push(char::from(DIGITS[usize::from(d)]));
        }
    }
}
