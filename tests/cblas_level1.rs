//! The CBLAS-shaped host API for level 1: same results as the reference BLAS, elements outside the
//! arguments' reach untouched, errors instead of panics for short slices.

mod common;

use common::*;
use fragblas::{cblas, Error};

const INCS: [i32; 6] = [-3, -1, 0, 1, 2, 5];

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
            cpu::sscal(n, -2.0, &mut want, incx);
            // Integers times -2 are exact; incx <= 0 leaves x as it was.
            assert_same_slices(&format!("sscal {what}"), &x, &want);
            // Reference CBLAS: 0 for incx <= 0 or n <= 0, else the 0-based index.
            let (asum, iamax) = (cpu::sasum(n, &xi, incx), cpu::isamax(n, &xi, incx));
            assert_eq!(
                cblas::sasum(&ctx, n, &xi, incx).unwrap(),
                asum,
                "sasum {what}"
            );
            // 0-based, as C CBLAS; 0 when there is no element.
            assert_eq!(
                cblas::isamax(&ctx, n, &xi, incx).unwrap(),
                iamax,
                "isamax {what}"
            );
            // snrm2 walks every increment (reference 3.10 and later).
            let nrm = cblas::snrm2(&ctx, n, &xi, incx).unwrap();
            let want = cpu::snrm2(n, &xi, incx);
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
    // Zero increments are legal in level 1; sscal returns at once for incx <= 0.
    assert_eq!(cblas::sdot(&ctx, 2, &x, 1, &y, 0), Ok(4.0));
    assert_eq!(cblas::sscal(&ctx, 2, 3.0, &mut y, 0), Ok(()));
    // scopy with a far-reaching x and y[..1] with incy == 0: the length of x is checked
    // (the argument reference would walk), and with x long enough y[0] gets x's last
    // element in walk order, which for incx < 0 is x[0].
    let long = vec![7.0f32; 254_763];
    let mut one = [0.0f32];
    assert_eq!(
        cblas::scopy(&ctx, 127_382, &long[..1000], -2, &mut one, 0),
        Err(Error::TooShort {
            routine: "scopy",
            param: "x",
            needed: 254_763,
            len: 1000
        })
    );
    assert_eq!(one, [0.0]);
    cblas::scopy(&ctx, 127_382, &long, -2, &mut one, 0).unwrap();
    assert_eq!(one, [7.0]);
    // Quick returns need no slices at all: sasum/snrm2/isamax of n > 0 with incx <= 0 or
    // n <= 0 read nothing (and upload nothing).
    assert_eq!(cblas::sasum(&ctx, 1_000_000, &[], -1), Ok(0.0));
    assert_eq!(cblas::isamax(&ctx, 1_000_000, &[], 0), Ok(0));
    assert_eq!(cblas::snrm2(&ctx, -5, &[], 1), Ok(0.0));
    assert_eq!(
        cblas::saxpy(&ctx, 1_000_000, 0.0, &[], 1, &mut [], 1),
        Ok(())
    );
    assert_eq!(y, [2.0; 5]);
}
