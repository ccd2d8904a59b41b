//! CBLAS-shaped host API: the routines take host slices with CBLAS arguments, upload what
//! the arguments address, compute on the GPU, and write back exactly the elements BLAS
//! defines as outputs; every other element of the caller's slices stays as it was.
//!
//! This is what a program porting from `cblas_*` calls. Each call moves its operands over
//! the bus, so for several operations on the same data keep it on the GPU with the device
//! API (methods of [`Context`](crate::Context) on [`Buffer`](crate::Buffer)s) instead.
//!
//! Conventions: dimensions and increments are `i32` as in CBLAS; invalid arguments are
//! returned as [`crate::Error::InvalidArgument`] with the CBLAS parameter position instead
//! of calling `xerbla`; a slice shorter than the arguments address is
//! [`crate::Error::TooShort`], never an out-of-bounds access. Every check and every quick
//! return happens before anything is uploaded, in the order reference BLAS checks. As in C
//! CBLAS, [`isamax`] returns the 0-based index (0 when there is none). A level-1 update
//! that a zero increment makes sequential (saxpy and scopy with `incy == 0`, sswap, srot,
//! srotm with a zero increment) runs reference BLAS's loop on the host: it has no parallel
//! form.
//!
//! ```
//! use fragblas::{cblas, Context, Layout, Transpose::*};
//! let ctx = Context::new()?;
//! let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2x3 row-major
//! let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3x2 row-major
//! let mut c = [0.0f32; 4];
//! cblas::sgemm(&ctx, Layout::RowMajor, NoTrans, NoTrans, 2, 2, 3, 1.0, &a, 3, &b, 2, 0.0, &mut c, 2)?;
//! assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
//! # Ok::<(), fragblas::Error>(())
//! ```

mod host;
mod level1;
mod level2;
mod level3;

pub use level1::*;
pub use level2::*;
pub use level3::*;
