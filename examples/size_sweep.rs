//! Times saxpy, sdot and a device copy 15 times each at sizes 2^24..2^28 (then 2^26 and 2^25
//! again), one context, data resident, each call followed by its sync. Shows warm-up
//! effects and whether a size is slow on its own or only inside a longer run.
//!
//! `cargo run --release --example size_sweep`
use std::time::Instant;
fn main() -> Result<(), fragblas::Error> {
    let ctx = fragblas::Context::new()?;
    ctx.warm_up()?;
    for e in [24u32, 25, 26, 27, 28, 26, 25] {
        let n = 1usize << e;
        let x = ctx.upload(&vec![1.0; n])?;
        let mut y = ctx.upload(&vec![2.0; n])?;
        let mut ts = vec![];
        for _ in 0..15 {
            let t = Instant::now();
            ctx.saxpy(n as i32, 1.0, &x, 1, &mut y, 1)?;
            ctx.finish()?;
            ts.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mut ds = vec![];
        for _ in 0..15 {
            let t = Instant::now();
            let _ = ctx.sdot(n as i32, &x, 1, &y, 1)?;
            ds.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mut cs = vec![];
        let mut z = ctx.zeros(n)?;
        for _ in 0..15 {
            let t = Instant::now();
            z.copy_from(&y)?;
            ctx.finish()?;
            cs.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let r = |v: &[f64]| {
            v.iter()
                .map(|t| (t * 100.0).round() / 100.0)
                .collect::<Vec<_>>()
        };
        println!(
            "2^{e}: saxpy ms {:?}\n   sdot ms {:?}\n   blit ms {:?}",
            r(&ts),
            r(&ds),
            r(&cs)
        );
    }
    Ok(())
}
