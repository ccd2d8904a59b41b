//! The device layer: safe Rust over [`crate::gl`]. One [`Context`](context::Context) per
//! GL context holds the device's info and capabilities, the program cache, the GL objects
//! kept for reuse and the tuning state; [`Buffer`](buffer::Buffer)s are device vectors
//! with their transfers; `kernel` says what a fragment kernel is, `tune` and `timing` are
//! the tuning mechanism every tunable routine shares, and `calibrate` measures the fragment
//! pipeline's ceilings, and `probe` measures what no GL query reports. It uses `gl`, `layout` and `error`, never the routines above it.

pub mod buffer;
pub(crate) mod calibrate;
pub mod context;
pub(crate) mod info;
pub(crate) mod kernel;
mod pool;
pub(crate) mod probe;
pub(crate) mod timing;
pub(crate) mod tune;
