//! Level 2 of the host API.

use crate::blas::args::vector_span;
use crate::blas::level2::gbmv::gbmv_call;
use crate::blas::level2::gemv::gemv_shape;
use crate::blas::level2::rank::{ger_call, sym_rank_call};
use crate::blas::level2::symv::{sym_call, SymStorage};
use crate::blas::level2::trmv::{tri_call, TriStorage};
use crate::blas::types::{Diag, Layout, Transpose, Uplo};
use crate::cblas::host::{mv_host, rank_host, tri_host, upload_span, write_back_vector};
use crate::device::context::Context;
use crate::error::Result;

/// `y := alpha*op(A)*x + beta*y`.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Transpose::NoTrans};
/// let ctx = Context::new()?;
/// let a = [1.0, 2.0, 3.0, 4.0]; // 2x2 row-major
/// let mut y = [0.0f32; 2];
/// cblas::sgemv(&ctx, Layout::RowMajor, NoTrans, 2, 2, 1.0, &a, 2, &[1.0, 1.0], 1, 0.0, &mut y, 1)?;
/// assert_eq!(y, [3.0, 7.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
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
    if s.quick_return(alpha, beta) {
        return Ok(());
    }
    s.check_lengths(alpha, (a.len(), x.len(), y.len()), incx, incy)?;
    let (len_x, len_y) = (s.len_x() as i32, s.len_y() as i32);
    // With alpha == 0 neither A nor x is read: upload nothing of them.
    let (a_span, x_span) = if alpha == 0.0 {
        (0, 0)
    } else {
        (s.a_span(), vector_span(len_x, incx))
    };
    let ga = upload_span(ctx, a, a_span)?;
    let gx = upload_span(ctx, x, x_span)?;
    let mut gy = upload_span(ctx, y, vector_span(len_y, incy))?;
    ctx.sgemv(
        layout, trans, m, n, alpha, &ga, lda, &gx, incx, beta, &mut gy, incy,
    )?;
    write_back_vector(&gy, y, len_y, incy)
}

/// `y := alpha*op(A)*x + beta*y` for a band matrix (kl sub-, ku super-diagonals).
///
/// ```
/// use fragblas::{cblas, Context, Layout, Transpose::NoTrans};
/// let ctx = Context::new()?;
/// let a = [0.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0, 0.0]; // tridiagonal, band storage
/// let mut y = [0.0f32; 3];
/// cblas::sgbmv(&ctx, Layout::ColMajor, NoTrans, 3, 3, 1, 1, 1.0, &a, 3, &[1.0; 3], 1, 0.0, &mut y, 1)?;
/// assert_eq!(y, [3.0, 4.0, 3.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sgbmv(
    ctx: &Context,
    layout: Layout,
    trans: Transpose,
    m: i32,
    n: i32,
    kl: i32,
    ku: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    x: &[f32],
    incx: i32,
    beta: f32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    let call = gbmv_call(layout, trans, m, n, kl, ku, lda, incx, incy)?;
    mv_host(
        ctx,
        "sgbmv",
        "a",
        call,
        alpha,
        a,
        (x, incx),
        beta,
        (y, incy),
        |ga, gx, gy| {
            ctx.sgbmv(
                layout, trans, m, n, kl, ku, alpha, ga, lda, gx, incx, beta, gy, incy,
            )
        },
    )
}

/// `y := alpha*A*x + beta*y` for a symmetric matrix (the `uplo` triangle is read).
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut y = [0.0f32; 2];
/// cblas::ssymv(&ctx, Layout::RowMajor, Uplo::Lower, 2, 1.0, &[1.0, f32::NAN, 2.0, 3.0], 2, &[1.0, 1.0], 1, 0.0, &mut y, 1)?;
/// assert_eq!(y, [3.0, 5.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssymv(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
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
    const R: &str = "ssymv";
    let call = sym_call(R, layout, uplo, n, SymStorage::Full { lda }, incx, incy)?;
    mv_host(
        ctx,
        R,
        "a",
        call,
        alpha,
        a,
        (x, incx),
        beta,
        (y, incy),
        |ga, gx, gy| ctx.ssymv(layout, uplo, n, alpha, ga, lda, gx, incx, beta, gy, incy),
    )
}

/// `y := alpha*A*x + beta*y` for a symmetric band matrix of `k` diagonals each side.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut y = [0.0f32; 2];
/// cblas::ssbmv(&ctx, Layout::ColMajor, Uplo::Lower, 2, 0, 1.0, &[2.0, 3.0], 1, &[1.0, 1.0], 1, 0.0, &mut y, 1)?;
/// assert_eq!(y, [2.0, 3.0]); // k = 0: the diagonal alone
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssbmv(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    k: i32,
    alpha: f32,
    a: &[f32],
    lda: i32,
    x: &[f32],
    incx: i32,
    beta: f32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    const R: &str = "ssbmv";
    let call = sym_call(R, layout, uplo, n, SymStorage::Band { k, lda }, incx, incy)?;
    mv_host(
        ctx,
        R,
        "a",
        call,
        alpha,
        a,
        (x, incx),
        beta,
        (y, incy),
        |ga, gx, gy| ctx.ssbmv(layout, uplo, n, k, alpha, ga, lda, gx, incx, beta, gy, incy),
    )
}

/// `y := alpha*A*x + beta*y` for a symmetric matrix packed in `ap`.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut y = [0.0f32; 2];
/// cblas::sspmv(&ctx, Layout::ColMajor, Uplo::Upper, 2, 1.0, &[1.0, 2.0, 3.0], &[1.0, 1.0], 1, 0.0, &mut y, 1)?;
/// assert_eq!(y, [3.0, 5.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sspmv(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    alpha: f32,
    ap: &[f32],
    x: &[f32],
    incx: i32,
    beta: f32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    const R: &str = "sspmv";
    let call = sym_call(R, layout, uplo, n, SymStorage::Packed, incx, incy)?;
    mv_host(
        ctx,
        R,
        "ap",
        call,
        alpha,
        ap,
        (x, incx),
        beta,
        (y, incy),
        |ga, gx, gy| ctx.sspmv(layout, uplo, n, alpha, ga, gx, incx, beta, gy, incy),
    )
}

/// The triangular routines of the host API: one function each, sharing [`tri_host`].
macro_rules! triangular_host {
    ($(#[$doc:meta])* $name:ident, full) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            ctx: &Context,
            layout: Layout,
            uplo: Uplo,
            trans: Transpose,
            diag: Diag,
            n: i32,
            a: &[f32],
            lda: i32,
            x: &mut [f32],
            incx: i32,
        ) -> Result<()> {
            const R: &str = stringify!($name);
            let call = tri_call(R, layout, uplo, trans, diag, n, TriStorage::Full { lda }, incx)?;
            tri_host(ctx, R, "a", call, a, (x, incx), |ga, gx| {
                ctx.$name(layout, uplo, trans, diag, n, ga, lda, gx, incx)
            })
        }
    };
    ($(#[$doc:meta])* $name:ident, band) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            ctx: &Context,
            layout: Layout,
            uplo: Uplo,
            trans: Transpose,
            diag: Diag,
            n: i32,
            k: i32,
            a: &[f32],
            lda: i32,
            x: &mut [f32],
            incx: i32,
        ) -> Result<()> {
            const R: &str = stringify!($name);
            let call = tri_call(R, layout, uplo, trans, diag, n, TriStorage::Band { k, lda }, incx)?;
            tri_host(ctx, R, "a", call, a, (x, incx), |ga, gx| {
                ctx.$name(layout, uplo, trans, diag, n, k, ga, lda, gx, incx)
            })
        }
    };
    ($(#[$doc:meta])* $name:ident, packed) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            ctx: &Context,
            layout: Layout,
            uplo: Uplo,
            trans: Transpose,
            diag: Diag,
            n: i32,
            ap: &[f32],
            x: &mut [f32],
            incx: i32,
        ) -> Result<()> {
            const R: &str = stringify!($name);
            let call = tri_call(R, layout, uplo, trans, diag, n, TriStorage::Packed, incx)?;
            tri_host(ctx, R, "ap", call, ap, (x, incx), |ga, gx| {
                ctx.$name(layout, uplo, trans, diag, n, ga, gx, incx)
            })
        }
    };
}

triangular_host!(
    /// `x := op(A)*x` for a triangular matrix (the `uplo` triangle is read).
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [1.0f32, 1.0];
    /// cblas::strmv(&ctx, Layout::RowMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &[1.0, 2.0, f32::NAN, 3.0], 2, &mut x, 1)?;
    /// assert_eq!(x, [3.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    strmv, full
);
triangular_host!(
    /// `x := op(A)*x` for a triangular band matrix of `k` diagonals beside the diagonal.
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [1.0f32, 1.0];
    /// cblas::stbmv(&ctx, Layout::ColMajor, Uplo::Upper, NoTrans, Diag::Unit, 2, 1, &[0.0, f32::NAN, 2.0, f32::NAN], 2, &mut x, 1)?;
    /// assert_eq!(x, [3.0, 1.0]); // [1 2; 0 1] x, the unit diagonal not read
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    stbmv, band
);
triangular_host!(
    /// `x := op(A)*x` for a triangular matrix packed in `ap`.
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [1.0f32, 1.0];
    /// cblas::stpmv(&ctx, Layout::ColMajor, Uplo::Lower, NoTrans, Diag::NonUnit, 2, &[1.0, 2.0, 3.0], &mut x, 1)?;
    /// assert_eq!(x, [1.0, 5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    stpmv, packed
);
triangular_host!(
    /// Solves `op(A)*x = b` (b in x) for a triangular matrix; a singular one gives Inf or
    /// NaN, as reference.
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [4.0f32, 8.0];
    /// cblas::strsv(&ctx, Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &[2.0, f32::NAN, 1.0, 4.0], 2, &mut x, 1)?;
    /// assert_eq!(x, [1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    strsv, full
);
triangular_host!(
    /// Solves `op(A)*x = b` for a triangular band matrix.
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [2.0f32, 9.0];
    /// cblas::stbsv(&ctx, Layout::ColMajor, Uplo::Lower, NoTrans, Diag::NonUnit, 2, 1, &[2.0, 1.0, 4.0, 0.0], 2, &mut x, 1)?;
    /// assert_eq!(x, [1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    stbsv, band
);
triangular_host!(
    /// Solves `op(A)*x = b` for a triangular matrix packed in `ap`.
    ///
    /// ```
    /// use fragblas::{cblas, Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let mut x = [4.0f32, 8.0];
    /// cblas::stpsv(&ctx, Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &[2.0, 1.0, 4.0], &mut x, 1)?;
    /// assert_eq!(x, [1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    stpsv, packed
);

/// `A := alpha*x*y^T + A`.
///
/// ```
/// use fragblas::{cblas, Context, Layout};
/// let ctx = Context::new()?;
/// let mut a = [0.0f32; 4];
/// cblas::sger(&ctx, Layout::RowMajor, 2, 2, 1.0, &[1.0, 2.0], 1, &[3.0, 4.0], 1, &mut a, 2)?;
/// assert_eq!(a, [3.0, 4.0, 6.0, 8.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sger(
    ctx: &Context,
    layout: Layout,
    m: i32,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    y: &[f32],
    incy: i32,
    a: &mut [f32],
    lda: i32,
) -> Result<()> {
    let call = ger_call(layout, m, n, incx, incy, lda)?;
    rank_host(
        ctx,
        "sger",
        "a",
        call,
        alpha,
        (x, incx),
        Some((y, incy)),
        a,
        |gx, gy, ga| {
            let gy = gy.expect("sger has y");
            ctx.sger(layout, m, n, alpha, gx, incx, gy, incy, ga, lda)
        },
    )
}

/// `A := alpha*x*x^T + A` on the `uplo` triangle of a symmetric matrix.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut a = [0.0f32; 4];
/// cblas::ssyr(&ctx, Layout::ColMajor, Uplo::Lower, 2, 1.0, &[1.0, 2.0], 1, &mut a, 2)?;
/// assert_eq!(a, [1.0, 2.0, 0.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssyr(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    a: &mut [f32],
    lda: i32,
) -> Result<()> {
    const R: &str = "ssyr";
    let call = sym_rank_call(R, layout, uplo, n, incx, None, Some(lda))?;
    rank_host(ctx, R, "a", call, alpha, (x, incx), None, a, |gx, _, ga| {
        ctx.ssyr(layout, uplo, n, alpha, gx, incx, ga, lda)
    })
}

/// `A := alpha*x*x^T + A` on a symmetric matrix packed in `ap`.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut ap = [0.0f32; 3];
/// cblas::sspr(&ctx, Layout::ColMajor, Uplo::Upper, 2, 1.0, &[1.0, 2.0], 1, &mut ap)?;
/// assert_eq!(ap, [1.0, 2.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sspr(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    ap: &mut [f32],
) -> Result<()> {
    const R: &str = "sspr";
    let call = sym_rank_call(R, layout, uplo, n, incx, None, None)?;
    rank_host(
        ctx,
        R,
        "ap",
        call,
        alpha,
        (x, incx),
        None,
        ap,
        |gx, _, ga| ctx.sspr(layout, uplo, n, alpha, gx, incx, ga),
    )
}

/// `A := alpha*x*y^T + alpha*y*x^T + A` on the `uplo` triangle of a symmetric matrix.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut a = [0.0f32; 4];
/// cblas::ssyr2(&ctx, Layout::ColMajor, Uplo::Upper, 2, 1.0, &[1.0, 0.0], 1, &[0.0, 1.0], 1, &mut a, 2)?;
/// assert_eq!(a, [0.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ssyr2(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    y: &[f32],
    incy: i32,
    a: &mut [f32],
    lda: i32,
) -> Result<()> {
    const R: &str = "ssyr2";
    let call = sym_rank_call(R, layout, uplo, n, incx, Some(incy), Some(lda))?;
    rank_host(
        ctx,
        R,
        "a",
        call,
        alpha,
        (x, incx),
        Some((y, incy)),
        a,
        |gx, gy, ga| {
            let gy = gy.expect("ssyr2 has y");
            ctx.ssyr2(layout, uplo, n, alpha, gx, incx, gy, incy, ga, lda)
        },
    )
}

/// `A := alpha*x*y^T + alpha*y*x^T + A` on a symmetric matrix packed in `ap`.
///
/// ```
/// use fragblas::{cblas, Context, Layout, Uplo};
/// let ctx = Context::new()?;
/// let mut ap = [0.0f32; 3];
/// cblas::sspr2(&ctx, Layout::ColMajor, Uplo::Lower, 2, 1.0, &[1.0, 0.0], 1, &[0.0, 1.0], 1, &mut ap)?;
/// assert_eq!(ap, [0.0, 1.0, 0.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn sspr2(
    ctx: &Context,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    y: &[f32],
    incy: i32,
    ap: &mut [f32],
) -> Result<()> {
    const R: &str = "sspr2";
    let call = sym_rank_call(R, layout, uplo, n, incx, Some(incy), None)?;
    rank_host(
        ctx,
        R,
        "ap",
        call,
        alpha,
        (x, incx),
        Some((y, incy)),
        ap,
        |gx, gy, ga| {
            let gy = gy.expect("sspr2 has y");
            ctx.sspr2(layout, uplo, n, alpha, gx, incx, gy, incy, ga)
        },
    )
}
