//! Level 2: matrix-vector routines, one file per family: `gemv` (sgemv), `gbmv` (sgbmv),
//! `symv` (ssymv, ssbmv, sspmv), `trmv` (strmv, stbmv, stpmv), `trsv` (strsv, stbsv,
//! stpsv), `rank` (sger, ssyr, sspr, ssyr2, sspr2). `matrix` holds what they share as pure code (storage and shape of a matrix argument,
//! argument rules, the row-major mapping), `product` the passes they share on the GPU, `symv_warp` the symmetric product on warps.
//! Kernels are in `glsl/level2/`.

pub(crate) mod gbmv;
pub(crate) mod gemv;
pub(crate) mod matrix;
pub(crate) mod product;
pub(crate) mod rank;
pub(crate) mod symv;
pub(crate) mod symv_warp;
pub(crate) mod trmv;
pub(crate) mod trsv;

/// The kernels of every family of this level (for `Context::warm_up`).
pub(crate) const KERNELS: &[&[&crate::device::kernel::Kernel]] = &[
    &gemv::KERNELS,
    &product::KERNELS,
    &trsv::KERNELS,
    &rank::KERNELS,
    &symv_warp::KERNELS,
];
