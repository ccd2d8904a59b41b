//! Level 3: matrix-matrix routines. Each family is a folder or file here; `gemm` is the
//! machinery the others build on, `blocks` what their blocked algorithms share. Kernels are
//! in `glsl/level3/`.

pub(crate) mod batched;
pub(crate) mod batched_slices;
pub(crate) mod blocks;
pub(crate) mod gemm;
pub(crate) mod symm;
pub(crate) mod syrk;
pub(crate) mod tri;

/// The kernels of every family of this level (for `Context::warm_up`).
pub(crate) const KERNELS: &[&[&crate::device::kernel::Kernel]] = &[
    &gemm::kernel::KERNELS,
    &blocks::KERNELS,
    &tri::KERNELS,
    &batched::KERNELS,
];
