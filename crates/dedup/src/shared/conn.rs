//! One connection to the server or the cluster, with timeouts and no retries.
//!
//! A retried claim could be answered "seen" by the claim it repeats, so a failed command is
//! never sent again: the caller gets the error, and the run's lease gives its claims back. A
//! connection that the server closed while it was idle (its `timeout` setting) is opened
//! again before the next command is sent ([`Conn::revive_if_idle`]): nothing was in flight.

use super::url::SetUrl;
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo};
use redis::{Cmd, RedisResult, Value, cmd};
use std::time::{Duration, Instant};

/// Idle time after which a connection is checked before use. A server closes a client idle
/// for more than its `timeout` (whole seconds, at least 1), never sooner than a second.
const IDLE: Duration = Duration::from_millis(500);

pub(crate) struct Conn {
    link: Link,
    url: SetUrl,
    /// One server: when a command was last sent (the server's idle time counts from what it
    /// last read or wrote, not from when the client read it). A cluster: when every node's
    /// connection was last checked (a command reaches only some of them).
    used: Instant,
}

enum Link {
    Single(redis::Connection),
    Cluster(Box<redis::cluster::ClusterConnection>),
}

impl Conn {
    pub(crate) fn connect(url: &SetUrl) -> RedisResult<Conn> {
        Ok(Conn {
            link: Link::connect(url)?,
            url: url.clone(),
            used: Instant::now(),
        })
    }

    pub(crate) fn is_cluster(&self) -> bool {
        matches!(self.link, Link::Cluster(_))
    }

    /// Whether a connection may have been idle long enough for the server to close it.
    pub(crate) fn idle(&self) -> bool {
        self.used.elapsed() >= IDLE
    }

    /// After [`idle`](Conn::idle), with nothing in flight: a `PING` (to every primary of a
    /// cluster) finds out whether a server closed the connection, and a closed one is opened
    /// again (a `PING` can be repeated; nothing else is). Answers whether it was opened
    /// again: the server may be another incarnation, so the caller checks that its state is
    /// still there.
    pub(crate) fn revive_if_idle(&mut self) -> RedisResult<bool> {
        if !self.idle() {
            return Ok(false);
        }
        let ping = match &mut self.link {
            Link::Single(_) => self.run(vec![cmd("PING")]).map(drop),
            Link::Cluster(c) => {
                let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                c.route_command(&cmd("PING"), all).map(drop)
            }
        };
        self.used = Instant::now();
        match ping {
            Ok(()) => Ok(false),
            Err(e) if e.is_connection_dropped() => {
                self.link = Link::connect(&self.url)?;
                self.used = Instant::now();
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// Runs `cmd` on the one server, or on every primary of a cluster: an answer a node.
    pub(crate) fn on_every_node(&mut self, cmd: Cmd) -> RedisResult<Vec<Value>> {
        match &mut self.link {
            Link::Single(_) => self.run(vec![cmd]),
            Link::Cluster(c) => {
                let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                match c.route_command(&cmd, all)? {
                    // the client answers a command of every node as a map: node -> answer
                    Value::Map(answers) => Ok(answers.into_iter().map(|(_, v)| v).collect()),
                    one => Ok(vec![one]),
                }
            }
        }
    }

    /// Sends the commands in one round trip (per node), answers in order.
    pub(crate) fn run(&mut self, cmds: Vec<Cmd>) -> RedisResult<Vec<Value>> {
        match &mut self.link {
            Link::Single(_) => {
                let n = cmds.len();
                let mut p = redis::pipe();
                for cmd in cmds {
                    p.add_command(cmd);
                }
                self.send(&p.get_packed_pipeline())?;
                self.recv(n)
            }
            Link::Cluster(c) => {
                let mut p = redis::cluster::cluster_pipe();
                for cmd in cmds {
                    p.add_command(cmd);
                }
                p.query(c)
            }
        }
    }

    /// Sends commands already encoded (RESP) to the one server, without reading their answers
    /// ([`recv`](Conn::recv) does, in order). Not for a cluster.
    pub(crate) fn send(&mut self, packed: &[u8]) -> RedisResult<()> {
        match &mut self.link {
            Link::Single(c) => {
                self.used = Instant::now();
                c.send_packed_command(packed)
            }
            Link::Cluster(_) => Err(redis::RedisError::from((
                redis::ErrorKind::Client,
                "commands sent ahead on a cluster connection",
            ))),
        }
    }

    /// Reads the answers of the next `n` commands sent to the one server. Reads them ourselves:
    /// stops at the first failure (the client's own pipeline reads every answer, a timeout each
    /// when the server stalls); a server error among them is the error, once all are read.
    pub(crate) fn recv(&mut self, n: usize) -> RedisResult<Vec<Value>> {
        let Link::Single(c) = &mut self.link else {
            return Err(redis::RedisError::from((
                redis::ErrorKind::Client,
                "answers read ahead on a cluster connection",
            )));
        };
        let mut answers = Vec::with_capacity(n);
        let mut first_err = None;
        for _ in 0..n {
            match c.recv_response()? {
                Value::ServerError(e) => {
                    first_err.get_or_insert(e);
                    answers.push(Value::Nil);
                }
                Value::Push { .. } => {
                    return Err(redis::RedisError::from((
                        redis::ErrorKind::Client,
                        "an unexpected push message",
                    )));
                }
                v => answers.push(v),
            }
        }
        match first_err {
            Some(e) => Err(e.into()),
            None => Ok(answers),
        }
    }

    pub(crate) fn one(&mut self, cmd: Cmd) -> RedisResult<Value> {
        let mut v = self.run(vec![cmd])?;
        Ok(v.pop().unwrap_or(Value::Nil))
    }
}

impl Link {
    fn connect(url: &SetUrl) -> RedisResult<Link> {
        if url.cluster {
            let client = redis::cluster::ClusterClientBuilder::new(url.nodes.clone())
                .connection_timeout(url.connect_timeout)
                .response_timeout(url.timeout)
                .retries(0)
                .build()?;
            Ok(Link::Cluster(Box::new(client.get_connection()?)))
        } else {
            let client = redis::Client::open(url.nodes[0].as_str())?;
            let con = client.get_connection_with_timeout(url.connect_timeout)?;
            con.set_read_timeout(Some(url.timeout))?;
            con.set_write_timeout(Some(url.timeout))?;
            Ok(Link::Single(con))
        }
    }
}

/// An integer answer (0 for anything else).
pub(crate) fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        Value::BulkString(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        Value::Okay => 1,
        _ => 0,
    }
}

/// A bulk string answer as bytes (empty for nil).
pub(crate) fn bytes(v: Value) -> Vec<u8> {
    match v {
        Value::BulkString(b) => b,
        Value::SimpleString(s) => s.into_bytes(),
        Value::Int(n) => n.to_string().into_bytes(),
        _ => Vec::new(),
    }
}

/// An array answer.
pub(crate) fn array(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        _ => Vec::new(),
    }
}
