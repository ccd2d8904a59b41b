//! Measures sdot (resident, including the scalar readback) for several reduction fan-ins,
//! the data behind `DEFAULT_REDUCE_FAN_IN`.
//!
//! `cargo run --release --example fan_in [-- MAX_LOG2]`
use std::time::Instant;

fn main() -> Result<(), fragblas::Error> {
    let max_log2: u32 = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(22);
    let ctx = fragblas::Context::new()?;
    ctx.warm_up()?;
    println!("device: {}", ctx.info().renderer);
    let fans = [2u32, 4, 8, 16, 32, 64];
    print!("{:>6}", "n");
    for f in fans {
        print!(" {:>10}", format!("fan {f}"));
    }
    println!("   (median seconds per sdot)");
    for e in (12..=max_log2).step_by(2) {
        let n = 1usize << e;
        let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
        let gx = ctx.upload(&x)?;
        let gy = ctx.upload(&x)?;
        print!("{:>6}", format!("2^{e}"));
        for f in fans {
            ctx.set_reduce_fan_in(f)?;
            let mut times = Vec::new();
            ctx.sdot(n as i32, &gx, 1, &gy, 1)?;
            for _ in 0..9 {
                let t = Instant::now();
                ctx.sdot(n as i32, &gx, 1, &gy, 1)?;
                times.push(t.elapsed().as_secs_f64());
            }
            times.sort_by(|a, b| a.total_cmp(b));
            print!(" {:>10.3e}", times[4]);
        }
        println!();
    }
    Ok(())
}
