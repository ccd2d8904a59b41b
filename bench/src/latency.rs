//! The latency rows: each a loop of [`CALLS`] small calls timed to its last result, where a
//! call's fixed cost, not its work, decides. `cpu` is the CPU BLAS making the same calls,
//! `resident` the device API on buffers already on the GPU (a scalar result read to the host
//! each call, other results once, after the loop), `e2e` the host API (every call uploads
//! and reads back). The table prints each as microseconds per call below the row.
//! (`sgemm_x1000` is in the batched group, beside the one draw that does the same products.)

use std::time::Duration;

use cb::{CblasColMajor as COL, CblasNoTrans as NT, CblasNonUnit as NU, CblasUpper as UP};
use cblas_sys as cb;
use fragblas::{cblas, Context, Diag::NonUnit, Layout::ColMajor, Transpose::NoTrans, Uplo::Upper};

use crate::measure::{check, random, Bound, Measured, Spec, EPS};

/// Calls per timed loop.
pub const CALLS: usize = 1000;

/// Rows of this group.
pub const ROUTINES: [&str; 5] = [
    "saxpy_x1000",
    "sdot_x1000",
    "sgemv_x1000",
    "strsv_x1000",
    "cblas_sgemv_x1000",
];

fn spec(routine: &'static str, size: String, n: usize, flops: f64, bytes: f64) -> Spec {
    Spec {
        routine,
        size,
        m: n,
        n,
        k: 0,
        flops: flops * CALLS as f64,
        bytes: bytes * CALLS as f64,
        bound: Bound::Bytes,
    }
}

/// Times a loop row whose single call gave `verdict`: each closure makes one call and is
/// called [`CALLS`] times a run; `resident` is told when its call is the last, after which
/// it reads (a part of) the result.
fn row(
    ctx: &Context,
    spec: Spec,
    verdict: Result<(), String>,
    budget: Duration,
    mut cpu: impl FnMut(),
    mut resident: impl FnMut(bool),
    mut e2e: impl FnMut(),
) -> Measured {
    Measured::time(
        spec,
        verdict,
        (ctx.info().software, budget),
        || (0..CALLS).for_each(|_| cpu()),
        || (0..CALLS).for_each(|i| resident(i + 1 == CALLS)),
        || (0..CALLS).for_each(|_| e2e()),
    )
}

/// The group: saxpy and sdot at 2^16, sgemv at 1024^2, strsv at 256, and the host API's
/// sgemv at 16 x 16 end to end.
pub fn group(ctx: &Context, _n: usize, budget: Duration) -> Vec<Measured> {
    vec![
        saxpy(ctx, budget),
        sdot(ctx, budget),
        sgemv(ctx, 1024, "sgemv_x1000", budget),
        strsv(ctx, budget),
        sgemv(ctx, 16, "cblas_sgemv_x1000", budget),
    ]
}

fn saxpy(ctx: &Context, budget: Duration) -> Measured {
    let n = 1usize << 16;
    let ni = n as i32;
    let x = random(n, 40);
    let y0 = random(n, 41);
    let gx = ctx.upload(&x).expect("upload");
    let mut gy = ctx.upload(&y0).expect("upload");
    let mut want = y0.clone();
    // SAFETY: x and y hold n elements.
    unsafe { cb::cblas_saxpy(ni, 0.5, x.as_ptr(), 1, want.as_mut_ptr(), 1) };
    let verdict = ctx
        .saxpy(ni, 0.5, &gx, 1, &mut gy, 1)
        .map_err(|e| e.to_string())
        .and_then(|_| {
            check("saxpy_x1000", &gy.to_vec().expect("read"), &want, |i| {
                2.0 * EPS * (want[i].abs() + 1.0)
            })
        });
    // The loops add 1e-3 x each call: y stays bounded over every run of the row.
    let (mut c, mut h) = (y0.clone(), y0);
    row(
        ctx,
        spec(
            "saxpy_x1000",
            "2^16".into(),
            n,
            2.0 * n as f64,
            12.0 * n as f64,
        ),
        verdict,
        budget,
        || {
            // SAFETY: x and c hold n elements.
            unsafe { cb::cblas_saxpy(ni, 1e-3, x.as_ptr(), 1, c.as_mut_ptr(), 1) };
        },
        |last| {
            ctx.saxpy(ni, 1e-3, &gx, 1, &mut gy, 1).expect("saxpy");
            if last {
                gy.read_range(0, 1).expect("read");
            }
        },
        || cblas::saxpy(ctx, ni, 1e-3, &x, 1, &mut h, 1).expect("saxpy"),
    )
}

fn sdot(ctx: &Context, budget: Duration) -> Measured {
    let n = 1usize << 16;
    let ni = n as i32;
    let x = random(n, 42);
    let y = random(n, 43);
    let (gx, gy) = (
        ctx.upload(&x).expect("upload"),
        ctx.upload(&y).expect("upload"),
    );
    // SAFETY: x and y hold n elements.
    let cpu = || unsafe { cb::cblas_sdot(ni, x.as_ptr(), 1, y.as_ptr(), 1) };
    let abs: f32 = x.iter().zip(&y).map(|(a, b)| (a * b).abs()).sum();
    let verdict = ctx
        .sdot(ni, &gx, 1, &gy, 1)
        .map_err(|e| e.to_string())
        .and_then(|got| check("sdot_x1000", &[got], &[cpu()], |_| 64.0 * EPS * abs));
    row(
        ctx,
        spec(
            "sdot_x1000",
            "2^16".into(),
            n,
            2.0 * n as f64,
            8.0 * n as f64,
        ),
        verdict,
        budget,
        || {
            std::hint::black_box(cpu());
        },
        |_| {
            std::hint::black_box(ctx.sdot(ni, &gx, 1, &gy, 1).expect("sdot"));
        },
        || {
            std::hint::black_box(cblas::sdot(ctx, ni, &x, 1, &y, 1).expect("sdot"));
        },
    )
}

/// y := A x + 0.5 y, n x n, column-major.
fn sgemv(ctx: &Context, n: usize, name: &'static str, budget: Duration) -> Measured {
    let ni = n as i32;
    let a = random(n * n, 44);
    let x = random(n, 45);
    let y0 = random(n, 46);
    let (ga, gx) = (
        ctx.upload(&a).expect("upload"),
        ctx.upload(&x).expect("upload"),
    );
    let mut gy = ctx.upload(&y0).expect("upload");
    // SAFETY: a holds n*n elements, x and y n.
    let cpu = |y: &mut [f32]| unsafe {
        cb::cblas_sgemv(
            COL,
            NT,
            ni,
            ni,
            1.0,
            a.as_ptr(),
            ni,
            x.as_ptr(),
            1,
            0.5,
            y.as_mut_ptr(),
            1,
        )
    };
    let mut want = y0.clone();
    cpu(&mut want);
    let verdict = ctx
        .sgemv(
            ColMajor, NoTrans, ni, ni, 1.0, &ga, ni, &gx, 1, 0.5, &mut gy, 1,
        )
        .map_err(|e| e.to_string())
        .and_then(|_| {
            let w = n as f32 + 2.0;
            check(name, &gy.to_vec().expect("read"), &want, |i| {
                2.0 * w * EPS * (w + 2.0 * want[i].abs())
            })
        });
    let nf = n as f64;
    let (mut c, mut h) = (y0.clone(), y0);
    row(
        ctx,
        spec(
            name,
            format!("{n}^2"),
            n,
            2.0 * nf * nf,
            4.0 * (nf * nf + 3.0 * nf),
        ),
        verdict,
        budget,
        || {
            cpu(&mut c);
        },
        |last| {
            ctx.sgemv(
                ColMajor, NoTrans, ni, ni, 1.0, &ga, ni, &gx, 1, 0.5, &mut gy, 1,
            )
            .expect("sgemv");
            if last {
                gy.read_range(0, 1).expect("read");
            }
        },
        || {
            cblas::sgemv(
                ctx, ColMajor, NoTrans, ni, ni, 1.0, &a, ni, &x, 1, 0.5, &mut h, 1,
            )
            .expect("sgemv")
        },
    )
}

/// x := U^-1 x, n = 256, with U's diagonal 1 and its other elements below 1e-3/n: repeated
/// solves keep x within a few times its start over every run of the row.
fn strsv(ctx: &Context, budget: Duration) -> Measured {
    let n = 256usize;
    let ni = n as i32;
    let r = random(n * n, 47);
    let a: Vec<f32> = (0..n * n)
        .map(|s| {
            if s % n == s / n {
                1.0
            } else {
                r[s] * 1e-3 / n as f32
            }
        })
        .collect();
    let x0 = random(n, 48);
    let ga = ctx.upload(&a).expect("upload");
    let mut gx = ctx.upload(&x0).expect("upload");
    // SAFETY: a holds n*n elements, x n.
    let cpu = |x: &mut [f32]| unsafe {
        cb::cblas_strsv(COL, UP, NT, NU, ni, a.as_ptr(), ni, x.as_mut_ptr(), 1)
    };
    let mut want = x0.clone();
    cpu(&mut want);
    let verdict = ctx
        .strsv(ColMajor, Upper, NoTrans, NonUnit, ni, &ga, ni, &mut gx, 1)
        .map_err(|e| e.to_string())
        .and_then(|_| {
            check("strsv_x1000", &gx.to_vec().expect("read"), &want, |i| {
                8.0 * EPS * (want[i].abs() + 1.0)
            })
        });
    let nf = n as f64;
    let tri = nf * (nf + 1.0) / 2.0;
    let (mut c, mut h) = (x0.clone(), x0);
    row(
        ctx,
        spec(
            "strsv_x1000",
            format!("{n}^2"),
            n,
            2.0 * tri,
            4.0 * (tri + 2.0 * nf),
        ),
        verdict,
        budget,
        || {
            cpu(&mut c);
        },
        |last| {
            ctx.strsv(ColMajor, Upper, NoTrans, NonUnit, ni, &ga, ni, &mut gx, 1)
                .expect("strsv");
            if last {
                gx.read_range(0, 1).expect("read");
            }
        },
        || {
            cblas::strsv(
                ctx, ColMajor, Upper, NoTrans, NonUnit, ni, &a, ni, &mut h, 1,
            )
            .expect("strsv")
        },
    )
}
