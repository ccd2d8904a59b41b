//! What a program's first calls cost: context creation, then for each size a first sgemm
//! (which compiles its kernels and allocates its scratch textures) against the second one,
//! with the result read back each time. Run it with an empty driver shader cache to see a
//! first run of a program (NVIDIA: `__GL_SHADER_DISK_CACHE_PATH=$(mktemp -d)`), and with
//! `RUST_LOG=info` to see the device, tuning mode and cache (`RUST_LOG=fragblas=debug` adds
//! each compile, new scratch texture and new buffer with its cost).
//!
//! ```text
//! cargo run --release --example first_call -- 64 1024 4096
//! ```
use std::time::Instant;

use fragblas::{cblas, Context, Layout, Transpose::NoTrans};

fn main() -> Result<(), fragblas::Error> {
    let start = Instant::now();
    // Each log line carries the milliseconds since the program started, so that
    // `RUST_LOG=fragblas=debug` shows where a first call's time goes (compiles, new scratch
    // textures and buffers, each logged with its own cost).
    env_logger::Builder::from_default_env()
        .format(move |buf, record| {
            use std::io::Write;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            writeln!(buf, "[{ms:9.2} ms {}] {}", record.level(), record.args())
        })
        .init();
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![64, 1024]
    } else {
        sizes
    };
    let ctx = Context::new()?;
    let created = start.elapsed();
    println!(
        "context: {:.1} ms ({}, tuning {:?})",
        created.as_secs_f64() * 1e3,
        ctx.info().renderer,
        ctx.tuning()
    );
    for n in sizes {
        let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 * 0.25 - 0.75).collect();
        let mut c = vec![0.0f32; n * n];
        let ni = n as i32;
        let mut call = || -> Result<f64, fragblas::Error> {
            let t = Instant::now();
            cblas::sgemm(
                &ctx,
                Layout::ColMajor,
                NoTrans,
                NoTrans,
                ni,
                ni,
                ni,
                1.0,
                &a,
                ni,
                &a,
                ni,
                0.0,
                &mut c,
                ni,
            )?;
            Ok(t.elapsed().as_secs_f64() * 1e3)
        };
        let first = call()?;
        let second = call()?;
        let third = call()?;
        println!(
            "sgemm {n}^3 end to end: first {first:.2} ms, second {second:.2} ms, third {third:.2} ms \
             (first / warm = {:.2}x, kernel {})",
            first / second.min(third),
            ctx.sgemm_kernel_for(n, n, n).name()
        );
    }
    println!(
        "whole program so far: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
