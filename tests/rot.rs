//! Plane rotations against the reference BLAS: srot and srotm (every flag) on the GPU for
//! every size and pair of increments, zero included; srotg and srotmg on the host, bit for
//! bit, including values near overflow and underflow.
//!
//! Tolerances: reference computes each new element as two rounded products and one rounded
//! sum; the GPU may fuse one product into the sum. Either result lies within one rounding
//! of each product and of the sum from the exact value, so they differ by at most
//! 2 eps (|h1 x| + |h2 y|) + eps |result|; the check allows 3 eps (|h1 x| + |h2 y|).
//! Where a zero increment makes the loop sequential the host runs reference's own loop,
//! and the results must match bit for bit.

mod common;

use common::*;
use fragblas::{cblas, Context};

const SIZES: [i32; 14] = [0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000, 65537];
const INCS: [i32; 6] = [-3, -1, 0, 1, 2, 5];
const PAD: usize = 3;

fn vector(r: &mut rand::rngs::StdRng, n: i32, inc: i32) -> Vec<f32> {
    reals(r, span(n, inc) + PAD)
}

/// The contexts a call with these increments can take different paths in: the in-place
/// context differs only where both increments are the same +1 or -1.
fn contexts(incx: i32, incy: i32) -> Vec<Context> {
    if incx == incy && incx.abs() == 1 {
        both_paths().to_vec()
    } else {
        vec![ctx()]
    }
}

/// Checks one application of H = [h11 h12; h21 h22] (`h`) by `run` against `reference`.
#[allow(clippy::too_many_arguments)]
fn check_rotation(
    what: &str,
    n: i32,
    (x0, incx): (&[f32], i32),
    (y0, incy): (&[f32], i32),
    h: [f32; 4],
    got: (Vec<f32>, Vec<f32>),
    want: (Vec<f32>, Vec<f32>),
) {
    let sequential = incx == 0 || incy == 0;
    let (gx, gy) = got;
    let (wx, wy) = want;
    if sequential || n == 0 {
        assert_same_slices(&format!("{what} x"), &gx, &wx);
        assert_same_slices(&format!("{what} y"), &gy, &wy);
        return;
    }
    let px = positions(n, incx);
    let py = positions(n, incy);
    let mut tol_x = vec![0.0f32; x0.len()];
    let mut tol_y = vec![0.0f32; y0.len()];
    for (&i, &j) in px.iter().zip(&py) {
        tol_x[i] = 3.0 * EPS * ((h[0] * x0[i]).abs() + (h[1] * y0[j]).abs()) + f32::MIN_POSITIVE;
        tol_y[j] = 3.0 * EPS * ((h[2] * x0[i]).abs() + (h[3] * y0[j]).abs()) + f32::MIN_POSITIVE;
    }
    assert_close_slices(&format!("{what} x"), &gx, &wx, |i| tol_x[i]);
    assert_close_slices(&format!("{what} y"), &gy, &wy, |i| tol_y[i]);
    // Elements no index touches keep their bits.
    for (v, (g, w)) in [(&px, (&gx, x0)), (&py, (&gy, y0))] {
        let mut touched = vec![false; w.len()];
        v.iter().for_each(|&i| touched[i] = true);
        for (i, (a, b)) in g.iter().zip(w.iter()).enumerate() {
            assert!(
                touched[i] || same(*a, *b),
                "{what}: untouched element {i} changed"
            );
        }
    }
}

#[test]
fn srot_matches_blas_for_every_size_and_increment() {
    let mut r = rng(101);
    for &n in &SIZES {
        for &incx in &INCS {
            for &incy in &INCS {
                for ctx in contexts(incx, incy) {
                    let (x0, y0) = (vector(&mut r, n, incx), vector(&mut r, n, incy));
                    let (c, s) = (0.6f32, -0.8f32);
                    let (mut gx, mut gy) = (ctx.upload(&x0).unwrap(), ctx.upload(&y0).unwrap());
                    ctx.srot(n, &mut gx, incx, &mut gy, incy, c, s).unwrap();
                    let (mut wx, mut wy) = (x0.clone(), y0.clone());
                    cpu::srot(n, &mut wx, incx, &mut wy, incy, c, s);
                    let what = format!("srot n={n} incx={incx} incy={incy}");
                    check_rotation(
                        &what,
                        n,
                        (&x0, incx),
                        (&y0, incy),
                        [c, s, -s, c],
                        (gx.to_vec().unwrap(), gy.to_vec().unwrap()),
                        (wx, wy),
                    );
                }
            }
        }
    }
}

#[test]
fn srotm_matches_blas_for_every_flag_size_and_increment() {
    let mut r = rng(102);
    // Flags -1, 0, 1 with their entries, and -2 (identity). Entries the flag does not use
    // hold NaN: reading one would show.
    let nan = f32::NAN;
    let params = [
        [-1.0f32, 0.5, -1.25, 2.0, 0.75],
        [0.0, nan, -1.25, 2.0, nan],
        [1.0, 0.5, nan, nan, 0.75],
        [-2.0, nan, nan, nan, nan],
    ];
    for &n in &SIZES {
        for &incx in &INCS {
            for &incy in &INCS {
                for ctx in contexts(incx, incy) {
                    for p in &params {
                        let (x0, y0) = (vector(&mut r, n, incx), vector(&mut r, n, incy));
                        let (mut gx, mut gy) = (ctx.upload(&x0).unwrap(), ctx.upload(&y0).unwrap());
                        ctx.srotm(n, &mut gx, incx, &mut gy, incy, p).unwrap();
                        let (mut wx, mut wy) = (x0.clone(), y0.clone());
                        cpu::srotm(n, &mut wx, incx, &mut wy, incy, p);
                        let h = match p[0] as i32 {
                            -1 => [p[1], p[3], p[2], p[4]],
                            0 => [1.0, p[3], p[2], 1.0],
                            1 => [p[1], 1.0, -1.0, p[4]],
                            _ => [1.0, 0.0, 0.0, 1.0],
                        };
                        let what = format!("srotm flag={} n={n} incx={incx} incy={incy}", p[0]);
                        check_rotation(
                            &what,
                            n,
                            (&x0, incx),
                            (&y0, incy),
                            h,
                            (gx.to_vec().unwrap(), gy.to_vec().unwrap()),
                            (wx, wy),
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_host_api_rotates_like_the_device_api() {
    let ctx = ctx();
    let mut r = rng(103);
    for (n, incx, incy) in [(1000, 1, 1), (77, -2, 3), (65, 0, 1), (9, 2, 0), (0, 1, 1)] {
        let (x0, y0) = (vector(&mut r, n, incx), vector(&mut r, n, incy));
        let (mut hx, mut hy) = (x0.clone(), y0.clone());
        cblas::srot(&ctx, n, &mut hx, incx, &mut hy, incy, 0.28, 0.96).unwrap();
        let (mut gx, mut gy) = (ctx.upload(&x0).unwrap(), ctx.upload(&y0).unwrap());
        ctx.srot(n, &mut gx, incx, &mut gy, incy, 0.28, 0.96)
            .unwrap();
        assert_same_slices("srot x", &hx, &gx.to_vec().unwrap());
        assert_same_slices("srot y", &hy, &gy.to_vec().unwrap());
        let p = [-1.0f32, 0.5, 0.25, -2.0, 1.5];
        cblas::srotm(&ctx, n, &mut hx, incx, &mut hy, incy, &p).unwrap();
        ctx.srotm(n, &mut gx, incx, &mut gy, incy, &p).unwrap();
        assert_same_slices("srotm x", &hx, &gx.to_vec().unwrap());
        assert_same_slices("srotm y", &hy, &gy.to_vec().unwrap());
    }
    // Short slices are errors; the slices are untouched.
    let (mut x, mut y) = ([1.0f32; 4], [2.0f32; 4]);
    assert!(cblas::srot(&ctx, 3, &mut x, 2, &mut y, 1, 1.0, 0.0).is_err());
    assert_eq!((x, y), ([1.0; 4], [2.0; 4]));
}

/// Values for the scalar constructions: zeros of both signs, small and large magnitudes,
/// values near overflow and underflow, and random ones.
fn scalars() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.0,
        -4.0,
        0.5,
        1.0e-20,
        -1.0e-20,
        1.0e20,
        -3.0e20,
        1.0e-38,
        -2.0e-38,
        1.7e38,
        -3.0e38,
        3.4e38,
        1.0e-30,
        4096.0,
        1.0 / 4096.0,
    ];
    let mut r = rng(104);
    v.extend(reals(&mut r, 12));
    v
}

#[test]
fn srotg_matches_blas_bit_for_bit() {
    let ctx = ctx();
    for &a in &scalars() {
        for &b in &scalars() {
            let want = cpu::srotg(a, b);
            let (mut ha, mut hb, mut c, mut s) = (a, b, 0.0, 0.0);
            cblas::srotg(&mut ha, &mut hb, &mut c, &mut s);
            let got = (ha, hb, c, s);
            for (g, w, name) in [
                (got.0, want.0, "r"),
                (got.1, want.1, "z"),
                (got.2, want.2, "c"),
                (got.3, want.3, "s"),
            ] {
                assert!(same(g, w), "srotg({a}, {b}) {name}: got {g:e}, want {w:e}");
            }
            let (mut da, mut db) = (a, b);
            assert_eq!(ctx.srotg(&mut da, &mut db), (c, s));
            assert!(same(da, ha) && same(db, hb));
        }
    }
    // The rotation does what it says near overflow: r is finite and [c s; -s c] [a; b] = [r; 0].
    let (a, b) = (2.0e38f32, -1.5e38f32);
    let (r, _, c, s) = cpu::srotg(a, b);
    assert!(r.is_finite());
    assert!((c * a + s * b - r).abs() <= 4.0 * EPS * r.abs());
}

#[test]
fn srotmg_matches_blas_bit_for_bit() {
    let ctx = ctx();
    let vals = scalars();
    let (mut count, mut infinite) = (0, 0);
    for &d1 in vals.iter().step_by(2) {
        for &d2 in vals.iter().step_by(3) {
            for &x1 in vals.iter().step_by(2) {
                for &y1 in vals.iter().step_by(3) {
                    // Sentinels in the parameter entries the flag leaves alone.
                    let (mut gd1, mut gd2, mut gx1) = (d1, d2, x1);
                    let mut got_p = [7.0f32; 5];
                    cblas::srotmg(&mut gd1, &mut gd2, &mut gx1, y1, &mut got_p);
                    let what = format!("srotmg({d1}, {d2}, {x1}, {y1})");
                    if gd1.is_infinite() || gd2.is_infinite() {
                        // Reference's rescaling loop never ends on an infinite d1 or d2 (it
                        // divides Inf by 2^24 forever); ours stops. Nothing to compare.
                        infinite += 1;
                        continue;
                    }
                    let mut want_p = [7.0f32; 5];
                    let want = cpu::srotmg(d1, d2, x1, y1, &mut want_p);
                    assert!(
                        same(gd1, want.0) && same(gd2, want.1) && same(gx1, want.2),
                        "{what}: d1 d2 x1 ({gd1} {gd2} {gx1}) vs {want:?}"
                    );
                    assert_same_slices(&what, &got_p, &want_p);
                    let (mut cd1, mut cd2, mut cx1) = (d1, d2, x1);
                    let mut ctx_p = [7.0f32; 5];
                    ctx.srotmg(&mut cd1, &mut cd2, &mut cx1, y1, &mut ctx_p);
                    assert_same_slices(&what, &ctx_p, &got_p);
                    count += 1;
                }
            }
        }
    }
    assert!(
        count > 1000 && infinite < count / 10,
        "{count} cases, {infinite} infinite"
    );
}
