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
//! cargo run --release --example passes -- --width-cap 1024 sgemv  # buffers 1024 texels wide
//! ```
use std::time::{Duration, Instant};

use clap::Parser;
use rand::{rngs::StdRng, Rng, SeedableRng};

use fragblas::{
    Buffer, Context, ContextOptions, Diag, GemmKernel, Layout::ColMajor, Side, Transpose,
    Transpose::NoTrans, Uplo,
};

/// Where a call's GPU time goes, kernel by kernel.
#[derive(Parser)]
struct Args {
    /// Texels per row of buffer textures (`ContextOptions::width_cap`; the library's default
    /// when left out).
    #[arg(long)]
    width_cap: Option<u32>,
    /// The image-store paths on or off (`ContextOptions::image_stores`; the library's
    /// default, on for hardware devices only, when left out): `--image-stores true` times a
    /// GPU's paths on a software device.
    #[arg(long)]
    image_stores: Option<bool>,
    /// Run only the cases whose name contains one of these (all when none is given).
    filters: Vec<String>,
}

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
    let host: Vec<String> = times
        .kinds()
        .iter()
        .filter(|(_, s)| s.calls > 0)
        .map(|(kind, s)| {
            format!(
                "{kind} {:.1} us ({:.2} calls)",
                us(s.time / CALLS),
                s.calls as f64 / CALLS as f64
            )
        })
        .collect();
    println!("  host time in GL a call: {}", host.join(", "));
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
    let args = Args::parse();
    let filters = &args.filters;
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    for inverse in [true, false] {
        let ctx = Context::with_options(ContextOptions {
            profile: Some(true),
            inverse_solves: Some(inverse),
            width_cap: args.width_cap,
            image_stores: args.image_stores,
            ..Default::default()
        })?;
        if inverse {
            level2(&ctx, &wanted)?;
        }
        let path = if inverse { "inverse" } else { "substitution" };
        for n in [256usize, 1024, 2048, 4096] {
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
            // strsm on both solve paths, strmm once on each triangle; each from a copy of the
            // same B.
            for (solve, uplo) in [
                (true, Uplo::Lower),
                (false, Uplo::Lower),
                (false, Uplo::Upper),
            ] {
                let name = match (solve, uplo) {
                    (true, _) => format!("strsm {n} ({path})"),
                    (false, Uplo::Lower) => format!("strmm {n}"),
                    (false, Uplo::Upper) => format!("strmm {n} Upper"),
                };
                if !wanted(&name) || !(solve || inverse) {
                    continue;
                }
                let b0 = ctx.upload(&random(n * n, 4))?;
                let mut b: Buffer = ctx.zeros(n * n)?;
                let modes = (Side::Left, uplo, NoTrans, Diag::NonUnit);
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
        if inverse {
            sgemm(&ctx, &wanted)?;
        }
        for (n, count) in [(64usize, 1000usize), (256, 100), (256, 200), (192, 150)] {
            let name = format!("sgemm_batched {count}x{n}^3");
            if !inverse || !wanted(&name) {
                continue;
            }
            let ni = n as i32;
            let one = n * n;
            let a = ctx.upload(&random(count * one, 8))?;
            let b = ctx.upload(&random(count * one, 9))?;
            let mut c = ctx.zeros(count * one)?;
            let s = one as i64;
            run(&ctx, &name, &mut || {
                ctx.sgemm_batched_strided(
                    ColMajor,
                    NoTrans,
                    NoTrans,
                    ni,
                    ni,
                    ni,
                    1.0,
                    &a,
                    ni,
                    s,
                    &b,
                    ni,
                    s,
                    0.0,
                    &mut c,
                    ni,
                    s,
                    count as i32,
                )
            })?;
        }
    }
    Ok(())
}

/// sgemm at the small sizes of issue 30 (256 to 2048), under each kernel that can run.
fn sgemm(ctx: &Context, wanted: &dyn Fn(&str) -> bool) -> fragblas::Result<()> {
    for n in [256usize, 512, 1024, 2048] {
        let ni = n as i32;
        let a = ctx.upload(&random(n * n, 21))?;
        let b = ctx.upload(&random(n * n, 22))?;
        let mut c = ctx.upload(&random(n * n, 23))?;
        for kernel in [
            GemmKernel::Auto,
            GemmKernel::Strip1,
            GemmKernel::Strip4,
            GemmKernel::Strip8,
            GemmKernel::Tile8,
            GemmKernel::Tile16,
        ] {
            let name = format!("sgemm {n} {kernel:?}");
            if !wanted(&name) {
                continue;
            }
            let mut body = || {
                ctx.sgemm_with(
                    kernel, ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &a, ni, &b, ni, 0.5,
                    &mut c, ni,
                )
            };
            // A kernel the device cannot run is named and skipped.
            if let Err(e) = body() {
                println!("{name}: {e}");
                continue;
            }
            run(ctx, &name, &mut body)?;
        }
    }
    Ok(())
}

/// The level-2 products and rank updates at 1024 and 4096 (sgemv at 16384 too) and the band
/// routines at 2^16 with k = 64, the table's sizes.
fn level2(ctx: &Context, wanted: &dyn Fn(&str) -> bool) -> fragblas::Result<()> {
    for n in [1024usize, 2048, 4096, 16384] {
        let ni = n as i32;
        let big = n > 4096;
        let cases = [
            "sgemv N", "sgemv T", "ssymv", "ssymv U", "strmv", "sspmv", "sspmv U", "stpmv",
            "stpmv T", "sger", "ssyr", "ssyr U", "sspr", "ssyr2", "ssyr2 U", "sspr2",
        ];
        if !cases.iter().any(|c| wanted(&format!("{c} {n}"))) {
            continue;
        }
        let a = ctx.upload(&random(n * n, 11))?;
        let x = ctx.upload(&random(n, 12))?;
        let mut y = ctx.upload(&random(n, 13))?;
        // The rank updates' and packed cases' operands; at 16384 (sgemv only) none.
        let len = |l: usize| if big { 1 } else { l };
        let mut b = ctx.upload(&random(len(n * n), 14))?;
        let ap = ctx.upload(&random(len(n * (n + 1) / 2), 15))?;
        let mut app = ctx.upload(&random(len(n * (n + 1) / 2), 16))?;
        for case in cases {
            let name = format!("{case} {n}");
            if !wanted(&name) || (big && !case.starts_with("sgemv")) {
                continue;
            }
            let (lo, u, nd) = (Uplo::Lower, NoTrans, Diag::NonUnit);
            run(ctx, &name, &mut || match case {
                "sgemv N" | "sgemv T" => {
                    let t = if case == "sgemv T" {
                        Transpose::Trans
                    } else {
                        NoTrans
                    };
                    ctx.sgemv(ColMajor, t, ni, ni, 1.0, &a, ni, &x, 1, 0.5, &mut y, 1)
                }
                "ssymv" => ctx.ssymv(ColMajor, lo, ni, 1.0, &a, ni, &x, 1, 0.5, &mut y, 1),
                "ssymv U" => ctx.ssymv(
                    ColMajor,
                    Uplo::Upper,
                    ni,
                    1.0,
                    &a,
                    ni,
                    &x,
                    1,
                    0.5,
                    &mut y,
                    1,
                ),
                "strmv" => {
                    ctx.scopy(ni, &x, 1, &mut y, 1)?;
                    ctx.strmv(ColMajor, lo, u, nd, ni, &a, ni, &mut y, 1)
                }
                "sspmv" => ctx.sspmv(ColMajor, lo, ni, 1.0, &ap, &x, 1, 0.5, &mut y, 1),
                "sspmv U" => ctx.sspmv(ColMajor, Uplo::Upper, ni, 1.0, &ap, &x, 1, 0.5, &mut y, 1),
                "stpmv" | "stpmv T" => {
                    let t = if case == "stpmv T" {
                        Transpose::Trans
                    } else {
                        u
                    };
                    ctx.scopy(ni, &x, 1, &mut y, 1)?;
                    ctx.stpmv(ColMajor, lo, t, nd, ni, &ap, &mut y, 1)
                }
                "sger" => ctx.sger(ColMajor, ni, ni, 1e-3, &x, 1, &y, 1, &mut b, ni),
                "ssyr" => ctx.ssyr(ColMajor, lo, ni, 1e-3, &x, 1, &mut b, ni),
                "ssyr2" => ctx.ssyr2(ColMajor, lo, ni, 1e-3, &x, 1, &y, 1, &mut b, ni),
                // The table's triangle.
                "ssyr U" => ctx.ssyr(ColMajor, Uplo::Upper, ni, 1e-3, &x, 1, &mut b, ni),
                "ssyr2 U" => {
                    let up = Uplo::Upper;
                    ctx.ssyr2(ColMajor, up, ni, 1e-3, &x, 1, &y, 1, &mut b, ni)
                }
                "sspr2" => ctx.sspr2(ColMajor, lo, ni, 1e-3, &x, 1, &y, 1, &mut app),
                _ => ctx.sspr(ColMajor, lo, ni, 1e-3, &x, 1, &mut app),
            })?;
        }
    }
    let (n, k) = (1usize << 16, 64usize);
    let ni = n as i32;
    let ki = k as i32;
    let names = [
        "sgbmv 2^16 k64",
        "sgbmv T 2^16 k64",
        "stbmv 2^16 k64",
        "stbsv 2^16 k64",
        "ssbmv 2^16 k64",
    ];
    if names.iter().any(|c| wanted(c)) {
        let lda = 2 * k + 1;
        let band = ctx.upload(&random(lda * n, 17))?;
        let x = ctx.upload(&random(n, 18))?;
        let mut y = ctx.upload(&random(n, 19))?;
        // A lower band with a dominant diagonal (row 0 of each column of k + 1), to solve.
        let mut lower = random((k + 1) * n, 20);
        for j in 0..n {
            lower[j * (k + 1)] = k as f32 + 2.0;
        }
        let lower = ctx.upload(&lower)?;
        for name in names {
            if !wanted(name) {
                continue;
            }
            run(ctx, name, &mut || {
                if name.starts_with("sgbmv") {
                    let t = if name.starts_with("sgbmv T") {
                        Transpose::Trans
                    } else {
                        NoTrans
                    };
                    ctx.sgbmv(
                        ColMajor, t, ni, ni, ki, ki, 1.0, &band, lda as i32, &x, 1, 0.5, &mut y, 1,
                    )
                } else if name.starts_with("ssbmv") {
                    let l = Uplo::Lower;
                    ctx.ssbmv(
                        ColMajor,
                        l,
                        ni,
                        ki,
                        1.0,
                        &lower,
                        ki + 1,
                        &x,
                        1,
                        0.5,
                        &mut y,
                        1,
                    )
                } else if name.starts_with("stbsv") {
                    ctx.scopy(ni, &x, 1, &mut y, 1)?;
                    let (l, t, d) = (Uplo::Lower, NoTrans, Diag::NonUnit);
                    ctx.stbsv(ColMajor, l, t, d, ni, ki, &lower, ki + 1, &mut y, 1)
                } else {
                    ctx.scopy(ni, &x, 1, &mut y, 1)?;
                    ctx.stbmv(
                        ColMajor,
                        Uplo::Lower,
                        NoTrans,
                        Diag::NonUnit,
                        ni,
                        ki,
                        &band,
                        lda as i32,
                        &mut y,
                        1,
                    )
                }
            })?;
        }
    }
    Ok(())
}
