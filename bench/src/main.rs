//! The benchmark table: every routine at a few sizes, on the CPU BLAS (OpenBLAS, every
//! core), on the GPU with data resident, and end to end through the host API, beside the
//! fragment pipeline's measured ceilings. Every GPU result is checked against the CPU BLAS
//! before its time is taken; a wrong result prints an error instead of a time.
//!
//! ```text
//! cargo run --release -p fragblas-bench                  # the table on the default device
//! cargo run --release -p fragblas-bench -- --quick       # fewer sizes, shorter timing
//! cargo run --release -p fragblas-bench -- --json-out r.jsonl --only sgemm,ssymv --max 4096
//! cargo run --release -p fragblas-bench -- --from r.jsonl --out-dir charts  # redraw only
//! ```
//!
//! Beside the table it writes two SVG charts (a roofline and the speed-ups) into
//! `--out-dir` (default `bench-out/`).

mod charts;
mod cpu;
mod latency;
mod level1;
mod level2;
mod level3;
mod measure;
mod records;

use std::io::Write;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use fragblas::{Ceilings, Context, Tuning};

use measure::{Bound, Measured};
use records::{DeviceLine, RowLine, Run};

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
    /// Directory for the charts (roofline.svg, speedup.svg); created if missing.
    #[arg(long, value_name = "DIR", default_value = "bench-out")]
    out_dir: std::path::PathBuf,
    /// Do not draw the charts.
    #[arg(long)]
    no_charts: bool,
    /// Draw the charts of a saved run (a `--json-out` file) and measure nothing.
    #[arg(long, value_name = "PATH")]
    from: Option<std::path::PathBuf>,
    /// Time the sgemm kernels for each size's class before its row when the tuning cache
    /// has no choice for it: `auto` on hardware devices only (on a software rasteriser the
    /// built-in defaults are used, to keep the run short).
    #[arg(long, value_enum, default_value_t = TuneWhen::Auto)]
    tune: TuneWhen,
}

/// When the table tunes sgemm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TuneWhen {
    Auto,
    Yes,
    No,
}

/// Rows of one or more routines at one size.
type Group = fn(&Context, usize, Duration) -> Vec<Measured>;

/// The sizes of each group of rows on a device.
struct Sizes {
    level1: Vec<usize>,
    level2: Vec<usize>,
    /// sgemv alone at larger orders.
    sgemv_large: Vec<usize>,
    /// The band routines alone at larger orders.
    band_large: Vec<usize>,
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
            sgemv_large: vec![],
            band_large: vec![],
            gemm: vec![64, 256, 512],
            level3: vec![256, 512],
        },
        (true, false) => Sizes {
            level1: pow2(10, 24, 2),
            level2: vec![256, 1024, 4096],
            sgemv_large: vec![],
            band_large: vec![1 << 16],
            gemm: vec![64, 128, 256, 512, 1024],
            level3: vec![256, 512, 1024],
        },
        (false, true) => Sizes {
            level1: pow2(16, 24, 4),
            level2: vec![1024, 4096],
            sgemv_large: vec![],
            band_large: vec![1 << 16],
            gemm: vec![256, 1024, 2048],
            level3: vec![1024],
        },
        (false, false) => Sizes {
            level1: pow2(16, 28, 2),
            level2: vec![1024, 4096],
            sgemv_large: vec![16384],
            band_large: vec![1 << 16],
            gemm: vec![256, 512, 1024, 2048, 4096, 8192],
            level3: vec![1024, 4096],
        },
    }
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
        "Columns: cpu = the CPU BLAS on host data, back-to-back calls as a loop in a program\n\
         makes them; gpu res = fragblas on data already on the GPU, up to the moment the host\n\
         has (a part of) the result; gpu e2e = the host API call: upload, compute, download.\n\
         Times are medians: on a GPU, resident runs back to back after 0.3 s of the same call\n\
         (clocks up), then the end-to-end runs; on a software device the two GPU modes\n\
         interleaved run by run. speedup = cpu time / gpu time, resident and end to end.\n\
         GFLOP/s and GB/s are of the resident run; GB/s counts the bytes the definition\n\
         must move (each operand read once, each output written once). ceiling = resident\n\
         GFLOP/s over the fragment FMA ceiling (flop-bound rows, marked F) or GB/s over the\n\
         read-bandwidth ceiling (byte-bound rows, marked B), both measured on this device\n\
         just now. A ~ after the e2e speed-up: the end-to-end median came out below the\n\
         resident one by less than the runs' spread (noise); a ! there: by more\n\
         (unexplained; please report).\n",
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

/// Whether to tune sgemm before its rows, and says so.
fn tune_before(ctx: &Context, when: TuneWhen, n: usize) {
    let wanted = match when {
        TuneWhen::No => false,
        TuneWhen::Yes => true,
        TuneWhen::Auto => !ctx.info().software,
    };
    if !wanted || ctx.sgemm_tuned_kernel(n, n, n).is_some() {
        return;
    }
    eprintln!("fragblas-bench: tuning sgemm {n}^3 (no cached choice for its class)...");
    match ctx.tune_sgemm(n, n, n) {
        Ok(r) => eprintln!(
            "fragblas-bench: sgemm {n}^3 -> {} ({}), saved to {}",
            r.chosen.name(),
            r,
            r.saved_to
                .as_ref()
                .map_or("nowhere (tuning off)".into(), |p| p.display().to_string())
        ),
        Err(e) => eprintln!("fragblas-bench: tuning sgemm {n}^3 failed: {e}"),
    }
}

fn draw_charts(run: &Run, dir: &std::path::Path) {
    match charts::draw(run, dir) {
        Ok(paths) => {
            for p in paths {
                eprintln!("fragblas-bench: wrote {}", p.display());
            }
        }
        Err(e) => {
            eprintln!("fragblas-bench: charts: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let args = Args::parse();
    if let Some(path) = &args.from {
        let run = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Run::parse(&t))
            .unwrap_or_else(|e| {
                eprintln!("fragblas-bench: {}: {e}", path.display());
                std::process::exit(1)
            });
        draw_charts(&run, &args.out_dir);
        return;
    }
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
    eprintln!(
        "fragblas-bench: sgemm tuning mode {:?}, cache {}",
        ctx.tuning(),
        ctx.tuning_cache_file()
            .map_or("none".into(), |p| p.display().to_string())
    );
    if ctx.tuning() == Tuning::Off && args.tune == TuneWhen::Yes {
        eprintln!("fragblas-bench: FRAGBLAS_TUNE=off: tuned choices are not saved");
    }

    let mut plan: Vec<(&[&str], Group, usize)> = Vec::new();
    let groups: [(&[&str], Group, &[usize]); 12] = [
        (
            &["saxpy"],
            |c, n, b| vec![level1::saxpy(c, n, b)],
            &sz.level1,
        ),
        (&["sdot"], |c, n, b| vec![level1::sdot(c, n, b)], &sz.level1),
        (
            &["sgemv", "sgbmv", "ssymv", "ssbmv", "sspmv"],
            |c, n, b| level2::products(c, n, b, level2::Rows::All),
            &sz.level2,
        ),
        (
            &["strmv", "stbmv", "stpmv", "strsv", "stbsv", "stpsv"],
            |c, n, b| level2::triangular(c, n, b, level2::Rows::All),
            &sz.level2,
        ),
        // sgemv where its split has many chunks; the band routines where the band is large
        // enough to measure bandwidth (issue 29).
        (
            &["sgemv"],
            |c, n, b| level2::products(c, n, b, level2::Rows::Sgemv),
            &sz.sgemv_large,
        ),
        (
            &["sgbmv", "ssbmv", "stbmv", "stbsv"],
            |c, n, b| {
                let mut rows = level2::products(c, n, b, level2::Rows::Band);
                rows.extend(level2::triangular(c, n, b, level2::Rows::Band));
                rows
            },
            &sz.band_large,
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
        (
            &["sgemm_batched", "sgemm_x100"],
            |c, n, b| level3::batched(c, n, 100, b),
            &[256],
        ),
        // The latency group: loops of small calls (sizes are fixed per row).
        (&latency::ROUTINES, latency::group, &[0]),
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
    let device_line = DeviceLine {
        kind: "device".into(),
        device: device.clone(),
        software: info.software,
        date: today(),
        cpu_blas: cpu_name.clone(),
        cpu_threads: threads,
        fma_gflops: ceil.fma_gflops,
        read_gbps: ceil.bandwidth_gbps(),
        copy_gbps: ceil.copy_gbps,
        stream_gbps: ceil.stream_gbps,
    };
    emit(serde_json::to_string(&device_line).expect("JSON"));
    if !args.json {
        println!("device: {device}");
        println!("ceilings: {ceil}");
        print!("{}", legend(info.software, &cpu_name, threads));
        println!(
            "{:<17} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9} {:>8} {:>9}",
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
    let mut rows: Vec<RowLine> = Vec::new();
    for (i, (names, f, n)) in plan.iter().enumerate() {
        eprintln!(
            "fragblas-bench: [{}/{}] {} {n}",
            i + 1,
            total,
            names.join(",")
        );
        if names.contains(&"sgemm") {
            tune_before(&ctx, args.tune, *n);
        }
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
                let row = RowLine {
                    kind: "row".into(),
                    routine: s.routine.into(),
                    size: s.size.clone(),
                    m: s.m,
                    n: s.n,
                    k: s.k,
                    mode: mode.into(),
                    bound: s.bound,
                    flops: s.flops,
                    bytes: s.bytes,
                    seconds: secs,
                    gflops: secs.map(|t| s.flops / t / 1e9),
                    gbps: secs.map(|t| s.bytes / t / 1e9),
                    ceiling_fraction: secs.filter(|_| mode != "cpu").map(ceiling_of),
                    spread: (mode != "cpu" && secs.is_some()).then_some(r.spread),
                    error: t.as_ref().err().cloned(),
                };
                emit(serde_json::to_string(&row).expect("JSON"));
                rows.push(row);
            }
            if !args.json {
                print_row(&r, ceiling_of);
                if s.routine == "sgemm" {
                    println!(
                        "{:<17} {:>10} kernel {} (tuning {:?})",
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
    if !args.no_charts {
        draw_charts(
            &Run {
                device: device_line,
                rows,
            },
            &args.out_dir,
        );
    }
    if failures > 0 {
        eprintln!("fragblas-bench: {failures} result(s) did not match the CPU BLAS");
        std::process::exit(1);
    }
}

/// One table row; an end-to-end time below the resident one is marked `~` (within the
/// runs' spread) or `!` (beyond it).
fn print_row(r: &Measured, ceiling_of: impl Fn(f64) -> f64) {
    let s = &r.spec;
    match (&r.resident, &r.e2e) {
        (Ok(res), Ok(e2e)) => {
            let mark = if e2e >= res {
                " "
            } else if (res - e2e) / res <= 2.0 * r.spread {
                "~"
            } else {
                "!"
            };
            println!(
                "{:<17} {:>10} {:>10.3e} {:>10.3e} {:>10.3e} {:>7.2}x {:>7.2}x{} {:>9.2} {:>8.2} {:>7.1}%{}",
                s.routine,
                s.size,
                r.cpu,
                res,
                e2e,
                r.cpu / res,
                r.cpu / e2e,
                mark,
                s.flops / res / 1e9,
                s.bytes / res / 1e9,
                100.0 * ceiling_of(*res),
                if s.bound == Bound::Flops { " F" } else { " B" }
            )
        }
        (Err(e), _) | (_, Err(e)) => println!("{:<17} {:>10} ERROR {e}", s.routine, s.size),
    }
    if let (true, Ok(res), Ok(e2e)) = (s.routine.ends_with("_x1000"), &r.resident, &r.e2e) {
        let us = |t: f64| t * 1e6 / latency::CALLS as f64;
        println!(
            "{:<17} {:>10} per call: cpu {:.2} us, gpu res {:.2} us, gpu e2e {:.2} us",
            "",
            "",
            us(r.cpu),
            us(*res),
            us(*e2e)
        );
    }
}
