//! Level 3 of the host API.

use crate::blas::level3::gemm::shape::gemm_shape;
use crate::blas::level3::symm::symm_call;
use crate::blas::level3::syrk::{syrk_call, SyrkCall};
use crate::blas::level3::tri::plan::tri_call;
use crate::blas::types::{Diag, Layout, Side, Transpose, Uplo};
use crate::cblas::host::{upload_span, write_back_matrix};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// `C := alpha*op(A)*op(B) + beta*C`; only the `m x n` window of C is written.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Transpose::NoTrans};
/// let ctx = Context::new()?;
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 x 3, row-major
/// let b = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3 x 2
/// let mut c = [0.0f32, 0.0, -1.0, 0.0, 0.0, -1.0]; // 2 x 2 with ldc = 3
/// cblas::sgemm(&ctx, Layout::RowMajor, NoTrans, NoTrans, 2, 2, 3, 1.0, &a, 3, &b, 2, 0.0, &mut c, 3)?;
/// assert_eq!(c, [4.0, 5.0, -1.0, 10.0, 11.0, -1.0]); // the gap is never written
/// # Ok::<(), fragblas::Error>(())
/// ```
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
    if s.quick_return(alpha, beta) {
        return Ok(());
    }
    s.check_lengths(alpha, a.len(), b.len(), c.len())?;
    // A and B are read only when the product is formed.
    let (a_span, b_span) = match (alpha != 0.0 && s.k > 0, s.swapped) {
        (false, _) => (0, 0),
        (true, false) => (s.a_span(), s.b_span()),
        (true, true) => (s.b_span(), s.a_span()),
    };
    let ga = upload_span(ctx, a, a_span)?;
    let gb = upload_span(ctx, b, b_span)?;
    // With beta == 0 C is only written: it need not cross the bus on the way in.
    let mut gc = if beta == 0.0 {
        ctx.zeros(s.c_span())?
    } else {
        upload_span(ctx, c, s.c_span())?
    };
    ctx.sgemm(
        layout, transa, transb, m, n, k, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
    )?;
    write_back_matrix(&gc, c, (s.m, s.n, s.ldc), |_, _| true)
}

/// `C := alpha*A*B + beta*C` or `C := alpha*B*A + beta*C` for a symmetric A of which only
/// the `uplo` triangle is read (see [`Context::ssymm`]).
///
/// ```
/// use fragblas::{cblas, Context, Layout, Side, Uplo};
/// let ctx = Context::new()?;
/// let a = [2.0, f32::NAN, 1.0, 3.0]; // [2 1; 1 3], upper triangle stored
/// let mut c = [0.0f32; 2];
/// cblas::ssymm(&ctx, Layout::ColMajor, Side::Left, Uplo::Upper, 2, 1, 1.0, &a, 2, &[1.0, 1.0], 2, 0.0, &mut c, 2)?;
/// assert_eq!(c, [3.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssymm(
    ctx: &Context,
    layout: Layout,
    side: Side,
    uplo: Uplo,
    m: i32,
    n: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    b: &[f32],
    ldb: i32,
    beta: f32,
    c: &mut [f32],
    ldc: i32,
) -> Result<()> {
    let call = symm_call(layout, side, uplo, m, n, lda, ldb, ldc)?;
    if call.quick_return(alpha, beta) {
        return Ok(());
    }
    call.check_lengths(alpha, [a.len(), b.len(), c.len()])?;
    let [(_, sa), (_, sb), (_, sc)] = call.spans(alpha);
    let ga = upload_span(ctx, a, sa)?;
    let gb = upload_span(ctx, b, sb)?;
    let mut gc = upload_span(ctx, c, sc)?;
    ctx.ssymm(
        layout, side, uplo, m, n, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
    )?;
    write_back_matrix(&gc, c, (call.m, call.n, call.ldc), |_, _| true)
}

/// Writes back the `uplo` triangle of an `n x n` window: what ssyrk and ssyr2k write.
fn write_back_triangle(gc: &Buffer, c: &mut [f32], call: &SyrkCall) -> Result<()> {
    let upper = call.uplo == Uplo::Upper;
    write_back_matrix(gc, c, (call.n, call.n, call.ldc), |i, j| {
        if upper {
            i <= j
        } else {
            i >= j
        }
    })
}

/// `C := alpha*op(A)*op(A)^T + beta*C` on the `uplo` triangle of C (see
/// [`Context::ssyrk`]); the other triangle is neither read nor written.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Transpose::NoTrans, Uplo};
/// let ctx = Context::new()?;
/// let mut c = [0.0, -7.0, 0.0, 0.0];
/// cblas::ssyrk(&ctx, Layout::ColMajor, Uplo::Upper, NoTrans, 2, 1, 1.0, &[1.0, 2.0], 2, 0.0, &mut c, 2)?;
/// assert_eq!(c, [1.0, -7.0, 2.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssyrk(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    trans: Transpose,
    n: i32,
    k: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    beta: f32,
    c: &mut [f32],
    ldc: i32,
) -> Result<()> {
    const R: &str = "ssyrk";
    let call = syrk_call(R, layout, uplo, trans, n, k, lda, None, ldc)?;
    if call.quick_return(alpha, beta) {
        return Ok(());
    }
    call.check_lengths(R, alpha, a.len(), None, c.len())?;
    let ga = upload_span(ctx, a, call.operand_span(alpha, call.lda))?;
    let mut gc = upload_span(ctx, c, call.c_span())?;
    ctx.ssyrk(
        layout, uplo, trans, n, k, alpha, &ga, lda, beta, &mut gc, ldc,
    )?;
    write_back_triangle(&gc, c, &call)
}

/// `C := alpha*op(A)*op(B)^T + alpha*op(B)*op(A)^T + beta*C` on the `uplo` triangle of C
/// (see [`Context::ssyr2k`]).
///
/// ```
/// use fragblas::{cblas, Context, Layout, Transpose::NoTrans, Uplo};
/// let ctx = Context::new()?;
/// let mut c = [0.0f32; 4];
/// cblas::ssyr2k(&ctx, Layout::ColMajor, Uplo::Lower, NoTrans, 2, 1, 1.0, &[1.0, 2.0], 2, &[1.0, 1.0], 2, 0.0, &mut c, 2)?;
/// assert_eq!(c, [2.0, 3.0, 0.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssyr2k(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    trans: Transpose,
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
    const R: &str = "ssyr2k";
    let call = syrk_call(R, layout, uplo, trans, n, k, lda, Some(ldb), ldc)?;
    if call.quick_return(alpha, beta) {
        return Ok(());
    }
    call.check_lengths(R, alpha, a.len(), Some(b.len()), c.len())?;
    let ga = upload_span(ctx, a, call.operand_span(alpha, call.lda))?;
    let gb = upload_span(ctx, b, call.operand_span(alpha, call.ldb))?;
    let mut gc = upload_span(ctx, c, call.c_span())?;
    ctx.ssyr2k(
        layout, uplo, trans, n, k, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
    )?;
    write_back_triangle(&gc, c, &call)
}

/// strmm and strsm through the host API: checks, uploads, `device`, and B's window back.
#[allow(clippy::too_many_arguments)]
fn tri_host(
    ctx: &Context,
    r: &'static str,
    layout: Layout,
    modes: (Side, Uplo, Transpose, Diag),
    (m, n): (i32, i32),
    alpha: f32,
    (a, lda): (&[f32], i32),
    (b, ldb): (&mut [f32], i32),
    device: impl FnOnce(&Buffer, &mut Buffer) -> Result<()>,
) -> Result<()> {
    let (side, uplo, transa, diag) = modes;
    let call = tri_call(r, layout, side, uplo, transa, diag, m, n, lda, ldb)?;
    if call.quick_return() {
        return Ok(());
    }
    call.check_lengths(r, alpha, a.len(), b.len())?;
    let (sa, sb) = call.spans(alpha);
    let ga = upload_span(ctx, a, sa)?;
    // alpha == 0 does not read B: its window is only written.
    let mut gb = upload_span(ctx, b, sb)?;
    device(&ga, &mut gb)?;
    write_back_matrix(&gb, b, (call.m, call.n, call.ldb), |_, _| true)
}

/// `B := alpha*op(A)*B` or `B := alpha*B*op(A)` for a triangular A (see
/// [`Context::strmm`]).
///
/// ```
/// use fragblas::{cblas, Context, Diag, Layout, Side, Transpose::NoTrans, Uplo};
/// let ctx = Context::new()?;
/// let a = [1.0, f32::NAN, 2.0, 3.0]; // [1 2; 0 3], upper
/// let mut b = [1.0f32, 1.0];
/// cblas::strmm(&ctx, Layout::ColMajor, Side::Left, Uplo::Upper, NoTrans, Diag::NonUnit, 2, 1, 1.0, &a, 2, &mut b, 2)?;
/// assert_eq!(b, [3.0, 3.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn strmm(
    ctx: &Context,
    layout: Layout,
    side: Side,
    uplo: Uplo,
    transa: Transpose,
    diag: Diag,
    m: i32,
    n: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    b: &mut [f32],
    ldb: i32,
) -> Result<()> {
    let modes = (side, uplo, transa, diag);
    tri_host(
        ctx,
        "strmm",
        layout,
        modes,
        (m, n),
        alpha,
        (a, lda),
        (b, ldb),
        |ga, gb| {
            ctx.strmm(
                layout, side, uplo, transa, diag, m, n, alpha, ga, lda, gb, ldb,
            )
        },
    )
}

/// Solves `op(A)*X = alpha*B` or `X*op(A) = alpha*B`, X overwriting B (see
/// [`Context::strsm`]).
///
/// ```
/// use fragblas::{cblas, Context, Diag, Layout, Side, Transpose::NoTrans, Uplo};
/// let ctx = Context::new()?;
/// let a = [1.0, f32::NAN, 2.0, 4.0]; // [1 2; 0 4], upper
/// let mut b = [3.0f32, 4.0];
/// cblas::strsm(&ctx, Layout::ColMajor, Side::Left, Uplo::Upper, NoTrans, Diag::NonUnit, 2, 1, 1.0, &a, 2, &mut b, 2)?;
/// assert_eq!(b, [1.0, 1.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn strsm(
    ctx: &Context,
    layout: Layout,
    side: Side,
    uplo: Uplo,
    transa: Transpose,
    diag: Diag,
    m: i32,
    n: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    b: &mut [f32],
    ldb: i32,
) -> Result<()> {
    let modes = (side, uplo, transa, diag);
    tri_host(
        ctx,
        "strsm",
        layout,
        modes,
        (m, n),
        alpha,
        (a, lda),
        (b, ldb),
        |ga, gb| {
            ctx.strsm(
                layout, side, uplo, transa, diag, m, n, alpha, ga, lda, gb, ldb,
            )
        },
    )
}
