//! Scanner (in progress).
