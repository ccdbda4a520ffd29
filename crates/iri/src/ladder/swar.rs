//! SWAR helpers: eight ASCII bytes tested at once in a `u64` (the ladder's fast paths and
//! its host check).

pub(super) const LO: u64 = 0x0101_0101_0101_0101;
pub(super) const HI: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `b[i..]`, if there are eight.
#[inline]
pub(super) fn word(b: &[u8], i: usize) -> Option<u64> {
    let chunk: [u8; 8] = b.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// One of the (ASCII) bytes of `w` is `c`.
#[inline]
pub(super) fn has_byte(w: u64, c: u8) -> bool {
    let v = w ^ (LO * u64::from(c));
    v.wrapping_sub(LO) & !v & HI != 0
}

/// The high bit of each byte of `w` (ASCII) that is `c`, exactly.
#[inline]
pub(super) fn eq_mask(w: u64, c: u8) -> u64 {
    let v = w ^ (LO * u64::from(c));
    !(((v & !HI) + !HI) | v | !HI)
}

/// One of the (ASCII) bytes of `w` is an uppercase letter.
#[inline]
pub(super) fn has_upper(w: u64) -> bool {
    let ge_a = w + LO * (0x80 - u64::from(b'A'));
    let gt_z = w + LO * (0x80 - u64::from(b'Z') - 1);
    ge_a & !gt_z & HI != 0
}
