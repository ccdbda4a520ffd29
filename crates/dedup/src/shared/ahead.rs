//! Claims sent ahead on one server. [`SeenSet::submit`](crate::SeenSet::submit) sends a batch's
//! claims and then reads the answers of the batch before it, so that the server claims one
//! batch while the caller writes the one before (a round trip at a time left the server idle
//! while the caller worked, and the caller idle while the server did).
//!
//! What a sync records is unchanged: only the keys whose answers were handed to the caller. The
//! client keeps the log entries of the keys whose answers it has not handed out yet (sent, or
//! read and held), and a sync replaces the run's log with them (`SET`) instead of deleting it,
//! so those claims stay listed, and are given back if the run dies before it hands them out.
//!
//! The claims are encoded here (RESP arrays of bulk strings, as the client's own `Cmd` packs
//! them) into one reused buffer: no allocation per key.

use super::conn::int;
use super::{CHUNK, LOG_ENTRY, RedisSet};
use crate::{Fingerprint, Result};
use std::collections::VecDeque;

/// A batch sent whose answers were not read yet: the log's `APPEND`, then this many claims.
struct Flight {
    claims: usize,
}

/// The claims sent ahead of their answers, and the answers read ahead of the caller.
#[derive(Default)]
pub(super) struct Ahead {
    flights: VecDeque<Flight>,
    /// Answers read and not handed out yet, in order.
    early: VecDeque<bool>,
    /// The log entries (fingerprint, claim token) of the keys whose answers were not handed
    /// out yet, in order: those of `early`, then those of `flights`.
    pub(super) log: Vec<u8>,
    /// The batch being encoded, and a bucket key (both reused).
    packed: Vec<u8>,
    key: String,
}

impl Ahead {
    /// The bytes it holds (for [`SeenSet::memory_bytes`](crate::SeenSet::memory_bytes)).
    pub(super) fn capacity(&self) -> usize {
        self.log.capacity() + self.packed.capacity() + self.key.capacity() + self.early.capacity()
    }
}

/// `*N\r\n`: a command of `n` arguments.
fn array(out: &mut Vec<u8>, n: usize) {
    out.push(b'*');
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// `$LEN\r\nBYTES\r\n`: one argument.
fn bulk(out: &mut Vec<u8>, b: &[u8]) {
    out.push(b'$');
    out.extend_from_slice(itoa::Buffer::new().format(b.len()).as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
}

impl RedisSet {
    /// Whether [`submit`](crate::SeenSet::submit) sends claims ahead: on one server (a
    /// cluster's pipeline is answered whole), unless each call records the one before it
    /// ([`sync_on_next_call`](RedisSet::sync_on_next_call): an answer is delivered once
    /// returned).
    pub(super) fn sends_ahead(&self) -> bool {
        !self.conn.is_cluster() && !self.sync_on_next_call
    }

    /// `submit` on one server: sends the claims of `fps` (in batches of [`CHUNK`]), then reads
    /// the answers of the batches sent before them and hands out every answer read.
    pub(super) fn submit_ahead(
        &mut self,
        fps: &[Fingerprint],
        answers: &mut VecDeque<bool>,
    ) -> Result<()> {
        self.check()?;
        self.renew_if_due()?;
        self.revive_if_idle()?;
        let before = self.ahead.flights.len();
        for chunk in fps.chunks(CHUNK) {
            self.send_claims(chunk)?;
        }
        self.land(before)?;
        self.hand_out(answers);
        Ok(())
    }

    /// The end of the input: reads every answer still owed and hands them out.
    pub(super) fn answer_rest_ahead(&mut self, answers: &mut VecDeque<bool>) -> Result<()> {
        self.check()?;
        self.land(usize::MAX)?;
        self.hand_out(answers);
        Ok(())
    }

    /// Sends the claims of `fps` as `insert_chunk` makes them (the log first, then an `HSETNX`
    /// a key), without reading their answers.
    fn send_claims(&mut self, fps: &[Fingerprint]) -> Result<()> {
        self.claim_tokens()?;
        let claim = self.claim;
        let log_key = self.layout.log_key(self.run, None);
        let RedisSet { ahead, layout, .. } = self;
        let start = ahead.log.len();
        for fp in fps {
            ahead.log.extend_from_slice(&fp.0.to_be_bytes());
            ahead.log.extend_from_slice(&claim.to_be_bytes());
        }
        let p = &mut ahead.packed;
        p.clear();
        array(p, 3);
        bulk(p, b"APPEND");
        bulk(p, log_key.as_bytes());
        bulk(p, &ahead.log[start..]);
        let mut digits = itoa::Buffer::new();
        let token = digits.format(claim);
        for fp in fps {
            array(p, 4);
            bulk(p, b"HSETNX");
            ahead.key.clear();
            layout.write_bucket_key(fp.0, &mut ahead.key);
            bulk(p, ahead.key.as_bytes());
            bulk(p, &fp.0.to_be_bytes());
            bulk(p, token.as_bytes());
        }
        self.single_log = true;
        if let Err(e) = self.conn.send(&self.ahead.packed) {
            return Err(self.remote_error("insert", e));
        }
        self.ahead.flights.push_back(Flight { claims: fps.len() });
        Ok(())
    }

    /// Reads the answers of the first `n` batches sent ahead (all of them for `usize::MAX`)
    /// into the answers held. Every other command of the connection first lands them all
    /// (`call`): answers come in the order the commands were sent.
    pub(super) fn land(&mut self, n: usize) -> Result<()> {
        for _ in 0..n {
            let Some(f) = self.ahead.flights.pop_front() else {
                break;
            };
            let got = match self.conn.recv(1 + f.claims) {
                Ok(v) => v,
                Err(e) => return Err(self.remote_error("insert", e)),
            };
            let claims = got.get(1..).unwrap_or_default();
            self.ahead.early.extend(claims.iter().map(|a| int(a) == 1));
        }
        Ok(())
    }

    /// Hands the answers held to the caller: they count as answered (and unsynced), and their
    /// log entries are no longer the client's to keep (the next sync records them).
    fn hand_out(&mut self, answers: &mut VecDeque<bool>) {
        let n = self.ahead.early.len();
        let new = self.ahead.early.iter().filter(|&&b| b).count() as u64;
        self.answered += new;
        self.unsynced += new;
        answers.extend(self.ahead.early.drain(..));
        let entries = (n * LOG_ENTRY).min(self.ahead.log.len());
        self.ahead.log.drain(..entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_encoded_as_the_client_packs_them() {
        let mut p = Vec::new();
        array(&mut p, 4);
        for a in [&b"HSETNX"[..], b"p:{000}:7ff", &[0u8, 13, 10, 255], b"1024"] {
            bulk(&mut p, a);
        }
        let mut c = redis::cmd("HSETNX");
        c.arg("p:{000}:7ff")
            .arg(&[0u8, 13, 10, 255][..])
            .arg(1024u64);
        assert_eq!(p, c.get_packed_command());
    }
}
