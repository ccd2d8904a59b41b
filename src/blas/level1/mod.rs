//! Level 1: vector-vector routines. `update` holds the element-wise ones that write vectors
//! (sscal, scopy, sswap, saxpy) and the update passes the rotations and higher levels reuse;
//! `rot` the plane rotations (srotg, srotmg on the host, srot, srotm on the GPU); `reduce`
//! the reductions (sdot, sasum, snrm2, isamax); `dsdot` the extended-precision dots (sdsdot,
//! dsdot); `host` reference BLAS's loops for the updates a zero increment makes sequential.
//! Kernels are in `glsl/level1/`.

pub(crate) mod dsdot;
pub(crate) mod host;
pub(crate) mod reduce;
pub(crate) mod rot;
pub(crate) mod update;

/// The kernels of every family of this level (for `Context::warm_up`).
pub(crate) const KERNELS: &[&[&crate::device::kernel::Kernel]] =
    &[&update::KERNELS, &reduce::KERNELS, &dsdot::KERNELS];
