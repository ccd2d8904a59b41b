//! Level 2, each as `cblas_*` and as the Fortran `*_` symbol: general, symmetric, banded,
//! packed and triangular matrix-vector products and solves, and the rank updates.

use std::ffi::{c_char, c_int};

use fragblas_core::{cblas, Layout};

use crate::dispatch::{c_diag, c_layout, c_trans, c_uplo, fdiag, ftrans, fuplo, no_enums};
use crate::route::Work;
use crate::xerbla::Api;
use crate::{export, go};

fn mn(m: c_int, n: c_int) -> f64 {
    m.max(0) as f64 * n.max(0) as f64
}

fn packed(n: c_int) -> f64 {
    let n = n.max(0) as f64;
    n * (n + 1.0) / 2.0
}

fn mv(a: f64, m: c_int, n: c_int) -> Work {
    Work::level2(a, n, m, false)
}

fn rank(a: f64, n: c_int) -> Work {
    Work::level2(a, n, n, true)
}

export! {
    /// `y := alpha*op(A)*x + beta*y`.
    fn cblas_sgemv(layout: c_int, trans: c_int, m: c_int, n: c_int, alpha: f32, a: *const f32, lda: c_int,
        x: *const f32, incx: c_int, beta: f32, y: *mut f32, incy: c_int) => |cpu| {
        go!("sgemv", Api::cblas(layout), mv(mn(m, n), m, n), cpu,
            || Ok((c_layout(layout, 1)?, c_trans(trans, 2)?)), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &(l, t)| cblas::sgemv(ctx, l, t, m, n, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// Fortran SGEMV.
    fn sgemv_(trans: *const c_char, m: *const c_int, n: *const c_int, alpha: *const f32, a: *const f32, lda: *const c_int,
        x: *const f32, incx: *const c_int, beta: *const f32, y: *mut f32, incy: *const c_int, l1: usize) => |cpu| {
        let (m, n, alpha, lda, incx, beta, incy) = (*m, *n, *alpha, *lda, *incx, *beta, *incy);
        go!("sgemv", Api::Fortran, mv(mn(m, n), m, n), cpu,
            || ftrans(trans, 1), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &t| cblas::sgemv(ctx, Layout::ColMajor, t, m, n, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// `y := alpha*op(A)*x + beta*y` with A banded (kl sub-, ku super-diagonals).
    fn cblas_sgbmv(layout: c_int, trans: c_int, m: c_int, n: c_int, kl: c_int, ku: c_int, alpha: f32,
        a: *const f32, lda: c_int, x: *const f32, incx: c_int, beta: f32, y: *mut f32, incy: c_int) => |cpu| {
        go!("sgbmv", Api::cblas(layout), mv(mn(lda, n), m, n), cpu,
            || Ok((c_layout(layout, 1)?, c_trans(trans, 2)?)), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &(l, t)| cblas::sgbmv(ctx, l, t, m, n, kl, ku, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// Fortran SGBMV.
    fn sgbmv_(trans: *const c_char, m: *const c_int, n: *const c_int, kl: *const c_int, ku: *const c_int,
        alpha: *const f32, a: *const f32, lda: *const c_int, x: *const f32, incx: *const c_int,
        beta: *const f32, y: *mut f32, incy: *const c_int, l1: usize) => |cpu| {
        let (m, n, kl, ku, alpha, lda, incx, beta, incy) = (*m, *n, *kl, *ku, *alpha, *lda, *incx, *beta, *incy);
        go!("sgbmv", Api::Fortran, mv(mn(lda, n), m, n), cpu,
            || ftrans(trans, 1), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &t| cblas::sgbmv(ctx, Layout::ColMajor, t, m, n, kl, ku, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// `y := alpha*A*x + beta*y` with A symmetric (one triangle read).
    fn cblas_ssymv(layout: c_int, uplo: c_int, n: c_int, alpha: f32, a: *const f32, lda: c_int,
        x: *const f32, incx: c_int, beta: f32, y: *mut f32, incy: c_int) => |cpu| {
        go!("ssymv", Api::cblas(layout), mv(mn(n, n), n, n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &(l, u)| cblas::ssymv(ctx, l, u, n, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// Fortran SSYMV.
    fn ssymv_(uplo: *const c_char, n: *const c_int, alpha: *const f32, a: *const f32, lda: *const c_int,
        x: *const f32, incx: *const c_int, beta: *const f32, y: *mut f32, incy: *const c_int, l1: usize) => |cpu| {
        let (n, alpha, lda, incx, beta, incy) = (*n, *alpha, *lda, *incx, *beta, *incy);
        go!("ssymv", Api::Fortran, mv(mn(n, n), n, n), cpu,
            || fuplo(uplo, 1), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &u| cblas::ssymv(ctx, Layout::ColMajor, u, n, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// `y := alpha*A*x + beta*y` with A symmetric banded (k off-diagonals).
    fn cblas_ssbmv(layout: c_int, uplo: c_int, n: c_int, k: c_int, alpha: f32, a: *const f32, lda: c_int,
        x: *const f32, incx: c_int, beta: f32, y: *mut f32, incy: c_int) => |cpu| {
        go!("ssbmv", Api::cblas(layout), mv(mn(lda, n), n, n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &(l, u)| cblas::ssbmv(ctx, l, u, n, k, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// Fortran SSBMV.
    fn ssbmv_(uplo: *const c_char, n: *const c_int, k: *const c_int, alpha: *const f32, a: *const f32,
        lda: *const c_int, x: *const f32, incx: *const c_int, beta: *const f32, y: *mut f32,
        incy: *const c_int, l1: usize) => |cpu| {
        let (n, k, alpha, lda, incx, beta, incy) = (*n, *k, *alpha, *lda, *incx, *beta, *incy);
        go!("ssbmv", Api::Fortran, mv(mn(lda, n), n, n), cpu,
            || fuplo(uplo, 1), ["a", "x", "y"], [a, x, y],
            move |ctx, s, &u| cblas::ssbmv(ctx, Layout::ColMajor, u, n, k, alpha, s.r(0), lda, s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// `y := alpha*A*x + beta*y` with A symmetric, packed.
    fn cblas_sspmv(layout: c_int, uplo: c_int, n: c_int, alpha: f32, ap: *const f32,
        x: *const f32, incx: c_int, beta: f32, y: *mut f32, incy: c_int) => |cpu| {
        go!("sspmv", Api::cblas(layout), mv(packed(n), n, n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["ap", "x", "y"], [ap, x, y],
            move |ctx, s, &(l, u)| cblas::sspmv(ctx, l, u, n, alpha, s.r(0), s.r(1), incx, beta, s.w(2), incy))
    }
}

export! {
    /// Fortran SSPMV.
    fn sspmv_(uplo: *const c_char, n: *const c_int, alpha: *const f32, ap: *const f32,
        x: *const f32, incx: *const c_int, beta: *const f32, y: *mut f32, incy: *const c_int, l1: usize) => |cpu| {
        let (n, alpha, incx, beta, incy) = (*n, *alpha, *incx, *beta, *incy);
        go!("sspmv", Api::Fortran, mv(packed(n), n, n), cpu,
            || fuplo(uplo, 1), ["ap", "x", "y"], [ap, x, y],
            move |ctx, s, &u| cblas::sspmv(ctx, Layout::ColMajor, u, n, alpha, s.r(0), s.r(1), incx, beta, s.w(2), incy))
    }
}

/// The six triangular routines, full, banded and packed, each in both forms.
macro_rules! triangular {
    ($name:ident, $cname:ident, $fname:ident, full) => {
        export! {
            /// Triangular product or solve, A full (see the crate's `cblas` module).
            fn $cname(layout: c_int, uplo: c_int, trans: c_int, diag: c_int, n: c_int, a: *const f32, lda: c_int,
                x: *mut f32, incx: c_int) => |cpu| {
                go!(stringify!($name), Api::cblas(layout), mv(mn(n, n), n, n), cpu,
                    || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?, c_trans(trans, 3)?, c_diag(diag, 4)?)),
                    ["a", "x"], [a, x],
                    move |ctx, s, &(l, u, t, d)| cblas::$name(ctx, l, u, t, d, n, s.r(0), lda, s.w(1), incx))
            }
        }
        export! {
            /// The Fortran symbol of the same routine.
            fn $fname(uplo: *const c_char, trans: *const c_char, diag: *const c_char, n: *const c_int,
                a: *const f32, lda: *const c_int, x: *mut f32, incx: *const c_int, l1: usize, l2: usize, l3: usize) => |cpu| {
                let (n, lda, incx) = (*n, *lda, *incx);
                go!(stringify!($name), Api::Fortran, mv(mn(n, n), n, n), cpu,
                    || Ok((fuplo(uplo, 1)?, ftrans(trans, 2)?, fdiag(diag, 3)?)),
                    ["a", "x"], [a, x],
                    move |ctx, s, &(u, t, d)| cblas::$name(ctx, Layout::ColMajor, u, t, d, n, s.r(0), lda, s.w(1), incx))
            }
        }
    };
    ($name:ident, $cname:ident, $fname:ident, band) => {
        export! {
            /// Triangular product or solve, A banded (see the crate's `cblas` module).
            fn $cname(layout: c_int, uplo: c_int, trans: c_int, diag: c_int, n: c_int, k: c_int, a: *const f32,
                lda: c_int, x: *mut f32, incx: c_int) => |cpu| {
                go!(stringify!($name), Api::cblas(layout), mv(mn(lda, n), n, n), cpu,
                    || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?, c_trans(trans, 3)?, c_diag(diag, 4)?)),
                    ["a", "x"], [a, x],
                    move |ctx, s, &(l, u, t, d)| cblas::$name(ctx, l, u, t, d, n, k, s.r(0), lda, s.w(1), incx))
            }
        }
        export! {
            /// The Fortran symbol of the same routine.
            fn $fname(uplo: *const c_char, trans: *const c_char, diag: *const c_char, n: *const c_int,
                k: *const c_int, a: *const f32, lda: *const c_int, x: *mut f32, incx: *const c_int,
                l1: usize, l2: usize, l3: usize) => |cpu| {
                let (n, k, lda, incx) = (*n, *k, *lda, *incx);
                go!(stringify!($name), Api::Fortran, mv(mn(lda, n), n, n), cpu,
                    || Ok((fuplo(uplo, 1)?, ftrans(trans, 2)?, fdiag(diag, 3)?)),
                    ["a", "x"], [a, x],
                    move |ctx, s, &(u, t, d)| cblas::$name(ctx, Layout::ColMajor, u, t, d, n, k, s.r(0), lda, s.w(1), incx))
            }
        }
    };
    ($name:ident, $cname:ident, $fname:ident, packed) => {
        export! {
            /// Triangular product or solve, A packed (see the crate's `cblas` module).
            fn $cname(layout: c_int, uplo: c_int, trans: c_int, diag: c_int, n: c_int, ap: *const f32,
                x: *mut f32, incx: c_int) => |cpu| {
                go!(stringify!($name), Api::cblas(layout), mv(packed(n), n, n), cpu,
                    || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?, c_trans(trans, 3)?, c_diag(diag, 4)?)),
                    ["ap", "x"], [ap, x],
                    move |ctx, s, &(l, u, t, d)| cblas::$name(ctx, l, u, t, d, n, s.r(0), s.w(1), incx))
            }
        }
        export! {
            /// The Fortran symbol of the same routine.
            fn $fname(uplo: *const c_char, trans: *const c_char, diag: *const c_char, n: *const c_int,
                ap: *const f32, x: *mut f32, incx: *const c_int, l1: usize, l2: usize, l3: usize) => |cpu| {
                let (n, incx) = (*n, *incx);
                go!(stringify!($name), Api::Fortran, mv(packed(n), n, n), cpu,
                    || Ok((fuplo(uplo, 1)?, ftrans(trans, 2)?, fdiag(diag, 3)?)),
                    ["ap", "x"], [ap, x],
                    move |ctx, s, &(u, t, d)| cblas::$name(ctx, Layout::ColMajor, u, t, d, n, s.r(0), s.w(1), incx))
            }
        }
    };
}

triangular!(strmv, cblas_strmv, strmv_, full);
triangular!(stbmv, cblas_stbmv, stbmv_, band);
triangular!(stpmv, cblas_stpmv, stpmv_, packed);
triangular!(strsv, cblas_strsv, strsv_, full);
triangular!(stbsv, cblas_stbsv, stbsv_, band);
triangular!(stpsv, cblas_stpsv, stpsv_, packed);

export! {
    /// `A := alpha*x*y^T + A`.
    fn cblas_sger(layout: c_int, m: c_int, n: c_int, alpha: f32, x: *const f32, incx: c_int,
        y: *const f32, incy: c_int, a: *mut f32, lda: c_int) => |cpu| {
        go!("sger", Api::cblas(layout), rank(mn(m, n), n), cpu,
            || c_layout(layout, 1), ["x", "y", "a"], [x, y, a],
            move |ctx, s, &l| cblas::sger(ctx, l, m, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2), lda))
    }
}

export! {
    /// Fortran SGER.
    fn sger_(m: *const c_int, n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int,
        y: *const f32, incy: *const c_int, a: *mut f32, lda: *const c_int) => |cpu| {
        let (m, n, alpha, incx, incy, lda) = (*m, *n, *alpha, *incx, *incy, *lda);
        go!("sger", Api::Fortran, rank(mn(m, n), n), cpu,
            no_enums, ["x", "y", "a"], [x, y, a],
            move |ctx, s, _| cblas::sger(ctx, Layout::ColMajor, m, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2), lda))
    }
}

export! {
    /// `A := alpha*x*x^T + A`, one triangle of A.
    fn cblas_ssyr(layout: c_int, uplo: c_int, n: c_int, alpha: f32, x: *const f32, incx: c_int,
        a: *mut f32, lda: c_int) => |cpu| {
        go!("ssyr", Api::cblas(layout), rank(mn(n, n), n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["x", "a"], [x, a],
            move |ctx, s, &(l, u)| cblas::ssyr(ctx, l, u, n, alpha, s.r(0), incx, s.w(1), lda))
    }
}

export! {
    /// Fortran SSYR.
    fn ssyr_(uplo: *const c_char, n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int,
        a: *mut f32, lda: *const c_int, l1: usize) => |cpu| {
        let (n, alpha, incx, lda) = (*n, *alpha, *incx, *lda);
        go!("ssyr", Api::Fortran, rank(mn(n, n), n), cpu,
            || fuplo(uplo, 1), ["x", "a"], [x, a],
            move |ctx, s, &u| cblas::ssyr(ctx, Layout::ColMajor, u, n, alpha, s.r(0), incx, s.w(1), lda))
    }
}

export! {
    /// `A := alpha*x*x^T + A`, A packed.
    fn cblas_sspr(layout: c_int, uplo: c_int, n: c_int, alpha: f32, x: *const f32, incx: c_int, ap: *mut f32) => |cpu| {
        go!("sspr", Api::cblas(layout), rank(packed(n), n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["x", "ap"], [x, ap],
            move |ctx, s, &(l, u)| cblas::sspr(ctx, l, u, n, alpha, s.r(0), incx, s.w(1)))
    }
}

export! {
    /// Fortran SSPR.
    fn sspr_(uplo: *const c_char, n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int,
        ap: *mut f32, l1: usize) => |cpu| {
        let (n, alpha, incx) = (*n, *alpha, *incx);
        go!("sspr", Api::Fortran, rank(packed(n), n), cpu,
            || fuplo(uplo, 1), ["x", "ap"], [x, ap],
            move |ctx, s, &u| cblas::sspr(ctx, Layout::ColMajor, u, n, alpha, s.r(0), incx, s.w(1)))
    }
}

export! {
    /// `A := alpha*x*y^T + alpha*y*x^T + A`, one triangle of A.
    fn cblas_ssyr2(layout: c_int, uplo: c_int, n: c_int, alpha: f32, x: *const f32, incx: c_int,
        y: *const f32, incy: c_int, a: *mut f32, lda: c_int) => |cpu| {
        go!("ssyr2", Api::cblas(layout), rank(mn(n, n), n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["x", "y", "a"], [x, y, a],
            move |ctx, s, &(l, u)| cblas::ssyr2(ctx, l, u, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2), lda))
    }
}

export! {
    /// Fortran SSYR2.
    fn ssyr2_(uplo: *const c_char, n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int,
        y: *const f32, incy: *const c_int, a: *mut f32, lda: *const c_int, l1: usize) => |cpu| {
        let (n, alpha, incx, incy, lda) = (*n, *alpha, *incx, *incy, *lda);
        go!("ssyr2", Api::Fortran, rank(mn(n, n), n), cpu,
            || fuplo(uplo, 1), ["x", "y", "a"], [x, y, a],
            move |ctx, s, &u| cblas::ssyr2(ctx, Layout::ColMajor, u, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2), lda))
    }
}

export! {
    /// `A := alpha*x*y^T + alpha*y*x^T + A`, A packed.
    fn cblas_sspr2(layout: c_int, uplo: c_int, n: c_int, alpha: f32, x: *const f32, incx: c_int,
        y: *const f32, incy: c_int, ap: *mut f32) => |cpu| {
        go!("sspr2", Api::cblas(layout), rank(packed(n), n), cpu,
            || Ok((c_layout(layout, 1)?, c_uplo(uplo, 2)?)), ["x", "y", "ap"], [x, y, ap],
            move |ctx, s, &(l, u)| cblas::sspr2(ctx, l, u, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2)))
    }
}

export! {
    /// Fortran SSPR2.
    fn sspr2_(uplo: *const c_char, n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int,
        y: *const f32, incy: *const c_int, ap: *mut f32, l1: usize) => |cpu| {
        let (n, alpha, incx, incy) = (*n, *alpha, *incx, *incy);
        go!("sspr2", Api::Fortran, rank(packed(n), n), cpu,
            || fuplo(uplo, 1), ["x", "y", "ap"], [x, y, ap],
            move |ctx, s, &u| cblas::sspr2(ctx, Layout::ColMajor, u, n, alpha, s.r(0), incx, s.r(1), incy, s.w(2)))
    }
}
