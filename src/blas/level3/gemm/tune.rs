//! sgemm's tuning: its shape classes, its candidates' timing, and the choice per class,
//! kept by the device layer's generic tuner (`device::tune`) in the `sgemm` cache file.
//! Tuning only picks among kernels that are all correct; it never changes a result beyond
//! rounding.
//!
//! How much tuning happens is a [`Tuning`] mode, set with [`crate::ContextOptions::tuning`],
//! [`Context::set_tuning`] or the environment variable [`crate::tune::TUNE_ENV`]. The
//! default, [`Tuning::Cached`], reads earlier choices from the cache and never times;
//! [`Tuning::Auto`] tunes a shape class the first time an sgemm of at least
//! [`TUNE_MIN_WORK`] multiply-adds meets it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::blas::level3::gemm::kernel::{candidates, default_kernel, GemmKernel};
use crate::blas::level3::gemm::passes::{multiply, GemmCall};
use crate::blas::level3::gemm::shape::GemmShape;
use crate::blas::passes::install;
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::timing::best_time;
use crate::device::tune::{fnv1a, Tuning};
use crate::error::{Error, Result};

/// The routine's name in the tuning cache.
const ROUTINE: &str = "sgemm";

/// An sgemm below this many multiply-adds (m * n * k) is never timed: in `Auto` mode it uses
/// a cached choice or the built-in default.
pub const TUNE_MIN_WORK: usize = 1 << 24;

/// A bucket of sgemm shapes that share one tuning choice: the base-2 logarithm of m, n and
/// k, each rounded up (so 1025..=2048 is class 11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeClass {
    /// ceil(log2 m).
    pub m: u8,
    /// ceil(log2 n).
    pub n: u8,
    /// ceil(log2 k).
    pub k: u8,
}

fn log2_ceil(v: usize) -> u8 {
    (usize::BITS - v.max(1).saturating_sub(1).leading_zeros()) as u8
}

impl ShapeClass {
    /// The class of an `m x n x k` product.
    pub fn of(m: usize, n: usize, k: usize) -> Self {
        ShapeClass {
            m: log2_ceil(m),
            n: log2_ceil(n),
            k: log2_ceil(k),
        }
    }

    /// The class's key in the cache file: `m<log2> n<log2> k<log2>`.
    fn key(&self) -> String {
        format!("m{} n{} k{}", self.m, self.n, self.k)
    }

    /// The class of a cache-file key, if it is one.
    fn parse(key: &str) -> Option<Self> {
        let mut words = key.split(' ');
        let mut next = |p: char| words.next()?.strip_prefix(p)?.parse().ok();
        let class = ShapeClass {
            m: next('m')?,
            n: next('n')?,
            k: next('k')?,
        };
        words.next().is_none().then_some(class)
    }
}

impl std::fmt::Display for ShapeClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = |e: u8| if e == 0 { 1 } else { (1usize << (e - 1)) + 1 };
        write!(
            f,
            "m {}..={}, n {}..={}, k {}..={}",
            r(self.m),
            1usize << self.m,
            r(self.n),
            1usize << self.n,
            r(self.k),
            1usize << self.k
        )
    }
}

/// What one tuning run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneReport {
    /// The class the choice applies to.
    pub class: ShapeClass,
    /// The shape that was timed.
    pub shape: (usize, usize, usize),
    /// Every kernel timed, with its best time.
    pub timings: Vec<(GemmKernel, Duration)>,
    /// The fastest kernel, now used by `GemmKernel::Auto` for the class.
    pub chosen: GemmKernel,
    /// Where the choice was saved, if it was.
    pub saved_to: Option<PathBuf>,
}

/// The timings, as `Strip4 12.34 ms, Mrt8 15.67 ms, ...` in the order timed.
impl std::fmt::Display for TuneReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (k, t)) in self.timings.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{} {:.2} ms", k.name(), t.as_secs_f64() * 1e3)?;
        }
        Ok(())
    }
}

impl TuneReport {
    /// GFLOP/s of a timed kernel (2 m n k flops per sgemm).
    pub fn gflops(&self, kernel: GemmKernel) -> Option<f64> {
        let (m, n, k) = self.shape;
        self.timings
            .iter()
            .find(|(kk, _)| *kk == kernel)
            .map(|(_, t)| 2.0 * m as f64 * n as f64 * k as f64 / t.as_secs_f64() / 1e9)
    }
}

/// The remembered kernel for the class of `s`, if the mode allows one and it can run `s`
/// (a cache file edited by hand may name any kernel).
pub(crate) fn remembered(ctx: &Context, s: &GemmShape) -> Option<GemmKernel> {
    if let Some(k) = pinned(ctx).filter(|k| k.runs(ctx.info(), s)) {
        return Some(k);
    }
    cached(ctx, s.m, s.n, s.k).filter(|k| *k != GemmKernel::Auto && k.runs(ctx.info(), s))
}

/// The kernel the cache (or this context's tuning) names for the class of `m x n x k`, if
/// the mode reads it.
fn cached(ctx: &Context, m: usize, n: usize, k: usize) -> Option<GemmKernel> {
    let class = ShapeClass::of(m, n, k);
    ctx.inner
        .tuner
        .lookup(ROUTINE, &class.key())
        .and_then(|name| GemmKernel::from_name(&name))
}

/// The kernel pinned with [`Context::set_gemm_kernel`], if any.
fn pinned(ctx: &Context) -> Option<GemmKernel> {
    ctx.inner
        .tuner
        .pinned(ROUTINE)
        .and_then(|name| GemmKernel::from_name(&name))
}

/// Whether an sgemm of shape `s` should time the candidates now.
pub(crate) fn should_time(ctx: &Context, s: &GemmShape) -> bool {
    let class = ShapeClass::of(s.m, s.n, s.k);
    s.m.saturating_mul(s.n).saturating_mul(s.k) >= TUNE_MIN_WORK
        && ctx.inner.tuner.should_time(ROUTINE, &class.key())
}

/// Products of at least this many multiply-adds are timed once, without a warm-up run: one
/// run takes long enough (0.1 s and more on the H100) that compiling the kernel and filling
/// the scratch pool are noise, and a first sgemm of a large class should not cost many runs
/// of every kernel.
const SINGLE_RUN_WORK: usize = 1 << 32;

/// How many timed runs a product gets and whether an untimed warm-up run comes first.
fn runs_for(work: usize) -> (usize, bool) {
    if work >= SINGLE_RUN_WORK {
        (1, false)
    } else {
        (2, true)
    }
}

/// Best time of `C := op(A) op(B)` (shape `s`, C overwritten) with `kernel`: for small and
/// medium products best of 2 after one untimed run (which compiles the kernel and fills the
/// scratch pool), for large ones a single run (see [`SINGLE_RUN_WORK`]).
fn time_kernel(
    ctx: &Context,
    kernel: GemmKernel,
    s: &GemmShape,
    a: &Buffer,
    b: &Buffer,
    c: &mut Buffer,
) -> Result<Duration> {
    let inner = &ctx.inner;
    let (reps, warm_up) = runs_for(s.m.saturating_mul(s.n).saturating_mul(s.k));
    best_time(ctx, reps, warm_up, || {
        let call = GemmCall {
            s,
            alpha: 1.0,
            a,
            b,
            beta: 0.0,
            c,
        };
        let rect = call.rect();
        if let Some(out) = multiply(inner, kernel, &call)? {
            install(inner, c, out, rect)?;
        }
        inner.enter()?.check(ROUTINE)
    })
}

impl Context {
    /// Pins the kernel `GemmKernel::Auto` picks, in sgemm and in every level-3 routine
    /// built on it, wherever that kernel can run the product (elsewhere the usual choice
    /// stands); `GemmKernel::Auto` unpins. For tests and experiments: each kernel gives the
    /// same results up to rounding.
    ///
    /// ```
    /// use fragblas::{Context, GemmKernel};
    /// let ctx = Context::new()?;
    /// ctx.set_gemm_kernel(GemmKernel::Generic);
    /// assert_eq!(ctx.sgemm_kernel_for(64, 64, 64), GemmKernel::Generic);
    /// ctx.set_gemm_kernel(GemmKernel::Auto);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn set_gemm_kernel(&self, kernel: GemmKernel) {
        let name = (kernel != GemmKernel::Auto).then(|| kernel.name());
        self.inner.tuner.pin(ROUTINE, name);
    }

    /// The file this context's sgemm tuning choices are cached in, if it has one.
    pub fn tuning_cache_file(&self) -> Option<&Path> {
        self.inner.tuner.file(ROUTINE)
    }

    /// The kernel the tuning cache (or an earlier tuning in this context) holds for the class
    /// of an `m x n x k` product, if any and if the mode reads the cache; `None` means
    /// `GemmKernel::Auto` takes the built-in default (or, in [`Tuning::Auto`], times the
    /// class on its first large call).
    ///
    /// ```
    /// use fragblas::{Context, ContextOptions, Tuning};
    /// let ctx = Context::with_options(ContextOptions { tuning: Some(Tuning::Off), ..Default::default() })?;
    /// assert_eq!(ctx.sgemm_tuned_kernel(512, 512, 512), None);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sgemm_tuned_kernel(&self, m: usize, n: usize, k: usize) -> Option<GemmKernel> {
        cached(self, m, n, k)
    }

    /// The kernel `GemmKernel::Auto` uses for an `m x n x k` product now (without timing
    /// anything): the cached choice for its class if the mode allows, else the default.
    pub fn sgemm_kernel_for(&self, m: usize, n: usize, k: usize) -> GemmKernel {
        let s = GemmShape::plain(m, n, k);
        remembered(self, &s).unwrap_or_else(|| default_kernel(self.info(), &s))
    }

    /// Times every sgemm kernel that can run an `m x n x k` product (column-major, no
    /// transposes, random data), makes the fastest the choice for the shape's class, and
    /// saves it in the cache unless the mode is [`Tuning::Off`]. Tunes whatever the mode;
    /// takes a few runs of each kernel.
    ///
    /// ```
    /// use fragblas::{Context, ContextOptions, Tuning};
    /// let dir = std::env::temp_dir().join(format!("fragblas-doc-{}", std::process::id()));
    /// let ctx = Context::with_options(ContextOptions {
    ///     tuning: Some(Tuning::Auto),
    ///     tune_cache_dir: Some(dir.clone()),
    ///     ..Default::default()
    /// })?;
    /// let report = ctx.tune_sgemm(64, 64, 64)?;
    /// assert_eq!(ctx.sgemm_kernel_for(64, 64, 64), report.chosen);
    /// # std::fs::remove_dir_all(dir).ok();
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn tune_sgemm(&self, m: usize, n: usize, k: usize) -> Result<TuneReport> {
        if m == 0 || n == 0 || k == 0 {
            return Err(Error::Unsupported(format!(
                "tune_sgemm: m={m}, n={n}, k={k}: an empty product has nothing to time"
            )));
        }
        let max = self.max_buffer_len();
        let fits = |a: usize, b: usize| a.checked_mul(b).is_some_and(|v| v <= max);
        if !(fits(m, k) && fits(k, n) && fits(m, n)) {
            return Err(Error::Unsupported(format!(
                "tune_sgemm: m={m}, n={n}, k={k} needs matrices larger than the {max} floats a \
                 buffer of this context can hold"
            )));
        }
        let s = GemmShape::plain(m, n, k);
        let fill = |len: usize, seed: u32| {
            (0..len)
                .map(|i| {
                    let h = fnv1a(&((i as u64) ^ ((seed as u64) << 40)).to_le_bytes());
                    (h >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                })
                .collect::<Vec<f32>>()
        };
        let a = self.upload(&fill(m * k, 1))?;
        let b = self.upload(&fill(k * n, 2))?;
        let mut c = self.zeros(m * n)?;
        self.tune_shape(&s, &a, &b, &mut c)
    }

    /// Times the candidates for `s` on the given operands (C is overwritten) and records
    /// the fastest for its class.
    pub(crate) fn tune_shape(
        &self,
        s: &GemmShape,
        a: &Buffer,
        b: &Buffer,
        c: &mut Buffer,
    ) -> Result<TuneReport> {
        let candidates = candidates(self.info(), s);
        let mut timings = Vec::with_capacity(candidates.len());
        for &kernel in &candidates {
            timings.push((kernel, time_kernel(self, kernel, s, a, b, c)?));
        }
        let chosen = timings
            .iter()
            .min_by_key(|(_, t)| *t)
            .map(|(k, _)| *k)
            .unwrap_or(GemmKernel::Generic);
        let class = ShapeClass::of(s.m, s.n, s.k);
        let saved_to = if self.tuning() == Tuning::Off {
            None
        } else {
            self.inner
                .tuner
                .record(ROUTINE, &class.key(), chosen.name(), ShapeClass::parse)?
        };
        let report = TuneReport {
            class,
            shape: (s.m, s.n, s.k),
            timings,
            chosen,
            saved_to,
        };
        log::info!(
            "sgemm tuned {}x{}x{} (class {}): {report} -> {}; saved to {}",
            s.m,
            s.n,
            s.k,
            report.class,
            chosen.name(),
            report
                .saved_to
                .as_ref()
                .map_or("nowhere (tuning off)".into(), |p| p.display().to_string())
        );
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_to_powers_of_two() {
        assert_eq!(log2_ceil(0), 0);
        assert_eq!(log2_ceil(1), 0);
        assert_eq!(log2_ceil(2), 1);
        assert_eq!(log2_ceil(3), 2);
        assert_eq!(log2_ceil(1024), 10);
        assert_eq!(log2_ceil(1025), 11);
        let c = ShapeClass::of(1000, 4096, 4097);
        assert_eq!((c.m, c.n, c.k), (10, 12, 13));
        assert_eq!(c.to_string(), "m 513..=1024, n 2049..=4096, k 4097..=8192");
        assert_eq!(
            ShapeClass::of(1, 1, 1).to_string(),
            "m 1..=1, n 1..=1, k 1..=1"
        );
    }

    #[test]
    fn large_products_are_timed_once() {
        assert_eq!(runs_for(1 << 24), (2, true));
        assert_eq!(runs_for((1 << 32) - 1), (2, true));
        assert_eq!(runs_for(4096 * 4096 * 4096), (1, false));
    }

    #[test]
    fn class_keys_round_trip_and_reject_junk() {
        let c = ShapeClass::of(1000, 4096, 4097);
        assert_eq!(c.key(), "m10 n12 k13");
        assert_eq!(ShapeClass::parse(&c.key()), Some(c));
        for junk in [
            "",
            "m1 n2",
            "m1 n2 k3 x4",
            "n1 m2 k3",
            "mx n1 k1",
            "garbage",
        ] {
            assert_eq!(ShapeClass::parse(junk), None, "{junk:?}");
        }
    }
}
