//! The seen-sets' integration tests, one binary (each file a module; `redis_support` starts
//! the redis-server processes of `redis` and `redis_tls`). Run one file's tests with
//! `cargo test -p linksieve-dedup --test integration FILE::`; `redis_tls` needs the feature
//! `redis-tls`. The children that some tests start (`crash::crash_child`,
//! `redis::redis_child`, `redis_tls::tls_child`) are ignored tests that do nothing unless
//! their parent set their environment variable.

#[cfg(unix)]
mod redis_support;

mod crash;
mod equivalence;
#[cfg(feature = "redis")]
mod redis;
mod redis_tls;
