//! The benchmark table: every routine at a few sizes, on the CPU BLAS (OpenBLAS, every
//! core), on the GPU with data resident, and end to end through the host API, beside the
//! fragment pipeline's measured ceilings. Every GPU result is checked against the CPU BLAS
//! before its time is taken; a wrong result prints an error instead of a time.
//!
//! ```text
//! cargo run --release -p fragblas-bench                  # the table on the default device
//! cargo run --release -p fragblas-bench -- --quick       # fewer sizes, shorter timing
//! cargo run --release -p fragblas-bench -- --json-out r.jsonl --only sgemm,ssymv --max 4096
//! ```

mod cpu;
mod level1;
mod level2;
mod level3;
mod measure;

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use fragblas::{Ceilings, Context};
use serde::Serialize;

use measure::{Bound, Measured};

/// The fragblas benchmark table.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Fewer sizes and shorter timing (about a minute on Mesa's llvmpipe).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object per line instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write the JSON lines to this file.
    #[arg(long, value_name = "PATH")]
    json_out: Option<String>,
    /// Only these routines (comma-separated, e.g. `sgemm,saxpy`).
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    /// Only sizes up to this (n, or the vector length for level 1).
    #[arg(long)]
    max: Option<usize>,
}

/// Rows of one or more routines at one size.
type Group = fn(&Context, usize, Duration) -> Vec<Measured>;

/// The sizes of each group of rows on a device.
struct Sizes {
    level1: Vec<usize>,
    level2: Vec<usize>,
    gemm: Vec<usize>,
    /// The level-3 routines other than sgemm.
    level3: Vec<usize>,
}

fn sizes(software: bool, quick: bool) -> Sizes {
    let pow2 =
        |lo: u32, hi: u32, step: usize| (lo..=hi).step_by(step).map(|e| 1usize << e).collect();
    match (software, quick) {
        (true, true) => Sizes {
            level1: pow2(12, 20, 4),
            level2: vec![256, 1024],
            gemm: vec![64, 256, 512],
            level3: vec![256, 512],
        },
        (true, false) => Sizes {
            level1: pow2(10, 24, 2),
            level2: vec![256, 1024, 4096],
            gemm: vec![64, 128, 256, 512, 1024],
            level3: vec![256, 512, 1024],
        },
        (false, true) => Sizes {
            level1: pow2(16, 24, 4),
            level2: vec![1024, 4096],
            gemm: vec![256, 1024, 2048],
            level3: vec![1024],
        },
        (false, false) => Sizes {
            level1: pow2(16, 28, 2),
            level2: vec![1024, 4096],
            gemm: vec![256, 512, 1024, 2048, 4096, 8192],
            level3: vec![1024, 4096],
        },
    }
}

/// The first JSON line: what the rows were measured on.
#[derive(Serialize)]
struct DeviceLine<'a> {
    kind: &'static str,
    device: &'a str,
    software: bool,
    date: String,
    cpu_blas: String,
    cpu_threads: usize,
    fma_gflops: f64,
    read_gbps: f64,
    copy_gbps: f64,
    stream_gbps: f64,
}

/// One JSON line per row and mode.
#[derive(Serialize)]
struct RowLine<'a> {
    kind: &'static str,
    routine: &'a str,
    size: &'a str,
    m: usize,
    n: usize,
    k: usize,
    mode: &'static str,
    bound: Bound,
    flops: f64,
    bytes: f64,
    seconds: Option<f64>,
    gflops: Option<f64>,
    gbps: Option<f64>,
    ceiling_fraction: Option<f64>,
    error: Option<&'a str>,
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn legend(software: bool, cpu: &str, threads: usize) -> String {
    let mut s = String::from(
        "Columns: cpu = the CPU BLAS on host data; gpu res = fragblas on data already on the GPU,\n\
         timed up to glFinish (a host result, such as sdot's scalar, includes its read-back);\n\
         gpu e2e = the host API call: upload, compute, download. Times are medians. speedup =\n\
         cpu time / gpu time, resident and end to end. GFLOP/s and GB/s are of the resident run;\n\
         GB/s counts the bytes the definition must move (each operand read once, each output\n\
         written once). ceiling = resident GFLOP/s over the fragment FMA ceiling (flop-bound\n\
         rows, marked F) or GB/s over the read-bandwidth ceiling (byte-bound rows, marked B),\n\
         both measured on this device just now.\n",
    );
    s.push_str(&format!("CPU BLAS: {cpu}, {threads} threads.\n"));
    if software {
        s.push_str(
            "NOTE: this device is a software rasteriser (Mesa llvmpipe): the \"GPU\" is these same\n\
             CPU cores running fragment shaders, so it competes with the CPU BLAS for them and every\n\
             speed-up below 1x is expected. On such a device the table checks correctness and\n\
             relative speed; it is not a GPU measurement.\n",
        );
    }
    s
}

fn main() {
    let args = Args::parse();
    let threads = cpu::all_cores();
    let cpu_name = format!("OpenBLAS ({})", cpu::config());
    let ctx = Context::new().unwrap_or_else(|e| {
        eprintln!("fragblas-bench: {e}");
        std::process::exit(1)
    });
    ctx.warm_up().expect("kernels compile");
    let info = ctx.info().clone();
    let device = format!("{} ({})", info.renderer, info.version);
    eprintln!("fragblas-bench: device {device}; calibrating the fragment pipeline...");
    let ceil: Ceilings = ctx.calibrate().expect("calibration");
    let sz = sizes(info.software, args.quick);
    let budget = Duration::from_millis(if args.quick { 60 } else { 400 });

    let mut plan: Vec<(&[&str], Group, usize)> = Vec::new();
    let groups: [(&[&str], Group, &[usize]); 8] = [
        (
            &["saxpy"],
            |c, n, b| vec![level1::saxpy(c, n, b)],
            &sz.level1,
        ),
        (&["sdot"], |c, n, b| vec![level1::sdot(c, n, b)], &sz.level1),
        (
            &["sgemv", "sgbmv", "ssymv", "ssbmv", "sspmv"],
            level2::products,
            &sz.level2,
        ),
        (
            &["strmv", "stbmv", "stpmv", "strsv", "stbsv", "stpsv"],
            level2::triangular,
            &sz.level2,
        ),
        (
            &["sger", "ssyr", "sspr", "ssyr2", "sspr2"],
            level2::rank,
            &sz.level2,
        ),
        (&["sgemm"], |c, n, b| vec![level3::sgemm(c, n, b)], &sz.gemm),
        (
            &["ssymm", "ssyrk", "ssyr2k", "strmm", "strsm"],
            level3::others,
            &sz.level3,
        ),
        (
            &["sgemm_batched", "sgemm_x1000"],
            |c, n, b| level3::batched(c, n, 1000, b),
            &[64],
        ),
    ];
    for (names, f, ns) in groups {
        for &n in ns {
            plan.push((names, f, n));
        }
    }
    let wanted = |name: &str| {
        args.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| x == name))
    };
    plan.retain(|(names, _, n)| {
        names.iter().any(|r| wanted(r)) && args.max.is_none_or(|m| *n <= m)
    });

    let mut out: Vec<Box<dyn Write>> = Vec::new();
    if let Some(p) = &args.json_out {
        out.push(Box::new(
            std::fs::File::create(p).expect("creating the JSON file"),
        ));
    }
    if args.json {
        out.push(Box::new(std::io::stdout()));
    }
    let mut emit = |line: String| {
        for o in out.iter_mut() {
            writeln!(o, "{line}").expect("writing JSON");
        }
    };
    emit(
        serde_json::to_string(&DeviceLine {
            kind: "device",
            device: &device,
            software: info.software,
            date: today(),
            cpu_blas: cpu_name.clone(),
            cpu_threads: threads,
            fma_gflops: ceil.fma_gflops,
            read_gbps: ceil.bandwidth_gbps(),
            copy_gbps: ceil.copy_gbps,
            stream_gbps: ceil.stream_gbps,
        })
        .expect("JSON"),
    );
    if !args.json {
        println!("device: {device}");
        println!("ceilings: {ceil}");
        print!("{}", legend(info.software, &cpu_name, threads));
        println!(
            "{:<13} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>9} {:>8} {:>9}",
            "",
            "size",
            "cpu s",
            "gpu res s",
            "gpu e2e s",
            "res x",
            "e2e x",
            "GFLOP/s",
            "GB/s",
            "ceiling"
        );
    }
    let total = plan.len();
    let mut failures = 0;
    for (i, (names, f, n)) in plan.iter().enumerate() {
        eprintln!(
            "fragblas-bench: [{}/{}] {} {n}",
            i + 1,
            total,
            names.join(",")
        );
        for r in f(&ctx, *n, budget) {
            if !wanted(r.spec.routine) {
                continue;
            }
            let s = &r.spec;
            let ceiling_of = |secs: f64| match s.bound {
                Bound::Flops => s.flops / secs / 1e9 / ceil.fma_gflops,
                Bound::Bytes => s.bytes / secs / 1e9 / ceil.bandwidth_gbps(),
            };
            for (mode, t) in [
                ("cpu", Ok(r.cpu)),
                ("resident", r.resident.clone()),
                ("e2e", r.e2e.clone()),
            ] {
                let secs = t.as_ref().ok().copied();
                emit(
                    serde_json::to_string(&RowLine {
                        kind: "row",
                        routine: s.routine,
                        size: &s.size,
                        m: s.m,
                        n: s.n,
                        k: s.k,
                        mode,
                        bound: s.bound,
                        flops: s.flops,
                        bytes: s.bytes,
                        seconds: secs,
                        gflops: secs.map(|t| s.flops / t / 1e9),
                        gbps: secs.map(|t| s.bytes / t / 1e9),
                        ceiling_fraction: secs.filter(|_| mode != "cpu").map(ceiling_of),
                        error: t.as_ref().err().map(String::as_str),
                    })
                    .expect("JSON"),
                );
            }
            if !args.json {
                match (&r.resident, &r.e2e) {
                    (Ok(res), Ok(e2e)) => println!(
                        "{:<13} {:>10} {:>10.3e} {:>10.3e} {:>10.3e} {:>7.2}x {:>7.2}x {:>9.2} {:>8.2} {:>7.1}%{}",
                        s.routine,
                        s.size,
                        r.cpu,
                        res,
                        e2e,
                        r.cpu / res,
                        r.cpu / e2e,
                        s.flops / res / 1e9,
                        s.bytes / res / 1e9,
                        100.0 * ceiling_of(*res),
                        if s.bound == Bound::Flops { " F" } else { " B" }
                    ),
                    (Err(e), _) | (_, Err(e)) => println!("{:<13} {:>10} ERROR {e}", s.routine, s.size),
                }
                if s.routine == "sgemm" {
                    println!(
                        "{:<13} {:>10} kernel {} (tuning {:?})",
                        "",
                        "",
                        ctx.sgemm_kernel_for(s.m, s.n, s.k).name(),
                        ctx.tuning()
                    );
                }
            }
            if r.resident.is_err() {
                failures += 1;
            }
        }
    }
    if failures > 0 {
        eprintln!("fragblas-bench: {failures} result(s) did not match the CPU BLAS");
        std::process::exit(1);
    }
}
