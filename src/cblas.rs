//! CBLAS-shaped host API: the routines take host slices with CBLAS arguments, upload what
//! the arguments address, compute on the GPU, and write back exactly the elements BLAS
//! defines as outputs; every other element of the caller's slices stays as it was.
//!
//! This is what a program porting from `cblas_*` calls. Each call moves its operands over
//! the bus, so for several operations on the same data keep it on the GPU with the device
//! API (methods of [`Context`] on [`Buffer`]s) instead.
//!
//! Conventions: dimensions and increments are `i32` as in CBLAS; invalid arguments are
//! returned as [`crate::Error::InvalidArgument`] with the CBLAS parameter position instead
//! of calling `xerbla`; a slice shorter than the arguments address is
//! [`crate::Error::TooShort`], never an out-of-bounds access. One deliberate difference
//! from C CBLAS: [`isamax`] returns the 1-based Fortran BLAS index (0 when there is none).
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

use crate::blas::args::{check_inc, vector_span};
use crate::blas::level2::gemv::gemv_shape;
use crate::blas::level3::gemm::shape::gemm_shape;
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// Uploads the first `span` elements of `data` (all of it if shorter: the device routine
/// then reports the shortfall).
fn upload_span(ctx: &Context, data: &[f32], span: usize) -> Result<Buffer> {
    ctx.upload(&data[..span.min(data.len())])
}

/// Writes back the `n` elements of `out` that increment `inc` touches, from `buf`.
fn write_back_vector(buf: &Buffer, out: &mut [f32], n: i32, inc: i32) -> Result<()> {
    let span = vector_span(n, inc);
    if inc.abs() == 1 {
        // The touched elements are exactly the prefix: read straight into the caller's slice.
        return buf.read_into(&mut out[..span]);
    }
    let mut tmp = vec![0.0; span];
    buf.read_into(&mut tmp)?;
    let step = inc.unsigned_abs() as usize;
    for p in (0..span).step_by(step) {
        out[p] = tmp[p];
    }
    Ok(())
}

/// `y := alpha*x + y`.
pub fn saxpy(
    ctx: &Context,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.saxpy(n, alpha, &gx, incx, &mut gy, incy)?;
    if n > 0 && alpha != 0.0 {
        write_back_vector(&gy, y, n, incy)?;
    }
    Ok(())
}

/// `y := x`.
pub fn scopy(ctx: &Context, n: i32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) -> Result<()> {
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.scopy(n, &gx, incx, &mut gy, incy)?;
    if n > 0 {
        write_back_vector(&gy, y, n, incy)?;
    }
    Ok(())
}

/// Exchanges x and y.
pub fn sswap(
    ctx: &Context,
    n: i32,
    x: &mut [f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    let mut gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.sswap(n, &mut gx, incx, &mut gy, incy)?;
    if n > 0 {
        write_back_vector(&gx, x, n, incx)?;
        write_back_vector(&gy, y, n, incy)?;
    }
    Ok(())
}

/// `x := alpha*x` (no-op for `n <= 0` or `incx < 0`, as in reference BLAS).
pub fn sscal(ctx: &Context, n: i32, alpha: f32, x: &mut [f32], incx: i32) -> Result<()> {
    check_inc("sscal", "incx", 4, incx)?;
    if n <= 0 || incx < 0 {
        return Ok(());
    }
    let mut gx = upload_span(ctx, x, vector_span(n, incx))?;
    ctx.sscal(n, alpha, &mut gx, incx)?;
    write_back_vector(&gx, x, n, incx)
}

/// The dot product of x and y.
pub fn sdot(ctx: &Context, n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> Result<f32> {
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.sdot(n, &gx, incx, &gy, incy)
}

/// Sum of absolute values (0 for `n <= 0` or `incx < 0`).
pub fn sasum(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<f32> {
    let gx = upload_span(ctx, x, vector_span(n, incx.max(1)))?;
    ctx.sasum(n, &gx, incx)
}

/// Euclidean norm, without overflow or underflow (0 for `n <= 0` or `incx < 0`).
pub fn snrm2(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<f32> {
    let gx = upload_span(ctx, x, vector_span(n, incx.max(1)))?;
    ctx.snrm2(n, &gx, incx)
}

/// **1-based** index of the first element of largest magnitude (the first NaN if any), as
/// Fortran BLAS `ISAMAX` returns it; 0 for `n <= 0` or `incx < 0`. (C CBLAS returns the
/// 0-based index; [`Context::isamax`] returns `Option` of the 0-based one.)
pub fn isamax(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<usize> {
    let gx = upload_span(ctx, x, vector_span(n, incx.max(1)))?;
    Ok(ctx.isamax(n, &gx, incx)?.map_or(0, |i| i + 1))
}

/// `y := alpha*op(A)*x + beta*y`.
#[allow(clippy::too_many_arguments)]
pub fn sgemv(
    ctx: &Context,
    layout: Layout,
    trans: Transpose,
    m: i32,
    n: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    x: &[f32],
    incx: i32,
    beta: f32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    let s = gemv_shape(layout, trans, m, n, lda, incx, incy)?;
    let (len_x, len_y) = (s.len_x() as i32, s.len_y() as i32);
    let ga = upload_span(ctx, a, s.a_span())?;
    let gx = upload_span(ctx, x, vector_span(len_x, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(len_y, incy))?;
    ctx.sgemv(
        layout, trans, m, n, alpha, &ga, lda, &gx, incx, beta, &mut gy, incy,
    )?;
    if s.rows > 0 && s.cols > 0 && !(alpha == 0.0 && beta == 1.0) {
        write_back_vector(&gy, y, len_y, incy)?;
    }
    Ok(())
}

/// `C := alpha*op(A)*op(B) + beta*C`; only the `m x n` window of C is written.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    ctx: &Context,
    layout: Layout,
    transa: Transpose,
    transb: Transpose,
    m: i32,
    n: i32,
    k: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    b: &[f32],
    ldb: i32,
    beta: f32,
    c: &mut [f32],
    ldc: i32,
) -> Result<()> {
    let s = gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc)?;
    let (a_span, b_span) = if s.swapped {
        (s.b_span(), s.a_span())
    } else {
        (s.a_span(), s.b_span())
    };
    let ga = upload_span(ctx, a, a_span)?;
    let gb = upload_span(ctx, b, b_span)?;
    let mut gc = upload_span(ctx, c, s.c_span())?;
    ctx.sgemm(
        layout, transa, transb, m, n, k, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
    )?;
    if s.m == 0 || s.n == 0 || ((alpha == 0.0 || s.k == 0) && beta == 1.0) {
        return Ok(());
    }
    let span = s.c_span();
    if s.ldc == s.m {
        return gc.read_into(&mut c[..span]);
    }
    let mut tmp = vec![0.0; span];
    gc.read_into(&mut tmp)?;
    for j in 0..s.n {
        let col = j * s.ldc;
        c[col..col + s.m].copy_from_slice(&tmp[col..col + s.m]);
    }
    Ok(())
}
