//! How a row of the table is measured: the median of timed runs after a warm-up, every GPU
//! result checked against the CPU BLAS before any GPU time is taken, and what a row records.

use std::time::{Duration, Instant};

use fragblas::{Buffer, Context};
use serde::Serialize;

/// Median of timed runs after one untimed one, repeated until `budget` is spent (at least
/// 3, at most 25 runs).
pub fn time_it(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < 3 || (start.elapsed() < budget && times.len() < 25) {
        let t = Instant::now();
        f();
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

/// What bounds a routine: its arithmetic or the bytes it must move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
    let mut c = out0.to_vec();
    let cpu_time = time_it(budget, || cpu(&mut c));
    let resident = verdict.clone().map(|_| {
        time_it(budget, || {
            dev(&mut g).expect("resident run");
            ctx.finish().expect("finish");
        })
    });
    let mut h = out0.to_vec();
    let e2e = verdict.map(|_| time_it(budget, || host(&mut h).expect("host run")));
    Measured {
        spec,
        cpu: cpu_time,
        resident,
        e2e,
    }
}

/// Values uniform in [-1, 1), the same for the same seed.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| r.gen_range(-1.0f32..1.0)).collect()
}

/// f32 epsilon.
pub const EPS: f32 = f32::EPSILON;
