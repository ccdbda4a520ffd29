//! Real redis-server processes for the tests: each on 127.0.0.1, on a free port, with its own
//! `--dir` in a temporary folder, stopped by pid. A missing redis-server fails the test with a
//! message (never a skip).
#![allow(dead_code)]

use std::collections::HashSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn tool(name: &str) -> PathBuf {
    for dir in ["/usr/bin", "/usr/local/bin", "/usr/sbin"] {
        let p = Path::new(dir).join(name);
        if p.exists() {
            return p;
        }
    }
    panic!(
        "{name} is needed by the Redis tests and was not found: install it \
         (Debian/Ubuntu: apt-get install -y redis-server)"
    );
}

/// A free port `p` whose cluster bus port `p + 10000` is free too.
fn free_port() -> u16 {
    loop {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        if p < 55_000 && TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok() {
            return p;
        }
        // an ephemeral port too high for a bus port: try one below
        let q = 20_000 + (p % 30_000);
        if TcpListener::bind(("127.0.0.1", q)).is_ok()
            && TcpListener::bind(("127.0.0.1", q + 10_000)).is_ok()
        {
            return q;
        }
    }
}

/// One redis-server process.
pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
    extra: Vec<String>,
    child: Option<Child>,
    _tmp: Option<tempfile::TempDir>,
}

impl Server {
    /// A server with no persistence.
    pub fn start() -> Server {
        Server::start_with(&["--save", "", "--appendonly", "no"])
    }

    /// A server started with extra arguments.
    pub fn start_with(extra: &[&str]) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let mut s = Server {
            port: free_port(),
            dir: tmp.path().to_path_buf(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            child: None,
            _tmp: Some(tmp),
        };
        s.spawn();
        s
    }

    fn spawn(&mut self) {
        let child = Command::new(tool("redis-server"))
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--daemonize", "no", "--logfile", "redis.log"])
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let start = Instant::now();
        while self.cli(&["PING"]).trim() != "PONG" {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server on port {} did not start",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn url(&self, query: &str) -> String {
        format!("redis://127.0.0.1:{}/0?{query}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// SIGKILL, by pid.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts again on the same port and folder (after [`kill`](Server::kill)).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }

    /// `redis-cli` on this server (`--no-raw`: strings quoted and escaped), its stdout.
    pub fn cli(&self, args: &[&str]) -> String {
        let out = Command::new(tool("redis-cli"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .expect("run redis-cli");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The keys matching `pattern`, by `redis-cli --scan`.
    pub fn keys(&self, pattern: &str) -> Vec<String> {
        self.cli(&["--scan", "--pattern", pattern])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Every fingerprint in the buckets of set `prefix`, read with `redis-cli HKEYS` (one
    /// redis-cli for all the buckets: a command a line on its standard input).
    pub fn fingerprints(&self, prefix: &str) -> HashSet<u128> {
        use std::io::Write;
        let buckets: Vec<String> = self
            .keys(&format!("{prefix}:{{*}}:*"))
            .into_iter()
            .filter(|k| !k.contains(":log:") && !k.contains(":{m}:"))
            .collect();
        let mut cli = Command::new(tool("redis-cli"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--no-raw"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run redis-cli");
        let mut stdin = cli.stdin.take().expect("stdin");
        let commands: String = buckets.iter().map(|k| format!("HKEYS {k}\n")).collect();
        // written beside the reading of its answers (a pipe holds only so much)
        let writer = std::thread::spawn(move || stdin.write_all(commands.as_bytes()));
        let out = cli.wait_with_output().expect("redis-cli");
        writer.join().expect("writer").expect("write to redis-cli");
        let mut all = HashSet::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if line.starts_with("(empty") {
                continue;
            }
            let quoted = line.split_once(") ").map_or(line, |(_, q)| q);
            let raw = unquote(quoted);
            assert_eq!(raw.len(), 16, "a bucket member is not 16 bytes: {line}");
            all.insert(u128::from_be_bytes(raw.try_into().unwrap()));
        }
        all
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Decodes redis-cli's quoted form of a binary string (`"a\x00\n"`).
pub fn unquote(s: &str) -> Vec<u8> {
    let b = s.trim().as_bytes();
    assert!(
        b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"',
        "not quoted: {s}"
    );
    let b = &b[1..b.len() - 1];
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        out.push(match c {
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'a' => 7,
            b'b' => 8,
            b'x' => {
                let h = std::str::from_utf8(&b[i..i + 2]).unwrap();
                i += 2;
                u8::from_str_radix(h, 16).unwrap()
            }
            other => other,
        });
    }
    out
}

/// A 3-node Redis Cluster on loopback (no replicas).
pub struct Cluster {
    pub nodes: Vec<Server>,
}

impl Cluster {
    pub fn start() -> Cluster {
        let nodes: Vec<Server> = (0..3)
            .map(|_| {
                Server::start_with(&[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
            })
            .collect();
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let out = Command::new(tool("redis-cli"))
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .expect("redis-cli --cluster create");
        assert!(
            out.status.success(),
            "cluster create: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let start = Instant::now();
        while !nodes
            .iter()
            .all(|n| n.cli(&["CLUSTER", "INFO"]).contains("cluster_state:ok"))
        {
            assert!(start.elapsed() < Duration::from_secs(20), "cluster not ok");
            std::thread::sleep(Duration::from_millis(100));
        }
        Cluster { nodes }
    }

    pub fn url(&self, query: &str) -> String {
        let hosts: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        format!("redis+cluster://{}/?{query}", hosts.join(","))
    }
}
