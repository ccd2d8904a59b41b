//! Level 1 of the host API.

use crate::blas::args::{check_span, one_vector, two_vectors, vector_span};
use crate::blas::level1::host;
use crate::blas::level1::rot::{rotg, rotmg};
use crate::cblas::host::{dot_operands, pair_on_gpu, upload_span, write_back_vector};
use crate::device::context::Context;
use crate::error::Result;

/// `y := alpha*x + y`. A zero `incy` accumulates into `y[0]` in order, on the host.
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let mut y = [1.0f32, 1.0, 1.0];
/// cblas::saxpy(&ctx, 3, 2.0, &[1.0, 2.0, 3.0], 1, &mut y, 1)?;
/// assert_eq!(y, [3.0, 5.0, 7.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn saxpy(
    ctx: &Context,
    n: i32,
    alpha: f32,
    x: &[f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    if !two_vectors("saxpy", n, alpha == 0.0, (x.len(), incx), (y.len(), incy))? {
        return Ok(());
    }
    if host::y_sequential(incy) {
        host::saxpy(n, alpha, x, incx, y, incy);
        return Ok(());
    }
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.saxpy(n, alpha, &gx, incx, &mut gy, incy)?;
    write_back_vector(&gy, y, n, incy)
}

/// `y := x`. A zero `incy` leaves the last element of x in `y[0]` (on the host).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let mut y = [0.0f32; 4];
/// cblas::scopy(&ctx, 2, &[1.0, 2.0], 1, &mut y, 2)?;
/// assert_eq!(y, [1.0, 0.0, 2.0, 0.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn scopy(ctx: &Context, n: i32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) -> Result<()> {
    if !two_vectors("scopy", n, false, (x.len(), incx), (y.len(), incy))? {
        return Ok(());
    }
    if host::y_sequential(incy) {
        host::scopy(n, x, incx, y, incy);
        return Ok(());
    }
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    ctx.scopy(n, &gx, incx, &mut gy, incy)?;
    write_back_vector(&gy, y, n, incy)
}

/// Exchanges x and y. With a zero increment the exchanges happen in order (on the host).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let (mut x, mut y) = ([1.0f32, 2.0], [3.0f32, 4.0]);
/// cblas::sswap(&ctx, 2, &mut x, 1, &mut y, 1)?;
/// assert_eq!((x, y), ([3.0, 4.0], [1.0, 2.0]));
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sswap(
    ctx: &Context,
    n: i32,
    x: &mut [f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
) -> Result<()> {
    if !two_vectors("sswap", n, false, (x.len(), incx), (y.len(), incy))? {
        return Ok(());
    }
    if host::pair_sequential(incx, incy) {
        host::sswap(n, x, incx, y, incy);
        return Ok(());
    }
    pair_on_gpu(ctx, n, (x, incx), (y, incy), |gx, gy| {
        ctx.sswap(n, gx, incx, gy, incy)
    })
}

/// Applies the plane rotation `(c, s)`: `x := c x + s y`, `y := c y - s x`.
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let (mut x, mut y) = ([1.0f32, 2.0], [3.0f32, 4.0]);
/// cblas::srot(&ctx, 2, &mut x, 1, &mut y, 1, 0.0, 1.0)?;
/// assert_eq!((x, y), ([3.0, 4.0], [-1.0, -2.0]));
/// # Ok::<(), fragblas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn srot(
    ctx: &Context,
    n: i32,
    x: &mut [f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
    c: f32,
    s: f32,
) -> Result<()> {
    if !two_vectors("srot", n, false, (x.len(), incx), (y.len(), incy))? {
        return Ok(());
    }
    if host::pair_sequential(incx, incy) {
        host::srot(n, x, incx, y, incy, c, s);
        return Ok(());
    }
    pair_on_gpu(ctx, n, (x, incx), (y, incy), |gx, gy| {
        ctx.srot(n, gx, incx, gy, incy, c, s)
    })
}

/// Applies the modified Givens rotation `param` = `[flag, h11, h21, h12, h22]` (flag -2 is
/// the identity: nothing is read or written).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let (mut x, mut y) = ([1.0f32], [3.0f32]);
/// cblas::srotm(&ctx, 1, &mut x, 1, &mut y, 1, &[1.0, 2.0, 0.0, 0.0, 0.5])?;
/// assert_eq!((x, y), ([5.0], [0.5])); // h11 x + y, -x + h22 y
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn srotm(
    ctx: &Context,
    n: i32,
    x: &mut [f32],
    incx: i32,
    y: &mut [f32],
    incy: i32,
    param: &[f32; 5],
) -> Result<()> {
    let identity = param[0] + 2.0 == 0.0;
    if !two_vectors("srotm", n, identity, (x.len(), incx), (y.len(), incy))? {
        return Ok(());
    }
    if host::pair_sequential(incx, incy) {
        host::srotm(n, x, incx, y, incy, param);
        return Ok(());
    }
    pair_on_gpu(ctx, n, (x, incx), (y, incy), |gx, gy| {
        ctx.srotm(n, gx, incx, gy, incy, param)
    })
}

/// Constructs a Givens rotation (reference SROTG, on the host): `a` becomes `r`, `b`
/// becomes `z`, and `c`, `s` are set.
///
/// ```
/// let (mut a, mut b, mut c, mut s) = (3.0f32, 4.0f32, 0.0f32, 0.0f32);
/// fragblas::cblas::srotg(&mut a, &mut b, &mut c, &mut s);
/// assert_eq!((a, c, s), (5.0, 0.6, 0.8));
/// ```
pub fn srotg(a: &mut f32, b: &mut f32, c: &mut f32, s: &mut f32) {
    (*a, *b, *c, *s) = rotg(*a, *b);
}

/// Constructs a modified Givens rotation (reference SROTMG, on the host); only the entries
/// of `param` that its flag defines are written.
///
/// ```
/// let (mut d1, mut d2, mut x1) = (1.0f32, 1.0f32, 1.0f32);
/// let mut param = [0.0f32; 5];
/// fragblas::cblas::srotmg(&mut d1, &mut d2, &mut x1, 0.0, &mut param);
/// assert_eq!(param[0], -2.0);
/// ```
pub fn srotmg(d1: &mut f32, d2: &mut f32, x1: &mut f32, y1: f32, param: &mut [f32; 5]) {
    rotmg(d1, d2, x1, y1, param);
}

/// `x := alpha*x` (no-op for `n <= 0`, `incx <= 0` or `alpha == 1`, as in reference BLAS).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let mut x = [1.0f32, 2.0];
/// cblas::sscal(&ctx, 2, -1.0, &mut x, 1)?;
/// assert_eq!(x, [-1.0, -2.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sscal(ctx: &Context, n: i32, alpha: f32, x: &mut [f32], incx: i32) -> Result<()> {
    if alpha == 1.0 || !one_vector("sscal", n, x.len(), incx)? {
        return Ok(());
    }
    let mut gx = upload_span(ctx, x, vector_span(n, incx))?;
    ctx.sscal(n, alpha, &mut gx, incx)?;
    write_back_vector(&gx, x, n, incx)
}

/// The dot product of x and y (0 for `n <= 0`).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// assert_eq!(cblas::sdot(&ctx, 2, &[1.0, 2.0], 1, &[3.0, 4.0], 1)?, 11.0);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sdot(ctx: &Context, n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> Result<f32> {
    match dot_operands(ctx, "sdot", n, (x, incx), (y, incy))? {
        Some((gx, gy)) => ctx.sdot(n, &gx, incx, &gy, incy),
        None => Ok(0.0),
    }
}

/// `sb + x.y` accumulated beyond single precision (reference SDSDOT); `sb` for `n <= 0`.
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let x = [1.0e8f32, 1.0, -1.0e8];
/// assert_eq!(cblas::sdsdot(&ctx, 3, 0.0, &x, 1, &[1.0; 3], 1)?, 1.0);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sdsdot(
    ctx: &Context,
    n: i32,
    sb: f32,
    x: &[f32],
    incx: i32,
    y: &[f32],
    incy: i32,
) -> Result<f32> {
    match dot_operands(ctx, "sdsdot", n, (x, incx), (y, incy))? {
        Some((gx, gy)) => ctx.sdsdot(n, sb, &gx, incx, &gy, incy),
        None => Ok(sb),
    }
}

/// `x.y` accumulated beyond single precision, as f64 (reference DSDOT); 0 for `n <= 0`.
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// let x = [1.0e8f32, 1.0, -1.0e8];
/// assert_eq!(cblas::dsdot(&ctx, 3, &x, 1, &[1.0; 3], 1)?, 1.0);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn dsdot(ctx: &Context, n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> Result<f64> {
    match dot_operands(ctx, "dsdot", n, (x, incx), (y, incy))? {
        Some((gx, gy)) => ctx.dsdot(n, &gx, incx, &gy, incy),
        None => Ok(0.0),
    }
}

/// Sum of absolute values (0 for `n <= 0` or `incx <= 0`).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// assert_eq!(cblas::sasum(&ctx, 3, &[1.0, -2.0, 3.0], 1)?, 6.0);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn sasum(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<f32> {
    if !one_vector("sasum", n, x.len(), incx)? {
        return Ok(0.0);
    }
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    ctx.sasum(n, &gx, incx)
}

/// Euclidean norm, without overflow or underflow (0 for `n <= 0`; as reference BLAS 3.10
/// and later, a negative increment walks from the end and a zero one reads `x[0]` n times).
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// assert_eq!(cblas::snrm2(&ctx, 2, &[3.0, 4.0], 1)?, 5.0);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn snrm2(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<f32> {
    if n <= 0 {
        return Ok(0.0);
    }
    check_span("snrm2", "x", x.len(), n, incx)?;
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    ctx.snrm2(n, &gx, incx)
}

/// **0-based** index of the first element of largest magnitude, as C CBLAS's
/// `cblas_isamax` returns it (0 also for `n <= 0` or `incx <= 0`). NaNs are passed over
/// unless the first element is one, as in reference BLAS. ([`Context::isamax`] returns
/// `None` where there is no element.)
///
/// ```
/// use fragblas::{cblas, Context};
/// let ctx = Context::new()?;
/// assert_eq!(cblas::isamax(&ctx, 3, &[1.0, -7.0, 3.0], 1)?, 1);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub fn isamax(ctx: &Context, n: i32, x: &[f32], incx: i32) -> Result<usize> {
    if !one_vector("isamax", n, x.len(), incx)? {
        return Ok(0);
    }
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    Ok(ctx.isamax(n, &gx, incx)?.unwrap_or(0))
}
