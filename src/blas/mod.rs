//! The BLAS routines on device buffers, as methods of [`crate::Context`].

pub(crate) mod args;
pub(crate) mod gemm;
pub(crate) mod gemv;
mod level1;
mod reduce;
pub(crate) mod shape;
