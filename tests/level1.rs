//! Level 1 routines against the reference BLAS on random data of many sizes and increments.
//!
//! Tolerances (written beside each check) follow from f32 epsilon and the order of
//! operations: element-wise routines differ from the CPU by at most the rounding of one
//! fused multiply-add; reductions are compared through the triangle inequality
//! |gpu - cpu| <= |gpu - exact| + |cpu - exact|, with the GPU's bound from the depth of its
//! reduction tree and the CPU's error measured against an f64 sum. Integer-valued data
//! makes every sum exact, so there the GPU must match the CPU bit for bit.

mod common;

use common::*;
use fragblas::{Buffer, Context, Error};
use proptest::prelude::*;

const SIZES: [i32; 15] = [
    0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000, 65537, 1_000_000,
];
/// Increments of every level-1 test, zero included: reference BLAS gives it a meaning for
/// every level-1 routine (the same element n times, or a quick return).
const INCS: [i32; 6] = [-3, -1, 0, 1, 2, 5];
/// Sentinel elements past the span of every vector: they must come back untouched.
const PAD: usize = 3;

fn vector(rng: &mut rand::rngs::StdRng, n: i32, inc: i32, ints_only: bool) -> Vec<f32> {
    let len = span(n, inc) + PAD;
    if ints_only {
        ints(rng, len)
    } else {
        reals(rng, len)
    }
}

/// Checks that elements outside `touched` are bitwise unchanged from `before`.
fn assert_untouched(what: &str, after: &[f32], before: &[f32], n: i32, inc: i32) {
    let mut touched = vec![false; before.len()];
    for p in positions(n, inc) {
        touched[p] = true;
    }
    for i in 0..before.len() {
        if !touched[i] {
            assert!(
                same(after[i], before[i]),
                "{what}: untouched element {i} changed from {} to {}",
                before[i],
                after[i]
            );
        }
    }
}

/// Bound on the GPU's reduction error in units of eps * (sum of |terms|): one rounding per
/// term, `fan_in` sequential additions per pass along any path, two for the final lanes.
fn gpu_reduce_bound(ctx: &Context, n: i32) -> f32 {
    let f = ctx.reduce_fan_in() as usize;
    let mut texels = (n.max(1) as usize).div_ceil(4);
    let mut passes = 1;
    while texels > f {
        texels = texels.div_ceil(f);
        passes += 1;
    }
    (1 + f * (passes + 1) + 2) as f32
}

/// scopy of x into y, then sswap of fresh copies, bit for bit against the reference BLAS. Returns x as
/// the swap leaves it.
fn assert_copy_and_swap_match_blas(
    ctx: &Context,
    n: i32,
    (x0, incx): (&[f32], i32),
    (y0, incy): (&[f32], i32),
    what: &str,
) -> Vec<f32> {
    let gx = ctx.upload(x0).unwrap();
    let mut gy = ctx.upload(y0).unwrap();
    ctx.scopy(n, &gx, incx, &mut gy, incy).unwrap();
    let mut want = y0.to_vec();
    cpu::scopy(n, x0, incx, &mut want, incy);
    assert_same_slices(&format!("scopy {what}"), &gy.to_vec().unwrap(), &want);

    let mut gx = ctx.upload(x0).unwrap();
    let mut gy = ctx.upload(y0).unwrap();
    ctx.sswap(n, &mut gx, incx, &mut gy, incy).unwrap();
    let (mut wx, mut wy) = (x0.to_vec(), y0.to_vec());
    cpu::sswap(n, &mut wx, incx, &mut wy, incy);
    let got_x = gx.to_vec().unwrap();
    assert_same_slices(&format!("sswap x {what}"), &got_x, &wx);
    assert_same_slices(&format!("sswap y {what}"), &gy.to_vec().unwrap(), &wy);
    got_x
}

#[test]
fn saxpy_matches_blas() {
    // (Every case, or one in `thin()`, rotating: see common::kept.)
    let mut c = 0;
    for ctx in both_paths() {
        let mut r = rng(1);
        for n in sizes(&SIZES) {
            for &incx in &INCS {
                for &incy in &INCS {
                    c += 1;
                    if !kept(c, INCS.len() * INCS.len()) {
                        continue;
                    }
                    let alpha = if n % 2 == 0 { 0.7 } else { -1.25 };
                    let x = vector(&mut r, n, incx, false);
                    let y0 = vector(&mut r, n, incy, false);
                    let gx = ctx.upload(&x).unwrap();
                    let mut gy = ctx.upload(&y0).unwrap();
                    ctx.saxpy(n, alpha, &gx, incx, &mut gy, incy).unwrap();
                    let got = gy.to_vec().unwrap();
                    let mut want = y0.clone();
                    cpu::saxpy(n, alpha, &x, incx, &mut want, incy);
                    let what = format!("saxpy n={n} incx={incx} incy={incy}");
                    // One FMA on either side: at most one rounding of each operand's magnitude.
                    assert_close_slices(&what, &got, &want, |i| {
                        2.0 * EPS * (want[i].abs() + y0[i].abs() + 4.0 * alpha.abs())
                    });
                    assert_untouched(&what, &got, &y0, n, incy);
                    assert_same_slices(&what, &gx.to_vec().unwrap(), &x);
                }
            }
        }
    }
}

#[test]
fn scopy_and_sswap_match_blas_bit_for_bit() {
    let mut c = 0;
    for ctx in both_paths() {
        let mut r = rng(2);
        for n in sizes(&SIZES) {
            for &incx in &INCS {
                for &incy in &INCS {
                    c += 1;
                    if !kept(c, INCS.len() * INCS.len()) {
                        continue;
                    }
                    let x0 = vector(&mut r, n, incx, false);
                    let y0 = vector(&mut r, n, incy, false);
                    let what = format!("n={n} incx={incx} incy={incy}");

                    assert_copy_and_swap_match_blas(&ctx, n, (&x0, incx), (&y0, incy), &what);
                }
            }
        }
    }
}

#[test]
fn sscal_matches_blas() {
    for ctx in both_paths() {
        let mut r = rng(3);
        for n in sizes(&SIZES) {
            for &incx in &INCS {
                for alpha in [0.0f32, -1.0, 0.7] {
                    let x0 = vector(&mut r, n, incx, false);
                    let mut gx = ctx.upload(&x0).unwrap();
                    ctx.sscal(n, alpha, &mut gx, incx).unwrap();
                    let got = gx.to_vec().unwrap();
                    let what = format!("sscal n={n} incx={incx} alpha={alpha}");
                    // Reference BLAS returns at once for incx <= 0 (x as it was).
                    let mut want = x0.clone();
                    cpu::sscal(n, alpha, &mut want, incx);
                    if incx <= 0 {
                        assert_same_slices(&what, &got, &x0);
                    }
                    // One rounded product on each side.
                    assert_close_slices(&what, &got, &want, |i| EPS * want[i].abs());
                    if incx > 0 {
                        assert_untouched(&what, &got, &x0, n, incx);
                    }
                }
            }
        }
    }
}

#[test]
fn sdot_matches_blas() {
    let ctx = ctx();
    let mut r = rng(4);
    let mut c = 0;
    for n in sizes(&SIZES) {
        for &incx in &INCS {
            for &incy in &INCS {
                c += 1;
                if !kept(c, INCS.len() * INCS.len()) {
                    continue;
                }
                let what = format!("sdot n={n} incx={incx} incy={incy}");
                // Integer data: every partial sum is exact, so the results are equal.
                let x = vector(&mut r, n, incx, true);
                let y = vector(&mut r, n, incy, true);
                let gx = ctx.upload(&x).unwrap();
                let gy = ctx.upload(&y).unwrap();
                let got = ctx.sdot(n, &gx, incx, &gy, incy).unwrap();
                assert_eq!(got, cpu::sdot(n, &x, incx, &y, incy), "{what} (integers)");

                let x = vector(&mut r, n, incx, false);
                let y = vector(&mut r, n, incy, false);
                let gx = ctx.upload(&x).unwrap();
                let gy = ctx.upload(&y).unwrap();
                let got = ctx.sdot(n, &gx, incx, &gy, incy).unwrap();
                let want = cpu::sdot(n, &x, incx, &y, incy);
                let (px, py) = (positions(n, incx), positions(n, incy));
                let terms = px.iter().zip(&py).map(|(&i, &j)| x[i] as f64 * y[j] as f64);
                let exact: f64 = terms.clone().sum();
                let abs_sum: f64 = terms.map(f64::abs).sum();
                let tol = (want as f64 - exact).abs()
                    + gpu_reduce_bound(&ctx, n) as f64 * EPS as f64 * abs_sum;
                assert!(
                    (got as f64 - want as f64).abs() <= tol,
                    "{what}: got {got}, want {want} (exact {exact}, tolerance {tol})"
                );
                // The device-resident result is the same number.
                let dev = ctx.sdot_device(n, &gx, incx, &gy, incy).unwrap();
                assert_eq!(dev.len(), 1);
                assert!(same(dev.to_vec().unwrap()[0], got), "{what}: device result");
            }
        }
    }
}

#[test]
fn sasum_snrm2_isamax_match_blas() {
    let ctx = ctx();
    let mut r = rng(5);
    for n in sizes(&SIZES) {
        for &incx in &INCS {
            let what = format!("n={n} incx={incx}");
            let xi = vector(&mut r, n, incx, true);
            let xr = vector(&mut r, n, incx, false);
            let gi = ctx.upload(&xi).unwrap();
            let gr = ctx.upload(&xr).unwrap();
            // Reference BLAS: sasum and isamax return 0 (no index) for incx <= 0; snrm2
            // (3.10 and later) walks a negative increment from the end and reads x[0] n
            // times for a zero one.
            assert_eq!(
                ctx.sasum(n, &gi, incx).unwrap(),
                cpu::sasum(n, &xi, incx),
                "sasum {what} (integers)"
            );
            let p = positions(n, incx);
            let abs_sum: f64 = if incx > 0 {
                p.iter().map(|&i| (xr[i] as f64).abs()).sum()
            } else {
                0.0
            };
            let want = cpu::sasum(n, &xr, incx);
            let got = ctx.sasum(n, &gr, incx).unwrap();
            let bound = gpu_reduce_bound(&ctx, n) as f64 * EPS as f64;
            let tol = (want as f64 - abs_sum).abs() + bound * abs_sum;
            assert!(
                (got as f64 - want as f64).abs() <= tol,
                "sasum {what}: {got} vs {want}"
            );
            let dev = ctx.sasum_device(n, &gr, incx).unwrap().to_vec().unwrap()[0];
            assert!(same(dev, got), "sasum_device {what}");

            // snrm2: sum of squares of x/scale, then scale*sqrt: relative error within
            // the summation bound plus a few roundings (division, square, sqrt, product).
            for x in [&xi, &xr] {
                let g = ctx.upload(x).unwrap();
                let exact: f64 = p.iter().map(|&i| (x[i] as f64).powi(2)).sum::<f64>().sqrt();
                let want = cpu::snrm2(n, x, incx);
                let got = ctx.snrm2(n, &g, incx).unwrap();
                let tol = (want as f64 - exact).abs() + (bound + 6.0 * EPS as f64) * exact;
                assert!(
                    (got as f64 - want as f64).abs() <= tol,
                    "snrm2 {what}: {got} vs {want}"
                );
                let dev = ctx.snrm2_device(n, &g, incx).unwrap().to_vec().unwrap()[0];
                assert!(same(dev, got), "snrm2_device {what}");
            }

            // isamax: magnitudes compare exactly, so the index is the CPU's; the integer
            // data has many ties, which must go to the first index.
            for (x, g) in [(&xi, &gi), (&xr, &gr)] {
                let got = ctx.isamax(n, g, incx).unwrap();
                let want = if n > 0 && incx > 0 {
                    Some(cpu::isamax(n, x, incx))
                } else {
                    None
                };
                assert_eq!(got, want, "isamax {what}");
            }
        }
    }
}

#[test]
fn snrm2_does_not_overflow_or_underflow() {
    let ctx = ctx();
    for (x, what) in [
        (
            vec![1.0e38f32, -2.0e38, 1.0e38, 0.0, 3.0e37],
            "near f32::MAX",
        ),
        (
            vec![1.0e-30f32, -2.0e-30, 3.0e-31, 1.0e-30],
            "squares below f32::MIN_POSITIVE",
        ),
        (vec![f32::MAX, 0.0, 0.0], "exactly f32::MAX"),
    ] {
        let n = x.len() as i32;
        let g = ctx.upload(&x).unwrap();
        let got = ctx.snrm2(n, &g, 1).unwrap();
        let want = cpu::snrm2(n, &x, 1);
        let exact = x.iter().map(|v| (*v as f64).powi(2)).sum::<f64>().sqrt();
        assert!(got.is_finite() && got > 0.0, "{what}: {got}");
        assert!(
            ((got as f64) - exact).abs() <= 8.0 * EPS as f64 * exact,
            "{what}: got {got}, exact {exact}, cpu {want}"
        );
    }
}

#[test]
fn nan_and_inf_propagate_as_in_blas() {
    let ctx = ctx();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let cases: Vec<Vec<f32>> = vec![
        vec![1.0, nan, 2.0, 3.0, -4.0],
        vec![nan, 1.0, 5.0],
        vec![0.0, 0.0, nan, 0.0],
        vec![1.0, inf, 2.0, nan, 9.0],
        vec![1.0, -inf, 2.0, 3.0, 4.0, 5.0],
        vec![2.0, -inf, inf, 1.0],
        vec![3.0, 1.0, -3.0, 2.0, -3.0],
    ];
    for (k, x) in cases.iter().enumerate() {
        let n = x.len() as i32;
        let y: Vec<f32> = (0..x.len()).map(|i| i as f32 - 1.5).collect();
        let gx = ctx.upload(x).unwrap();
        let gy = ctx.upload(&y).unwrap();
        let what = format!("case {k}: {x:?}");
        let pairs = [
            (
                ctx.sdot(n, &gx, 1, &gy, 1).unwrap(),
                cpu::sdot(n, x, 1, &y, 1),
                "sdot",
            ),
            (ctx.sasum(n, &gx, 1).unwrap(), cpu::sasum(n, x, 1), "sasum"),
            (ctx.snrm2(n, &gx, 1).unwrap(), cpu::snrm2(n, x, 1), "snrm2"),
        ];
        for (got, want, name) in pairs {
            if want.is_nan() || want.is_infinite() {
                assert!(same(got, want), "{name} {what}: got {got}, want {want}");
            } else {
                assert!(
                    (got - want).abs() <= 1e-5 * want.abs(),
                    "{name} {what}: {got} vs {want}"
                );
            }
        }
        assert_eq!(
            ctx.isamax(n, &gx, 1).unwrap(),
            Some(cpu::isamax(n, x, 1)),
            "isamax {what}"
        );
        // saxpy: a NaN or Inf in x reaches only its own element of y.
        let mut gy2 = ctx.upload(&y).unwrap();
        ctx.saxpy(n, 2.0, &gx, 1, &mut gy2, 1).unwrap();
        let mut want = y.clone();
        cpu::saxpy(n, 2.0, x, 1, &mut want, 1);
        assert_close_slices(
            &format!("saxpy {what}"),
            &gy2.to_vec().unwrap(),
            &want,
            |i| 4.0 * EPS * want[i].abs(),
        );
    }
}

#[test]
fn sscal_by_zero_propagates_nan_as_reference_blas() {
    for ctx in both_paths() {
        // Reference sscal multiplies: 0 * NaN and 0 * Inf are NaN, finite values become 0.
        let x = [1.0f32, f32::NAN, -2.0, f32::INFINITY, 3.0];
        let mut g = ctx.upload(&x).unwrap();
        ctx.sscal(5, 0.0, &mut g, 1).unwrap();
        let got = g.to_vec().unwrap();
        assert_eq!(got[0], 0.0);
        assert!(got[1].is_nan() && got[3].is_nan());
        assert_eq!((got[2], got[4]), (0.0, 0.0));
    }
}

#[test]
fn saxpy_with_alpha_zero_reads_nothing() {
    for ctx in both_paths() {
        let x = [f32::NAN; 4];
        let y = [1.0f32, 2.0, 3.0, 4.0];
        let gx = ctx.upload(&x).unwrap();
        let mut gy = ctx.upload(&y).unwrap();
        ctx.saxpy(4, 0.0, &gx, 1, &mut gy, 1).unwrap();
        assert_eq!(gy.to_vec().unwrap(), y.to_vec());
    }
}

#[test]
fn scopy_does_not_read_the_old_y() {
    for ctx in both_paths() {
        let gx = ctx.upload(&[1.0, 2.0, 3.0]).unwrap();
        let mut gy = ctx.upload(&[f32::NAN; 3]).unwrap();
        ctx.scopy(3, &gx, 1, &mut gy, 1).unwrap();
        assert_eq!(gy.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    }
}

#[test]
fn the_image_context_updates_in_place_where_the_device_can() {
    let ctx = image_ctx();
    assert_eq!(ctx.level1_in_place(), ctx.info().image_stores);
    // Mesa llvmpipe (CI) has image stores in both APIs, unless CI lowered its version to
    // GLES 3.0 (FRAGBLAS_EXPECT_MINIMAL=1, tests/minimal_device.rs).
    let minimal = std::env::var("FRAGBLAS_EXPECT_MINIMAL").is_ok_and(|v| v == "1");
    if ctx.info().renderer.contains("llvmpipe") && !minimal {
        assert!(ctx.level1_in_place(), "{:?}", ctx.info().version);
    }
}

#[test]
fn unit_stride_updates_of_buffers_of_other_lengths() {
    // Lengths that give equal texture widths with different heights, and different widths
    // (where the in-place path falls back to rendering); n at, below and far below both.
    let lens = [
        (70_000usize, 40_000usize),
        (40_000, 70_000),
        (5_000, 70_000),
        (9, 70_001),
    ];
    for ctx in both_paths() {
        let mut r = rng(11);
        for (lx, ly) in lens {
            for n in [lx.min(ly) as i32, lx.min(ly) as i32 - 3, 5] {
                for inc in [1, -1] {
                    let x0 = reals(&mut r, lx);
                    let y0 = reals(&mut r, ly);
                    let what = format!("lx={lx} ly={ly} n={n} inc={inc}");

                    let gx = ctx.upload(&x0).unwrap();
                    let mut gy = ctx.upload(&y0).unwrap();
                    ctx.saxpy(n, -0.75, &gx, inc, &mut gy, inc).unwrap();
                    let mut want = y0.clone();
                    cpu::saxpy(n, -0.75, &x0, inc, &mut want, inc);
                    let got = gy.to_vec().unwrap();
                    assert_close_slices(&format!("saxpy {what}"), &got, &want, |i| {
                        2.0 * EPS * (want[i].abs() + y0[i].abs() + 4.0)
                    });
                    assert_untouched(&format!("saxpy {what}"), &got, &y0, n, inc);

                    let wx =
                        assert_copy_and_swap_match_blas(&ctx, n, (&x0, inc), (&y0, inc), &what);

                    if inc > 0 {
                        let mut gs = ctx.upload(&wx).unwrap();
                        ctx.sscal(n, 1.5, &mut gs, inc).unwrap();
                        let mut want = wx.clone();
                        cpu::sscal(n, 1.5, &mut want, inc);
                        assert_same_slices(&format!("sscal {what}"), &gs.to_vec().unwrap(), &want);
                    }
                }
            }
        }
    }
}

#[test]
fn every_fan_in_gives_the_same_exact_sums() {
    let ctx = fragblas::Context::new().unwrap();
    let mut r = rng(9);
    for n in [1, 5, 17, 1000, 65537] {
        let x = ints(&mut r, n as usize);
        let y = ints(&mut r, n as usize);
        let gx = ctx.upload(&x).unwrap();
        let gy = ctx.upload(&y).unwrap();
        let want = cpu::sdot(n, &x, 1, &y, 1);
        let want_asum = cpu::sasum(n, &x, 1);
        let want_max = cpu::isamax(n, &x, 1);
        for fan_in in [2, 3, 4, 5, 7, 8, 16, 64] {
            ctx.set_reduce_fan_in(fan_in).unwrap();
            assert_eq!(
                ctx.sdot(n, &gx, 1, &gy, 1).unwrap(),
                want,
                "n {n} fan-in {fan_in}"
            );
            assert_eq!(
                ctx.sasum(n, &gx, 1).unwrap(),
                want_asum,
                "n {n} fan-in {fan_in}"
            );
            assert_eq!(
                ctx.isamax(n, &gx, 1).unwrap(),
                Some(want_max),
                "n {n} fan-in {fan_in}"
            );
        }
    }
    assert!(ctx.set_reduce_fan_in(1).is_err());
}

#[test]
fn reductions_read_only_the_first_n_elements_of_longer_buffers() {
    // Buffers longer than n: with unit stride the first n elements form a grid as wide as
    // x's texture; y may be laid out wider or narrower (then it is read element by element).
    // Elements past n hold huge values and NaN that must not reach any result.
    let ctx = ctx();
    let mut r = rng(10);
    for (n, x_len, y_len) in [
        (5, 9, 5),
        (37, 40, 400),
        (1000, 1003, 999_999),
        (65_537, 200_001, 65_537),
        (100_000, 100_000, 400_000),
    ] {
        let mut x = ints(&mut r, x_len);
        let mut y = ints(&mut r, y_len);
        x[n..]
            .iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = if i % 2 == 0 { f32::NAN } else { 1e30 });
        y[n..].iter_mut().for_each(|v| *v = f32::NAN);
        let (gx, gy) = (ctx.upload(&x).unwrap(), ctx.upload(&y).unwrap());
        let ni = n as i32;
        let what = format!("n {n}, x {x_len}, y {y_len}");
        assert_eq!(
            ctx.sdot(ni, &gx, 1, &gy, 1).unwrap(),
            cpu::sdot(ni, &x, 1, &y, 1),
            "{what}"
        );
        assert_eq!(
            ctx.sdot(ni, &gy, 1, &gx, 1).unwrap(),
            cpu::sdot(ni, &y, 1, &x, 1),
            "{what}"
        );
        assert_eq!(
            ctx.sasum(ni, &gx, 1).unwrap(),
            cpu::sasum(ni, &x, 1),
            "{what}"
        );
        assert_eq!(
            ctx.isamax(ni, &gx, 1).unwrap(),
            Some(cpu::isamax(ni, &x, 1)),
            "{what}"
        );
        let nrm = ctx.snrm2(ni, &gx, 1).unwrap();
        let want = cpu::snrm2(ni, &x, 1);
        assert!((nrm - want).abs() <= 1e-5 * want, "{what}: {nrm} vs {want}");
    }
}

#[test]
fn short_vectors_are_errors_and_nothing_changes() {
    let ctx = ctx();
    let x = ctx.upload(&[1.0; 8]).unwrap();
    let mut y = ctx.upload(&[1.0; 8]).unwrap();
    // A vector shorter than n and the increment address.
    assert_eq!(
        ctx.saxpy(3, 1.0, &x, 4, &mut y, 1),
        Err(Error::TooShort {
            routine: "saxpy",
            param: "x",
            needed: 9,
            len: 8
        })
    );
    assert!(matches!(
        ctx.sdot(9, &x, 1, &y, 1),
        Err(Error::TooShort {
            param: "x",
            needed: 9,
            len: 8,
            ..
        })
    ));
    assert!(matches!(
        ctx.scopy(5, &x, 0, &mut y, 2),
        Err(Error::TooShort {
            param: "y",
            needed: 9,
            ..
        })
    ));
    // Quick returns come first, as reference BLAS reads nothing then: alpha == 0, n <= 0,
    // a non-positive increment for the single-vector routines.
    assert_eq!(ctx.saxpy(100, 0.0, &x, 4, &mut y, 1), Ok(()));
    assert_eq!(ctx.sasum(100, &x, 0), Ok(0.0));
    assert_eq!(ctx.isamax(100, &x, -1), Ok(None));
    let mut x2 = ctx.upload(&[1.0; 8]).unwrap();
    assert_eq!(ctx.sscal(100, 2.0, &mut x2, 0), Ok(()));
    assert_eq!(ctx.sscal(100, 1.0, &mut x2, 1), Ok(()));
    // Nothing changed, and no GL error was left behind for the next call.
    assert_eq!(y.to_vec().unwrap(), vec![1.0; 8]);
    assert_eq!(x2.to_vec().unwrap(), vec![1.0; 8]);
    ctx.finish().unwrap();
}

#[test]
fn zero_increments_follow_the_reference_loop() {
    // Each routine with a zero increment against reference BLAS: the sequential updates
    // (saxpy/scopy into y[0], sswap with either increment zero) run reference's own loop,
    // so they match bit for bit; the others are element-wise or reductions.
    for ctx in both_paths() {
        let mut r = rng(12);
        for n in [1, 2, 5, 64, 1000, 65537] {
            for (incx, incy) in [(0, 1), (1, 0), (0, 0), (0, -2), (-3, 0)] {
                let what = format!("n={n} incx={incx} incy={incy}");
                let x0 = vector(&mut r, n, incx, false);
                let y0 = vector(&mut r, n, incy, false);
                let gx = ctx.upload(&x0).unwrap();

                let mut gy = ctx.upload(&y0).unwrap();
                ctx.saxpy(n, 0.75, &gx, incx, &mut gy, incy).unwrap();
                let mut want = y0.clone();
                cpu::saxpy(n, 0.75, &x0, incx, &mut want, incy);
                let got = gy.to_vec().unwrap();
                if incy == 0 {
                    assert_same_slices(&format!("saxpy {what}"), &got, &want);
                } else {
                    // One FMA rounding on either side.
                    assert_close_slices(&format!("saxpy {what}"), &got, &want, |i| {
                        2.0 * EPS * (want[i].abs() + y0[i].abs() + 16.0)
                    });
                }
                assert_untouched(&format!("saxpy {what}"), &got, &y0, n, incy);

                assert_copy_and_swap_match_blas(&ctx, n, (&x0, incx), (&y0, incy), &what);

                let xi = vector(&mut r, n, incx, true);
                let yi = vector(&mut r, n, incy, true);
                let (gxi, gyi) = (ctx.upload(&xi).unwrap(), ctx.upload(&yi).unwrap());
                // Integers: exact sums in any order.
                assert_eq!(
                    ctx.sdot(n, &gxi, incx, &gyi, incy).unwrap(),
                    cpu::sdot(n, &xi, incx, &yi, incy),
                    "sdot {what}"
                );
                // snrm2 of x[0] read n times is sqrt(n) |x[0]|. Reference sums the n squares
                // one after another in f32 (relative error up to about n eps), the GPU in a
                // tree: compare both with the exact value (triangle inequality).
                let want = cpu::snrm2(n, &x0, incx);
                let got = ctx.snrm2(n, &gx, incx).unwrap();
                let exact = positions(n, incx)
                    .iter()
                    .map(|&i| (x0[i] as f64).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let tol = (want as f64 - exact).abs()
                    + (gpu_reduce_bound(&ctx, n) as f64 + 6.0) * EPS as f64 * exact;
                assert!(
                    ((got - want) as f64).abs() <= tol,
                    "snrm2 {what}: {got} vs {want} (exact {exact})"
                );
                // sscal, sasum and isamax return at once for incx == 0.
                if incx == 0 {
                    assert_eq!(ctx.sasum(n, &gx, 0).unwrap(), cpu::sasum(n, &x0, 0));
                    assert_eq!(ctx.isamax(n, &gx, 0).unwrap(), None);
                    let mut gs = ctx.upload(&x0).unwrap();
                    ctx.sscal(n, 3.0, &mut gs, 0).unwrap();
                    assert_same_slices(&format!("sscal {what}"), &gs.to_vec().unwrap(), &x0);
                }
            }
        }
    }
}

#[test]
fn sscal_by_one_touches_nothing() {
    // Reference BLAS 3.11+ returns at once for alpha == 1: a signalling NaN keeps its bits
    // (a multiplication by 1 would quiet it).
    for ctx in both_paths() {
        let snan = f32::from_bits(0x7fa0_0001);
        let x0 = [snan, -0.0, 1.5];
        let mut g = ctx.upload(&x0).unwrap();
        ctx.sscal(3, 1.0, &mut g, 1).unwrap();
        let got = g.to_vec().unwrap();
        assert_eq!(got[0].to_bits(), snan.to_bits());
        assert_eq!(got[1].to_bits(), (-0.0f32).to_bits());
    }
}

#[test]
fn subnormal_arithmetic_is_what_the_device_info_says() {
    for ctx in both_paths() {
        let tiny = 1.0e-40f32;
        assert!(tiny.is_subnormal());
        let mut g = ctx.upload(&[tiny, 1.0]).unwrap();
        // Uploads and downloads keep subnormals bit for bit on every device.
        assert_eq!(g.to_vec().unwrap()[0].to_bits(), tiny.to_bits());
        ctx.sscal(2, 2.0, &mut g, 1).unwrap();
        let doubled = g.to_vec().unwrap()[0];
        let norm = ctx
            .snrm2(100, &ctx.upload(&[tiny; 100]).unwrap(), 1)
            .unwrap();
        if ctx.info().flushes_subnormals {
            assert_eq!(doubled, 0.0, "{}", ctx.info().renderer);
            assert_eq!(norm, 0.0);
        } else {
            assert_eq!(doubled, 2.0 * tiny, "{}", ctx.info().renderer);
            // sqrt(100) * tiny, exact in the subnormal range (tiny is 71362 * 2^-149),
            // within a unit of the last place.
            assert!((norm - 10.0 * tiny).abs() <= 2e-45, "{norm}");
        }
        // Mesa's llvmpipe (CI) flushes them; its softpipe (CI's GL 3.3 device) keeps them.
        let r = &ctx.info().renderer;
        if r.contains("llvmpipe") || r.contains("softpipe") {
            assert_eq!(ctx.info().flushes_subnormals, r.contains("llvmpipe"), "{r}");
        }
    }
}

fn gpu_dot(ctx: &Context, n: i32, x: &Buffer, incx: i32, y: &Buffer, incy: i32) -> f32 {
    ctx.sdot(n, x, incx, y, incy).unwrap()
}

fn any_inc() -> impl Strategy<Value = i32> {
    -6i32..=6
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn saxpy_and_sdot_agree_with_blas_for_any_n_and_increments(
        n in -2i32..3000, incx in any_inc(), incy in any_inc(),
        alpha in -3.0f32..3.0, seed in any::<u64>()
    ) {
        for ctx in both_paths() {
        let mut r = rng(seed);
        let x = vector(&mut r, n, incx, true);
        let y0 = vector(&mut r, n, incy, true);
        let gx = ctx.upload(&x).unwrap();
        let gy = ctx.upload(&y0).unwrap();
        // Integer data: exact sums.
        prop_assert_eq!(gpu_dot(&ctx, n, &gx, incx, &gy, incy), cpu::sdot(n, &x, incx, &y0, incy));
        let mut gy = gy;
        ctx.saxpy(n, alpha, &gx, incx, &mut gy, incy).unwrap();
        let got = gy.to_vec().unwrap();
        let mut want = y0.clone();
        cpu::saxpy(n, alpha, &x, incx, &mut want, incy);
        for i in 0..want.len() {
            // One FMA rounding on either side.
            let tol = 2.0 * EPS * (want[i].abs() + y0[i].abs() + 4.0 * alpha.abs());
            prop_assert!((got[i] - want[i]).abs() <= tol, "element {} got {} want {}", i, got[i], want[i]);
        }
        }
    }
}
