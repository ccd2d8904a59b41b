//! The sgemm auto-tuner. For a device and a shape class it times every kernel variant that
//! can run, keeps the fastest, and remembers the choice on disk, one file per device and
//! driver, in the user's cache directory. Tuning only picks among kernels that are all
//! correct; it never changes a result beyond rounding.
//!
//! How much tuning happens is a [`Tuning`] mode, set with [`crate::ContextOptions::tuning`],
//! [`Context::set_tuning`] or the environment variable [`TUNE_ENV`]. The default,
//! [`Tuning::Auto`], tunes a shape class the first time an sgemm of at least
//! [`TUNE_MIN_WORK`] multiply-adds meets it and reads earlier choices from the cache.
//!
//! ```
//! use fragblas::{Context, ContextOptions, Tuning};
//! let ctx = Context::with_options(ContextOptions { tuning: Some(Tuning::Off), ..Default::default() })?;
//! assert_eq!(ctx.tuning(), Tuning::Off); // built-in defaults, no timing, no cache
//! # Ok::<(), fragblas::Error>(())
//! ```

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::blas::gemm::GemmKernel;
use crate::blas::shape::{GemmShape, Layout, Transpose};
use crate::context::{Context, DeviceInfo};
use crate::error::{Error, Result};

/// Environment variable for the tuning mode: `off`, `cached`, `auto`, `force`, or `clear`
/// (delete this device's cache file when a context opens, then tune as `auto`).
pub const TUNE_ENV: &str = "FRAGBLAS_TUNE";

/// Environment variable naming the directory of the tuning cache (default:
/// `$XDG_CACHE_HOME/fragblas`, else `$HOME/.cache/fragblas`).
pub const TUNE_CACHE_ENV: &str = "FRAGBLAS_TUNE_CACHE";

/// An sgemm below this many multiply-adds (m * n * k) is never timed: in `Auto` mode it uses
/// a cached choice or the built-in default.
pub const TUNE_MIN_WORK: usize = 1 << 24;

/// First line of a cache file; bump the number when kernels change meaning.
const CACHE_MAGIC: &str = "# fragblas sgemm tuning cache v1";

/// How much auto-tuning a context does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tuning {
    /// Never time, never read or write the cache: built-in defaults per device.
    Off,
    /// Use choices from the cache; built-in defaults for classes it lacks; never time.
    Cached,
    /// Use the cache; time a class it lacks on its first large enough call and save it.
    Auto,
    /// Time every class again on its first large enough call in this context, ignoring
    /// (and then overwriting) the cache.
    Force,
}

impl Tuning {
    /// Parses a [`TUNE_ENV`] value; `clear` is `Auto` plus a request to clear the cache.
    pub(crate) fn parse(s: &str) -> Option<(Tuning, bool)> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "0" | "no" => Some((Tuning::Off, false)),
            "cached" => Some((Tuning::Cached, false)),
            "" | "auto" | "1" | "yes" => Some((Tuning::Auto, false)),
            "force" => Some((Tuning::Force, false)),
            "clear" => Some((Tuning::Auto, true)),
            _ => None,
        }
    }
}

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

    fn key(&self) -> String {
        format!("m{} n{} k{}", self.m, self.n, self.k)
    }

    fn parse(m: &str, n: &str, k: &str) -> Option<Self> {
        Some(ShapeClass {
            m: m.strip_prefix('m')?.parse().ok()?,
            n: n.strip_prefix('n')?.parse().ok()?,
            k: k.strip_prefix('k')?.parse().ok()?,
        })
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

/// 64-bit FNV-1a: a stable hash for cache file names (std's hasher may change between Rust
/// releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The identity of a device and driver as the cache sees it.
pub(crate) fn device_key(info: &DeviceInfo) -> String {
    format!(
        "{} | {} | {} | {:?} | fragblas {}",
        info.vendor,
        info.renderer,
        info.version,
        info.api,
        env!("CARGO_PKG_VERSION")
    )
}

/// The cache file for a device key inside `dir`.
pub(crate) fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("sgemm-{:016x}.tune", fnv1a(key.as_bytes())))
}

/// The cache directory from the environment, if one can be named.
pub(crate) fn default_cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(TUNE_CACHE_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("fragblas")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("fragblas")))
}

/// Reads the choices of a cache file's text; lines for another device key, unknown kernels
/// or malformed lines are skipped.
pub(crate) fn parse_cache(text: &str, key: &str) -> HashMap<ShapeClass, GemmKernel> {
    let mut lines = text.lines();
    let mut out = HashMap::new();
    if lines.next() != Some(CACHE_MAGIC) || lines.next() != Some(&format!("# device: {key}")) {
        return out;
    }
    for line in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 || line.starts_with('#') {
            continue;
        }
        if let (Some(c), Some(k)) = (
            ShapeClass::parse(f[0], f[1], f[2]),
            GemmKernel::from_name(f[3]),
        ) {
            out.insert(c, k);
        }
    }
    out
}

/// The text of a cache file holding `choices` (sorted by class, so files diff well).
pub(crate) fn format_cache(key: &str, choices: &HashMap<ShapeClass, GemmKernel>) -> String {
    let mut classes: Vec<_> = choices.iter().collect();
    classes.sort_by_key(|(c, _)| **c);
    let mut s = format!("{CACHE_MAGIC}\n# device: {key}\n");
    for (c, k) in classes {
        s.push_str(&format!("{} {}\n", c.key(), k.name()));
    }
    s
}

/// Per-context tuner state: the mode, the cache file, and the choices known so far.
pub(crate) struct Tuner {
    mode: Cell<Tuning>,
    key: String,
    file: Option<PathBuf>,
    choices: RefCell<HashMap<ShapeClass, GemmKernel>>,
    loaded: Cell<bool>,
    /// Classes timed by this context (in `Force` mode each is timed once).
    timed: RefCell<HashSet<ShapeClass>>,
}

impl Tuner {
    /// A tuner for the device `info`, caching in `dir` (none: in memory only).
    pub(crate) fn new(info: &DeviceInfo, mode: Tuning, dir: Option<PathBuf>) -> Self {
        let key = device_key(info);
        Tuner {
            mode: Cell::new(mode),
            file: dir.map(|d| cache_file(&d, &key)),
            key,
            choices: RefCell::new(HashMap::new()),
            loaded: Cell::new(false),
            timed: RefCell::new(HashSet::new()),
        }
    }

    pub(crate) fn mode(&self) -> Tuning {
        self.mode.get()
    }

    pub(crate) fn set_mode(&self, mode: Tuning) {
        self.mode.set(mode);
    }

    pub(crate) fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    fn load(&self) {
        if self.loaded.replace(true) {
            return;
        }
        if let Some(text) = self
            .file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
        {
            let mut choices = self.choices.borrow_mut();
            for (c, k) in parse_cache(&text, &self.key) {
                choices.entry(c).or_insert(k);
            }
        }
    }

    /// The remembered choice for a class, as the mode allows.
    pub(crate) fn lookup(&self, class: ShapeClass) -> Option<GemmKernel> {
        match self.mode() {
            Tuning::Off => None,
            Tuning::Force if !self.timed.borrow().contains(&class) => None,
            _ => {
                self.load();
                self.choices.borrow().get(&class).copied()
            }
        }
    }

    /// Whether a call of this class and size should be timed now.
    pub(crate) fn should_time(&self, class: ShapeClass, work: usize) -> bool {
        matches!(self.mode(), Tuning::Auto | Tuning::Force)
            && work >= TUNE_MIN_WORK
            && !self.timed.borrow().contains(&class)
    }

    /// Records a choice and writes the cache file (merged with what is on disk now, through
    /// a temporary file and a rename so that a reader never sees half a file).
    pub(crate) fn record(&self, class: ShapeClass, kernel: GemmKernel) -> Result<Option<PathBuf>> {
        self.load();
        self.timed.borrow_mut().insert(class);
        self.choices.borrow_mut().insert(class, kernel);
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let mut merged = std::fs::read_to_string(file)
            .map(|t| parse_cache(&t, &self.key))
            .unwrap_or_default();
        merged.insert(class, kernel);
        let io = |e: std::io::Error| Error::Cache(format!("{}: {e}", file.display()));
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, format_cache(&self.key, &merged)).map_err(io)?;
        std::fs::rename(&tmp, file).map_err(io)?;
        Ok(Some(file.clone()))
    }

    /// Forgets every choice and deletes the cache file.
    pub(crate) fn clear(&self) -> Result<()> {
        self.choices.borrow_mut().clear();
        self.timed.borrow_mut().clear();
        self.loaded.set(true);
        if let Some(file) = &self.file {
            match std::fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::Cache(format!("{}: {e}", file.display()))),
            }
        }
        Ok(())
    }
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

/// Best time of an sgemm with `kernel`: for small and medium products best of 2 after one
/// untimed run (which compiles the kernel and fills the scratch pool), for large ones a
/// single run (see [`SINGLE_RUN_WORK`]).
pub(crate) fn time_kernel(
    ctx: &Context,
    kernel: GemmKernel,
    s: &GemmShape,
    a: &crate::Buffer,
    b: &crate::Buffer,
    c: &mut crate::Buffer,
) -> Result<Duration> {
    let t = |tr: bool| {
        if tr {
            Transpose::Trans
        } else {
            Transpose::NoTrans
        }
    };
    let run = |c: &mut crate::Buffer| {
        ctx.sgemm_with(
            kernel,
            Layout::ColMajor,
            t(s.a.trans),
            t(s.b.trans),
            s.m as i32,
            s.n as i32,
            s.k as i32,
            1.0,
            a,
            s.a.ld as i32,
            b,
            s.b.ld as i32,
            0.0,
            c,
            s.ldc as i32,
        )
    };
    let (reps, warm_up) = runs_for(s.m * s.n * s.k);
    if warm_up {
        run(c)?;
        ctx.finish()?;
    }
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let start = Instant::now();
        run(c)?;
        ctx.finish()?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

impl Context {
    /// The tuning mode of this context.
    pub fn tuning(&self) -> Tuning {
        self.inner.tuner.mode()
    }

    /// Changes the tuning mode of this context.
    pub fn set_tuning(&self, mode: Tuning) {
        self.inner.tuner.set_mode(mode);
    }

    /// The file this context's tuning choices are cached in, if it has one.
    pub fn tuning_cache_file(&self) -> Option<&Path> {
        self.inner.tuner.file()
    }

    /// Forgets every tuning choice of this device and deletes its cache file.
    pub fn clear_tuning_cache(&self) -> Result<()> {
        self.inner.tuner.clear()
    }

    /// The kernel `GemmKernel::Auto` uses for an `m x n x k` product now (without timing
    /// anything): the cached choice for its class if the mode allows, else the default.
    pub fn sgemm_kernel_for(&self, m: usize, n: usize, k: usize) -> GemmKernel {
        let s = GemmShape::plain(m, n, k);
        self.inner
            .tuner
            .lookup(ShapeClass::of(m, n, k))
            .filter(|k| k.runs(self.info(), &s))
            .unwrap_or_else(|| crate::blas::gemm::default_kernel(self.info(), &s))
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
        a: &crate::Buffer,
        b: &crate::Buffer,
        c: &mut crate::Buffer,
    ) -> Result<TuneReport> {
        let candidates = crate::blas::gemm::candidates(self.info(), s);
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
            self.inner.tuner.record(class, chosen)?
        };
        Ok(TuneReport {
            class,
            shape: (s.m, s.n, s.k),
            timings,
            chosen,
            saved_to,
        })
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
    fn cache_text_round_trips_and_rejects_other_devices() {
        let mut choices = HashMap::new();
        choices.insert(ShapeClass::of(4096, 4096, 4096), GemmKernel::Strip4);
        choices.insert(ShapeClass::of(100, 7, 3000), GemmKernel::Mrt8);
        let text = format_cache("dev A", &choices);
        assert!(text.starts_with(CACHE_MAGIC));
        assert_eq!(parse_cache(&text, "dev A"), choices);
        assert!(parse_cache(&text, "dev B").is_empty());
        // Unknown kernels and junk lines are skipped, the rest kept.
        let edited = format!("{text}m1 n2 k3 NoSuchKernel\ngarbage\nm1 n2\n");
        assert_eq!(parse_cache(&edited, "dev A"), choices);
        assert!(parse_cache("", "dev A").is_empty());
    }

    #[test]
    fn modes_parse_from_the_environment_spelling() {
        assert_eq!(Tuning::parse("off"), Some((Tuning::Off, false)));
        assert_eq!(Tuning::parse(" Cached "), Some((Tuning::Cached, false)));
        assert_eq!(Tuning::parse(""), Some((Tuning::Auto, false)));
        assert_eq!(Tuning::parse("force"), Some((Tuning::Force, false)));
        assert_eq!(Tuning::parse("clear"), Some((Tuning::Auto, true)));
        assert_eq!(Tuning::parse("sometimes"), None);
    }

    #[test]
    fn large_products_are_timed_once() {
        assert_eq!(runs_for(1 << 24), (2, true));
        assert_eq!(runs_for((1 << 32) - 1), (2, true));
        assert_eq!(runs_for(4096 * 4096 * 4096), (1, false));
    }

    #[test]
    fn cache_files_differ_per_device_key() {
        let d = Path::new("/tmp/x");
        assert_ne!(cache_file(d, "a"), cache_file(d, "b"));
        assert_eq!(cache_file(d, "a"), cache_file(d, "a"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
