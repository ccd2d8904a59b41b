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

mod blas;
pub mod buffer;
mod calibrate;
pub mod cblas;
pub mod context;
pub mod error;
mod gl;
mod kernels;
pub mod layout;
pub mod tune;

pub use blas::gemm::GemmKernel;
pub use blas::gemv::GemvKernel;
pub use blas::shape::{Layout, Transpose};
pub use buffer::{Buffer, PendingRead};
pub use calibrate::Ceilings;
pub use context::{list_devices, Context, ContextOptions, DeviceDesc, DeviceInfo, GlApi};
pub use error::{Error, Result};
pub use tune::{ShapeClass, TuneReport, Tuning};
