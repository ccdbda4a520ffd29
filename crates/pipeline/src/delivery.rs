//! Where `run` and `dedup` write, and when what they wrote counts as delivered: the output side
//! of "a key is recorded as seen only after it is delivered".
//!
//! A durable seen-set records the keys it answered new only when the sink has delivered them
//! ([`SeenSet::sync`]). [`Output::delivered`] says when that is: a regular file once written
//! and synced to its disk (so a crash of the machine cannot keep the record and lose the
//! line); a pipe once the consumer has read every byte written to it (nothing is left unread
//! in it: a consumer that stops reading, `| head`, never gets the keys still in the pipe, so
//! they must not be recorded); anything else (a terminal, a socket) once written. After a
//! failed write, [`Output::cut_partial`] takes back a partial last line where the output
//! allows it (a regular file is truncated to its last complete line), so that no output ends
//! in part of a key.

use crate::RunError;
use linksieve_dedup::{CommitPolicy, SeenSet};
use std::fs::File;
use std::io::{self, Write};
use std::time::Instant;

/// An output of `run` or `dedup`: a writer that can say whether what was written reached its
/// reader, and take back a partial last line after a failed write.
///
/// ```
/// use linksieve_pipeline::delivery::Output;
/// use std::io::Write;
/// let mut v: Vec<u8> = Vec::new();
/// v.write_all(b"http://a/\nhttp://b").unwrap();
/// assert!(v.delivered().unwrap());
/// v.cut_partial();
/// assert_eq!(v, b"http://a/\n");
/// ```
pub trait Output: Write {
    /// Flushes; true once every byte written so far is with its reader (see the module).
    /// False means "not yet": ask again later.
    fn delivered(&mut self) -> io::Result<bool> {
        self.flush()?;
        Ok(true)
    }

    /// After a failed write: removes a partial last line where the output allows it.
    fn cut_partial(&mut self) {}

    /// Flushes and waits until every byte written is delivered; a reader that went away is
    /// [`io::ErrorKind::BrokenPipe`].
    fn wait_delivered(&mut self) -> io::Result<()> {
        while !self.delivered()? {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }
}

impl Output for Vec<u8> {
    fn cut_partial(&mut self) {
        let keep = memchr::memrchr(b'\n', self).map_or(0, |i| i + 1);
        self.truncate(keep);
    }
}

impl Output for io::Sink {}

/// What an [`FdOutput`] writes to, which says what "delivered" means for it.
///
/// ```
/// use linksieve_pipeline::delivery::{FdOutput, OutputKind};
/// let (r, w) = std::io::pipe().unwrap();
/// assert_eq!(FdOutput::new(std::fs::File::from(std::os::fd::OwnedFd::from(w))).kind(), OutputKind::Pipe);
/// drop(r);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A regular file: delivered once synced to disk; a partial last line can be cut.
    File,
    /// A pipe: delivered once the reader has read everything.
    Pipe,
    /// A terminal, socket or device: delivered once written.
    Other,
}

/// A file descriptor as an [`Output`]: standard output, or the temporary file of `--out`.
/// Unbuffered (the printer buffers); it counts the bytes written since the last line feed so
/// that a failed write on a regular file can be taken back to the last complete line.
///
/// ```
/// use linksieve_pipeline::delivery::{FdOutput, Output, OutputKind};
/// use std::io::Write;
/// let dir = tempfile::tempdir().unwrap();
/// let f = std::fs::File::create(dir.path().join("out")).unwrap();
/// let mut out = FdOutput::new(f);
/// assert_eq!(out.kind(), OutputKind::File);
/// out.write_all(b"http://a/\nhttp://b").unwrap();
/// out.cut_partial();
/// assert_eq!(std::fs::read(dir.path().join("out")).unwrap(), b"http://a/\n");
/// ```
#[derive(Debug)]
pub struct FdOutput {
    file: File,
    kind: OutputKind,
    /// Bytes written after the last line feed written.
    tail: u64,
}

impl FdOutput {
    /// Writes to `file` (closed when dropped).
    ///
    /// ```
    /// let f = tempfile::tempfile().unwrap();
    /// assert_eq!(linksieve_pipeline::delivery::FdOutput::new(f).kind(), linksieve_pipeline::delivery::OutputKind::File);
    /// ```
    pub fn new(file: File) -> FdOutput {
        let kind = kind_of(&file);
        FdOutput {
            file,
            kind,
            tail: 0,
        }
    }

    /// Standard output, written directly (a duplicate of its descriptor, not Rust's
    /// line-buffered `stdout`).
    ///
    /// ```
    /// let out = linksieve_pipeline::delivery::FdOutput::stdout().unwrap();
    /// let _ = out.kind();
    /// ```
    pub fn stdout() -> io::Result<FdOutput> {
        use std::os::fd::AsFd;
        let fd = io::stdout().as_fd().try_clone_to_owned()?;
        Ok(FdOutput::new(File::from(fd)))
    }

    /// What it writes to.
    ///
    /// ```
    /// # let f = tempfile::tempfile().unwrap();
    /// assert_eq!(linksieve_pipeline::delivery::FdOutput::new(f).kind(), linksieve_pipeline::delivery::OutputKind::File);
    /// ```
    pub fn kind(&self) -> OutputKind {
        self.kind
    }
}

fn kind_of(file: &File) -> OutputKind {
    match file.metadata() {
        Ok(m) if m.is_file() => OutputKind::File,
        #[cfg(unix)]
        Ok(m) => {
            use std::os::unix::fs::FileTypeExt;
            let t = m.file_type();
            if t.is_fifo() {
                OutputKind::Pipe
            } else {
                OutputKind::Other
            }
        }
        _ => OutputKind::Other,
    }
}

impl Write for FdOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = (&self.file).write(buf)?;
        match memchr::memrchr(b'\n', &buf[..n]) {
            Some(i) => self.tail = (n - i - 1) as u64,
            None => self.tail += n as u64,
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Output for FdOutput {
    fn delivered(&mut self) -> io::Result<bool> {
        match self.kind {
            // a file that cannot be synced (a filesystem without fsync) counts once written
            OutputKind::File => match self.file.sync_data() {
                Err(e) if e.kind() != io::ErrorKind::InvalidInput => Err(e),
                _ => Ok(true),
            },
            OutputKind::Pipe => Ok(unread(&self.file)? == 0),
            OutputKind::Other => Ok(true),
        }
    }

    fn wait_delivered(&mut self) -> io::Result<()> {
        while !self.delivered()? {
            reader_present(&self.file)?;
        }
        Ok(())
    }

    fn cut_partial(&mut self) {
        if self.kind != OutputKind::File || self.tail == 0 {
            return;
        }
        use std::io::Seek;
        if let Ok(end) = (&self.file).stream_position()
            && let Some(keep) = end.checked_sub(self.tail)
            && self.file.set_len(keep).is_ok()
        {
            self.tail = 0;
        }
    }
}

/// Bytes written to a pipe that its reader has not read yet (`FIONREAD`, which Linux answers
/// on either end of a pipe); 0 where the system cannot say.
#[cfg(unix)]
fn unread(file: &File) -> io::Result<u64> {
    match rustix::io::ioctl_fionread(file) {
        Ok(n) => Ok(n),
        Err(_) => Ok(0),
    }
}

#[cfg(not(unix))]
fn unread(_file: &File) -> io::Result<u64> {
    Ok(0)
}

/// Waits up to 10 ms for a pipe's reader to read; [`io::ErrorKind::BrokenPipe`] when the
/// reader closed its end (what is left in the pipe will never be read).
#[cfg(unix)]
fn reader_present(file: &File) -> io::Result<()> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(file, PollFlags::OUT)];
    let wait = Timespec {
        tv_sec: 0,
        tv_nsec: 10_000_000,
    };
    poll(&mut fds, Some(&wait)).map_err(io::Error::from)?;
    if fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP) {
        return Err(io::ErrorKind::BrokenPipe.into());
    }
    if !fds[0].revents().contains(PollFlags::OUT) {
        return Ok(());
    }
    // writable: the pipe has room, yet bytes are unread; wait a little before asking again
    std::thread::sleep(std::time::Duration::from_millis(1));
    Ok(())
}

#[cfg(not(unix))]
fn reader_present(_file: &File) -> io::Result<()> {
    Ok(())
}

/// The sink's side of the commit policy: once what a durable set answered new is delivered, it
/// syncs the set (when the policy says so, and always at the end). Used by `run`'s sink and by
/// `dedup`.
pub(crate) struct Recorder {
    policy: CommitPolicy,
    last: Instant,
    /// Syncs done.
    pub(crate) commits: u64,
}

impl Recorder {
    pub(crate) fn new(policy: CommitPolicy) -> Recorder {
        Recorder {
            policy,
            last: Instant::now(),
            commits: 0,
        }
    }

    /// After a batch was written: syncs when the policy says so and the output has delivered
    /// it (a pipe whose reader has not read everything yet: at a later step, or, once the
    /// unsynced keys reach the policy's [`backlog`](CommitPolicy::backlog), after waiting for
    /// the reader to drain it).
    pub(crate) fn step(
        &mut self,
        set: &mut dyn SeenSet,
        out: &mut io::BufWriter<&mut dyn Output>,
    ) -> Result<(), RunError> {
        if !set.durable() || !self.policy.due(set.unsynced(), self.last.elapsed()) {
            return Ok(());
        }
        out.flush().map_err(RunError::Output)?;
        let output = out.get_mut();
        if !output.delivered().map_err(RunError::Output)? {
            if self
                .policy
                .backlog()
                .is_none_or(|most| set.unsynced() < most)
            {
                return Ok(());
            }
            output.wait_delivered().map_err(RunError::Output)?;
        }
        set.sync()?;
        self.commits += 1;
        self.last = Instant::now();
        Ok(())
    }

    /// The end of the output: waits until everything written is delivered, then syncs.
    pub(crate) fn end(
        &mut self,
        set: &mut dyn SeenSet,
        out: &mut io::BufWriter<&mut dyn Output>,
    ) -> Result<(), RunError> {
        out.flush().map_err(RunError::Output)?;
        if set.durable() && set.unsynced() > 0 {
            out.get_mut().wait_delivered().map_err(RunError::Output)?;
            set.sync()?;
            self.commits += 1;
        }
        Ok(())
    }
}

/// After a failed write: the output's partial last line taken back (see [`Output::cut_partial`]).
pub(crate) fn cut_partial(out: &mut io::BufWriter<&mut dyn Output>) {
    out.get_mut().cut_partial();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_is_delivered_once_its_reader_read_everything() {
        let (r, w) = rustix::pipe::pipe().unwrap();
        let mut out = FdOutput::new(File::from(w));
        assert_eq!(out.kind(), OutputKind::Pipe);
        out.write_all(b"http://a/\n").unwrap();
        assert!(!out.delivered().unwrap());
        let mut buf = [0u8; 64];
        let n = rustix::io::read(&r, &mut buf).unwrap();
        assert_eq!(n, 10);
        assert!(out.delivered().unwrap());
    }
}
