//! CBLAS-shaped host API: host slices in, host slices out.
