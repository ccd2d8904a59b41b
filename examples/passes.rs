//! Where a call's GPU time goes, kernel by kernel: each case runs its routine on resident
//! data for 0.3 s (clocks up), then `CALLS` calls back to back with profiling on, and prints
//! the GPU time per call of each kernel the calls drew with (`Context::take_gl_profile`:
//! each draw's time from the end of the draw before it; desktop GL only), largest first,
//! with the wall time per call beside the GPU's total. Where the two are close the GPU sets
//! the pace and the kernel times add up to the call. Each call starts from the same data
//! (a copy, whose kernel is listed too): the solves skip zero unknowns, and a vector solved
//! again and again goes to zero, which would time another solve.
//!
//! ```text
//! cargo run --release --example passes                   # every case
//! cargo run --release --example passes -- strsv strsm    # cases whose name contains these
//! ```
use std::time::{Duration, Instant};

use rand::{rngs::StdRng, Rng, SeedableRng};

use fragblas::{
    Buffer, Context, ContextOptions, Diag, Layout::ColMajor, Side, Transpose::NoTrans, Uplo,
};

/// Calls per timed loop.
const CALLS: u32 = 20;

fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut r = StdRng::seed_from_u64(seed);
    (0..len).map(|_| r.gen_range(-1.0f32..1.0)).collect()
}

/// A well-conditioned n x n triangle (diagonal 2 + n/100, small off-diagonal values).
fn triangle(n: usize) -> Vec<f32> {
    let mut a = random(n * n, 7);
    for (i, x) in a.iter_mut().enumerate() {
        *x *= 1e-3;
        if i % (n + 1) == 0 {
            *x = 2.0 + n as f32 / 100.0;
        }
    }
    a
}

fn run(
    ctx: &Context,
    name: &str,
    body: &mut dyn FnMut() -> fragblas::Result<()>,
) -> fragblas::Result<()> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(300) {
        body()?;
    }
    ctx.finish()?;
    ctx.take_gl_profile();
    let t0 = Instant::now();
    for _ in 0..CALLS {
        body()?;
    }
    ctx.finish()?;
    let wall = t0.elapsed() / CALLS;
    let Some((times, kernels)) = ctx.take_gl_profile() else {
        return Ok(());
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{name}: wall {:.1} us a call, GPU {:.1} us a call",
        us(wall),
        us(times.gpu.time / CALLS)
    );
    for k in kernels {
        println!(
            "  {:>9.1} us {:>6.1} draws  {}",
            us(k.time / CALLS),
            k.draws as f64 / CALLS as f64,
            k.kernel
        );
    }
    Ok(())
}

fn main() -> fragblas::Result<()> {
    let filters: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    for inverse in [true, false] {
        let ctx = Context::with_options(ContextOptions {
            profile: Some(true),
            inverse_solves: Some(inverse),
            ..Default::default()
        })?;
        let path = if inverse { "inverse" } else { "substitution" };
        for n in [256usize, 1024, 4096] {
            let ni = n as i32;
            let a = ctx.upload(&triangle(n))?;
            for uplo in [Uplo::Lower, Uplo::Upper] {
                let name = format!("strsv {n} {uplo:?} ({path})");
                if wanted(&name) {
                    let x0 = ctx.upload(&random(n, 3))?;
                    let mut x = ctx.zeros(n)?;
                    run(&ctx, &name, &mut || {
                        ctx.scopy(ni, &x0, 1, &mut x, 1)?;
                        ctx.strsv(
                            ColMajor,
                            uplo,
                            NoTrans,
                            Diag::NonUnit,
                            ni,
                            &a,
                            ni,
                            &mut x,
                            1,
                        )
                    })?;
                }
            }
            if n < 1024 {
                continue;
            }
            // strsm on both solve paths, strmm once; each from a copy of the same B.
            for solve in [true, false] {
                let name = if solve {
                    format!("strsm {n} ({path})")
                } else {
                    format!("strmm {n}")
                };
                if !wanted(&name) || !(solve || inverse) {
                    continue;
                }
                let b0 = ctx.upload(&random(n * n, 4))?;
                let mut b: Buffer = ctx.zeros(n * n)?;
                let modes = (Side::Left, Uplo::Lower, NoTrans, Diag::NonUnit);
                run(&ctx, &name, &mut || {
                    ctx.scopy(ni * ni, &b0, 1, &mut b, 1)?;
                    let (s, u, t, d) = modes;
                    if solve {
                        ctx.strsm(ColMajor, s, u, t, d, ni, ni, 1.0, &a, ni, &mut b, ni)
                    } else {
                        ctx.strmm(ColMajor, s, u, t, d, ni, ni, 0.5, &a, ni, &mut b, ni)
                    }
                })?;
            }
            let name = format!("ssyrk {n}");
            if inverse && wanted(&name) {
                let mut c = ctx.zeros(n * n)?;
                run(&ctx, &name, &mut || {
                    ctx.ssyrk(
                        ColMajor,
                        Uplo::Lower,
                        NoTrans,
                        ni,
                        ni,
                        1.0,
                        &a,
                        ni,
                        0.0,
                        &mut c,
                        ni,
                    )
                })?;
            }
        }
        let name = "sgemm_batched 1000x64^3".to_string();
        if inverse && wanted(&name) {
            let (n, count) = (64i32, 1000usize);
            let one = 64 * 64;
            let a = ctx.upload(&random(count * one, 8))?;
            let b = ctx.upload(&random(count * one, 9))?;
            let mut c = ctx.zeros(count * one)?;
            let s = one as i64;
            run(&ctx, &name, &mut || {
                ctx.sgemm_batched_strided(
                    ColMajor,
                    NoTrans,
                    NoTrans,
                    n,
                    n,
                    n,
                    1.0,
                    &a,
                    n,
                    s,
                    &b,
                    n,
                    s,
                    0.0,
                    &mut c,
                    n,
                    s,
                    count as i32,
                )
            })?;
        }
    }
    Ok(())
}
