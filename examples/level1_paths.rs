//! Times sscal, scopy, sswap and saxpy (unit stride, data resident) on both of their paths:
//! rendering a new texture one texel per fragment, and updating in place through image
//! stores (`ContextOptions::image_stores`). Best of 10 calls after a warm-up, each call
//! followed by a finish; GB/s counts the bytes the BLAS routine must move (saxpy 12 per
//! element, sswap 16, sscal and scopy 8), beside the device's ceilings.
//!
//! `cargo run --release --example level1_paths [max log2 size, default 24 on software, 28]`
use std::time::{Duration, Instant};

use fragblas::{Buffer, Context, ContextOptions, Tuning};

fn best(ctx: &Context, mut f: impl FnMut() -> Result<(), fragblas::Error>) -> f64 {
    f().unwrap();
    ctx.finish().unwrap();
    let mut b = Duration::MAX;
    for _ in 0..10 {
        let t = Instant::now();
        f().unwrap();
        ctx.finish().unwrap();
        b = b.min(t.elapsed());
    }
    b.as_secs_f64()
}

fn context(image_stores: bool) -> Context {
    Context::with_options(ContextOptions {
        tuning: Some(Tuning::Off),
        image_stores: Some(image_stores),
        ..Default::default()
    })
    .unwrap()
}

fn main() {
    let probe = context(false);
    let ceilings = probe.calibrate().unwrap();
    let max_log = std::env::args()
        .nth(1)
        .map(|a| a.parse::<u32>().expect("max log2 size"))
        .unwrap_or(if probe.info().software { 24 } else { 28 });
    println!(
        "device: {} ({})\nceilings: {ceilings}",
        probe.info().renderer,
        probe.info().version
    );
    drop(probe);
    println!(
        "{:>8} {:>9} {:>8} {:>10} {:>8} {:>8}",
        "routine", "path", "size", "s", "GB/s", "% read"
    );
    for in_place in [false, true] {
        let ctx = context(in_place);
        if in_place && !ctx.level1_in_place() {
            println!("no image stores on this device");
            break;
        }
        let path = if in_place { "in place" } else { "render" };
        for e in (16..=max_log).step_by(2) {
            let n = 1usize << e;
            let x0: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.25).collect();
            let x = ctx.upload(&x0).unwrap();
            let mut y: Buffer = ctx.upload(&x0).unwrap();
            let mut x2: Buffer = ctx.upload(&x0).unwrap();
            let ni = n as i32;
            let rows: [(&str, f64, f64); 4] = [
                (
                    "saxpy",
                    12.0,
                    best(&ctx, || ctx.saxpy(ni, 0.5, &x, 1, &mut y, 1)),
                ),
                ("sscal", 8.0, best(&ctx, || ctx.sscal(ni, 0.999, &mut y, 1))),
                ("scopy", 8.0, best(&ctx, || ctx.scopy(ni, &x, 1, &mut y, 1))),
                (
                    "sswap",
                    16.0,
                    best(&ctx, || ctx.sswap(ni, &mut x2, 1, &mut y, 1)),
                ),
            ];
            for (name, bytes, t) in rows {
                let gbps = bytes * n as f64 / t / 1e9;
                println!(
                    "{name:>8} {path:>9} {:>8} {t:>10.3e} {gbps:>8.1} {:>7.1}%",
                    format!("2^{e}"),
                    100.0 * gbps / ceilings.read_gbps
                );
            }
        }
    }
}
