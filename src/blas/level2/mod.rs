//! Level 2: matrix-vector routines, one file per family. Kernels are in `glsl/level2/`.

pub(crate) mod gemv;

/// The kernels of every family of this level (for `Context::warm_up`).
pub(crate) const KERNELS: &[&[&crate::device::kernel::Kernel]] = &[&gemv::KERNELS];
