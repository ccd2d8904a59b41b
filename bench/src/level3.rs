//! Level-3 rows: sgemm (flop-bound), column-major, no transposes.

use std::time::Duration;

use cb::{CblasColMajor as COL, CblasNoTrans as NT};
use cblas_sys as cb;
use fragblas::{cblas, Context, Layout::ColMajor, Transpose::NoTrans};

use crate::measure::{array_case, random, Bound, Measured, Spec, EPS};

fn spec(routine: &'static str, n: usize, flops: f64, bytes: f64) -> Spec {
    Spec {
        routine,
        size: format!("{n}^3"),
        m: n,
        n,
        k: n,
        flops,
        bytes,
        bound: Bound::Flops,
    }
}

/// C := A B (beta 0), n x n x n.
pub fn sgemm(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let ni = n as i32;
    let a = random(n * n, 8);
    let b = random(n * n, 9);
    let c0 = random(n * n, 10);
    let (ga, gb) = (
        ctx.upload(&a).expect("upload"),
        ctx.upload(&b).expect("upload"),
    );
    let nf = n as f64;
    array_case(
        ctx,
        spec("sgemm", n, 2.0 * nf * nf * nf, 4.0 * 3.0 * nf * nf),
        budget,
        &c0,
        // SAFETY: a, b and c hold n*n elements.
        |c| unsafe {
            cb::cblas_sgemm(
                COL,
                NT,
                NT,
                ni,
                ni,
                ni,
                1.0,
                a.as_ptr(),
                ni,
                b.as_ptr(),
                ni,
                0.0,
                c.as_mut_ptr(),
                ni,
            )
        },
        |c| {
            ctx.sgemm(
                ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &ga, ni, &gb, ni, 0.0, c, ni,
            )
        },
        |c| {
            cblas::sgemm(
                ctx, ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &a, ni, &b, ni, 0.0, c, ni,
            )
        },
        // |a|, |b| < 1: (|A||B|)_ij <= n; both sides within (n + 2) eps n of the exact value.
        move |_, _| 2.0 * (n as f32 + 2.0) * EPS * n as f32,
    )
}
