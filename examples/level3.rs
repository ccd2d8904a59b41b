//! Times each level-3 routine beside sgemm at one size, one call at a time (after a warm-up
//! call), with the GFLOP/s of its own flop count and the fraction of sgemm's: the numbers
//! behind the level-3 targets, without the table's CPU runs and checks.
//!
//! ```text
//! cargo run --release --example level3 -- 4096 [runs] [kernel]
//! ```
//! `kernel` pins the sgemm kernel (`Generic`, `Mrt4`, `Strip4`, ...; see `GemmKernel`)
//! under every routine; by default the context's tuning mode decides.

use std::time::Instant;

use fragblas::{Context, Diag, GemmKernel, Layout::ColMajor, Side, Transpose::NoTrans, Uplo};

fn main() -> Result<(), fragblas::Error> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let ctx = Context::new()?;
    if let Some(k) = args.get(3).and_then(|s| GemmKernel::from_name(s)) {
        ctx.set_gemm_kernel(k);
    }
    println!(
        "{} ({}), n = {n}, best of {runs}, tuning {:?}",
        ctx.info().renderer,
        ctx.info().version,
        ctx.tuning()
    );
    let ni = n as i32;
    let v: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
        .collect();
    // A triangle fit for solving: a heavy diagonal.
    let t: Vec<f32> = (0..n * n)
        .map(|i| if i % n == i / n { 2.0 } else { v[i] / n as f32 })
        .collect();
    let (a, b, tri) = (ctx.upload(&v)?, ctx.upload(&v)?, ctx.upload(&t)?);
    let mut c = ctx.upload(&v)?;
    let nf = n as f64;
    let time = |name: &str, flops: f64, f: &mut dyn FnMut() -> fragblas::Result<()>| {
        let run = |f: &mut dyn FnMut() -> fragblas::Result<()>| {
            let t0 = Instant::now();
            f()?;
            ctx.finish()?;
            Ok::<f64, fragblas::Error>(t0.elapsed().as_secs_f64())
        };
        let first = run(f)?;
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            best = best.min(run(f)?);
        }
        let g = flops / best / 1e9;
        println!("{name:<8} first {first:>9.4} s  best {best:>9.4} s  {g:>8.1} GFLOP/s");
        Ok::<f64, fragblas::Error>(g)
    };
    let cube = nf * nf * nf;
    let gemm = time("sgemm", 2.0 * cube, &mut || {
        ctx.sgemm(
            ColMajor, NoTrans, NoTrans, ni, ni, ni, 1.0, &a, ni, &b, ni, 0.5, &mut c, ni,
        )
    })?;
    let (l, u, d) = (Side::Left, Uplo::Upper, Diag::NonUnit);
    let rows = [
        ("ssymm", 2.0 * cube),
        ("ssyrk", cube),
        ("ssyr2k", 2.0 * cube),
        ("strmm", cube),
        ("strsm", cube),
    ];
    for (name, flops) in rows {
        let g = time(name, flops, &mut || match name {
            "ssymm" => ctx.ssymm(ColMajor, l, u, ni, ni, 1.0, &a, ni, &b, ni, 0.5, &mut c, ni),
            "ssyrk" => ctx.ssyrk(ColMajor, u, NoTrans, ni, ni, 1.0, &a, ni, 0.5, &mut c, ni),
            "ssyr2k" => ctx.ssyr2k(
                ColMajor, u, NoTrans, ni, ni, 1.0, &a, ni, &b, ni, 0.5, &mut c, ni,
            ),
            "strmm" => ctx.strmm(ColMajor, l, u, NoTrans, d, ni, ni, 1.0, &a, ni, &mut c, ni),
            _ => ctx.strsm(
                ColMajor, l, u, NoTrans, d, ni, ni, 1.0, &tri, ni, &mut c, ni,
            ),
        })?;
        println!("{:<8} {:>5.1}% of sgemm", "", 100.0 * g / gemm);
    }
    Ok(())
}
