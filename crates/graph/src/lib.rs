//! Link graphs from linksieve's keys (`linksieve run --format edges`): what a node is (a
//! page's key, or its host name reversed as Common Crawl writes it), what a link's type is
//! (the element or attribute it came from), and the edge set that keeps each (source, target)
//! pair once, with its count and types, in bounded memory, and hands the edges out sorted.
//!
//! ```
//! use linksieve_graph::{host_node, EdgeSet, LinkType, Www};
//! let page = "http://www.example.com/a";
//! let mut set = EdgeSet::new(1 << 20, std::env::temp_dir());
//! for (link, ty) in [("http://cdn.example.net/x.png", LinkType::Img), ("http://example.org/", LinkType::A)] {
//!     let (s, t) = (host_node(page, Www::Keep).unwrap(), host_node(link, Www::Keep).unwrap());
//!     set.add(&s, &t, ty.into(), 1).unwrap();
//! }
//! let mut rows = Vec::new();
//! set.finish(|e| Ok(rows.push(format!("{}\t{}\t{}", e.source, e.target, e.types)))).unwrap();
//! assert_eq!(rows, ["com.example.www\tnet.example.cdn\timg", "com.example.www\torg.example\ta"]);
//! ```

mod dir;
mod edges;
mod files;
mod node;
mod types;

pub use dir::{
    EDGES_FILE, EDGES_PARQUET, EdgeRows, VERTICES_FILE, VERTICES_PARQUET, check_graph_dir,
    read_edge_rows, write_graph_dir,
};
pub use edges::{Edge, EdgeSet, EdgeTotals, GraphError};
pub use files::{
    GraphFileOptions, GraphFileTotals, GraphRows, check_graph_files, write_graph, write_graph_files,
};
pub use node::{Graph, Www, domain_node, host_node, registered_domain, url_host_name};
pub use types::{LinkType, LinkTypes};
