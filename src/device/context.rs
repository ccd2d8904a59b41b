//! The headless GL context: device choice, options, the program cache, and the objects it
//! keeps for reuse. Every routine runs in one; buffers hold it alive.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use crate::device::kernel::{Kernel, Preludes};
use crate::device::pool::{log_cost, Resources};
use crate::device::tune::{Tuner, Tuning, TUNE_ENV};
use crate::error::{Error, Result};
use crate::gl::egl::{self, EglContext};
use crate::gl::{Gl, GlBuffer, GlTimes, KernelTime, Program, Surface};
use crate::layout::TexLayout;

pub use crate::device::info::{DeviceInfo, WarpOps};
pub use crate::gl::egl::{list_devices, DeviceDesc, GlApi};

/// Environment variable that picks an EGL device by index (see [`list_devices`]).
pub const DEVICE_ENV: &str = "FRAGBLAS_DEVICE";

/// Environment variable that picks the API when [`ContextOptions::api`] is `Auto`:
/// `gl` (desktop GL 3.3 core) or `gles` (OpenGL ES 3.0).
pub const API_ENV: &str = "FRAGBLAS_API";

/// Environment variable that turns on counting the host time of GL calls by kind when
/// [`ContextOptions::profile`] is `None`: `1` (or `true`) on, anything else off.
pub const PROFILE_ENV: &str = "FRAGBLAS_PROFILE";

/// Default texels per row of a buffer texture (clamped to the device's max texture size).
pub const DEFAULT_WIDTH_CAP: u32 = 8192;

/// Default number of texels each reduction fragment folds together per pass.
pub const DEFAULT_REDUCE_FAN_IN: u32 = 16;

/// How to create a [`Context`].
#[derive(Debug, Clone, Default)]
pub struct ContextOptions {
    /// EGL device index; `None` reads [`DEVICE_ENV`], and without it takes the first hardware
    /// device that works, else the software one.
    pub device: Option<usize>,
    /// Texels per row of buffer textures; `None` is [`DEFAULT_WIDTH_CAP`]. Clamped to the
    /// device's max texture size.
    pub width_cap: Option<u32>,
    /// Desktop GL or GLES; `Auto` reads [`API_ENV`], and without it prefers desktop GL.
    pub api: GlApi,
    /// How much sgemm auto-tuning to do; `None` reads [`crate::tune::TUNE_ENV`], and without
    /// it is [`Tuning::Cached`] (cached choices and built-in defaults; nothing is timed
    /// unless asked).
    pub tuning: Option<Tuning>,
    /// Directory of the tuning cache; `None` reads [`crate::tune::TUNE_CACHE_ENV`], else the
    /// user's cache directory (`$XDG_CACHE_HOME/fragblas` or `~/.cache/fragblas`).
    pub tune_cache_dir: Option<PathBuf>,
    /// Whether the passes that have an image-store form write through image stores, several
    /// texels (or columns) a fragment, instead of rendering one texel a fragment: sscal,
    /// scopy, sswap and saxpy on unit-stride vectors (in place), the level-2 rank updates
    /// (in place) and the unpacking of a symmetric packed matrix, sgemm's packing passes and
    /// the strip kernels' writes of C (in place: by the multiply itself where k is one
    /// chunk or the window a triangle, else by the merge), strmm's and strsm's block products, inverse
    /// products and copies, the solves' inversion of diagonal blocks (16 x 16 sub-blocks,
    /// one fragment a column, joined by product passes) and their block steps (in place),
    /// and stpsv's unpacking of its packed triangle. `None` does so on hardware devices
    /// that can ([`DeviceInfo::image_stores`]);
    /// `Some(true)` wherever the device can, software included; `Some(false)` never.
    /// Results are the same either way up to the order of sums.
    pub image_stores: Option<bool>,
    /// Whether the triangular solves (strsv, stbsv, stpsv and strsm) invert every diagonal
    /// block of 64 unknowns in one pass and apply the inverses, instead of solving each
    /// block in turn by substitution (level 2: in one warp; strsm: on blocks of 16 rows).
    /// `None` does so on hardware devices (where thousands of independent substitutions at
    /// once cost about what one does); `Some` forces either. A fragment that meets an Inf or
    /// NaN solves by substitution either way, so results follow reference BLAS's loops in
    /// both.
    pub inverse_solves: Option<bool>,
    /// Whether the level-2 products of full storage (sgemv, ssymv, strmv and the products
    /// inside the solves) split their summed index into many interleaved chunks, each
    /// fragment summing every so-many texels so that neighbouring fragments read
    /// neighbouring columns or rows of A at the same moment, instead of a few runs of
    /// consecutive texels. `None` does so on hardware devices (on the H100 it made sgemv
    /// 4096^2 2.5x faster); software devices read a run faster (llvmpipe: 2x). `Some` forces
    /// either; results are the same up to the order of the sums.
    pub interleaved_products: Option<bool>,
    /// Whether sgemm's image-store packs write packed op(A) straight into the buffer the
    /// multiply reads (the strip kernels' uniform blocks, the tile kernels' storage buffer)
    /// through a fragment storage block, instead of into a texture that is then copied into
    /// the buffer. `None` and `Some(true)` do so wherever the image-store paths run and the
    /// device has a fragment storage block large enough (on the H100 the copy cost 115 us of
    /// sgemm 1024's 1.98 ms); `Some(false)` never. Results are the same either way.
    pub storage_packs: Option<bool>,
    /// Whether the level-2 products of a general or symmetric matrix in full storage
    /// (sgemv, ssymv, sspmv after its unpacking) and of packed storage (stpmv), which read
    /// a texel of x for every four texels of A, and the rank updates (sger, ssyr, ssyr2
    /// with x and y of unit stride; sspr and sspr2 their shifted copies of x and y), which
    /// read one for every texel, read them from a copy in a shader storage buffer instead
    /// of through the texture unit, which then fetches only A (on the H200 at 4096: sger
    /// 438 -> 359 us, ssyr2 287 -> 254, sspr2 564 -> 502). Wherever the
    /// image-store paths run and the device has fragment storage blocks: `None` for
    /// matrices of at least 2^22 elements on hardware devices (the copy is one more step,
    /// which a small call does not earn back; on the H200 sgemv 16384^2 went from 3.46 to
    /// 3.05 ms), `Some(true)` at every size, `Some(false)` never. Results are the same
    /// either way.
    pub vector_blocks: Option<bool>,
    /// Whether ssymv and sspmv read their stored triangle once, each texel giving both of
    /// its terms, in tiles that warps of the GPU take one at a time and sum across their
    /// lanes (`glsl/level2/symv_warp.frag`), where x and y have increment 1 and (ssymv) lda
    /// is a multiple of 4, instead of reading it twice (by columns, then by rows; sspmv's
    /// packed triangle is read where it lies instead of first copied into full storage);
    /// and whether stpmv's product takes the same tiles (one term of each texel; on the
    /// H200 stpmv 4096 465 -> 358 us).
    /// Needs warp operations in fragment shaders ([`DeviceInfo::warp_ops`]) and the
    /// image-store paths. `None` does so on hardware devices from order 2048 (on the H200,
    /// ssymv 4096 took 208-216 us against 230 and 1024 59-67 us against 59-60; sspmv 4096
    /// 370-389 us against 653-681; the same under GL and GLES), `Some(true)` at every order
    /// wherever the device can (llvmpipe's desktop GL by ballots), `Some(false)` never. Results are the same up to the order of the sums, which is
    /// fixed for a fixed set of lanes a warp: a GPU that packed its warps differently from
    /// one call to the next could change the last bits.
    pub warp_products: Option<bool>,
    /// Whether the block steps of the triangular solves on full storage with `lda % 4 ==
    /// 0` (strsv; stpsv after its unpacking), the update of the right-hand side and the
    /// product with a block's inverse, split each texel's sum over the four fragments of a
    /// quad (a quarter of the chain of fetches each, summed by quad operations: nothing
    /// stored between them), instead of one fragment walking the whole block. Needs the
    /// image-store paths and quad operations in fragment shaders
    /// ([`DeviceInfo::quad_ops`]). `None` and `Some(true)` do so wherever the device can;
    /// `Some(false)` never. Results are the same up to the order of the sums.
    pub quad_steps: Option<bool>,
    /// Whether the context counts the host time of its GL calls by kind of work (draws,
    /// state, error checks, transfers, waits), read with [`Context::take_gl_times`]: what a
    /// call's fixed cost is made of. `None` reads [`PROFILE_ENV`]; off by default (it adds
    /// two clock reads to each GL call).
    pub profile: Option<bool>,
}

/// A headless GL context on one device. Everything the crate computes runs in one.
///
/// A context is bound to the thread that created it (it is neither `Send` nor `Sync`), and
/// buffers belong to the context that made them. Several contexts may live in one process
/// and one thread; each operation makes its own context current.
///
/// ```
/// let ctx = fragblas::Context::new()?;
/// println!("{} ({})", ctx.info().renderer, ctx.info().version);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Rc<Inner>,
}

/// The shared state of a context; buffers hold an `Rc` to it so it outlives them.
pub(crate) struct Inner {
    id: usize,
    egl: EglContext,
    gl: Gl,
    pub(crate) info: DeviceInfo,
    width_cap: u32,
    reduce_fan_in: Cell<u32>,
    /// Whether the kernels that write through image stores run ([`ContextOptions::image_stores`]).
    pub(crate) image_store_paths: bool,
    /// Whether the triangular solves (level 2's and strsm) apply inverted diagonal blocks
    /// ([`ContextOptions::inverse_solves`]).
    pub(crate) inverse_solves: bool,
    /// Whether level-2 products split their sum into interleaved chunks
    /// ([`ContextOptions::interleaved_products`]).
    pub(crate) interleaved_products: bool,
    /// Whether sgemm's packs may write storage buffers ([`ContextOptions::storage_packs`]).
    pub(crate) storage_packs: bool,
    /// Whether level-2 kernels read their vectors from storage buffers
    /// ([`ContextOptions::vector_blocks`]; `None`: where it pays).
    pub(crate) vector_blocks: Option<bool>,
    /// Whether ssymv's product runs on warps ([`ContextOptions::warp_products`]; `None`:
    /// where it pays).
    pub(crate) warp_products: Option<bool>,
    /// Whether the solves' block steps split each texel's sum over a quad
    /// ([`ContextOptions::quad_steps`], where the device can).
    pub(crate) quad_steps: bool,
    programs: RefCell<HashMap<(&'static str, &'static str), Rc<Program>>>,
    /// The GLSL version lines kernels compile with.
    preludes: Preludes,
    kept: Resources,
    /// Tuning choices of every tunable routine.
    pub(crate) tuner: Tuner,
}

thread_local! {
    /// Id of the context current on this thread (0: none of ours).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// The device index from the options or [`DEVICE_ENV`].
fn device_choice(options: &ContextOptions) -> Result<Option<usize>> {
    if let Some(i) = options.device {
        return Ok(Some(i));
    }
    match std::env::var(DEVICE_ENV) {
        Ok(v) if !v.trim().is_empty() => v.trim().parse::<usize>().map(Some).map_err(|_| {
            Error::NoDevice(format!(
                "{DEVICE_ENV}={v:?} is not a device index (a non-negative integer)"
            ))
        }),
        _ => Ok(None),
    }
}

/// The API from the options or [`API_ENV`].
fn api_choice(options: &ContextOptions) -> Result<GlApi> {
    match options.api {
        GlApi::Auto => match std::env::var(API_ENV).as_deref().map(str::trim) {
            Ok("gl") => Ok(GlApi::DesktopGl),
            Ok("gles") => Ok(GlApi::Gles),
            Ok("") | Ok("auto") | Err(_) => Ok(GlApi::Auto),
            Ok(other) => Err(Error::Context(format!(
                "{API_ENV}={other:?}: expected gl, gles or auto"
            ))),
        },
        other => Ok(other),
    }
}

/// The tuning mode from the options or [`TUNE_ENV`], and whether to clear the cache first.
fn tuning_choice(options: &ContextOptions) -> Result<(Tuning, bool)> {
    match options.tuning {
        Some(t) => Ok((t, false)),
        None => match std::env::var(TUNE_ENV) {
            Ok(v) => Tuning::parse(&v).ok_or_else(|| {
                Error::Context(format!(
                    "{TUNE_ENV}={v:?}: expected off, cached, auto, force or clear"
                ))
            }),
            Err(_) => Ok((Tuning::Cached, false)),
        },
    }
}

impl Context {
    /// Creates a context with default options; `FRAGBLAS_DEVICE` picks the device if set.
    pub fn new() -> Result<Self> {
        Self::with_options(ContextOptions::default())
    }

    /// Creates a context with the given options.
    pub fn with_options(options: ContextOptions) -> Result<Self> {
        let device = device_choice(&options)?;
        let api = api_choice(&options)?;
        let (tuning, clear_cache) = tuning_choice(&options)?;
        let profile = options.profile.unwrap_or_else(|| {
            std::env::var(PROFILE_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true"))
        });
        // Creating a context makes it current (or may leave none current on failure), so
        // whichever of ours was current is not any more.
        CURRENT.with(|c| c.set(0));
        let (egl, gl, desc, api, strings) = log_cost(
            || "GL context created".into(),
            || {
                let (egl, fns, desc, api) = egl::create(device, api)?;
                let gl = Gl::new(fns, profile)?;
                let strings = gl.strings();
                Ok((egl, gl, desc, api, strings))
            },
        )?;
        // One reading of the device's warp and quad operations for the kernels' preludes and
        // the device's info.
        let warp_ops = strings.warp_ops(api);
        let quad_ops = strings.quad_ops(api);
        let preludes = Preludes::new(
            api,
            strings.version_number,
            &strings.extensions,
            warp_ops,
            quad_ops,
        );
        // The probe is the process's first compile and draw: on a cold driver shader cache it
        // costs 40-85 ms on the H100, most of which is the driver's own first-use set-up,
        // paid by whichever compile comes first (measured: probing lazily moved it into the
        // first routine's call instead; BENCHMARKS.md, session 9).
        let flushes = log_cost(
            || "subnormal probe".into(),
            || crate::device::probe::flushes_subnormals(&gl, &preludes),
        )?;
        let info = DeviceInfo::new(strings, &desc, api, flushes, (warp_ops, quad_ops))?;
        let width_cap = options
            .width_cap
            .unwrap_or(DEFAULT_WIDTH_CAP)
            .clamp(1, info.max_texture_size.max(1));
        let cache_dir = options
            .tune_cache_dir
            .or_else(crate::device::tune::default_cache_dir);
        let tuner = Tuner::new(&info, tuning, cache_dir);
        if clear_cache {
            tuner.clear()?;
        }
        let image_store_paths = info.image_stores && options.image_stores.unwrap_or(!info.software);
        let inverse_solves = options.inverse_solves.unwrap_or(!info.software);
        let interleaved_products = options.interleaved_products.unwrap_or(!info.software);
        let storage_packs = options.storage_packs.unwrap_or(true);
        let quad_steps = image_store_paths && info.quad_ops && options.quad_steps.unwrap_or(true);
        log::info!(
            "fragblas: device {} ({}{}), {} {:?}, tuning {tuning:?} (cache {}), image-store paths: {}",
            desc.index,
            info.renderer,
            if info.software { ", a software rasteriser" } else { "" },
            info.version,
            info.api,
            tuner.file("sgemm").map_or("none".into(), |f| f.display().to_string()),
            image_store_paths
        );
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CURRENT.with(|c| c.set(id));
        let inner = Inner {
            id,
            egl,
            gl,
            info,
            width_cap,
            reduce_fan_in: Cell::new(DEFAULT_REDUCE_FAN_IN),
            image_store_paths,
            inverse_solves,
            interleaved_products,
            storage_packs,
            vector_blocks: options.vector_blocks,
            warp_products: options.warp_products,
            quad_steps,
            programs: RefCell::new(HashMap::new()),
            preludes,
            kept: Resources::default(),
            tuner,
        };
        inner.gl.check("context creation")?;
        Ok(Context {
            inner: Rc::new(inner),
        })
    }

    /// The device behind this context.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// Texels per row of this context's buffer textures.
    pub fn width_cap(&self) -> u32 {
        self.inner.width_cap
    }

    /// The largest buffer (in floats) this context can hold.
    pub fn max_buffer_len(&self) -> usize {
        crate::layout::max_floats(self.inner.width_cap, self.inner.info.max_texture_size)
    }

    /// Whether sscal, scopy, sswap and saxpy update unit-stride vectors in place through
    /// image stores in this context (see [`ContextOptions::image_stores`]).
    pub fn level1_in_place(&self) -> bool {
        self.inner.image_store_paths
    }

    /// Texels each reduction fragment folds together per pass (2 is the blueprint's half
    /// reduction).
    pub fn reduce_fan_in(&self) -> u32 {
        self.inner.reduce_fan_in.get()
    }

    /// Sets the reduction fan-in; values below 2 are an error.
    pub fn set_reduce_fan_in(&self, fan_in: u32) -> Result<()> {
        if !(2..=1024).contains(&fan_in) {
            return Err(Error::Unsupported(format!(
                "reduction fan-in {fan_in}: it must lie in 2..=1024"
            )));
        }
        self.inner.reduce_fan_in.set(fan_in);
        Ok(())
    }

    /// Blocks until the GPU has finished all work queued on this context.
    pub fn finish(&self) -> Result<()> {
        let gl = self.inner.enter()?;
        gl.finish();
        gl.check("finish")
    }

    /// The host time this context spent inside GL calls, by kind of work, since it was
    /// created or since the last call of this method (which resets the counts); `None`
    /// unless the context was created with [`ContextOptions::profile`] (or
    /// `FRAGBLAS_PROFILE=1`). A loop's wall time less [`GlTimes::total`] is the library's
    /// own host time; a call that blocks on the GPU shows as a long transfer or wait.
    ///
    /// ```
    /// use fragblas::{Context, ContextOptions};
    /// let ctx = Context::with_options(ContextOptions { profile: Some(true), ..Default::default() })?;
    /// let x = ctx.upload(&[1.0; 64])?;
    /// ctx.take_gl_times(); // forget the upload
    /// let _ = ctx.sdot(64, &x, 1, &x, 1)?;
    /// let t = ctx.take_gl_times().expect("profiling is on");
    /// assert!(t.draws.calls >= 1 && t.transfers.calls >= 1); // passes, then the readback
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn take_gl_times(&self) -> Option<GlTimes> {
        self.take_gl_profile().map(|(t, _)| t)
    }

    /// [`Context::take_gl_times`] with the GPU's time by kernel: each timestamped draw's
    /// GPU time (from the previous draw's end to its own; desktop GL only) added to its
    /// kernel's (file and defines), largest first. When the GPU, not the host, sets the
    /// pace (a loop of resident calls), this is where a call's GPU time goes, pass by pass
    /// (`examples/passes.rs`).
    ///
    /// ```
    /// use fragblas::{Context, ContextOptions};
    /// let ctx = Context::with_options(ContextOptions { profile: Some(true), ..Default::default() })?;
    /// let mut x = ctx.upload(&[1.0; 64])?;
    /// ctx.sscal(64, 2.0, &mut x, 1)?;
    /// ctx.sscal(64, 2.0, &mut x, 1)?;
    /// let (times, kernels) = ctx.take_gl_profile().expect("profiling is on");
    /// assert!(times.draws.calls >= 2);
    /// // Desktop GL names the kernels (the first draw has no earlier one to time from).
    /// assert!(kernels.iter().all(|k| k.draws >= 1 && k.kernel.contains(".frag")));
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn take_gl_profile(&self) -> Option<(GlTimes, Vec<KernelTime>)> {
        self.inner.gl.take_times()
    }

    /// Testing aid: the next draw of this context also makes an invalid GL call
    /// (`GL_INVALID_ENUM`), as a driver error inside a routine would, so that a test can
    /// check that the routine returns it as [`Error::Gl`]. Nothing else changes.
    #[doc(hidden)]
    pub fn plant_gl_error(&self) -> Result<()> {
        self.inner.enter()?.fail_next_draw();
        Ok(())
    }

    /// Frees the scratch textures and readback buffers this context keeps for reuse.
    pub fn trim(&self) -> Result<()> {
        let gl = self.inner.enter()?;
        self.inner.kept.clear(gl);
        Ok(())
    }

    /// The tuning mode of this context.
    pub fn tuning(&self) -> Tuning {
        self.inner.tuner.mode()
    }

    /// Changes the tuning mode of this context.
    pub fn set_tuning(&self, mode: Tuning) {
        self.inner.tuner.set_mode(mode);
    }

    /// Forgets every tuning choice of this device and deletes its cache files.
    pub fn clear_tuning_cache(&self) -> Result<()> {
        self.inner.tuner.clear()
    }
}

impl Inner {
    /// Makes this context current on the calling thread (if it is not) and returns its GL.
    pub(crate) fn enter(&self) -> Result<&Gl> {
        if CURRENT.with(|c| c.get()) != self.id {
            self.egl.make_current()?;
            CURRENT.with(|c| c.set(self.id));
        }
        Ok(&self.gl)
    }

    pub(crate) fn is_software(&self) -> bool {
        self.info.software
    }

    pub(crate) fn info_max_texture(&self) -> u32 {
        self.info.max_texture_size
    }

    pub(crate) fn reduce_fan_in(&self) -> u32 {
        self.reduce_fan_in.get()
    }

    /// Layout of a buffer of `len` floats in this context.
    pub(crate) fn layout(&self, len: usize) -> Result<TexLayout> {
        TexLayout::new(len, self.width_cap, self.info.max_texture_size)
    }

    /// The program of kernel `k`, compiled on first use.
    pub(crate) fn program(&self, k: &Kernel) -> Result<Rc<Program>> {
        if let Some(p) = self.programs.borrow().get(&k.key()) {
            return Ok(p.clone());
        }
        let gl = self.enter()?;
        let (vs, fs) = k.sources(&self.preludes);
        let p = Rc::new(log_cost(
            || format!("compiled {}", k.name),
            || gl.compile((k.name, k.label()), &vs, &fs),
        )?);
        self.programs.borrow_mut().insert(k.key(), p.clone());
        Ok(p)
    }

    /// A scratch surface of exactly `width` x `height`, from the pool or new.
    pub(crate) fn take_surface(&self, width: u32, height: u32) -> Result<Surface> {
        let gl = self.enter()?;
        self.kept.take_surface(gl, width, height)
    }

    /// Returns a surface to the pool (or frees it when the pool is full).
    pub(crate) fn give_surface(&self, s: Surface) {
        // If the context cannot be made current the handle leaks with the context, which
        // frees all its objects when it is destroyed.
        if let Ok(gl) = self.enter() {
            self.kept.give_surface(gl, s);
        }
    }

    /// Frees a surface now.
    pub(crate) fn free_surface(&self, s: Surface) {
        if let Ok(gl) = self.enter() {
            gl.delete_surface(s);
        }
    }

    /// A pixel-pack buffer of at least `bytes` bytes: a kept one if it is large enough.
    pub(crate) fn take_pack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let gl = self.enter()?;
        self.kept.take_pack_buffer(gl, bytes)
    }

    /// Keeps a pack buffer for reuse.
    pub(crate) fn give_pack_buffer(&self, pb: GlBuffer) {
        if let Ok(gl) = self.enter() {
            self.kept.give_pack_buffer(gl, pb);
        }
    }

    /// A uniform-block buffer of at least `bytes` bytes.
    pub(crate) fn take_block_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let gl = self.enter()?;
        self.kept.take_block_buffer(gl, bytes)
    }

    /// Keeps a uniform-block buffer for the next use.
    pub(crate) fn give_block_buffer(&self, b: GlBuffer) {
        if let Ok(gl) = self.enter() {
            self.kept.give_block_buffer(gl, b);
        }
    }

    /// The storage buffers of a product that adds its chunks in its own draw: partial sums
    /// of at least `partials` bytes and arrival counts (all 0) of at least `arrivals` bytes.
    pub(crate) fn take_fold_buffers(
        &self,
        partials: usize,
        arrivals: usize,
    ) -> Result<(GlBuffer, GlBuffer)> {
        let gl = self.enter()?;
        let p = self.kept.take_partials_buffer(gl, partials)?;
        match self.kept.take_arrivals_buffer(gl, arrivals) {
            Ok(a) => Ok((p, a)),
            Err(e) => {
                self.kept.give_partials_buffer(gl, p);
                Err(e)
            }
        }
    }

    /// Keeps the buffers of [`Inner::take_fold_buffers`] for the next use (the draw that used
    /// them has set the counts back to 0).
    pub(crate) fn give_fold_buffers(&self, (p, a): (GlBuffer, GlBuffer)) {
        if let Ok(gl) = self.enter() {
            self.kept.give_partials_buffer(gl, p);
            self.kept.give_arrivals_buffer(gl, a);
        }
    }

    /// A buffer of at least `bytes` bytes for partial sums (contents undefined).
    pub(crate) fn take_partials_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let gl = self.enter()?;
        self.kept.take_partials_buffer(gl, bytes)
    }

    /// Keeps a partial-sums buffer for the next use.
    pub(crate) fn give_partials_buffer(&self, b: GlBuffer) {
        if let Ok(gl) = self.enter() {
            self.kept.give_partials_buffer(gl, b);
        }
    }

    /// The warp kernels' counts (at least `bytes` bytes) and how many calls have used them
    /// ([`Resources::take_warp_counts`](crate::device::pool::Resources::take_warp_counts)).
    pub(crate) fn take_warp_counts(&self, bytes: usize) -> Result<(GlBuffer, u32)> {
        let gl = self.enter()?;
        self.kept.take_warp_counts(gl, bytes)
    }

    /// Keeps the warp kernels' counts, now used by `used` calls.
    pub(crate) fn give_warp_counts(&self, b: GlBuffer, used: u32) {
        if let Ok(gl) = self.enter() {
            self.kept.give_warp_counts(gl, b, used);
        }
    }

    /// A pixel-unpack buffer of at least `bytes` bytes.
    pub(crate) fn take_unpack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let gl = self.enter()?;
        self.kept.take_unpack_buffer(gl, bytes)
    }

    /// Keeps a pixel-unpack buffer for the next staged upload.
    pub(crate) fn give_unpack_buffer(&self, b: GlBuffer) {
        if let Ok(gl) = self.enter() {
            self.kept.give_unpack_buffer(gl, b);
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.enter().is_ok() {
            self.kept.clear(&self.gl);
            for (_, p) in self.programs.get_mut().drain() {
                if let Ok(p) = Rc::try_unwrap(p) {
                    self.gl.delete_program(p);
                }
            }
            self.gl.release();
            self.gl.finish();
        }
        // Dropping the EGL context (next) releases whatever context is current on this
        // thread.
        CURRENT.with(|c| c.set(0));
    }
}
