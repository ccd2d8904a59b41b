//! The BLAS routines on device buffers, as methods of [`crate::Context`].

pub(crate) mod args;
mod level1;
mod reduce;
