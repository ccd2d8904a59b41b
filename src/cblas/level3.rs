//! Level 3 of the host API.

use crate::blas::level3::gemm::shape::gemm_shape;
use crate::blas::types::{Layout, Transpose};
use crate::cblas::host::upload_span;
use crate::device::context::Context;
use crate::error::Result;

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
    let mut gc = upload_span(ctx, c, s.c_span())?;
    ctx.sgemm(
        layout, transa, transb, m, n, k, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
    )?;
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
