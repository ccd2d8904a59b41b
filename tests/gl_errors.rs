//! A GL error raised inside a routine (planted at its first draw with
//! `Context::plant_gl_error`, where a driver's error would come from) comes back from that
//! very call as `Error::Gl`; the context then works on, with right results.
mod common;

use common::{assert_same_slices, ctx, ints, rng};
use fragblas::{cblas, Context, Diag, Error, Layout::ColMajor, Transpose::NoTrans, Uplo};

/// Plants an error, runs `call`, and checks that it fails with that GL error; then runs
/// `call` again, which must succeed.
fn fails_then_recovers(
    ctx: &Context,
    routine: &str,
    mut call: impl FnMut() -> fragblas::Result<()>,
) {
    ctx.plant_gl_error().unwrap();
    match call() {
        // The error is the planted one; the operation it names is the routine's, or a step
        // inside it that checked first (a new scratch texture checks its allocation).
        Err(Error::Gl { code, .. }) => assert_eq!(code, 0x0500, "{routine}: GL_INVALID_ENUM"),
        other => panic!("{routine}: expected a GL error, got {other:?}"),
    }
    call().unwrap_or_else(|e| panic!("{routine} after the error: {e}"));
}

#[test]
fn gl_errors_inside_calls_come_back_from_the_call() {
    let ctx = ctx();
    let mut r = rng(7);
    let n = 300usize;
    let (xv, yv) = (ints(&mut r, n), ints(&mut r, n));
    let x = ctx.upload(&xv).unwrap();
    let mut y = ctx.upload(&yv).unwrap();
    fails_then_recovers(&ctx, "saxpy", || ctx.saxpy(n as i32, 0.5, &x, 1, &mut y, 1));
    // The failed call may have written y: check a call after the error from a fresh start
    // (small integers: every result is exact).
    y.write(&yv).unwrap();
    ctx.saxpy(n as i32, 1.0, &x, 1, &mut y, 1).unwrap();
    let want: Vec<f32> = xv.iter().zip(&yv).map(|(a, b)| b + a).collect();
    assert_same_slices("saxpy after the error", &y.to_vec().unwrap(), &want);

    let mut dot = 0.0;
    fails_then_recovers(&ctx, "sdot", || {
        dot = ctx.sdot(n as i32, &x, 1, &y, 1)?;
        Ok(())
    });
    let exact: f32 = xv.iter().zip(&want).map(|(a, b)| a * b).sum();
    assert_eq!(dot, exact, "sdot after the error");

    let m = 17usize;
    let a = ctx.upload(&ints(&mut r, m * m)).unwrap();
    let b = ctx.upload(&ints(&mut r, m * m)).unwrap();
    let mut c = ctx.upload(&ints(&mut r, m * m)).unwrap();
    let mi = m as i32;
    fails_then_recovers(&ctx, "sgemm", || {
        ctx.sgemm(
            ColMajor, NoTrans, NoTrans, mi, mi, mi, 1.0, &a, mi, &b, mi, 0.0, &mut c, mi,
        )
    });
    let (xs, mut ys) = (
        ctx.upload(&ints(&mut r, m)).unwrap(),
        ctx.upload(&ints(&mut r, m)).unwrap(),
    );
    fails_then_recovers(&ctx, "sgemv", || {
        ctx.sgemv(
            ColMajor, NoTrans, mi, mi, 1.0, &a, mi, &xs, 1, 0.5, &mut ys, 1,
        )
    });
    fails_then_recovers(&ctx, "strsv", || {
        ctx.strsv(
            ColMajor,
            Uplo::Upper,
            NoTrans,
            Diag::Unit,
            mi,
            &a,
            mi,
            &mut ys,
            1,
        )
    });

    // The host API: the error comes back and the caller's output is left for the retry.
    let (ha, hx) = (ints(&mut r, m * m), ints(&mut r, m));
    let mut hy = ints(&mut r, m);
    fails_then_recovers(&ctx, "sgemv", || {
        cblas::sgemv(
            &ctx, ColMajor, NoTrans, mi, mi, 1.0, &ha, mi, &hx, 1, 0.0, &mut hy, 1,
        )
    });
}
