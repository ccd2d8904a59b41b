//! The headless GL context: device choice, capabilities, the per-context program cache and
//! the pool of scratch textures.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::gl::egl::{self, EglContext};
use crate::gl::{Gl, GlBuffer, Program, Surface};
use crate::kernels::{Kernel, PRELUDE_GL33, PRELUDE_GL43, PRELUDE_GLES30, PRELUDE_GLES31};
use crate::layout::TexLayout;
use crate::tune::{Tuner, Tuning, TUNE_ENV};

/// Environment variable that picks an EGL device by index (see [`list_devices`]).
pub const DEVICE_ENV: &str = "FRAGBLAS_DEVICE";

pub use crate::gl::egl::{list_devices, DeviceDesc, GlApi};

/// Environment variable that picks the API when [`ContextOptions::api`] is `Auto`:
/// `gl` (desktop GL 3.3 core) or `gles` (OpenGL ES 3.0).
pub const API_ENV: &str = "FRAGBLAS_API";

/// Extension GLES 3.0 needs to render into RGBA32F textures.
const COLOR_BUFFER_FLOAT: &str = "GL_EXT_color_buffer_float";

/// Default texels per row of a buffer texture (clamped to the device's max texture size).
pub const DEFAULT_WIDTH_CAP: u32 = 8192;

/// Default number of texels each reduction fragment folds together per pass.
pub const DEFAULT_REDUCE_FAN_IN: u32 = 16;

/// Scratch textures kept for reuse beyond this many bytes are freed (all but the newest).
const POOL_BUDGET_BYTES: usize = 512 << 20;

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
    /// it is [`Tuning::Auto`].
    pub tuning: Option<Tuning>,
    /// Directory of the tuning cache; `None` reads [`crate::tune::TUNE_CACHE_ENV`], else the
    /// user's cache directory (`$XDG_CACHE_HOME/fragblas` or `~/.cache/fragblas`).
    pub tune_cache_dir: Option<PathBuf>,
    /// Whether sscal, scopy, sswap and saxpy on unit-stride vectors update them in place
    /// through image stores, several texels per fragment, instead of rendering a new
    /// texture one texel per fragment. `None` does so on hardware devices that can
    /// ([`DeviceInfo::image_stores`]); `Some(true)` wherever the device can, software
    /// included; `Some(false)` never. Results are the same either way.
    pub image_stores: Option<bool>,
}

/// What a user may want to know about the device behind a context.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// `GL_RENDERER`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub renderer: String,
    /// `GL_VENDOR`.
    pub vendor: String,
    /// `GL_VERSION`.
    pub version: String,
    /// `GL_SHADING_LANGUAGE_VERSION`.
    pub glsl_version: String,
    /// `GL_MAX_TEXTURE_SIZE`.
    pub max_texture_size: u32,
    /// `GL_MAX_DRAW_BUFFERS`.
    pub max_draw_buffers: u32,
    /// `GL_MAX_UNIFORM_BLOCK_SIZE`, bytes.
    pub max_uniform_block_size: u32,
    /// `GL_MAX_FRAGMENT_UNIFORM_BLOCKS`.
    pub max_fragment_uniform_blocks: u32,
    /// `GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT`, bytes.
    pub uniform_buffer_offset_alignment: u32,
    /// Whether fragment shaders can write textures through image stores (GL 4.3 or GLES 3.1
    /// with two or more fragment image uniforms).
    pub image_stores: bool,
    /// Whether RGBA32F targets can blend (always on desktop GL; `EXT_float_blend` on GLES).
    pub float_blend: bool,
    /// Whether EGL marks the device as a software rasteriser.
    pub software: bool,
    /// Index of the device in [`list_devices`].
    pub device_index: usize,
    /// GL extensions, sorted.
    pub extensions: Vec<String>,
    /// The API of the context: [`GlApi::DesktopGl`] or [`GlApi::Gles`].
    pub api: GlApi,
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
    /// Whether the level-1 update routines write in place through image stores.
    pub(crate) in_place_level1: bool,
    programs: RefCell<HashMap<Kernel, Rc<Program>>>,
    pool: RefCell<Pool>,
    /// Pixel-pack buffers of finished asynchronous readbacks, kept for the next ones.
    pack_buffers: RefCell<Vec<GlBuffer>>,
    /// The uniform-block buffer of the last strip sgemm, kept for the next one.
    block_buffer: RefCell<Option<GlBuffer>>,
    /// The pixel-unpack buffer of the last staged upload, kept for the next one.
    unpack_buffer: RefCell<Option<GlBuffer>>,
    /// sgemm kernel choices per shape class.
    pub(crate) tuner: Tuner,
}

thread_local! {
    /// Id of the context current on this thread (0: none of ours).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

impl Context {
    /// Creates a context with default options; `FRAGBLAS_DEVICE` picks the device if set.
    pub fn new() -> Result<Self> {
        Self::with_options(ContextOptions::default())
    }

    /// Creates a context with the given options.
    pub fn with_options(options: ContextOptions) -> Result<Self> {
        let device = match options.device {
            Some(i) => Some(i),
            None => match std::env::var(DEVICE_ENV) {
                Ok(v) if !v.trim().is_empty() => Some(v.trim().parse::<usize>().map_err(|_| {
                    Error::NoDevice(format!(
                        "{DEVICE_ENV}={v:?} is not a device index (a non-negative integer)"
                    ))
                })?),
                _ => None,
            },
        };
        let api = match options.api {
            GlApi::Auto => match std::env::var(API_ENV).as_deref().map(str::trim) {
                Ok("gl") => GlApi::DesktopGl,
                Ok("gles") => GlApi::Gles,
                Ok("") | Ok("auto") | Err(_) => GlApi::Auto,
                Ok(other) => {
                    return Err(Error::Context(format!(
                        "{API_ENV}={other:?}: expected gl, gles or auto"
                    )))
                }
            },
            other => other,
        };
        // Creating a context makes it current (or may leave none current on failure), so
        // whichever of ours was current is not any more.
        CURRENT.with(|c| c.set(0));
        let (egl, glow_ctx, desc, api) = egl::create(device, api)?;
        let gl = Gl::new(glow_ctx)?;
        let s = gl.strings();
        let info = DeviceInfo {
            renderer: s.renderer,
            vendor: s.vendor,
            version: s.version,
            glsl_version: s.glsl_version,
            max_texture_size: s.max_texture_size,
            max_draw_buffers: s.max_draw_buffers,
            max_uniform_block_size: s.max_uniform_block_size,
            max_fragment_uniform_blocks: s.max_fragment_uniform_blocks,
            uniform_buffer_offset_alignment: s.uniform_buffer_offset_alignment,
            image_stores: s.image_stores,
            float_blend: api != GlApi::Gles
                || s.extensions.iter().any(|e| e == "GL_EXT_float_blend"),
            software: desc.software,
            device_index: desc.index,
            extensions: s.extensions,
            api,
        };
        if api == GlApi::Gles && !info.extensions.iter().any(|e| e == COLOR_BUFFER_FLOAT) {
            return Err(Error::Unsupported(format!(
                "this GLES device ({}) lacks {COLOR_BUFFER_FLOAT}, so it cannot render into \
                 RGBA32F textures; fragblas does not fall back to lower precision",
                info.renderer
            )));
        }
        let width_cap = options
            .width_cap
            .unwrap_or(DEFAULT_WIDTH_CAP)
            .clamp(1, info.max_texture_size.max(1));
        let (tuning, clear_cache) = match options.tuning {
            Some(t) => (t, false),
            None => match std::env::var(TUNE_ENV) {
                Ok(v) => Tuning::parse(&v).ok_or_else(|| {
                    Error::Context(format!(
                        "{TUNE_ENV}={v:?}: expected off, cached, auto, force or clear"
                    ))
                })?,
                Err(_) => (Tuning::Auto, false),
            },
        };
        let cache_dir = options
            .tune_cache_dir
            .or_else(crate::tune::default_cache_dir);
        let tuner = Tuner::new(&info, tuning, cache_dir);
        if clear_cache {
            tuner.clear()?;
        }
        let in_place_level1 = info.image_stores && options.image_stores.unwrap_or(!info.software);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CURRENT.with(|c| c.set(id));
        let inner = Inner {
            id,
            egl,
            gl,
            info,
            width_cap,
            reduce_fan_in: Cell::new(DEFAULT_REDUCE_FAN_IN),
            in_place_level1,
            programs: RefCell::new(HashMap::new()),
            pool: RefCell::new(Pool::default()),
            pack_buffers: RefCell::new(Vec::new()),
            block_buffer: RefCell::new(None),
            unpack_buffer: RefCell::new(None),
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
        self.inner.in_place_level1
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

    /// A zero-filled buffer of `len` floats.
    pub fn zeros(&self, len: usize) -> Result<Buffer> {
        Buffer::zeros(self, len)
    }

    /// A buffer holding a copy of `data`.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn upload(&self, data: &[f32]) -> Result<Buffer> {
        let mut b = Buffer::uninit(self, data.len())?;
        b.write(data)?;
        Ok(b)
    }

    /// Blocks until the GPU has finished all work queued on this context.
    pub fn finish(&self) -> Result<()> {
        let gl = self.inner.enter()?;
        gl.finish();
        gl.check("finish")
    }

    /// Frees the scratch textures and readback buffers this context keeps for reuse.
    pub fn trim(&self) -> Result<()> {
        let gl = self.inner.enter()?;
        self.inner.pool.borrow_mut().clear(gl);
        for pb in self.inner.pack_buffers.borrow_mut().drain(..) {
            gl.delete_buffer(pb);
        }
        if let Some(bb) = self.inner.block_buffer.borrow_mut().take() {
            gl.delete_buffer(bb);
        }
        if let Some(pb) = self.inner.unpack_buffer.borrow_mut().take() {
            gl.delete_buffer(pb);
        }
        Ok(())
    }

    /// Compiles every kernel this device can run now (otherwise each compiles on first use).
    /// Useful before timing.
    pub fn warm_up(&self) -> Result<()> {
        for k in crate::kernels::ALL {
            if k.runs_on(self.info()) {
                self.inner.program(*k)?;
            }
        }
        Ok(())
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
    pub(crate) fn program(&self, k: Kernel) -> Result<Rc<Program>> {
        if let Some(p) = self.programs.borrow().get(&k) {
            return Ok(p.clone());
        }
        let gl = self.enter()?;
        let prelude = match (self.info.api, k.stores_images()) {
            (GlApi::Gles, false) => PRELUDE_GLES30,
            (GlApi::Gles, true) => PRELUDE_GLES31,
            (_, false) => PRELUDE_GL33,
            (_, true) => PRELUDE_GL43,
        };
        let (vs, fs) = k.sources(prelude);
        let p = Rc::new(gl.compile(k.name(), &vs, &fs)?);
        self.programs.borrow_mut().insert(k, p.clone());
        Ok(p)
    }

    /// A scratch surface of exactly `width` x `height`, from the pool or new.
    pub(crate) fn take_surface(&self, width: u32, height: u32) -> Result<Surface> {
        let gl = self.enter()?;
        if let Some(s) = self.pool.borrow_mut().take(width, height) {
            return Ok(s);
        }
        gl.create_surface(width, height)
    }

    /// Returns a surface to the pool (or frees it when the pool is full).
    pub(crate) fn give_surface(&self, s: Surface) {
        if self.enter().is_ok() {
            self.pool.borrow_mut().give(&self.gl, s);
        }
        // If the context cannot be made current the handle leaks with the context, which
        // frees all its objects when it is destroyed.
    }

    /// A pixel-pack buffer of at least `bytes` bytes: a kept one if it is large enough.
    pub(crate) fn take_pack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let gl = self.enter()?;
        let mut kept = self.pack_buffers.borrow_mut();
        if let Some(i) = kept.iter().position(|pb| pb.capacity >= bytes) {
            return Ok(kept.swap_remove(i));
        }
        gl.create_pack_buffer(bytes)
    }

    /// Keeps a pack buffer for reuse: the two most recent, since allocating one (pinned host
    /// memory on some drivers) costs more than the readback itself.
    pub(crate) fn give_pack_buffer(&self, pb: GlBuffer) {
        let Ok(gl) = self.enter() else { return };
        let mut kept = self.pack_buffers.borrow_mut();
        kept.push(pb);
        while kept.len() > 2 {
            gl.delete_buffer(kept.remove(0));
        }
    }

    /// A GL buffer of at least `bytes` bytes from a one-buffer `slot`: the kept one if it is
    /// large enough, else a new one from `create`.
    fn take_kept(
        &self,
        slot: &RefCell<Option<GlBuffer>>,
        bytes: usize,
        create: fn(&Gl, usize) -> Result<GlBuffer>,
    ) -> Result<GlBuffer> {
        let gl = self.enter()?;
        match slot.borrow_mut().take() {
            Some(b) if b.capacity >= bytes => Ok(b),
            old => {
                if let Some(b) = old {
                    gl.delete_buffer(b);
                }
                create(gl, bytes)
            }
        }
    }

    /// Keeps `b` in a one-buffer `slot` for the next use, freeing what was there.
    fn keep(&self, slot: &RefCell<Option<GlBuffer>>, b: GlBuffer) {
        let Ok(gl) = self.enter() else { return };
        if let Some(old) = slot.borrow_mut().replace(b) {
            gl.delete_buffer(old);
        }
    }

    /// A uniform-block buffer of at least `bytes` bytes.
    pub(crate) fn take_block_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.take_kept(&self.block_buffer, bytes, Gl::create_block_buffer)
    }

    /// Keeps a uniform-block buffer for the next strip sgemm.
    pub(crate) fn give_block_buffer(&self, b: GlBuffer) {
        self.keep(&self.block_buffer, b);
    }

    /// A pixel-unpack buffer of at least `bytes` bytes.
    pub(crate) fn take_unpack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.take_kept(&self.unpack_buffer, bytes, Gl::create_unpack_buffer)
    }

    /// Keeps a pixel-unpack buffer for the next staged upload.
    pub(crate) fn give_unpack_buffer(&self, b: GlBuffer) {
        self.keep(&self.unpack_buffer, b);
    }

    /// Frees a surface now.
    pub(crate) fn free_surface(&self, s: Surface) {
        if self.enter().is_ok() {
            self.gl.delete_surface(s);
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.enter().is_ok() {
            self.pool.get_mut().clear(&self.gl);
            for pb in self.pack_buffers.get_mut().drain(..) {
                self.gl.delete_buffer(pb);
            }
            if let Some(bb) = self.block_buffer.get_mut().take() {
                self.gl.delete_buffer(bb);
            }
            if let Some(pb) = self.unpack_buffer.get_mut().take() {
                self.gl.delete_buffer(pb);
            }
            for (_, p) in self.programs.get_mut().drain() {
                if let Ok(p) = Rc::try_unwrap(p) {
                    self.gl.delete_program(p);
                }
            }
            self.gl.release();
            self.gl.finish();
        }
        CURRENT.with(|c| {
            if c.get() == self.id {
                c.set(0)
            }
        });
    }
}

/// Scratch surfaces kept for reuse, keyed by shape, within a byte budget.
#[derive(Default)]
struct Pool {
    free: HashMap<(u32, u32), Vec<Surface>>,
    bytes: usize,
}

fn surface_bytes(s: &Surface) -> usize {
    s.width as usize * s.height as usize * 16
}

impl Pool {
    fn take(&mut self, width: u32, height: u32) -> Option<Surface> {
        let s = self.free.get_mut(&(width, height))?.pop()?;
        self.bytes -= surface_bytes(&s);
        Some(s)
    }

    /// Keeps `s` for reuse. When the budget would be exceeded the older surfaces go first;
    /// the newest is always kept, even one larger than the budget, so that a routine called
    /// again and again on a huge buffer reuses its scratch texture instead of allocating a
    /// new one each time (`Context::trim` frees it).
    fn give(&mut self, gl: &Gl, s: Surface) {
        let b = surface_bytes(&s);
        if self.bytes + b > POOL_BUDGET_BYTES {
            self.clear(gl);
        }
        self.bytes += b;
        self.free.entry((s.width, s.height)).or_default().push(s);
    }

    fn clear(&mut self, gl: &Gl) {
        for (_, v) in self.free.drain() {
            for s in v {
                gl.delete_surface(s);
            }
        }
        self.bytes = 0;
    }
}
