//! Level-2 rows: every matrix-vector routine at order n, column-major, unit strides, the
//! upper triangle, no transpose; band routines with 64 diagonals each side. All are
//! bandwidth-bound: the ceiling column compares the bytes the definition must move (the
//! stored matrix once, the vectors) with the calibrated read bandwidth.

use std::time::Duration;

use cb::{CblasColMajor as COL, CblasNoTrans as NT, CblasNonUnit as NU, CblasUpper as UP};
use cblas_sys as cb;
use fragblas::{cblas, Context, Diag::NonUnit, Layout::ColMajor, Transpose::NoTrans, Uplo::Upper};

use crate::measure::{array_case, random, Bound, Measured, Spec, EPS};

/// Band half-width of the band rows.
pub const BAND: usize = 64;

/// Which rows of a group to run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// Every routine of the group.
    All,
    /// The band routines only (at orders whose full matrix would not fit).
    Band,
    /// sgemv only.
    Sgemv,
}

impl Rows {
    fn keep(self, routine: &str) -> bool {
        match self {
            Rows::All => true,
            Rows::Band => {
                routine.starts_with("sgb")
                    || routine.starts_with("ssb")
                    || routine.starts_with("stb")
            }
            Rows::Sgemv => routine == "sgemv",
        }
    }
}

fn spec(routine: &'static str, n: usize, flops: f64, bytes: f64) -> Spec {
    Spec {
        routine,
        size: format!("{n}^2"),
        m: n,
        n,
        k: 0,
        flops,
        bytes,
        bound: Bound::Bytes,
    }
}

/// Elements of an upper triangle of order n.
fn tri(n: usize) -> f64 {
    (n * (n + 1) / 2) as f64
}

/// Tolerance of a product of `w` terms per element with |A|, |x| <= 1: both sides within
/// (w + 2) eps of the exact value in units of |A||x| + |beta y| <= w + |y|.
fn mv_tol(w: usize) -> impl Fn(usize, &[f32]) -> f32 {
    move |i, want| 2.0 * (w as f32 + 2.0) * EPS * (w as f32 + 2.0 * want[i].abs() + 1.0)
}

/// A triangle (stored as `len` values) fit for repeated multiplies and solves: diagonal of
/// magnitude in [1, 2], off-diagonal values scaled so that each row's add up to at most 1/2
/// (condition at most 5; the diagonal slots are found by `is_diag`).
fn dominant(len: usize, w: usize, seed: u64, is_diag: impl Fn(usize) -> bool) -> Vec<f32> {
    let r = random(len, seed);
    let scale = 0.5 / w.max(1) as f32;
    (0..len)
        .map(|s| {
            if is_diag(s) {
                1.0 + r[s].abs()
            } else {
                r[s] * scale
            }
        })
        .collect()
}

/// y := A x + 0.5 y for the general and symmetric products.
pub fn products(ctx: &Context, n: usize, budget: Duration, rows: Rows) -> Vec<Measured> {
    let ni = n as i32;
    let (k, ki) = (BAND.min(n - 1), BAND.min(n - 1) as i32);
    let x = random(n, 11);
    let y0 = random(n, 12);
    // Band rows only: no full or packed matrix (at n = 2^16 it would take 16 GiB).
    let nn = if rows == Rows::Band { 1 } else { n };
    let full = random(nn * nn, 13);
    let gband = random(n * (2 * k + 1), 14);
    let sband = random(n * (k + 1), 15);
    let packed = random(nn * (nn + 1) / 2, 16);
    let gx = ctx.upload(&x).expect("upload");
    let (gfull, ggband) = (
        ctx.upload(&full).expect("upload"),
        ctx.upload(&gband).expect("upload"),
    );
    let (gsband, gpacked) = (
        ctx.upload(&sband).expect("upload"),
        ctx.upload(&packed).expect("upload"),
    );
    let vec_bytes = 3.0 * n as f64;
    let lb = (2 * k + 1) as i32;
    let lk = (k + 1) as i32;
    let mut out = Vec::new();
    if rows.keep("sgemv") {
        out.push(array_case(
            ctx,
            spec(
                "sgemv",
                n,
                2.0 * (n * n) as f64,
                4.0 * ((n * n) as f64 + vec_bytes),
            ),
            budget,
            &y0,
            // SAFETY (every CPU closure here): the slices hold what the arguments address.
            |y| unsafe {
                cb::cblas_sgemv(
                    COL,
                    NT,
                    ni,
                    ni,
                    1.0,
                    full.as_ptr(),
                    ni,
                    x.as_ptr(),
                    1,
                    0.5,
                    y.as_mut_ptr(),
                    1,
                )
            },
            |y| {
                ctx.sgemv(
                    ColMajor, NoTrans, ni, ni, 1.0, &gfull, ni, &gx, 1, 0.5, y, 1,
                )
            },
            |y| {
                cblas::sgemv(
                    ctx, ColMajor, NoTrans, ni, ni, 1.0, &full, ni, &x, 1, 0.5, y, 1,
                )
            },
            mv_tol(n),
        ));
    }
    if rows.keep("sgbmv") {
        out.push(array_case(
            ctx,
            spec(
                "sgbmv",
                n,
                2.0 * (n * (2 * k + 1)) as f64,
                4.0 * ((n * (2 * k + 1)) as f64 + vec_bytes),
            ),
            budget,
            &y0,
            |y| unsafe {
                cb::cblas_sgbmv(
                    COL,
                    NT,
                    ni,
                    ni,
                    ki,
                    ki,
                    1.0,
                    gband.as_ptr(),
                    lb,
                    x.as_ptr(),
                    1,
                    0.5,
                    y.as_mut_ptr(),
                    1,
                )
            },
            |y| {
                ctx.sgbmv(
                    ColMajor, NoTrans, ni, ni, ki, ki, 1.0, &ggband, lb, &gx, 1, 0.5, y, 1,
                )
            },
            |y| {
                cblas::sgbmv(
                    ctx, ColMajor, NoTrans, ni, ni, ki, ki, 1.0, &gband, lb, &x, 1, 0.5, y, 1,
                )
            },
            mv_tol(2 * k + 1),
        ));
    }
    if rows.keep("ssymv") {
        out.push(array_case(
            ctx,
            spec("ssymv", n, 2.0 * (n * n) as f64, 4.0 * (tri(n) + vec_bytes)),
            budget,
            &y0,
            |y| unsafe {
                cb::cblas_ssymv(
                    COL,
                    UP,
                    ni,
                    1.0,
                    full.as_ptr(),
                    ni,
                    x.as_ptr(),
                    1,
                    0.5,
                    y.as_mut_ptr(),
                    1,
                )
            },
            |y| ctx.ssymv(ColMajor, Upper, ni, 1.0, &gfull, ni, &gx, 1, 0.5, y, 1),
            |y| cblas::ssymv(ctx, ColMajor, Upper, ni, 1.0, &full, ni, &x, 1, 0.5, y, 1),
            mv_tol(n),
        ));
    }
    if rows.keep("ssbmv") {
        out.push(array_case(
            ctx,
            spec(
                "ssbmv",
                n,
                2.0 * (n * (2 * k + 1)) as f64,
                4.0 * ((n * (k + 1)) as f64 + vec_bytes),
            ),
            budget,
            &y0,
            |y| unsafe {
                cb::cblas_ssbmv(
                    COL,
                    UP,
                    ni,
                    ki,
                    1.0,
                    sband.as_ptr(),
                    lk,
                    x.as_ptr(),
                    1,
                    0.5,
                    y.as_mut_ptr(),
                    1,
                )
            },
            |y| ctx.ssbmv(ColMajor, Upper, ni, ki, 1.0, &gsband, lk, &gx, 1, 0.5, y, 1),
            |y| {
                cblas::ssbmv(
                    ctx, ColMajor, Upper, ni, ki, 1.0, &sband, lk, &x, 1, 0.5, y, 1,
                )
            },
            mv_tol(2 * k + 1),
        ));
    }
    if rows.keep("sspmv") {
        out.push(array_case(
            ctx,
            spec("sspmv", n, 2.0 * (n * n) as f64, 4.0 * (tri(n) + vec_bytes)),
            budget,
            &y0,
            |y| unsafe {
                cb::cblas_sspmv(
                    COL,
                    UP,
                    ni,
                    1.0,
                    packed.as_ptr(),
                    x.as_ptr(),
                    1,
                    0.5,
                    y.as_mut_ptr(),
                    1,
                )
            },
            |y| ctx.sspmv(ColMajor, Upper, ni, 1.0, &gpacked, &gx, 1, 0.5, y, 1),
            |y| cblas::sspmv(ctx, ColMajor, Upper, ni, 1.0, &packed, &x, 1, 0.5, y, 1),
            mv_tol(n),
        ));
    }
    out
}

/// x := op(A) x and x := op(A)^-1 x on diagonally dominant upper triangles (stable under
/// repetition), full, band and packed.
pub fn triangular(ctx: &Context, n: usize, budget: Duration, rows: Rows) -> Vec<Measured> {
    let ni = n as i32;
    let (k, ki) = (BAND.min(n - 1), BAND.min(n - 1) as i32);
    let lk = (k + 1) as i32;
    let nn = if rows == Rows::Band { 1 } else { n };
    let full = dominant(nn * nn, n, 21, |s| s % n == s / n);
    let band = dominant(n * (k + 1), k, 22, |s| s % (k + 1) == k);
    let packed = dominant(nn * (nn + 1) / 2, n, 23, |s| {
        // Slot s = i + j(j+1)/2 is diagonal when i == j, i.e. s + 1 is triangular.
        let j = (((8 * s + 1) as f64).sqrt() as usize).saturating_sub(1) / 2;
        (j..=j + 1).any(|j| s == j + j * (j + 1) / 2)
    });
    let x0 = random(n, 24);
    let (gfull, gband, gpacked) = (
        ctx.upload(&full).expect("upload"),
        ctx.upload(&band).expect("upload"),
        ctx.upload(&packed).expect("upload"),
    );
    let (ft, bt) = (tri(n), (n * (k + 1)) as f64);
    let bytes = |stored: f64| 4.0 * (stored + 2.0 * n as f64);
    // A multiply: the |A||x| bound (row sums <= 2.5 times max |x|); a solve: condition 5.
    let mv = |w: usize| {
        move |i: usize, want: &[f32]| 2.0 * (w as f32 + 2.0) * EPS * (2.5 + want[i].abs())
    };
    let sv = |w: usize| {
        move |_: usize, want: &[f32]| {
            let big = want.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            2.0 * 5.0 * (w as f32 + 2.0) * EPS * big.max(1.0)
        }
    };
    let (p, t) = ((Upper, NoTrans, NonUnit), (UP, NT, NU));
    let mut out = Vec::new();
    if rows.keep("strmv") {
        out.push(array_case(
            ctx,
            spec("strmv", n, 2.0 * ft, bytes(ft)),
            budget,
            &x0,
            // SAFETY (every CPU closure here): the slices hold what the arguments address.
            |x| unsafe {
                cb::cblas_strmv(COL, t.0, t.1, t.2, ni, full.as_ptr(), ni, x.as_mut_ptr(), 1)
            },
            |x| ctx.strmv(ColMajor, p.0, p.1, p.2, ni, &gfull, ni, x, 1),
            |x| cblas::strmv(ctx, ColMajor, p.0, p.1, p.2, ni, &full, ni, x, 1),
            mv(n),
        ));
    }
    if rows.keep("stbmv") {
        out.push(array_case(
            ctx,
            spec("stbmv", n, 2.0 * bt, bytes(bt)),
            budget,
            &x0,
            |x| unsafe {
                cb::cblas_stbmv(
                    COL,
                    t.0,
                    t.1,
                    t.2,
                    ni,
                    ki,
                    band.as_ptr(),
                    lk,
                    x.as_mut_ptr(),
                    1,
                )
            },
            |x| ctx.stbmv(ColMajor, p.0, p.1, p.2, ni, ki, &gband, lk, x, 1),
            |x| cblas::stbmv(ctx, ColMajor, p.0, p.1, p.2, ni, ki, &band, lk, x, 1),
            mv(k + 1),
        ));
    }
    if rows.keep("stpmv") {
        out.push(array_case(
            ctx,
            spec("stpmv", n, 2.0 * ft, bytes(ft)),
            budget,
            &x0,
            |x| unsafe {
                cb::cblas_stpmv(COL, t.0, t.1, t.2, ni, packed.as_ptr(), x.as_mut_ptr(), 1)
            },
            |x| ctx.stpmv(ColMajor, p.0, p.1, p.2, ni, &gpacked, x, 1),
            |x| cblas::stpmv(ctx, ColMajor, p.0, p.1, p.2, ni, &packed, x, 1),
            mv(n),
        ));
    }
    if rows.keep("strsv") {
        out.push(array_case(
            ctx,
            spec("strsv", n, 2.0 * ft, bytes(ft)),
            budget,
            &x0,
            |x| unsafe {
                cb::cblas_strsv(COL, t.0, t.1, t.2, ni, full.as_ptr(), ni, x.as_mut_ptr(), 1)
            },
            |x| ctx.strsv(ColMajor, p.0, p.1, p.2, ni, &gfull, ni, x, 1),
            |x| cblas::strsv(ctx, ColMajor, p.0, p.1, p.2, ni, &full, ni, x, 1),
            sv(n),
        ));
    }
    if rows.keep("stbsv") {
        out.push(array_case(
            ctx,
            spec("stbsv", n, 2.0 * bt, bytes(bt)),
            budget,
            &x0,
            |x| unsafe {
                cb::cblas_stbsv(
                    COL,
                    t.0,
                    t.1,
                    t.2,
                    ni,
                    ki,
                    band.as_ptr(),
                    lk,
                    x.as_mut_ptr(),
                    1,
                )
            },
            |x| ctx.stbsv(ColMajor, p.0, p.1, p.2, ni, ki, &gband, lk, x, 1),
            |x| cblas::stbsv(ctx, ColMajor, p.0, p.1, p.2, ni, ki, &band, lk, x, 1),
            sv(k + 1),
        ));
    }
    if rows.keep("stpsv") {
        out.push(array_case(
            ctx,
            spec("stpsv", n, 2.0 * ft, bytes(ft)),
            budget,
            &x0,
            |x| unsafe {
                cb::cblas_stpsv(COL, t.0, t.1, t.2, ni, packed.as_ptr(), x.as_mut_ptr(), 1)
            },
            |x| ctx.stpsv(ColMajor, p.0, p.1, p.2, ni, &gpacked, x, 1),
            |x| cblas::stpsv(ctx, ColMajor, p.0, p.1, p.2, ni, &packed, x, 1),
            sv(n),
        ));
    }
    out
}

/// The rank updates with alpha = 1e-3 (so that repeated runs stay in range).
pub fn rank(ctx: &Context, n: usize, budget: Duration) -> Vec<Measured> {
    let ni = n as i32;
    let alpha = 1.0e-3;
    let x = random(n, 31);
    let y = random(n, 32);
    let (gx, gy) = (
        ctx.upload(&x).expect("upload"),
        ctx.upload(&y).expect("upload"),
    );
    let full = random(n * n, 33);
    let packed = random(n * (n + 1) / 2, 34);
    let tol = |i: usize, want: &[f32]| 4.0 * EPS * (want[i].abs() + 1.0);
    let (nn, ft) = ((n * n) as f64, tri(n));
    vec![
        array_case(
            ctx,
            spec("sger", n, 2.0 * nn, 4.0 * (2.0 * nn + 2.0 * n as f64)),
            budget,
            &full,
            // SAFETY (every CPU closure here): the slices hold what the arguments address.
            |a| unsafe {
                cb::cblas_sger(
                    COL,
                    ni,
                    ni,
                    alpha,
                    x.as_ptr(),
                    1,
                    y.as_ptr(),
                    1,
                    a.as_mut_ptr(),
                    ni,
                )
            },
            |a| ctx.sger(ColMajor, ni, ni, alpha, &gx, 1, &gy, 1, a, ni),
            |a| cblas::sger(ctx, ColMajor, ni, ni, alpha, &x, 1, &y, 1, a, ni),
            tol,
        ),
        array_case(
            ctx,
            spec("ssyr", n, 2.0 * ft, 4.0 * (2.0 * ft + n as f64)),
            budget,
            &full,
            |a| unsafe { cb::cblas_ssyr(COL, UP, ni, alpha, x.as_ptr(), 1, a.as_mut_ptr(), ni) },
            |a| ctx.ssyr(ColMajor, Upper, ni, alpha, &gx, 1, a, ni),
            |a| cblas::ssyr(ctx, ColMajor, Upper, ni, alpha, &x, 1, a, ni),
            tol,
        ),
        array_case(
            ctx,
            spec("sspr", n, 2.0 * ft, 4.0 * (2.0 * ft + n as f64)),
            budget,
            &packed,
            |a| unsafe { cb::cblas_sspr(COL, UP, ni, alpha, x.as_ptr(), 1, a.as_mut_ptr()) },
            |a| ctx.sspr(ColMajor, Upper, ni, alpha, &gx, 1, a),
            |a| cblas::sspr(ctx, ColMajor, Upper, ni, alpha, &x, 1, a),
            tol,
        ),
        array_case(
            ctx,
            spec("ssyr2", n, 4.0 * ft, 4.0 * (2.0 * ft + 2.0 * n as f64)),
            budget,
            &full,
            |a| unsafe {
                cb::cblas_ssyr2(
                    COL,
                    UP,
                    ni,
                    alpha,
                    x.as_ptr(),
                    1,
                    y.as_ptr(),
                    1,
                    a.as_mut_ptr(),
                    ni,
                )
            },
            |a| ctx.ssyr2(ColMajor, Upper, ni, alpha, &gx, 1, &gy, 1, a, ni),
            |a| cblas::ssyr2(ctx, ColMajor, Upper, ni, alpha, &x, 1, &y, 1, a, ni),
            tol,
        ),
        array_case(
            ctx,
            spec("sspr2", n, 4.0 * ft, 4.0 * (2.0 * ft + 2.0 * n as f64)),
            budget,
            &packed,
            |a| unsafe {
                cb::cblas_sspr2(
                    COL,
                    UP,
                    ni,
                    alpha,
                    x.as_ptr(),
                    1,
                    y.as_ptr(),
                    1,
                    a.as_mut_ptr(),
                )
            },
            |a| ctx.sspr2(ColMajor, Upper, ni, alpha, &gx, 1, &gy, 1, a),
            |a| cblas::sspr2(ctx, ColMajor, Upper, ni, alpha, &x, 1, &y, 1, a),
            tol,
        ),
    ]
}
