//! # fragblas
//!
//! BLAS on any GPU that has an OpenGL driver, computed by fragment shaders: a headless EGL
//! context renders one full-screen triangle into RGBA32F textures, and each fragment
//! computes one texel (four floats) of the result. No CUDA, OpenCL, Vulkan or compute
//! shaders are needed: GL 3.3 core is enough. With GL 4.3 (or GLES 3.1) the level-1 updates
//! of unit-stride vectors write in place through image stores from the fragment shader,
//! several texels per fragment (see [`ContextOptions::image_stores`]).
//!
//! ```
//! use fragblas::Context;
//! let ctx = Context::new()?;                        // headless, default device
//! let x = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?;
//! let mut y = ctx.upload(&[10.0, 20.0, 30.0, 40.0])?;
//! ctx.saxpy(4, 2.0, &x, 1, &mut y, 1)?;               // y = 2x + y on the GPU
//! assert_eq!(y.to_vec()?, vec![12.0, 24.0, 36.0, 48.0]);
//! # Ok::<(), fragblas::Error>(())
//! ```
//!
//! Two APIs sit side by side: methods on [`Context`] work on device [`Buffer`]s and keep data
//! on the GPU between calls; [`cblas`] takes host slices with CBLAS arguments.
//!
//! ## Layers
//! Each layer uses only the ones below it:
//! - `cblas` (host slices in, host slices out) and the methods of [`Context`] are the API;
//! - `blas`: the routines, `level1/`, `level2/`, `level3/`, one file or folder per family,
//!   with their kernels (files under `glsl/levelN/`) and pure argument rules beside them;
//! - `device`: the context, device info, program cache, scratch pool, buffers and
//!   transfers, the generic tuning mechanism and the calibration;
//! - `gl`: every unsafe GL/EGL call;
//! - [`layout`] (texture-shape math) and [`error`] (which depends on nothing).
//!
//! ## Features
//! - `cblas`: `From` conversions both ways between the `cblas` crate's enums
//!   (`Layout::ColumnMajor`, `Transpose::{None, Ordinary, Conjugate}`, `Part`, `Diagonal`,
//!   `Side`) and this crate's [`Layout`], [`Transpose`], [`Uplo`], [`Diag`] and [`Side`], so
//!   code written against `cblas` ports with `.into()`.
//! - `ndarray`: [`nd::sgemm`] and [`nd::sgemv`] on arrays and views of any layout and stride,
//!   `Context::upload_array`, `Buffer::to_array1` and `Buffer::to_array2`.
//!
//! ## Diagnostics
//! The crate logs through the [`log`](https://docs.rs/log) facade, silent unless the program
//! installs a logger (`env_logger`, for one): the device chosen and why (`info`), devices
//! and context versions that failed before it (`warn`, `debug`), and every sgemm tuning with
//! its timings and the cache file written (`info`).
//!
//! A new routine is one file in its level's folder (its `impl Context` method, argument
//! checks and kernel statics), its kernels in `glsl/levelN/`, one test file, and one
//! function in [`cblas`].

#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]

mod blas;
pub mod cblas;
mod device;
pub mod error;
mod gl;
mod interop;
pub mod layout;
mod shared;

pub use device::{buffer, context};

pub mod tune {
    //! sgemm auto-tuning: the modes and environment variables every tunable routine shares, and
    //! sgemm's shape classes and reports.
    //!
    //! How much tuning happens is a [`Tuning`] mode, set with [`crate::ContextOptions::tuning`],
    //! [`crate::Context::set_tuning`] or the environment variable [`TUNE_ENV`]. The default,
    //! [`Tuning::Cached`], uses choices saved in the cache and built-in defaults (measured per
    //! device kind) for the rest, and never times on its own, so a program's first sgemm
    //! costs what later ones do. Tuning happens when asked: [`crate::Context::tune_sgemm`],
    //! the `tune` example, or [`Tuning::Auto`] (`FRAGBLAS_TUNE=auto`), which times a shape
    //! class the first time an sgemm of at least [`TUNE_MIN_WORK`] multiply-adds meets it.
    //!
    //! ```
    //! use fragblas::{Context, ContextOptions, Tuning};
    //! let ctx = Context::with_options(ContextOptions { tuning: Some(Tuning::Off), ..Default::default() })?;
    //! assert_eq!(ctx.tuning(), Tuning::Off); // built-in defaults, no timing, no cache
    //! # Ok::<(), fragblas::Error>(())
    //! ```

    pub use crate::blas::level3::gemm::tune::{ShapeClass, TuneReport, TUNE_MIN_WORK};
    pub use crate::device::tune::{Tuning, TUNE_CACHE_ENV, TUNE_ENV};
}

pub use blas::level2::gemv::GemvKernel;
pub use blas::level3::gemm::kernel::GemmKernel;
pub use blas::types::{Diag, Layout, Side, Transpose, Uplo};
pub use device::buffer::{Buffer, PendingRead};
pub use device::calibrate::Ceilings;
pub use device::context::{
    list_devices, Context, ContextOptions, DeviceDesc, DeviceInfo, GlApi, WarpOps,
};
pub use error::{Error, Result};
pub use gl::{GlStat, GlTimes, KernelTime};
#[cfg(feature = "ndarray")]
pub use interop::nd;
pub use shared::{SharedBuffer, SharedCblas, SharedContext, SharedPendingRead};
pub use tune::{ShapeClass, TuneReport, Tuning};
