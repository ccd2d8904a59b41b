//! Argument handling through the public API with extreme values: increments of `i32::MIN`,
//! `i32::MAX` and 0, sizes near `i32::MAX` and below zero, leading dimensions at the
//! extremes, impossible tuning sizes. CI runs this file in the debug profile too, where an
//! integer overflow panics: every call must return `Ok` or an error, never panic or abort,
//! and leave no GL error behind. Where a call succeeds, its result is the reference BLAS's.

mod common;

use common::*;
use fragblas::{cblas, Context, Error, Layout, Transpose};
use proptest::prelude::*;

fn incs() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MIN),
        Just(i32::MIN + 1),
        Just(i32::MAX),
        Just(0),
        -5i32..=5,
    ]
}

fn sizes() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MIN),
        Just(i32::MAX),
        Just(i32::MAX - 1),
        Just(1 << 30),
        -3i32..=40,
    ]
}

/// Whether an error is one a bad or too-short argument should give.
fn is_argument_error(e: &Error) -> bool {
    matches!(e, Error::InvalidArgument { .. } | Error::TooShort { .. })
}

/// Runs `f` on copies of x and y on the GPU and on the reference, and checks they agree
/// where the GPU call succeeds (bit for bit: the data are small integers and the results
/// exact, or the call is a copy, swap or quick return).
#[allow(clippy::type_complexity)]
fn check_update(
    ctx: &Context,
    what: &str,
    (x, y): (&[f32], &[f32]),
    gpu: impl Fn(&Context, &mut fragblas::Buffer, &mut fragblas::Buffer) -> fragblas::Result<()>,
    cpu: impl Fn(&mut [f32], &mut [f32]),
) -> Result<(), TestCaseError> {
    let (mut gx, mut gy) = (ctx.upload(x).unwrap(), ctx.upload(y).unwrap());
    match gpu(ctx, &mut gx, &mut gy) {
        Ok(()) => {
            let (mut wx, mut wy) = (x.to_vec(), y.to_vec());
            cpu(&mut wx, &mut wy);
            prop_assert_eq!(gx.to_vec().unwrap(), wx, "{} x", what);
            prop_assert_eq!(gy.to_vec().unwrap(), wy, "{} y", what);
        }
        Err(e) => prop_assert!(is_argument_error(&e), "{}: {:?}", what, e),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn level1_never_panics_and_agrees_with_blas_when_it_runs(
        n in sizes(), incx in incs(), incy in incs(),
        lx in 0usize..24, ly in 0usize..24, seed in any::<u64>()
    ) {
        let ctx = ctx();
        let mut r = rng(seed);
        let (x, y) = (ints(&mut r, lx), ints(&mut r, ly));
        // The reference reads only what n and the increments address; call it only where
        // the slices hold that (where fragblas succeeds, they do).
        let fits = |len: usize, inc: i32| n <= 0 || span(n, inc) <= len;
        let ok = fits(lx, incx) && fits(ly, incy);
        // sscal, sasum and isamax return at once for incx <= 0: they read nothing.
        let ok1 = incx <= 0 || fits(lx, incx);
        let what = format!("n={n} incx={incx} incy={incy} lx={lx} ly={ly}");
        // With both increments zero the updates are reference's sequential loop over n
        // (on the host here as there): for n near 2^31 that takes seconds, so such calls
        // are left to the reductions below.
        let slow = n > 100_000 && incx == 0 && incy == 0;
        if !slow {
        check_update(&ctx, &format!("saxpy {what}"), (&x, &y),
            |c, gx, gy| c.saxpy(n, 2.0, gx, incx, gy, incy),
            |wx, wy| if ok { cpu::saxpy(n, 2.0, wx, incx, wy, incy) })?;
        check_update(&ctx, &format!("scopy {what}"), (&x, &y),
            |c, gx, gy| c.scopy(n, gx, incx, gy, incy),
            |wx, wy| if ok { cpu::scopy(n, wx, incx, wy, incy) })?;
        check_update(&ctx, &format!("sswap {what}"), (&x, &y),
            |c, gx, gy| c.sswap(n, gx, incx, gy, incy),
            |wx, wy| if ok { cpu::sswap(n, wx, incx, wy, incy) })?;
        check_update(&ctx, &format!("srot {what}"), (&x, &y),
            |c, gx, gy| c.srot(n, gx, incx, gy, incy, 0.0, 1.0),
            |wx, wy| if ok { cpu::srot(n, wx, incx, wy, incy, 0.0, 1.0) })?;
        let p = [1.0f32, 2.0, 0.0, 0.0, -1.0];
        check_update(&ctx, &format!("srotm {what}"), (&x, &y),
            |c, gx, gy| c.srotm(n, gx, incx, gy, incy, &p),
            |wx, wy| if ok { cpu::srotm(n, wx, incx, wy, incy, &p) })?;
        check_update(&ctx, &format!("sscal {what}"), (&x, &y),
            |c, gx, _| c.sscal(n, -3.0, gx, incx),
            |wx, _| if ok1 { cpu::sscal(n, -3.0, wx, incx) })?;
        }
        let (gx, gy) = (ctx.upload(&x).unwrap(), ctx.upload(&y).unwrap());
        // Reductions: against the reference for small n; a huge n can succeed only with
        // zero increments (every term the same), where the reference's n sequential
        // additions lose everything past 2^24 terms: there, against the exact value.
        let huge = n > 100_000;
        let (x0, y0) = (x.first().copied().unwrap_or(0.0) as f64, y.first().copied().unwrap_or(0.0) as f64);
        let exact_dot = n as f64 * x0 * y0;
        let exact_nrm = (n as f64).sqrt() * x0.abs();
        for (name, got, want) in [
            ("sdot", ctx.sdot(n, &gx, incx, &gy, incy).map(f64::from), ok.then(|| if huge { exact_dot } else { cpu::sdot(n, &x, incx, &y, incy) as f64 })),
            ("dsdot", ctx.dsdot(n, &gx, incx, &gy, incy), ok.then(|| if huge { exact_dot } else { cpu::dsdot(n, &x, incx, &y, incy) })),
            ("sasum", ctx.sasum(n, &gx, incx).map(f64::from), ok1.then(|| cpu::sasum(n, &x, incx) as f64)),
            ("snrm2", ctx.snrm2(n, &gx, incx).map(f64::from), fits(lx, incx).then(|| if huge { exact_nrm } else { cpu::snrm2(n, &x, incx) as f64 })),
        ] {
            match got {
                Ok(v) => {
                    let want = want.expect("a successful call addresses only what the slices hold");
                    prop_assert!((v - want).abs() <= 1e-5 * want.abs(), "{} {}: {} vs {}", name, what, v, want);
                }
                Err(e) => prop_assert!(is_argument_error(&e), "{} {}: {:?}", name, what, e),
            }
        }
        match ctx.isamax(n, &gx, incx) {
            Ok(i) => prop_assert_eq!(i, (n > 0 && incx > 0).then(|| cpu::isamax(n, &x, incx))),
            Err(e) => prop_assert!(is_argument_error(&e), "isamax {}: {:?}", what, e),
        }
        // The host API: the same rules, on slices.
        let (mut hx, mut hy) = (x.clone(), y.clone());
        let res = if slow { Ok(()) } else {
            cblas::saxpy(&ctx, n, 2.0, &hx.clone(), incx, &mut hy, incy)
                .and_then(|_| cblas::sswap(&ctx, n, &mut hx, incx, &mut hy, incy))
        }
            .and_then(|_| cblas::sdot(&ctx, n, &x, incx, &y, incy).map(|_| ()))
            .and_then(|_| cblas::isamax(&ctx, n, &x, incx).map(|_| ()))
            .and_then(|_| cblas::snrm2(&ctx, n, &x, incx).map(|_| ()));
        if let Err(e) = res {
            prop_assert!(is_argument_error(&e), "cblas {}: {:?}", what, e);
        }
        ctx.finish().unwrap();
    }

    #[test]
    fn matrix_routines_never_panic_on_extreme_arguments(
        m in sizes(), n in sizes(), k in sizes(),
        lda in sizes(), ldb in sizes(), ldc in sizes(),
        incx in incs(), incy in incs(), row_major in any::<bool>(), t in 0u8..3
    ) {
        let ctx = ctx();
        let layout = if row_major { Layout::RowMajor } else { Layout::ColMajor };
        let tr = [Transpose::NoTrans, Transpose::Trans, Transpose::ConjTrans][t as usize];
        let a = vec![1.0f32; 64];
        let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&a).unwrap());
        let mut gc = ctx.upload(&a).unwrap();
        for alpha in [0.0f32, 1.0, f32::NAN] {
            for r in [
                ctx.sgemm(layout, tr, tr, m, n, k, alpha, &ga, lda, &gb, ldb, 0.5, &mut gc, ldc),
                ctx.sgemv(layout, tr, m, n, alpha, &ga, lda, &gb, incx, 0.5, &mut gc, incy),
            ] {
                if let Err(e) = r {
                    prop_assert!(is_argument_error(&e), "{:?}", e);
                }
            }
            let mut c = a.clone();
            let r = cblas::sgemm(&ctx, layout, tr, tr, m, n, k, alpha, &a, lda, &a, ldb, 0.5, &mut c, ldc)
                .and_then(|_| cblas::sgemv(&ctx, layout, tr, m, n, alpha, &a, lda, &a, incx, 0.5, &mut c, incy));
            if let Err(e) = r {
                prop_assert!(is_argument_error(&e), "{:?}", e);
            }
        }
        ctx.finish().unwrap();
    }
}

fn strides() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(i32::MAX as i64),
        Just(i32::MAX as i64 + 1),
        -2i64..=70,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn level3_routines_never_panic_on_extreme_arguments(
        m in sizes(), n in sizes(), k in sizes(),
        lda in sizes(), ldb in sizes(), ldc in sizes(),
        sa in strides(), sb in strides(), sc in strides(), count in sizes(),
        row_major in any::<bool>(), t in 0u8..3, modes in 0u8..16
    ) {
        use fragblas::{Diag, Side, Uplo};
        let ctx = ctx();
        let layout = if row_major { Layout::RowMajor } else { Layout::ColMajor };
        let tr = [Transpose::NoTrans, Transpose::Trans, Transpose::ConjTrans][t as usize];
        let side = if modes & 1 == 0 { Side::Left } else { Side::Right };
        let uplo = if modes & 2 == 0 { Uplo::Upper } else { Uplo::Lower };
        let diag = if modes & 4 == 0 { Diag::NonUnit } else { Diag::Unit };
        // Diagonal 2 at every slot a small triangle could use: solves stay finite.
        let a: Vec<f32> = (0..64).map(|i| if i % 9 == 0 { 2.0 } else { 0.25 }).collect();
        let (ga, gb) = (ctx.upload(&a).unwrap(), ctx.upload(&a).unwrap());
        for alpha in [0.0f32, 1.0, f32::NAN] {
            let mut gc = ctx.upload(&a).unwrap();
            for r in [
                ctx.ssymm(layout, side, uplo, m, n, alpha, &ga, lda, &gb, ldb, 0.5, &mut gc, ldc),
                ctx.ssyrk(layout, uplo, tr, n, k, alpha, &ga, lda, 0.5, &mut gc, ldc),
                ctx.ssyr2k(layout, uplo, tr, n, k, alpha, &ga, lda, &gb, ldb, 0.5, &mut gc, ldc),
                ctx.strmm(layout, side, uplo, tr, diag, m, n, alpha, &ga, lda, &mut gc, ldb),
                ctx.strsm(layout, side, uplo, tr, diag, m, n, alpha, &ga, lda, &mut gc, ldb),
                ctx.sgemm_batched_strided(
                    layout, tr, tr, m, n, k, alpha, &ga, lda, sa, &gb, ldb, sb, 0.5, &mut gc, ldc,
                    sc, count,
                ),
                ctx.sgemm_batched(
                    layout, tr, tr, m, n, k, alpha, &[&ga, &gb], lda, &[&gb, &ga], ldb, 0.5,
                    &mut [&mut gc], ldc,
                ),
            ] {
                if let Err(e) = r {
                    prop_assert!(is_argument_error(&e), "{:?}", e);
                }
            }
            let mut c = a.clone();
            let r = cblas::ssymm(&ctx, layout, side, uplo, m, n, alpha, &a, lda, &a, ldb, 0.5, &mut c, ldc)
                .and_then(|_| cblas::ssyrk(&ctx, layout, uplo, tr, n, k, alpha, &a, lda, 0.5, &mut c, ldc))
                .and_then(|_| cblas::ssyr2k(&ctx, layout, uplo, tr, n, k, alpha, &a, lda, &a, ldb, 0.5, &mut c, ldc))
                .and_then(|_| cblas::strmm(&ctx, layout, side, uplo, tr, diag, m, n, alpha, &a, lda, &mut c, ldb))
                .and_then(|_| cblas::strsm(&ctx, layout, side, uplo, tr, diag, m, n, alpha, &a, lda, &mut c, ldb));
            if let Err(e) = r {
                prop_assert!(is_argument_error(&e), "{:?}", e);
            }
        }
        ctx.finish().unwrap();
    }
}

#[test]
fn impossible_tuning_sizes_are_errors() {
    let ctx = ctx();
    for (m, n, k) in [
        (1usize << 40, 1, 1 << 40),
        (usize::MAX, 2, 2),
        (2, usize::MAX, 2),
        (2, 2, usize::MAX),
        (usize::MAX, usize::MAX, usize::MAX),
    ] {
        assert!(
            matches!(ctx.tune_sgemm(m, n, k), Err(Error::Unsupported(_))),
            "tune_sgemm({m}, {n}, {k})"
        );
        // The kernel Auto would pick is still named (the generic one for such sizes).
        let _ = ctx.sgemm_kernel_for(m, n, k);
    }
    ctx.finish().unwrap();
}

#[test]
fn increments_of_i32_min_address_one_element() {
    // n == 1 with increments of i32::MIN is a valid call: element 0 of each vector.
    let ctx = ctx();
    let x = ctx.upload(&[3.0]).unwrap();
    let mut y = ctx.upload(&[1.0]).unwrap();
    ctx.saxpy(1, 2.0, &x, i32::MIN, &mut y, i32::MIN).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![7.0]);
    assert_eq!(ctx.sdot(1, &x, i32::MIN, &y, i32::MIN).unwrap(), 21.0);
    assert_eq!(ctx.snrm2(1, &x, i32::MIN).unwrap(), 3.0);
    let (mut hx, mut hy) = ([3.0f32], [1.0f32]);
    cblas::sswap(&ctx, 1, &mut hx, i32::MIN, &mut hy, i32::MIN).unwrap();
    assert_eq!((hx, hy), ([1.0], [3.0]));
    // Two elements with i32::MIN cannot fit any vector.
    assert!(matches!(
        ctx.sdot(2, &x, i32::MIN, &y, 1),
        Err(Error::TooShort { param: "x", .. })
    ));
}
