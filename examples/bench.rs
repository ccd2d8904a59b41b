//! The benchmark table: per routine and size, CPU BLAS (OpenBLAS) time, GPU resident and
//! end-to-end times, speedup, GFLOP/s, GB/s and the fraction of the device's fragment
//! pipeline ceiling. Every GPU result is checked against the CPU BLAS before its time is
//! printed; a wrong result prints an error instead.
//!
//! ```text
//! cargo run --release --example bench               # full table on the default device
//! cargo run --release --example bench -- --quick    # under a minute on llvmpipe
//! cargo run --release --example bench -- --json     # one JSON object per line
//! cargo run --release --example bench -- --only sgemm,saxpy --max 4096
//! cargo run --release --example bench -- --json-out results.jsonl   # table, and JSON to a file
//! ```
//!
//! Modes: `resident` times the routine on data already on the GPU, up to a `glFinish` (sdot
//! includes the readback of its scalar: a host value needs it); `e2e` times the CBLAS-shaped
//! host call: upload, compute, download. `cpu` is OpenBLAS with one thread per core.

use std::time::{Duration, Instant};

use fragblas::{cblas, Buffer, Ceilings, Context};

#[path = "../benches/square/mod.rs"]
mod square;
use square::{cpu, random};

struct Options {
    quick: bool,
    json: bool,
    only: Option<Vec<String>>,
    max: Option<usize>,
    json_out: Option<String>,
}

fn parse_args() -> Options {
    let mut o = Options {
        quick: false,
        json: false,
        only: None,
        max: None,
        json_out: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--json" => o.json = true,
            "--only" => {
                o.only = args
                    .next()
                    .map(|v| v.split(',').map(str::to_string).collect())
            }
            "--max" => o.max = args.next().and_then(|v| v.parse().ok()),
            "--json-out" => o.json_out = args.next(),
            "--help" | "-h" => {
                eprintln!(
                    "usage: bench [--quick] [--json] [--only saxpy,sdot,sgemv,sgemm] [--max N]"
                );
                std::process::exit(0);
            }
            other => {
                eprintln!("unknown argument {other:?} (try --help)");
                std::process::exit(2);
            }
        }
    }
    o
}

/// Median of timed runs after one warm-up, repeated until `budget` is spent (at least 3,
/// at most 25 runs).
fn time_it(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < 3 || (start.elapsed() < budget && times.len() < 25) {
        let t = Instant::now();
        f();
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}

/// One routine at one size: what it costs and how to run it each way.
struct Measured {
    routine: &'static str,
    m: usize,
    n: usize,
    k: usize,
    flops: f64,
    bytes: f64,
    bound_by_flops: bool,
    cpu: f64,
    resident: Result<f64, String>,
    e2e: Result<f64, String>,
}

fn check(what: &str, got: &[f32], want: &[f32], tol: impl Fn(usize) -> f32) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > tol(i) || (g - w).is_nan() {
            return Err(format!(
                "{what}: WRONG RESULT at element {i}: gpu {g}, cpu {w} (tolerance {})",
                tol(i)
            ));
        }
    }
    Ok(())
}

const EPS: f32 = f32::EPSILON;

fn bench_saxpy(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let x = random(n, 1);
    let y0 = random(n, 2);
    let ni = n as i32;
    let mut y = y0.clone();
    let cpu = time_it(budget, || cpu::saxpy(ni, 0.5, &x, &mut y));
    let mut want = y0.clone();
    cpu::saxpy(ni, 0.5, &x, &mut want);
    let gx = ctx.upload(&x).unwrap();
    let mut gy = ctx.upload(&y0).unwrap();
    ctx.saxpy(ni, 0.5, &gx, 1, &mut gy, 1).unwrap();
    // One FMA rounding on either side.
    let verdict = check("saxpy", &gy.to_vec().unwrap(), &want, |i| {
        2.0 * EPS * (want[i].abs() + 1.0)
    });
    let resident = verdict.clone().map(|_| {
        time_it(budget, || {
            ctx.saxpy(ni, 0.5, &gx, 1, &mut gy, 1).unwrap();
            ctx.finish().unwrap();
        })
    });
    let mut host = y0.clone();
    let e2e = verdict.map(|_| {
        time_it(budget, || {
            cblas::saxpy(ctx, ni, 0.5, &x, 1, &mut host, 1).unwrap()
        })
    });
    Measured {
        routine: "saxpy",
        m: 0,
        n,
        k: 0,
        flops: 2.0 * n as f64,
        bytes: 12.0 * n as f64,
        bound_by_flops: false,
        cpu,
        resident,
        e2e,
    }
}

fn bench_sdot(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let x = random(n, 3);
    let y = random(n, 4);
    let ni = n as i32;
    let mut want = 0.0;
    let cpu = time_it(budget, || want = cpu::sdot(ni, &x, &y));
    let gx = ctx.upload(&x).unwrap();
    let gy = ctx.upload(&y).unwrap();
    let got = ctx.sdot(ni, &gx, 1, &gy, 1).unwrap();
    let exact: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
    let abs: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (*a as f64 * *b as f64).abs())
        .sum();
    // Triangle inequality: the CPU's measured error plus the GPU's tree bound.
    let depth = 2.0 + ctx.reduce_fan_in() as f64 * ((n as f64).log2() / 2.0 + 2.0);
    let tol = (want as f64 - exact).abs() + depth * EPS as f64 * abs;
    let verdict = if ((got - want) as f64).abs() <= tol {
        Ok(())
    } else {
        Err(format!(
            "sdot: WRONG RESULT: gpu {got}, cpu {want} (tolerance {tol})"
        ))
    };
    let resident = verdict.clone().map(|_| {
        time_it(budget, || {
            ctx.sdot(ni, &gx, 1, &gy, 1).unwrap();
        })
    });
    let e2e = verdict.map(|_| {
        time_it(budget, || {
            cblas::sdot(ctx, ni, &x, 1, &y, 1).unwrap();
        })
    });
    Measured {
        routine: "sdot",
        m: 0,
        n,
        k: 0,
        flops: 2.0 * n as f64,
        bytes: 8.0 * n as f64,
        bound_by_flops: false,
        cpu,
        resident,
        e2e,
    }
}

fn bench_sgemv(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let a = random(n * n, 5);
    let x = random(n, 6);
    let y0 = random(n, 7);
    let ni = n as i32;
    let mut y = y0.clone();
    let cpu = time_it(budget, || cpu::sgemv(ni, &a, &x, 0.5, &mut y));
    let mut want = y0.clone();
    cpu::sgemv(ni, &a, &x, 0.5, &mut want);
    let ga = ctx.upload(&a).unwrap();
    let gx = ctx.upload(&x).unwrap();
    let mut gy = ctx.upload(&y0).unwrap();
    let run = |gy: &mut Buffer| square::sgemv_device(ctx, ni, &ga, &gx, 0.5, gy);
    run(&mut gy);
    // |a|, |x| <= 1: (|A||x|)_i <= n; sequential sums of n products on both sides.
    let verdict = check("sgemv", &gy.to_vec().unwrap(), &want, |i| {
        2.0 * (n as f32 + 2.0) * EPS * (n as f32 + y0[i].abs())
    });
    let resident = verdict.clone().map(|_| {
        time_it(budget, || {
            run(&mut gy);
            ctx.finish().unwrap();
        })
    });
    let mut host = y0.clone();
    let e2e = verdict.map(|_| {
        time_it(budget, || {
            square::sgemv_host(ctx, ni, &a, &x, 0.5, &mut host)
        })
    });
    Measured {
        routine: "sgemv",
        m: n,
        n,
        k: 0,
        flops: 2.0 * (n * n) as f64,
        bytes: 4.0 * (n * n + 3 * n) as f64,
        bound_by_flops: false,
        cpu,
        resident,
        e2e,
    }
}

fn bench_sgemm(ctx: &Context, n: usize, budget: Duration) -> Measured {
    let a = random(n * n, 8);
    let b = random(n * n, 9);
    let c0 = random(n * n, 10);
    let ni = n as i32;
    let mut c = c0.clone();
    let cpu = time_it(budget, || cpu::sgemm(ni, &a, &b, 0.0, &mut c));
    let mut want = c0.clone();
    cpu::sgemm(ni, &a, &b, 0.0, &mut want);
    // |A||B| bounds the rounding of both sides: (k + 2) eps each.
    let abs = |v: &[f32]| v.iter().map(|x| x.abs()).collect::<Vec<_>>();
    let mut bound = vec![0.0; n * n];
    cpu::sgemm(ni, &abs(&a), &abs(&b), 0.0, &mut bound);
    let ga = ctx.upload(&a).unwrap();
    let gb = ctx.upload(&b).unwrap();
    let mut gc = ctx.upload(&c0).unwrap();
    let run = |gc: &mut Buffer| square::sgemm_device(ctx, ni, &ga, &gb, 0.0, gc);
    run(&mut gc);
    let verdict = check("sgemm", &gc.to_vec().unwrap(), &want, |i| {
        2.0 * (n as f32 + 2.0) * EPS * bound[i]
    });
    let resident = verdict.clone().map(|_| {
        time_it(budget, || {
            run(&mut gc);
            ctx.finish().unwrap();
        })
    });
    let mut host = c0.clone();
    let e2e = verdict.map(|_| {
        time_it(budget, || {
            square::sgemm_host(ctx, ni, &a, &b, 0.0, &mut host)
        })
    });
    let nn = n as f64;
    Measured {
        routine: "sgemm",
        m: n,
        n,
        k: n,
        flops: 2.0 * nn * nn * nn,
        bytes: 4.0 * 3.0 * nn * nn,
        bound_by_flops: true,
        cpu,
        resident,
        e2e,
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.6e}")
    } else {
        "null".into()
    }
}

fn main() {
    let opts = parse_args();
    let threads = square::cpu_blas_on_all_cores();
    let ctx = Context::new().unwrap_or_else(|e| {
        eprintln!("bench: {e}");
        std::process::exit(1)
    });
    ctx.warm_up().expect("kernels compile");
    let info = ctx.info().clone();
    let device = format!("{} ({})", info.renderer, info.version);
    eprintln!("bench: device {device}; calibrating the fragment pipeline...");
    let ceil: Ceilings = ctx.calibrate().expect("calibration");
    eprintln!(
        "bench: {ceil}; CPU BLAS: {}, {threads} threads",
        square::CPU_BLAS
    );

    let sw = info.software;
    let pow2 = |lo: u32, hi: u32, step: u32| {
        (lo..=hi)
            .step_by(step as usize)
            .map(|e| 1usize << e)
            .collect::<Vec<_>>()
    };
    let (level1, gemv, gemm): (Vec<usize>, Vec<usize>, Vec<usize>) = match (sw, opts.quick) {
        (true, true) => (pow2(12, 20, 4), vec![256, 1024], vec![64, 256, 512]),
        (true, false) => (
            pow2(10, 24, 2),
            vec![256, 512, 1024, 2048, 4096],
            vec![64, 128, 256, 512, 1024],
        ),
        (false, true) => (pow2(16, 24, 4), vec![1024, 4096], vec![256, 1024, 2048]),
        (false, false) => (
            pow2(16, 28, 2),
            vec![1024, 2048, 4096, 8192, 16384],
            vec![256, 512, 1024, 2048, 4096, 8192],
        ),
    };
    let budget = Duration::from_millis(if opts.quick { 60 } else { 400 });
    type Bench = fn(&Context, usize, Duration) -> Measured;
    let mut plan: Vec<(&str, Bench, usize)> = Vec::new();
    for &n in &level1 {
        plan.push(("saxpy", bench_saxpy, n));
    }
    for &n in &level1 {
        plan.push(("sdot", bench_sdot, n));
    }
    for &n in &gemv {
        plan.push(("sgemv", bench_sgemv, n));
    }
    for &n in &gemm {
        plan.push(("sgemm", bench_sgemm, n));
    }
    plan.retain(|(name, _, n)| {
        opts.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| x == name))
            && opts.max.is_none_or(|m| *n <= m)
    });

    if !opts.json {
        println!("device: {device}");
        println!("ceilings: {ceil}");
        println!("CPU BLAS: {}, {threads} threads", square::CPU_BLAS);
        println!(
            "{:<6} {:>11} {:>11} {:>11} {:>11} {:>8} {:>9} {:>8} {:>8}",
            "", "size", "cpu s", "gpu res s", "gpu e2e s", "speedup", "GFLOP/s", "GB/s", "ceiling"
        );
    }
    let mut json_file = opts
        .json_out
        .as_ref()
        .map(|p| std::fs::File::create(p).expect("creating the JSON file"));
    let total = plan.len();
    let mut failures = 0;
    for (i, (name, f, n)) in plan.into_iter().enumerate() {
        eprintln!("bench: [{}/{}] {name} {n}", i + 1, total);
        let r = f(&ctx, n, budget);
        let size = match r.routine {
            "sgemm" => format!("{0}^3", r.n),
            "sgemv" => format!("{0}^2", r.n),
            _ => format!("2^{}", r.n.trailing_zeros()),
        };
        let ceiling_of = |secs: f64| {
            if r.bound_by_flops {
                r.flops / secs / 1e9 / ceil.fma_gflops
            } else {
                r.bytes / secs / 1e9 / ceil.bandwidth_gbps()
            }
        };
        {
            let modes = [
                ("cpu", Ok(r.cpu)),
                ("resident", r.resident.clone()),
                ("e2e", r.e2e.clone()),
            ];
            for (mode, t) in modes {
                let line = match t {
                    Ok(s) => format!(
                        "{{\"routine\":{},\"m\":{},\"n\":{},\"k\":{},\"mode\":\"{mode}\",\"seconds\":{},\"gflops\":{},\"gbps\":{},\"ceiling_fraction\":{},\"device\":{}}}",
                        json_str(r.routine), r.m, r.n, r.k, json_num(s),
                        json_num(r.flops / s / 1e9), json_num(r.bytes / s / 1e9),
                        if mode == "cpu" { "null".into() } else { json_num(ceiling_of(s)) },
                        json_str(&device)
                    ),
                    Err(e) => format!(
                        "{{\"routine\":{},\"m\":{},\"n\":{},\"k\":{},\"mode\":\"{mode}\",\"error\":{},\"device\":{}}}",
                        json_str(r.routine), r.m, r.n, r.k, json_str(&e), json_str(&device)
                    ),
                };
                if opts.json {
                    println!("{line}");
                }
                if let Some(f) = json_file.as_mut() {
                    use std::io::Write;
                    writeln!(f, "{line}").expect("writing the JSON file");
                }
            }
        }
        if !opts.json {
            match (&r.resident, &r.e2e) {
                (Ok(res), Ok(e2e)) => println!(
                    "{:<6} {:>11} {:>11.3e} {:>11.3e} {:>11.3e} {:>7.2}x {:>9.2} {:>8.2} {:>7.1}%",
                    r.routine,
                    size,
                    r.cpu,
                    res,
                    e2e,
                    r.cpu / res,
                    r.flops / res / 1e9,
                    r.bytes / res / 1e9,
                    100.0 * ceiling_of(*res)
                ),
                (Err(e), _) | (_, Err(e)) => println!("{:<6} {:>11} ERROR {e}", r.routine, size),
            }
            if r.routine == "sgemm" {
                println!(
                    "{:<6} {:>11} kernel {} (tuning {:?})",
                    "",
                    "",
                    ctx.sgemm_kernel_for(r.m, r.n, r.k).name(),
                    ctx.tuning()
                );
            }
        }
        if r.resident.is_err() {
            failures += 1;
        }
    }
    if failures > 0 {
        eprintln!("bench: {failures} result(s) did not match the CPU BLAS");
        std::process::exit(1);
    }
}
