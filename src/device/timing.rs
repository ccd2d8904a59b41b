//! Wall-clock timing of GPU work, for the tuners and the calibration: each run is followed
//! by a full `glFinish`, and the best of several runs counts. (GL timer queries are not
//! reliable on every driver, llvmpipe among them.)

use std::time::{Duration, Instant};

use crate::device::context::Context;
use crate::error::Result;

/// Best of `reps` timings of `run` followed by a full finish; with `warm_up`, after one
/// untimed run (which compiles kernels and fills the scratch pool).
pub(crate) fn best_time(
    ctx: &Context,
    reps: usize,
    warm_up: bool,
    mut run: impl FnMut() -> Result<()>,
) -> Result<Duration> {
    if warm_up {
        run()?;
        ctx.finish()?;
    }
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        run()?;
        ctx.finish()?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}
