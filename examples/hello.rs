//! The README's first example: open a headless context, run saxpy and sdot on the GPU.
//!
//! Run with `cargo run --release --example hello`.

use fragblas::Context;

fn main() -> Result<(), fragblas::Error> {
    let ctx = Context::new()?;
    let info = ctx.info();
    println!(
        "device {}: {} / {} / {} (max texture {}, draw buffers {}, software: {})",
        info.device_index,
        info.renderer,
        info.vendor,
        info.version,
        info.max_texture_size,
        info.max_draw_buffers,
        info.software
    );
    let n: i32 = 1_000_000;
    let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 5) as f32 * 0.5).collect();
    let gx = ctx.upload(&x)?;
    let mut gy = ctx.upload(&y)?;
    ctx.saxpy(n, 2.0, &gx, 1, &mut gy, 1)?; // y = 2x + y
    let dot = ctx.sdot(n, &gx, 1, &gy, 1)?;
    let host: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| *a as f64 * (2.0 * *a + *b) as f64)
        .sum();
    println!("x . (2x + y) = {dot} on the GPU, {host} on the CPU");
    Ok(())
}
