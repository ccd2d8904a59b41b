//! Level-1 rows: saxpy and sdot (bandwidth-bound).

use std::time::Duration;

use cblas_sys as cb;
use fragblas::{cblas, Context};

use crate::measure::{array_case, random, Bound, Measured, Spec, EPS};

fn spec(routine: &'static str, n: usize, flops: f64, bytes: f64) -> Spec {
    Spec {
        routine,
        size: format!("2^{}", n.trailing_zeros()),
        m: 0,
        n,
        k: 0,
        flops,
        bytes,
        bound: Bound::Bytes,
    }
}

pub fn saxpy(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let x = random(n, 1);
    let y0 = random(n, 2);
    let ni = n as i32;
    let gx = ctx.upload(&x).expect("upload");
    let s = spec("saxpy", n, 2.0 * n as f64, 12.0 * n as f64);
    array_case(
        ctx,
        s,
        budget,
        &y0,
        // SAFETY: x and y hold n elements.
        |y| unsafe { cb::cblas_saxpy(ni, 0.5, x.as_ptr(), 1, y.as_mut_ptr(), 1) },
        |y| ctx.saxpy(ni, 0.5, &gx, 1, y, 1),
        |y| cblas::saxpy(ctx, ni, 0.5, &x, 1, y, 1),
        // One FMA rounding on either side.
        |i, want| 2.0 * EPS * (want[i].abs() + 1.0),
    )
}

pub fn sdot(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let x = random(n, 3);
    let y = random(n, 4);
    let ni = n as i32;
    // SAFETY: x and y hold n elements.
    let cpu = || unsafe { cb::cblas_sdot(ni, x.as_ptr(), 1, y.as_ptr(), 1) };
    let want = cpu();
    let (gx, gy) = (
        ctx.upload(&x).expect("upload"),
        ctx.upload(&y).expect("upload"),
    );
    let got = ctx.sdot(ni, &gx, 1, &gy, 1).expect("sdot");
    let exact: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
    let abs: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (*a as f64 * *b as f64).abs())
        .sum();
    // Triangle inequality: the CPU's measured error plus the GPU's tree bound.
    let depth = 2.0 + ctx.reduce_fan_in() as f64 * ((n as f64).log2() / 2.0 + 2.0);
    let tol = (want as f64 - exact).abs() + depth * EPS as f64 * abs;
    let verdict = if ((got - want) as f64).abs() <= tol {
        Ok(())
    } else {
        Err(format!(
            "sdot: WRONG RESULT: gpu {got}, cpu {want} (tolerance {tol})"
        ))
    };
    Measured::time(
        spec("sdot", n, 2.0 * n as f64, 8.0 * n as f64),
        verdict,
        (ctx.info().software, budget),
        || {
            std::hint::black_box(cpu());
        },
        || {
            ctx.sdot(ni, &gx, 1, &gy, 1).expect("sdot");
        },
        || {
            cblas::sdot(ctx, ni, &x, 1, &y, 1).expect("sdot");
        },
    )
}
