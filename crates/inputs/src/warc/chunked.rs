//! The chunked transfer coding of a `response` record's body (RFC 9112 7.1).

use super::*;

/// A body in the chunked transfer coding, read as the bytes it carries (RFC 9112 7.1). Its
/// trailer fields are read and dropped.
pub(super) struct Dechunk<R> {
    pub(super) inner: R,
    /// Bytes left in the current chunk; `None` before a chunk-size line.
    pub(super) left: Option<u64>,
    pub(super) done: bool,
    pub(super) line: Vec<u8>,
}

impl<R: BufRead> Dechunk<R> {
    /// Reads the first chunk-size line: `None` (the reader untouched but for what it gives back
    /// in `line`) when it is not one, as when a writer stored a body already decoded but kept its
    /// `Transfer-Encoding` field.
    pub(super) fn first_size(r: &mut R, line: &mut Vec<u8>) -> io::Result<Option<u64>> {
        r.take(256).read_until(b'\n', line)?;
        Ok(chunk_size(line))
    }

    fn read_size(&mut self) -> io::Result<()> {
        self.line.clear();
        self.inner
            .by_ref()
            .take(4096)
            .read_until(b'\n', &mut self.line)?;
        let size = chunk_size(&self.line).ok_or_else(|| {
            if self.line.is_empty() {
                io::Error::new(io::ErrorKind::UnexpectedEof, "chunked body: ends early")
            } else {
                io::Error::new(io::ErrorKind::InvalidData, "chunked body: bad chunk size")
            }
        })?;
        self.start(size)
    }

    pub(super) fn start(&mut self, size: u64) -> io::Result<()> {
        if size == 0 {
            // trailer section: fields up to an empty line (RFC 9112 7.1.2)
            loop {
                self.line.clear();
                let n = self
                    .inner
                    .by_ref()
                    .take(1 << 16)
                    .read_until(b'\n', &mut self.line)?;
                if n == 0 || self.line.iter().all(u8::is_ascii_whitespace) {
                    break;
                }
            }
            self.done = true;
        } else {
            self.left = Some(size);
        }
        Ok(())
    }
}

/// `1a;ext=v\r\n` -> 26.
pub(super) fn chunk_size(line: &[u8]) -> Option<u64> {
    let text = line.strip_suffix(b"\n")?;
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let hex = text.split(|&b| b == b';').next()?;
    let hex = std::str::from_utf8(hex).ok()?.trim_matches([' ', '\t']);
    if hex.is_empty() || hex.len() > 15 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

impl<R: BufRead> Read for Dechunk<R> {
    /// Fills `buf` across chunks, so that a reader above sees as many bytes as a plain body
    /// would give it (a sniffed magic number is never split).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() && !self.done {
            let Some(left) = self.left else {
                self.read_size()?;
                continue;
            };
            if left == 0 {
                // the CRLF after a chunk's data
                self.line.clear();
                self.inner
                    .by_ref()
                    .take(2)
                    .read_until(b'\n', &mut self.line)?;
                if !matches!(self.line.as_slice(), b"\r\n" | b"\n") {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "chunked body: chunk data longer than its size",
                    ));
                }
                self.left = None;
                continue;
            }
            let want = (buf.len() - n).min(usize::try_from(left).unwrap_or(usize::MAX));
            let got = self.inner.read(&mut buf[n..n + want])?;
            if got == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "chunked body: ends inside a chunk",
                ));
            }
            n += got;
            self.left = Some(left - got as u64);
        }
        Ok(n)
    }
}
