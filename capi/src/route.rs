//! Where each call runs: the `FRAGBLAS_ROUTE` override, the cost model that compares the
//! GPU end to end (upload, compute, download) with the CPU BLAS, and the `FRAGBLAS_VERBOSE`
//! log of where calls went and why.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// The `FRAGBLAS_ROUTE` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The cost model decides (the default).
    Auto,
    /// Every call this library implements runs on the GPU (when a device could be opened).
    Gpu,
    /// Every call runs on the CPU BLAS.
    Cpu,
}

/// The settings read from the environment once.
pub struct Config {
    /// `FRAGBLAS_ROUTE`.
    pub mode: Mode,
    /// `FRAGBLAS_VERBOSE` is set to something other than `0` or empty.
    pub verbose: bool,
}

/// The settings, read on first use.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let mode = match std::env::var("FRAGBLAS_ROUTE").as_deref() {
            Ok("gpu") | Ok("GPU") => Mode::Gpu,
            Ok("cpu") | Ok("CPU") => Mode::Cpu,
            Ok("auto") | Ok("") | Err(_) => Mode::Auto,
            Ok(other) => {
                eprintln!("fragblas: FRAGBLAS_ROUTE={other:?} is not auto, gpu or cpu; using auto");
                Mode::Auto
            }
        };
        let verbose = std::env::var("FRAGBLAS_VERBOSE")
            .map(|v| !v.is_empty() && v != "0")
            .unwrap_or(false);
        Config { mode, verbose }
    })
}

/// What one call costs: its arithmetic, the bytes a GPU run uploads and downloads, and its
/// BLAS level (level 1 and 2 are bound by memory on the CPU, level 3 by arithmetic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// BLAS level, 1 to 3.
    pub level: u8,
    /// Floating-point operations.
    pub flops: f64,
    /// Bytes uploaded by a GPU run.
    pub up: f64,
    /// Bytes downloaded by a GPU run.
    pub down: f64,
}

fn nn(x: i32) -> f64 {
    x.max(0) as f64
}

impl Work {
    /// A level-1 call on `n` elements reading `inputs` vectors and writing `outputs`.
    pub fn level1(n: i32, inputs: u32, outputs: u32) -> Work {
        let n = nn(n);
        Work {
            level: 1,
            flops: 2.0 * n,
            up: 4.0 * n * inputs as f64,
            down: 4.0 * n * outputs as f64,
        }
    }

    /// A level-2 call reading `a` matrix elements, `x` and `y` vector elements (y also
    /// written when `writes_y`), or updating the matrix (rank updates: `writes_a`).
    pub fn level2(a: f64, x: i32, y: i32, writes_a: bool) -> Work {
        let (x, y) = (nn(x), nn(y));
        Work {
            level: 2,
            flops: 2.0 * a,
            up: 4.0 * (a + x + y),
            down: 4.0 * if writes_a { a } else { y.max(x) },
        }
    }

    /// A level-3 call of `flops` reading `a` and `b` elements and updating `c` elements.
    pub fn level3(flops: f64, a: f64, b: f64, c: f64) -> Work {
        Work {
            level: 3,
            flops,
            up: 4.0 * (a + b + c),
            down: 4.0 * c,
        }
    }

    /// A size class for the log: the power of four of the flop count.
    pub fn class(&self) -> u32 {
        (self.flops.max(1.0).log2() / 2.0) as u32
    }
}

/// Measured rates of the two sides, in seconds and bytes or flops per second.
#[derive(Clone, Copy, Debug)]
pub struct Model {
    /// Fixed cost of one GPU call end to end (a tiny sgemm through the host API).
    pub gpu_fixed: f64,
    /// Upload rate.
    pub up_bps: f64,
    /// Download rate.
    pub down_bps: f64,
    /// GPU sgemm rate on resident data.
    pub gpu_flops: f64,
    /// CPU BLAS sgemm rate.
    pub cpu_flops: f64,
    /// CPU BLAS memory rate (sgemv).
    pub cpu_bps: f64,
}

impl Model {
    /// Predicted seconds on the GPU, end to end.
    pub fn gpu_time(&self, w: &Work) -> f64 {
        let compute = if w.level == 3 {
            w.flops / self.gpu_flops
        } else {
            0.0
        };
        self.gpu_fixed + w.up / self.up_bps + w.down / self.down_bps + compute
    }

    /// Predicted seconds on the CPU BLAS.
    pub fn cpu_time(&self, w: &Work) -> f64 {
        if w.level == 3 {
            w.flops / self.cpu_flops
        } else {
            (w.up - w.down).max(w.up / 2.0) / self.cpu_bps
        }
    }
}

/// Below this many flops a level-3 call runs on the CPU without asking the model (or
/// opening the GL device): no GPU call finishes in the time the CPU needs for it.
pub const AUTO_FLOOR_FLOPS: f64 = 16.0 * 1024.0 * 1024.0;

/// Where a call goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    /// The GPU, through the crate's host API.
    Gpu,
    /// The CPU BLAS.
    Cpu,
}

impl Route {
    fn name(self) -> &'static str {
        match self {
            Route::Gpu => "gpu",
            Route::Cpu => "cpu",
        }
    }
}

type Tally = BTreeMap<(&'static str, Route), (u64, f64)>;

struct Log {
    seen: HashSet<(&'static str, u32, Route)>,
    tally: Tally,
}

fn log() -> &'static Mutex<Log> {
    static LOG: OnceLock<Mutex<Log>> = OnceLock::new();
    LOG.get_or_init(|| {
        Mutex::new(Log {
            seen: HashSet::new(),
            tally: BTreeMap::new(),
        })
    })
}

/// Records that a call of `routine` went to `route` because of `why`; with
/// `FRAGBLAS_VERBOSE` the first call of each routine, size class and route is printed.
pub fn record(routine: &'static str, w: &Work, route: Route, why: impl FnOnce() -> String) {
    if !config().verbose {
        return;
    }
    let Ok(mut log) = log().lock() else { return };
    let e = log.tally.entry((routine, route)).or_insert((0, 0.0));
    e.0 += 1;
    e.1 += w.flops;
    if log.seen.insert((routine, w.class(), route)) {
        eprintln!(
            "fragblas: {routine} ~4^{} flops -> {}: {}",
            w.class(),
            route.name(),
            why()
        );
    }
}

/// Prints a line to stderr when `FRAGBLAS_VERBOSE` is set.
pub fn say(msg: impl FnOnce() -> String) {
    if config().verbose {
        eprintln!("fragblas: {}", msg());
    }
}

/// The summary printed at exit with `FRAGBLAS_VERBOSE`: calls and flops per routine and side.
pub extern "C" fn summary() {
    let forwarded = crate::forward::calls();
    if !forwarded.is_empty() {
        eprintln!("fragblas: forwarded to the CPU BLAS (symbol, calls):");
        for (name, calls) in forwarded {
            eprintln!("fragblas:   {name:16} {calls:8}");
        }
    }
    let Ok(log) = log().lock() else { return };
    if log.tally.is_empty() {
        return;
    }
    eprintln!("fragblas: summary (routine, side, calls, GFLOP):");
    for ((routine, route), (calls, flops)) in &log.tally {
        eprintln!(
            "fragblas:   {routine:8} {} {calls:8} {:10.3}",
            route.name(),
            flops / 1e9
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100_like() -> Model {
        Model {
            gpu_fixed: 300e-6,
            up_bps: 5e9,
            down_bps: 5e9,
            gpu_flops: 1.2e12,
            cpu_flops: 1e12,
            cpu_bps: 20e9,
        }
    }

    #[test]
    fn level1_and_2_never_pay_when_the_bus_is_slower_than_cpu_memory() {
        let m = h100_like();
        for n in [1 << 10, 1 << 20, 1 << 26] {
            let w = Work::level1(n, 2, 1);
            assert!(m.gpu_time(&w) > m.cpu_time(&w), "n {n}");
            let w = Work::level2(n as f64 * 64.0, 64, n, false);
            assert!(m.gpu_time(&w) > m.cpu_time(&w), "n {n}");
        }
    }

    #[test]
    fn big_gemm_pays_when_the_gpu_is_faster_and_small_does_not() {
        let mut m = h100_like();
        m.gpu_flops = 20e12;
        let g = |n: i32| {
            let e = (n as f64) * (n as f64);
            Work::level3(2.0 * e * n as f64, e, e, e)
        };
        assert!(m.gpu_time(&g(64)) > m.cpu_time(&g(64)));
        assert!(m.gpu_time(&g(8192)) < m.cpu_time(&g(8192)));
    }

    #[test]
    fn work_ignores_negative_sizes_and_classes_grow() {
        let w = Work::level1(-5, 2, 1);
        assert_eq!((w.flops, w.up), (0.0, 0.0));
        assert!(Work::level1(1 << 20, 1, 1).class() > Work::level1(1 << 10, 1, 1).class());
    }
}
