//! What a slow level-1 run pays for: times each of 15 consecutive resident saxpy and sdot
//! calls (each followed by its sync) at one size in three settings, on one pair of
//! buffers uploaded once:
//! - `back to back`: nothing else runs between the calls;
//! - `after e2e`: each call follows an end-to-end call of the same routine on host slices
//!   (upload, compute, read back), as the benchmark table interleaves them;
//! - `after idle`: the calls follow a one-second pause of the GPU;
//! - `after spin-up`: the calls follow 0.3 s of the same call (the benchmark table's
//!   warm-up on hardware devices).
//!
//! `cargo run --release --example level1_stability -- [LOG2 ...]` (default 26 28)
use std::time::{Duration, Instant};

use fragblas::{cblas, Context};

fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn show(what: &str, n: usize, bytes_per_element: f64, times: &[f64]) {
    let mut sorted = times.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let median = sorted[sorted.len() / 2];
    let gbs = |t: f64| bytes_per_element * n as f64 / (t * 1e-3) / 1e9;
    let list: Vec<String> = times.iter().map(|t| format!("{t:.2}")).collect();
    println!(
        "  {what:<24} median {median:>7.3} ms ({:>5.0} GB/s), first {:>5.0} GB/s: {}",
        gbs(median),
        gbs(times[0]),
        list.join(" ")
    );
}

fn main() -> Result<(), fragblas::Error> {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![26, 28]
    } else {
        sizes
    };
    let ctx = Context::new()?;
    ctx.warm_up()?;
    println!("device: {}", ctx.info().renderer);
    for e in sizes {
        let n = 1usize << e;
        let ni = n as i32;
        let x: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
        let mut y: Vec<f32> = (0..n).map(|i| (i % 5) as f32 - 2.0).collect();
        let gx = ctx.upload(&x)?;
        let mut gy = ctx.upload(&y)?;
        println!("2^{e} floats");
        let saxpy = |gy: &mut fragblas::Buffer| {
            ms(|| {
                ctx.saxpy(ni, 0.5, &gx, 1, gy, 1).unwrap();
                ctx.finish().unwrap();
            })
        };
        let sdot = |gy: &fragblas::Buffer| {
            ms(|| _ = std::hint::black_box(ctx.sdot(ni, &gx, 1, gy, 1).unwrap()))
        };
        let t: Vec<f64> = (0..15).map(|_| saxpy(&mut gy)).collect();
        show("saxpy back to back", n, 12.0, &t);
        let t: Vec<f64> = (0..15).map(|_| sdot(&gy)).collect();
        show("sdot back to back", n, 8.0, &t);
        let t: Vec<f64> = (0..15)
            .map(|_| {
                cblas::saxpy(&ctx, ni, 0.5, &x, 1, &mut y, 1).unwrap();
                saxpy(&mut gy)
            })
            .collect();
        show("saxpy after e2e", n, 12.0, &t);
        let t: Vec<f64> = (0..15)
            .map(|_| {
                cblas::sdot(&ctx, ni, &x, 1, &y, 1).unwrap();
                sdot(&gy)
            })
            .collect();
        show("sdot after e2e", n, 8.0, &t);
        std::thread::sleep(Duration::from_secs(1));
        let t: Vec<f64> = (0..15).map(|_| saxpy(&mut gy)).collect();
        show("saxpy after idle", n, 12.0, &t);
        std::thread::sleep(Duration::from_secs(1));
        let t: Vec<f64> = (0..15).map(|_| sdot(&gy)).collect();
        show("sdot after idle", n, 8.0, &t);
        let spun = |f: &mut dyn FnMut() -> f64| {
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(300) {
                f();
            }
            (0..15).map(|_| f()).collect::<Vec<f64>>()
        };
        let t = spun(&mut || saxpy(&mut gy));
        show("saxpy after spin-up", n, 12.0, &t);
        let t = spun(&mut || sdot(&gy));
        show("sdot after spin-up", n, 8.0, &t);
    }
    Ok(())
}
