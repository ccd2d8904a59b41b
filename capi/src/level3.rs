//! Level 3: `sgemm`, `ssymm`, `ssyrk`, `ssyr2k`, `strmm`, `strsm`, each as `cblas_*` and
//! as the Fortran `*_` symbol. These are the calls the cost model may send to the GPU.

use std::ffi::{c_char, c_int};

use fragblas_core::{cblas, Layout};

use crate::dispatch::{c_diag, c_layout, c_side, c_trans, c_uplo, fdiag, fside, ftrans, fuplo};
use crate::route::Work;
use crate::xerbla::Api;
use crate::{export, go};

fn sq(x: c_int) -> f64 {
    let x = x.max(0) as f64;
    x * x
}

fn mn(m: c_int, n: c_int) -> f64 {
    m.max(0) as f64 * n.max(0) as f64
}

fn gemm_work(m: c_int, n: c_int, k: c_int) -> Work {
    Work::level3(
        2.0 * mn(m, n) * k.max(0) as f64,
        mn(m, k),
        mn(k, n),
        mn(m, n),
    )
}

/// ssymm, strmm, strsm: the triangle or symmetric matrix is m x m on the left, n x n on
/// the right; `per` is 2 for a full product, 1 for a triangular one.
fn side_work(left: bool, m: c_int, n: c_int, per: f64) -> Work {
    let a = if left { sq(m) } else { sq(n) };
    let order = if left { m } else { n }.max(0) as f64;
    Work::level3(per * mn(m, n) * order, a, 0.0, mn(m, n))
}

fn rank_work(n: c_int, k: c_int, per: f64, two: bool) -> Work {
    let a = mn(n, k);
    Work::level3(
        per * sq(n) * k.max(0) as f64,
        a,
        if two { a } else { 0.0 },
        sq(n),
    )
}

export! {
    /// `C := alpha*op(A)*op(B) + beta*C`.
    fn cblas_sgemm(layout: c_int, ta: c_int, tb: c_int, m: c_int, n: c_int, k: c_int, alpha: f32,
        a: *const f32, lda: c_int, b: *const f32, ldb: c_int, beta: f32, c: *mut f32, ldc: c_int) => |cpu| {
        go!("sgemm", Api::cblas(layout), gemm_work(m, n, k), cpu,
            || Ok((c_layout(layout, 1)?, c_trans(ta, 2)?, c_trans(tb, 3)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(l, ta, tb)| cblas::sgemm(ctx, l, ta, tb, m, n, k, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// Fortran SGEMM.
    fn sgemm_(ta: *const c_char, tb: *const c_char, m: *const c_int, n: *const c_int, k: *const c_int,
        alpha: *const f32, a: *const f32, lda: *const c_int, b: *const f32, ldb: *const c_int,
        beta: *const f32, c: *mut f32, ldc: *const c_int, l1: usize, l2: usize) => |cpu| {
        let (m, n, k, alpha, lda, ldb, beta, ldc) = (*m, *n, *k, *alpha, *lda, *ldb, *beta, *ldc);
        go!("sgemm", Api::Fortran, gemm_work(m, n, k), cpu,
            || Ok((ftrans(ta, 1)?, ftrans(tb, 2)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(ta, tb)| cblas::sgemm(ctx, Layout::ColMajor, ta, tb, m, n, k, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// `C := alpha*A*B + beta*C` or `alpha*B*A + beta*C` with A symmetric.
    fn cblas_ssymm(layout: c_int, side: c_int, uplo: c_int, m: c_int, n: c_int, alpha: f32,
        a: *const f32, lda: c_int, b: *const f32, ldb: c_int, beta: f32, c: *mut f32, ldc: c_int) => |cpu| {
        go!("ssymm", Api::cblas(layout), side_work(side != 142, m, n, 2.0), cpu,
            || Ok((c_layout(layout, 1)?, c_side(side, 2)?, c_uplo(uplo, 3)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(l, sd, ul)| cblas::ssymm(ctx, l, sd, ul, m, n, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// Fortran SSYMM.
    fn ssymm_(side: *const c_char, uplo: *const c_char, m: *const c_int, n: *const c_int,
        alpha: *const f32, a: *const f32, lda: *const c_int, b: *const f32, ldb: *const c_int,
        beta: *const f32, c: *mut f32, ldc: *const c_int, l1: usize, l2: usize) => |cpu| {
        let (m, n, alpha, lda, ldb, beta, ldc) = (*m, *n, *alpha, *lda, *ldb, *beta, *ldc);
        let left = !(*side as u8).eq_ignore_ascii_case(&b'R');
        go!("ssymm", Api::Fortran, side_work(left, m, n, 2.0), cpu,
            || Ok((fside(side, 1)?, fuplo(uplo, 2)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(sd, ul)| cblas::ssymm(ctx, Layout::ColMajor, sd, ul, m, n, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// `C := alpha*A*A^T + beta*C` (or `A^T*A`), one triangle of C.
    fn cblas_ssyrk(layout: c_int, uplo: c_int, trans: c_int, n: c_int, k: c_int, alpha: f32,
        a: *const f32, lda: c_int, beta: f32, c: *mut f32, ldc: c_int) => |cpu| {
        go!("ssyrk", Api::cblas(layout), rank_work(n, k, 1.0, false), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?, c_trans(trans, 3)?)),
            ["a", "c"], [a, c],
            move |ctx, s, &(l, ul, t)| cblas::ssyrk(ctx, l, ul, t, n, k, alpha, s.r(0), lda, beta, s.w(1), ldc))
    }
}

export! {
    /// Fortran SSYRK.
    fn ssyrk_(uplo: *const c_char, trans: *const c_char, n: *const c_int, k: *const c_int,
        alpha: *const f32, a: *const f32, lda: *const c_int, beta: *const f32, c: *mut f32,
        ldc: *const c_int, l1: usize, l2: usize) => |cpu| {
        let (n, k, alpha, lda, beta, ldc) = (*n, *k, *alpha, *lda, *beta, *ldc);
        go!("ssyrk", Api::Fortran, rank_work(n, k, 1.0, false), cpu,
            || Ok((fuplo(uplo, 1)?, ftrans(trans, 2)?)),
            ["a", "c"], [a, c],
            move |ctx, s, &(ul, t)| cblas::ssyrk(ctx, Layout::ColMajor, ul, t, n, k, alpha, s.r(0), lda, beta, s.w(1), ldc))
    }
}

export! {
    /// `C := alpha*(A*B^T + B*A^T) + beta*C` (or the transposed form), one triangle of C.
    fn cblas_ssyr2k(layout: c_int, uplo: c_int, trans: c_int, n: c_int, k: c_int, alpha: f32,
        a: *const f32, lda: c_int, b: *const f32, ldb: c_int, beta: f32, c: *mut f32, ldc: c_int) => |cpu| {
        go!("ssyr2k", Api::cblas(layout), rank_work(n, k, 2.0, true), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?, c_trans(trans, 3)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(l, ul, t)| cblas::ssyr2k(ctx, l, ul, t, n, k, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// Fortran SSYR2K.
    fn ssyr2k_(uplo: *const c_char, trans: *const c_char, n: *const c_int, k: *const c_int,
        alpha: *const f32, a: *const f32, lda: *const c_int, b: *const f32, ldb: *const c_int,
        beta: *const f32, c: *mut f32, ldc: *const c_int, l1: usize, l2: usize) => |cpu| {
        let (n, k, alpha, lda, ldb, beta, ldc) = (*n, *k, *alpha, *lda, *ldb, *beta, *ldc);
        go!("ssyr2k", Api::Fortran, rank_work(n, k, 2.0, true), cpu,
            || Ok((fuplo(uplo, 1)?, ftrans(trans, 2)?)),
            ["a", "b", "c"], [a, b, c],
            move |ctx, s, &(ul, t)| cblas::ssyr2k(ctx, Layout::ColMajor, ul, t, n, k, alpha, s.r(0), lda, s.r(1), ldb, beta, s.w(2), ldc))
    }
}

export! {
    /// `B := alpha*op(A)*B` or `alpha*B*op(A)` with A triangular.
    fn cblas_strmm(layout: c_int, side: c_int, uplo: c_int, ta: c_int, diag: c_int, m: c_int,
        n: c_int, alpha: f32, a: *const f32, lda: c_int, b: *mut f32, ldb: c_int) => |cpu| {
        go!("strmm", Api::cblas(layout), side_work(side != 142, m, n, 1.0), cpu,
            || Ok((c_layout(layout, 1)?, c_side(side, 2)?, c_uplo(uplo, 3)?, c_trans(ta, 4)?, c_diag(diag, 5)?)),
            ["a", "b"], [a, b],
            move |ctx, s, &(l, sd, ul, t, d)| cblas::strmm(ctx, l, sd, ul, t, d, m, n, alpha, s.r(0), lda, s.w(1), ldb))
    }
}

export! {
    /// Fortran STRMM.
    fn strmm_(side: *const c_char, uplo: *const c_char, ta: *const c_char, diag: *const c_char,
        m: *const c_int, n: *const c_int, alpha: *const f32, a: *const f32, lda: *const c_int,
        b: *mut f32, ldb: *const c_int, l1: usize, l2: usize, l3: usize, l4: usize) => |cpu| {
        let (m, n, alpha, lda, ldb) = (*m, *n, *alpha, *lda, *ldb);
        let left = !(*side as u8).eq_ignore_ascii_case(&b'R');
        go!("strmm", Api::Fortran, side_work(left, m, n, 1.0), cpu,
            || Ok((fside(side, 1)?, fuplo(uplo, 2)?, ftrans(ta, 3)?, fdiag(diag, 4)?)),
            ["a", "b"], [a, b],
            move |ctx, s, &(sd, ul, t, d)| cblas::strmm(ctx, Layout::ColMajor, sd, ul, t, d, m, n, alpha, s.r(0), lda, s.w(1), ldb))
    }
}

export! {
    /// Solves `op(A)*X = alpha*B` or `X*op(A) = alpha*B` with A triangular; X overwrites B.
    fn cblas_strsm(layout: c_int, side: c_int, uplo: c_int, ta: c_int, diag: c_int, m: c_int,
        n: c_int, alpha: f32, a: *const f32, lda: c_int, b: *mut f32, ldb: c_int) => |cpu| {
        go!("strsm", Api::cblas(layout), side_work(side != 142, m, n, 1.0), cpu,
            || Ok((c_layout(layout, 1)?, c_side(side, 2)?, c_uplo(uplo, 3)?, c_trans(ta, 4)?, c_diag(diag, 5)?)),
            ["a", "b"], [a, b],
            move |ctx, s, &(l, sd, ul, t, d)| cblas::strsm(ctx, l, sd, ul, t, d, m, n, alpha, s.r(0), lda, s.w(1), ldb))
    }
}

export! {
    /// Fortran STRSM.
    fn strsm_(side: *const c_char, uplo: *const c_char, ta: *const c_char, diag: *const c_char,
        m: *const c_int, n: *const c_int, alpha: *const f32, a: *const f32, lda: *const c_int,
        b: *mut f32, ldb: *const c_int, l1: usize, l2: usize, l3: usize, l4: usize) => |cpu| {
        let (m, n, alpha, lda, ldb) = (*m, *n, *alpha, *lda, *ldb);
        let left = !(*side as u8).eq_ignore_ascii_case(&b'R');
        go!("strsm", Api::Fortran, side_work(left, m, n, 1.0), cpu,
            || Ok((fside(side, 1)?, fuplo(uplo, 2)?, ftrans(ta, 3)?, fdiag(diag, 4)?)),
            ["a", "b"], [a, b],
            move |ctx, s, &(sd, ul, t, d)| cblas::strsm(ctx, Layout::ColMajor, sd, ul, t, d, m, n, alpha, s.r(0), lda, s.w(1), ldb))
    }
}
