//! Level 1: vector-vector routines. `update` holds the element-wise ones that write a
//! vector (sscal, scopy, sswap, saxpy) and the one update pass the higher levels reuse for
//! `y := alpha*t + beta*y`; `reduce` the reductions (sdot, sasum, snrm2, isamax). Kernels
//! are in `glsl/level1/`.

pub(crate) mod reduce;
pub(crate) mod update;

/// The kernels of every family of this level (for `Context::warm_up`).
pub(crate) const KERNELS: &[&[&crate::device::kernel::Kernel]] =
    &[&update::KERNELS, &reduce::KERNELS];
