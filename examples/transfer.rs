//! Host <-> device transfer rates: direct upload (glTexSubImage2D from the caller's slice,
//! `Buffer::write_direct`), staged
//! upload (through a pixel-unpack buffer, `Buffer::write_staged`), blocking
//! download (glReadPixels into the caller's slice) and asynchronous download (pixel buffer +
//! fence, then a mapped copy) into a new vector (`wait`) or into the caller's slice
//! (`wait_into`), and the host's own share of an asynchronous read (start + copy-out, without
//! the wait for the GPU, which the host can spend on other work). Median of 7 runs each.
//!
//! `cargo run --release --example transfer [-- MAX_LOG2]`
use std::time::Instant;

fn median(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..7)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[3]
}

fn main() -> Result<(), fragblas::Error> {
    let max_log2: u32 = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let ctx = fragblas::Context::new()?;
    println!("device: {}", ctx.info().renderer);
    println!(
        "{:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "floats", "upload GB/s", "staged", "read GB/s", "async GB/s", "async_into", "async host"
    );
    for e in (16..=max_log2).step_by(2) {
        let n = 1usize << e;
        let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut b = ctx.upload(&data)?;
        let gb = (n * 4) as f64 / 1e9;
        let up = median(|| {
            b.write_direct(&data).unwrap();
            ctx.finish().unwrap();
        });
        let staged = median(|| {
            b.write_staged(&data).unwrap();
            ctx.finish().unwrap();
        });
        let mut out = vec![0.0f32; n];
        let down = median(|| b.read_into(&mut out).unwrap());
        let asy = median(|| {
            out = b.read_async().unwrap().wait().unwrap();
        });
        assert_eq!(out[n - 1], (n - 1) as f32);
        out.iter_mut().for_each(|v| *v = 0.0);
        let asy_into = median(|| b.read_async().unwrap().wait_into(&mut out).unwrap());
        assert_eq!(out[n - 1], (n - 1) as f32);
        // The host's share of an asynchronous read: starting it and copying out of the
        // finished pixel buffer; the wait in between is time the host can spend elsewhere.
        let mut host = Vec::with_capacity(7);
        for _ in 0..8 {
            let t = Instant::now();
            let p = b.read_async().unwrap();
            let started = t.elapsed();
            while !p.is_ready().unwrap() {
                std::hint::spin_loop();
            }
            let t = Instant::now();
            p.wait_into(&mut out).unwrap();
            host.push((started + t.elapsed()).as_secs_f64());
        }
        host.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{:>6} {:>12.2} {:>12.2} {:>12.2} {:>12.2} {:>12.2} {:>12.2}",
            format!("2^{e}"),
            gb / up,
            gb / staged,
            gb / down,
            gb / asy,
            gb / asy_into,
            gb / host[4]
        );
    }
    Ok(())
}
