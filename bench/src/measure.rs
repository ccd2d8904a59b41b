//! How a row of the table is measured: the median of timed runs after a warm-up, every GPU
//! result checked against the CPU BLAS before any GPU time is taken, and what a row records.

use std::time::{Duration, Instant};

use fragblas::{Buffer, Context};
use serde::{Deserialize, Serialize};

/// Median of timed runs after one untimed one (see [`runs`]).
fn time_it(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    median(&mut runs(budget, &mut f))
}

/// Whether a series of timed runs begun at `start` goes on: at least 3 runs, then more
/// while `budget` lasts, at most 25.
fn more(runs: &[f64], start: Instant, budget: Duration) -> bool {
    runs.len() < 3 || (start.elapsed() < budget && runs.len() < 25)
}

/// Seconds of one call of `f`.
fn timed(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// The times of `f` called back to back while [`more`] says so.
fn runs(budget: Duration, f: &mut dyn FnMut()) -> Vec<f64> {
    let start = Instant::now();
    let mut times = Vec::new();
    while more(&times, start, budget) {
        times.push(timed(f));
    }
    times
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

/// The run-to-run spread of sorted times, relative to the median: half the interquartile
/// range, or half the whole range when there are fewer than 8 runs (too few for quartiles).
fn spread(sorted: &[f64]) -> f64 {
    let q = |f: f64| sorted[((sorted.len() - 1) as f64 * f).round() as usize];
    let (lo, hi) = if sorted.len() < 8 {
        (0.0, 1.0)
    } else {
        (0.25, 0.75)
    };
    (q(hi) - q(lo)) / 2.0 / q(0.5)
}

/// The times of one row: the CPU BLAS, the GPU on resident data, the GPU end to end.
struct Times {
    pub cpu: f64,
    pub resident: f64,
    pub e2e: f64,
    /// The larger relative spread (half the interquartile range over the median) of the
    /// two GPU modes.
    pub spread: f64,
}

/// How long OpenBLAS's worker threads keep spinning after a call before they sleep (its
/// default `THREAD_TIMEOUT`, 2^28 cycles, at about 3 GHz).
const OPENBLAS_SPIN: Duration = Duration::from_millis(100);

/// How long a hardware device runs a row's resident call before its timed runs. GPU clocks
/// fall within a fraction of a second of idling (H100: SM clock 1980 -> 345-765 MHz while
/// the host uploads) and come back only after about 0.1-0.2 s of sustained work
/// (`examples/level1_stability.rs`, BENCHMARKS.md session 8).
const SPIN_UP: Duration = Duration::from_millis(300);

/// Times one row's three modes, each the median of its runs after one untimed run:
///
/// - on a hardware device, the resident call repeated for [`SPIN_UP`] (clocks up), then its
///   timed runs back to back, then the end-to-end runs (their host copies idle the GPU, so
///   a resident run timed right after one would run at falling clocks);
/// - on a software device, the two GPU modes interleaved (a resident run, an end-to-end
///   run, and again), so that both see the same machine state, after OpenBLAS's threads of
///   the previous row stop spinning (the GPU's cores are the CPU BLAS's);
/// - then the CPU BLAS, back to back, as a loop of calls in a program sees it (OpenBLAS's
///   threads stay awake between calls).
///
/// `resident` must end by reading (part of) its result, the way a program gets one.
fn time_modes(
    software: bool,
    budget: Duration,
    mut cpu: impl FnMut(),
    mut resident: impl FnMut(),
    mut e2e: impl FnMut(),
) -> Times {
    let (mut res, mut end) = if software {
        std::thread::sleep(OPENBLAS_SPIN);
        resident();
        e2e();
        let (mut res, mut end) = (Vec::new(), Vec::new());
        let start = Instant::now();
        while more(&res, start, 2 * budget) {
            res.push(timed(&mut resident));
            end.push(timed(&mut e2e));
        }
        (res, end)
    } else {
        let start = Instant::now();
        while start.elapsed() < SPIN_UP {
            resident();
        }
        let res = runs(budget, &mut resident);
        e2e();
        (res, runs(budget, &mut e2e))
    };
    // median sorts the runs, which spread needs.
    let (resident, e2e) = (median(&mut res), median(&mut end));
    Times {
        cpu: time_it(budget, &mut cpu),
        resident,
        e2e,
        spread: spread(&res).max(spread(&end)),
    }
}

/// What bounds a routine: its arithmetic or the bytes it must move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Flops,
    Bytes,
}

/// What a row measures: the routine, its size, and what the definition costs.
#[derive(Clone, Debug, Serialize)]
pub struct Spec {
    pub routine: &'static str,
    pub size: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Floating-point operations of the definition.
    pub flops: f64,
    /// Bytes the definition must move: each operand read once, each output written once.
    pub bytes: f64,
    pub bound: Bound,
}

/// One measured row: the times of the CPU BLAS, the device API on resident data, and the
/// host API end to end; a GPU time is an error where its result did not match.
pub struct Measured {
    pub spec: Spec,
    pub cpu: f64,
    pub resident: Result<f64, String>,
    pub e2e: Result<f64, String>,
    /// The GPU modes' run-to-run spread (see [`Times::spread`]); 0 when they failed.
    pub spread: f64,
}

impl Measured {
    /// Times a row whose GPU result got `verdict`: its three modes (see [`time_modes`])
    /// where the result was right, the CPU BLAS alone where it was wrong (the GPU times are
    /// then the verdict's error).
    pub fn time(
        spec: Spec,
        verdict: Result<(), String>,
        (software, budget): (bool, Duration),
        mut cpu: impl FnMut(),
        resident: impl FnMut(),
        e2e: impl FnMut(),
    ) -> Self {
        let t = match &verdict {
            Ok(()) => time_modes(software, budget, cpu, resident, e2e),
            Err(_) => Times {
                cpu: time_it(budget, &mut cpu),
                resident: 0.0,
                e2e: 0.0,
                spread: 0.0,
            },
        };
        let gpu = |v: f64| verdict.clone().map(|_| v);
        Measured {
            spec,
            cpu: t.cpu,
            resident: gpu(t.resident),
            e2e: gpu(t.e2e),
            spread: t.spread,
        }
    }
}

/// Checks `got` against `want` element by element within `tol(i)`.
pub fn check(
    what: &str,
    got: &[f32],
    want: &[f32],
    tol: impl Fn(usize) -> f32,
) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            (g - w).abs() <= tol(i)
        };
        if !ok {
            return Err(format!(
                "{what}: WRONG RESULT at element {i}: gpu {g}, cpu {w} (tolerance {})",
                tol(i)
            ));
        }
    }
    Ok(())
}

/// A routine whose output is one array (a vector, or a matrix for the rank updates),
/// updated in place from `out0`: `cpu` runs the CPU BLAS on a host copy, `dev` the device
/// API on a resident copy, `host` the host API on a host copy; the GPU result must lie
/// within `tol(i, want)` of the CPU's before anything is timed.
#[allow(clippy::too_many_arguments)]
pub fn array_case(
    ctx: &Context,
    spec: Spec,
    budget: Duration,
    out0: &[f32],
    mut cpu: impl FnMut(&mut [f32]),
    mut dev: impl FnMut(&mut Buffer) -> fragblas::Result<()>,
    mut host: impl FnMut(&mut [f32]) -> fragblas::Result<()>,
    tol: impl Fn(usize, &[f32]) -> f32,
) -> Measured {
    let mut want = out0.to_vec();
    cpu(&mut want);
    let mut g = ctx.upload(out0).expect("upload");
    let verdict = dev(&mut g)
        .map_err(|e| format!("{}: {e}", spec.routine))
        .and_then(|_| {
            check(spec.routine, &g.to_vec().expect("download"), &want, |i| {
                tol(i, &want)
            })
        });
    let (mut c, mut h) = (out0.to_vec(), out0.to_vec());
    Measured::time(
        spec,
        verdict,
        (ctx.info().software, budget),
        || cpu(&mut c),
        || {
            dev(&mut g).expect("resident run");
            g.read_range(0, 1).expect("reading the result");
        },
        || host(&mut h).expect("host run"),
    )
}

/// Values uniform in [-1, 1), the same for the same seed.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| r.gen_range(-1.0f32..1.0)).collect()
}

/// f32 epsilon.
pub const EPS: f32 = f32::EPSILON;
