//! sdsdot and dsdot against the reference BLAS (which accumulates in double), for every
//! size and pair of increments, and on sums with cancellation where a single-precision dot
//! is wrong in the first digit.
//!
//! Tolerance: the exact dot is computed here in f64 with compensated summation (each
//! product of two f32 is exact in f64). The GPU accumulates in float-float: every product
//! is exact, and each float-float addition errs by at most about 2^-46 of its operands'
//! magnitudes; along any path of the reduction there are at most 4 additions per element
//! plus `fan_in` per pass, so |gpu - exact| <= (4 + fan_in (passes + 1)) 2^-46 sum|x_i y_i|.
//! The reference's own error is measured against the exact value; the check allows the sum
//! of the two (triangle inequality), plus for sdsdot one rounding to f32 on either side.

mod common;

use common::*;
use fragblas::{cblas, Context};

const SIZES: [i32; 14] = [0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000, 65537];
const INCS: [i32; 6] = [-3, -1, 0, 1, 2, 5];

/// Compensated (Neumaier) sum of the exact products and the sum of their magnitudes.
fn exact_dot(n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> (f64, f64) {
    let (mut sum, mut comp, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for (&i, &j) in positions(n, incx).iter().zip(&positions(n, incy)) {
        let p = x[i] as f64 * y[j] as f64;
        let t = sum + p;
        comp += if sum.abs() >= p.abs() {
            (sum - t) + p
        } else {
            (p - t) + sum
        };
        sum = t;
        abs += p.abs();
    }
    (sum + comp, abs)
}

/// The GPU's error bound in units of sum|x_i y_i|.
fn ff_bound(ctx: &Context, n: i32) -> f64 {
    let f = ctx.reduce_fan_in() as usize;
    let mut texels = (n.max(1) as usize).div_ceil(4);
    let mut passes = 1;
    while texels > f {
        texels = texels.div_ceil(f);
        passes += 1;
    }
    (4 + f * (passes + 1)) as f64 * 2f64.powi(-46)
}

#[test]
fn dsdot_and_sdsdot_match_blas_for_every_size_and_increment() {
    let ctx = ctx();
    let mut r = rng(201);
    for &n in &SIZES {
        for &incx in &INCS {
            for &incy in &INCS {
                let x = reals(&mut r, span(n, incx) + 2);
                let y = reals(&mut r, span(n, incy) + 2);
                let (gx, gy) = (ctx.upload(&x).unwrap(), ctx.upload(&y).unwrap());
                let what = format!("n={n} incx={incx} incy={incy}");
                let (exact, abs) = exact_dot(n, &x, incx, &y, incy);
                let want = cpu::dsdot(n, &x, incx, &y, incy);
                let got = ctx.dsdot(n, &gx, incx, &gy, incy).unwrap();
                let tol = (want - exact).abs() + ff_bound(&ctx, n) * abs + 1e-300;
                assert!(
                    (got - want).abs() <= tol,
                    "dsdot {what}: got {got:e}, want {want:e} (exact {exact:e}, tolerance {tol:e})"
                );
                let sb = 0.375f32;
                let want = cpu::sdsdot(n, sb, &x, incx, &y, incy);
                let got = ctx.sdsdot(n, sb, &gx, incx, &gy, incy).unwrap();
                let ulp = (want.abs().max(f32::MIN_POSITIVE) * EPS) as f64;
                let tol = tol + 2.0 * ulp;
                assert!(
                    ((got - want) as f64).abs() <= tol,
                    "sdsdot {what}: got {got:e}, want {want:e} (tolerance {tol:e})"
                );
                // The host API gives the device API's numbers.
                assert_eq!(
                    cblas::dsdot(&ctx, n, &x, incx, &y, incy).unwrap(),
                    ctx.dsdot(n, &gx, incx, &gy, incy).unwrap()
                );
                assert_eq!(cblas::sdsdot(&ctx, n, sb, &x, incx, &y, incy).unwrap(), got);
            }
        }
    }
}

#[test]
fn cancellation_that_defeats_a_single_precision_dot() {
    let ctx = ctx();
    let mut r = rng(202);
    for n in [100usize, 10_000, 65_537] {
        // Large terms that cancel, plus small ones that carry the answer.
        let mut x = reals(&mut r, n);
        let y = reals(&mut r, n);
        for i in (0..n - 1).step_by(2) {
            x[i] *= 1.0e6;
            x[i + 1] = -x[i] * y[i] / y[i + 1].max(0.5);
        }
        let y: Vec<f32> = (0..n)
            .map(|i| if i % 2 == 1 { y[i].max(0.5) } else { y[i] })
            .collect();
        let (exact, abs) = exact_dot(n as i32, &x, 1, &y, 1);
        let (gx, gy) = (ctx.upload(&x).unwrap(), ctx.upload(&y).unwrap());
        let single = ctx.sdot(n as i32, &gx, 1, &gy, 1).unwrap() as f64;
        let double = ctx.dsdot(n as i32, &gx, 1, &gy, 1).unwrap();
        let reference = cpu::dsdot(n as i32, &x, 1, &y, 1);
        // The single-precision dot is wrong in the first digit...
        assert!(
            (single - exact).abs() > 0.1 * exact.abs(),
            "n={n}: sdot {single:e} is close to {exact:e}: no cancellation to show"
        );
        // ... the float-float one is at double-precision level, like the reference.
        let tol = (reference - exact).abs() + ff_bound(&ctx, n as i32) * abs;
        assert!(
            (double - exact).abs() <= tol,
            "n={n}: dsdot {double:e}, exact {exact:e}, reference {reference:e}, tolerance {tol:e}"
        );
        assert!((double - exact).abs() <= 1e-9 * abs, "n={n}");
    }
    // The classic case: 1e8 + 1 - 1e8.
    let x = ctx.upload(&[1.0e8, 1.0, -1.0e8]).unwrap();
    let ones = ctx.upload(&[1.0; 3]).unwrap();
    assert_eq!(ctx.sdot(3, &x, 1, &ones, 1).unwrap(), 0.0);
    assert_eq!(ctx.dsdot(3, &x, 1, &ones, 1).unwrap(), 1.0);
    assert_eq!(ctx.sdsdot(3, 0.25, &x, 1, &ones, 1).unwrap(), 1.25);
}

#[test]
fn quick_returns_and_special_values() {
    let ctx = ctx();
    let x = ctx.upload(&[1.0, 2.0]).unwrap();
    // n <= 0: sdsdot returns sb, dsdot 0, as reference.
    assert_eq!(ctx.sdsdot(0, 2.5, &x, 1, &x, 1).unwrap(), 2.5);
    assert_eq!(ctx.sdsdot(-3, 2.5, &x, 1, &x, 1).unwrap(), 2.5);
    assert_eq!(ctx.dsdot(0, &x, 1, &x, 1).unwrap(), 0.0);
    // Inf and NaN propagate as in the reference (within the f32 range).
    for v in [
        vec![1.0f32, f32::INFINITY, 2.0],
        vec![1.0, f32::NAN, 2.0],
        vec![f32::NEG_INFINITY, 1.0, f32::INFINITY],
    ] {
        let g = ctx.upload(&v).unwrap();
        let ones = ctx.upload(&[1.0; 3]).unwrap();
        let got = ctx.dsdot(3, &g, 1, &ones, 1).unwrap();
        let want = cpu::dsdot(3, &v, 1, &[1.0; 3], 1);
        assert!(
            (got.is_nan() && want.is_nan()) || got == want,
            "{v:?}: {got} vs {want}"
        );
    }
}
