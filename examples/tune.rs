//! Times every sgemm kernel at a few square sizes beside the device's fragment FMA ceiling,
//! and records the fastest per shape class in the tuning cache (what `GemmKernel::Auto`
//! then uses). The per-kernel numbers in BENCHMARKS.md come from this program.
//!
//! cargo run --release --example tune -- [--sizes 256,512,1024]
use fragblas::{Context, GemmKernel};

fn main() -> Result<(), fragblas::Error> {
    let ctx = Context::new()?;
    let mut sizes: Vec<usize> = if ctx.info().software {
        vec![256, 512, 1024]
    } else {
        vec![1024, 2048, 4096, 8192]
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--sizes") {
        sizes = args
            .get(i + 1)
            .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
            .unwrap_or_default();
    }
    ctx.warm_up()?;
    let ceil = ctx.calibrate()?;
    println!("device: {} ({})", ctx.info().renderer, ctx.info().version);
    println!("ceilings: {ceil}");
    println!(
        "tuning mode {:?}, cache {}",
        ctx.tuning(),
        ctx.tuning_cache_file()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "none".into())
    );
    print!("{:>6}", "n");
    for k in GemmKernel::ALL {
        print!(" {:>14}", k.name());
    }
    println!("  chosen");
    for &n in &sizes {
        let r = ctx.tune_sgemm(n, n, n)?;
        print!("{n:>6}");
        for k in GemmKernel::ALL {
            match r.gflops(k) {
                Some(g) => print!(" {:>7.1} ({:>3.0}%)", g, 100.0 * g / ceil.fma_gflops),
                None => print!(" {:>14}", "-"),
            }
        }
        println!("  {}", r.chosen.name());
    }
    println!(
        "GFLOP/s (percent of the fragment FMA ceiling); best of 2 runs after a warm-up, or one \
         run from 2^32 multiply-adds (4096^3 and up)."
    );
    Ok(())
}
