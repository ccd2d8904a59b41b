//! What the host API's functions share: uploads of what a call reads, write-backs of what it
//! writes, and the whole sequence (checks, quick return, uploads, device call, write-back)
//! of the level-2 shapes of call.

use crate::blas::args::{check_span, matrix_span, two_vectors, vector_span};
use crate::blas::level1::host;
use crate::blas::level2::matrix::{check_matrix, MvCall};
use crate::blas::level2::rank::RankCall;
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// Uploads the first `span` elements of `data` (the caller has checked that it holds them).
pub(crate) fn upload_span(ctx: &Context, data: &[f32], span: usize) -> Result<Buffer> {
    ctx.upload(&data[..span])
}

/// Writes back the `n` elements of `out` that increment `inc` (not zero) touches, from `buf`.
pub(crate) fn write_back_vector(buf: &Buffer, out: &mut [f32], n: i32, inc: i32) -> Result<()> {
    let span = vector_span(n, inc);
    if inc.unsigned_abs() == 1 {
        // The touched elements are exactly the prefix: read straight into the caller's slice.
        return buf.read_into(&mut out[..span]);
    }
    let mut tmp = vec![0.0; span];
    buf.read_into(&mut tmp)?;
    for p in host::walk(n, inc) {
        out[p] = tmp[p];
    }
    Ok(())
}

/// Writes back, from `buf`, the elements (i, j) (`i < m`, `j < n`) of a column-major
/// window with leading dimension `ld` for which `written(i, j)` holds: what a level-3 call
/// may write, and nothing else of `out`.
pub(crate) fn write_back_matrix(
    buf: &Buffer,
    out: &mut [f32],
    (m, n, ld): (usize, usize, usize),
    written: impl Fn(usize, usize) -> bool,
) -> Result<()> {
    let span = matrix_span(m, n, ld);
    let all = (0..n).all(|j| (0..m).all(|i| written(i, j)));
    if all && (ld == m || n == 1) {
        return buf.read_into(&mut out[..span]);
    }
    let mut tmp = vec![0.0; span];
    buf.read_into(&mut tmp)?;
    for j in 0..n {
        for i in (0..m).filter(|&i| written(i, j)) {
            out[i + j * ld] = tmp[i + j * ld];
        }
    }
    Ok(())
}

/// Runs a two-vector update on the GPU and writes both vectors back.
pub(crate) fn pair_on_gpu(
    ctx: &Context,
    n: i32,
    (x, incx): (&mut [f32], i32),
    (y, incy): (&mut [f32], i32),
    f: impl FnOnce(&mut Buffer, &mut Buffer) -> Result<()>,
) -> Result<()> {
    let mut gx = upload_span(ctx, x, vector_span(n, incx))?;
    let mut gy = upload_span(ctx, y, vector_span(n, incy))?;
    f(&mut gx, &mut gy)?;
    write_back_vector(&gx, x, n, incx)?;
    write_back_vector(&gy, y, n, incy)
}

/// Uploads the two vectors of a dot product; `None` for a quick return.
pub(crate) fn dot_operands(
    ctx: &Context,
    routine: &'static str,
    n: i32,
    (x, incx): (&[f32], i32),
    (y, incy): (&[f32], i32),
) -> Result<Option<(Buffer, Buffer)>> {
    if !two_vectors(routine, n, false, (x.len(), incx), (y.len(), incy))? {
        return Ok(None);
    }
    let gx = upload_span(ctx, x, vector_span(n, incx))?;
    let gy = upload_span(ctx, y, vector_span(n, incy))?;
    Ok(Some((gx, gy)))
}

/// Runs a level-2 `y := alpha*op(A)*x + beta*y` through the host API: reference's quick
/// return, the lengths of what the call reads, uploads of just that (A and x not at all
/// when `alpha == 0`), `device` on the buffers, and y written back.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mv_host(
    ctx: &Context,
    r: &'static str,
    a_param: &'static str,
    call: MvCall,
    alpha: f32,
    a: &[f32],
    (x, incx): (&[f32], i32),
    beta: f32,
    (y, incy): (&mut [f32], i32),
    device: impl FnOnce(&Buffer, &Buffer, &mut Buffer) -> Result<()>,
) -> Result<()> {
    if call.quick_return(alpha, beta) {
        return Ok(());
    }
    call.check_lengths(r, a_param, alpha, (a.len(), x.len(), y.len()), incx, incy)?;
    let (len_x, len_y) = (call.len_x() as i32, call.len_y() as i32);
    let (a_span, x_span) = if alpha == 0.0 {
        (0, 0)
    } else {
        (call.a.span(), vector_span(len_x, incx))
    };
    let ga = upload_span(ctx, a, a_span)?;
    let gx = upload_span(ctx, x, x_span)?;
    let mut gy = upload_span(ctx, y, vector_span(len_y, incy))?;
    device(&ga, &gx, &mut gy)?;
    write_back_vector(&gy, y, len_y, incy)
}

/// Runs a triangular multiply or solve through the host API: `n == 0` returns at once;
/// then the lengths, uploads of what is read, `device`, and x written back.
pub(crate) fn tri_host(
    ctx: &Context,
    r: &'static str,
    a_param: &'static str,
    call: MvCall,
    a: &[f32],
    (x, incx): (&mut [f32], i32),
    device: impl FnOnce(&Buffer, &mut Buffer) -> Result<()>,
) -> Result<()> {
    let n = call.a.rows;
    if n == 0 {
        return Ok(());
    }
    check_matrix(r, a_param, &call.a, a.len())?;
    check_span(r, "x", x.len(), n as i32, incx)?;
    let ga = upload_span(ctx, a, call.a.span())?;
    let mut gx = upload_span(ctx, x, vector_span(n as i32, incx))?;
    device(&ga, &mut gx)?;
    write_back_vector(&gx, x, n as i32, incx)
}

/// Runs a rank update through the host API: reference's quick return (an empty matrix or
/// `alpha == 0`), the lengths, uploads, `device`, and A's span written back (elements the
/// update does not touch come back with the bits they went up with).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank_host(
    ctx: &Context,
    r: &'static str,
    a_param: &'static str,
    call: RankCall,
    alpha: f32,
    (x, incx): (&[f32], i32),
    y: Option<(&[f32], i32)>,
    a: &mut [f32],
    device: impl FnOnce(&Buffer, Option<&Buffer>, &mut Buffer) -> Result<()>,
) -> Result<()> {
    if call.a.rows == 0 || call.a.cols == 0 || alpha == 0.0 {
        return Ok(());
    }
    let (len_x, len_y) = call.lens();
    check_span(r, "x", x.len(), len_x as i32, incx)?;
    if let Some((y, incy)) = y {
        check_span(r, "y", y.len(), len_y as i32, incy)?;
    }
    check_matrix(r, a_param, &call.a, a.len())?;
    let gx = upload_span(ctx, x, vector_span(len_x as i32, incx))?;
    let gy = match y {
        Some((y, incy)) => Some(upload_span(ctx, y, vector_span(len_y as i32, incy))?),
        None => None,
    };
    let span = call.a.span();
    let mut ga = upload_span(ctx, a, span)?;
    device(&gx, gy.as_ref(), &mut ga)?;
    ga.read_into(&mut a[..span])
}
