//! The CBLAS-shaped host API for level 1: same results as the reference BLAS, elements outside the
//! arguments' reach untouched, errors instead of panics for short slices.

mod common;

use common::*;
use fragblas::{cblas, Error};

const INCS: [i32; 5] = [-3, -1, 1, 2, 5];

#[test]
fn host_level1_matches_blas_and_leaves_the_rest_alone() {
    let ctx = ctx();
    let mut r = rng(41);
    for n in [0, 1, 4, 5, 63, 1000, 4099] {
        for incx in INCS {
            for incy in INCS {
                let what = format!("n={n} incx={incx} incy={incy}");
                // Slices longer than the span: the tail must come back untouched.
                let x0 = reals(&mut r, span(n, incx) + 5);
                let y0 = reals(&mut r, span(n, incy) + 5);

                let mut y = y0.clone();
                let mut want = y0.clone();
                cblas::saxpy(&ctx, n, -0.7, &x0, incx, &mut y, incy).unwrap();
                cpu::saxpy(n, -0.7, &x0, incx, &mut want, incy);
                // One FMA rounding on either side.
                assert_close_slices(&format!("saxpy {what}"), &y, &want, |i| {
                    2.0 * EPS * (want[i].abs() + y0[i].abs() + 12.0)
                });
                for i in 0..y0.len() {
                    if !positions(n, incy).contains(&i) {
                        assert!(same(y[i], y0[i]), "saxpy {what}: element {i} touched");
                    }
                }

                let mut y = y0.clone();
                let mut want = y0.clone();
                cblas::scopy(&ctx, n, &x0, incx, &mut y, incy).unwrap();
                cpu::scopy(n, &x0, incx, &mut want, incy);
                assert_same_slices(&format!("scopy {what}"), &y, &want);

                let (mut x, mut y) = (x0.clone(), y0.clone());
                let (mut wx, mut wy) = (x0.clone(), y0.clone());
                cblas::sswap(&ctx, n, &mut x, incx, &mut y, incy).unwrap();
                cpu::sswap(n, &mut wx, incx, &mut wy, incy);
                assert_same_slices(&format!("sswap x {what}"), &x, &wx);
                assert_same_slices(&format!("sswap y {what}"), &y, &wy);

                let xi = ints(&mut r, span(n, incx) + 1);
                let yi = ints(&mut r, span(n, incy) + 1);
                // Integer data: exact sums in any order.
                assert_eq!(
                    cblas::sdot(&ctx, n, &xi, incx, &yi, incy).unwrap(),
                    cpu::sdot(n, &xi, incx, &yi, incy),
                    "sdot {what}"
                );
            }
            let what = format!("n={n} incx={incx}");
            let xi = ints(&mut r, span(n, incx) + 2);
            let mut x = xi.clone();
            cblas::sscal(&ctx, n, -2.0, &mut x, incx).unwrap();
            let mut want = xi.clone();
            if incx > 0 {
                cpu::sscal(n, -2.0, &mut want, incx);
            }
            // Integers times -2 are exact; a negative increment leaves x as it was.
            assert_same_slices(&format!("sscal {what}"), &x, &want);
            let (asum, iamax) = if incx > 0 {
                let i = if n > 0 {
                    cpu::isamax(n, &xi, incx) + 1
                } else {
                    0
                };
                (cpu::sasum(n, &xi, incx), i)
            } else {
                (0.0, 0)
            };
            assert_eq!(
                cblas::sasum(&ctx, n, &xi, incx).unwrap(),
                asum,
                "sasum {what}"
            );
            // 1-based, 0 when there is no element.
            assert_eq!(
                cblas::isamax(&ctx, n, &xi, incx).unwrap(),
                iamax,
                "isamax {what}"
            );
            let nrm = cblas::snrm2(&ctx, n, &xi, incx).unwrap();
            let want = if incx > 0 {
                cpu::snrm2(n, &xi, incx)
            } else {
                0.0
            };
            assert!(
                (nrm - want).abs() <= 1e-5 * want,
                "snrm2 {what}: {nrm} vs {want}"
            );
        }
    }
}

#[test]
fn short_slices_are_errors_not_panics() {
    let ctx = ctx();
    let x = [1.0f32; 5];
    let mut y = [2.0f32; 5];
    assert_eq!(
        cblas::saxpy(&ctx, 3, 1.0, &x, 3, &mut y, 1),
        Err(Error::TooShort {
            routine: "saxpy",
            param: "x",
            needed: 7,
            len: 5
        })
    );
    assert!(matches!(
        cblas::scopy(&ctx, 6, &x, 1, &mut y, 1),
        Err(Error::TooShort { .. })
    ));
    assert!(matches!(
        cblas::sdot(&ctx, 2, &x, 1, &y, 0),
        Err(Error::InvalidArgument {
            param: "incy",
            position: 5,
            ..
        })
    ));
    assert!(matches!(
        cblas::sscal(&ctx, 2, 1.0, &mut y, 0),
        Err(Error::InvalidArgument {
            param: "incx",
            position: 4,
            ..
        })
    ));
    assert_eq!(y, [2.0; 5]);
}
