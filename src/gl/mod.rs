//! Every unsafe GL and EGL call of the crate, behind thin safe wrappers; everything above
//! this module is safe Rust. It uses nothing of the crate but [`crate::error`].
//!
//! The invariant that makes these calls sound: a [`Gl`] is only used while its context is
//! current on the calling thread (the owning `Context` makes it current before every
//! operation and is not `Send`), and every object handle passed in was created by the same
//! `Gl` and not yet deleted (handles are owned by types that delete them exactly once).
//!
//! Files by concern: [`egl`] (devices and contexts), `texture` (textures and framebuffers,
//! host transfers), `buffer` (GL buffer objects: staging, readbacks, uniform blocks),
//! `program` (shaders, uniforms), `draw` (draws and blending); this file holds the function
//! table itself, the numbers read off a context, errors and teardown.

pub(crate) mod buffer;
mod draw;
pub(crate) mod egl;
pub(crate) mod host_copy;
mod profile;
mod program;
mod texture;

use glow::HasContext;

pub(crate) use buffer::{GlBuffer, Readback};
use profile::GlWork;
pub(crate) use profile::Profile;
pub use profile::{GlStat, GlTimes, KernelTime};
pub(crate) use program::Program;
pub(crate) use texture::Surface;

use crate::error::{Error, Result};

/// A rectangle of a render target, in texels: x, y, width, height.
pub(crate) type Rect = (u32, u32, u32, u32);

/// A GL function table bound to one context, plus the VAO every draw uses.
pub(crate) struct Gl {
    gl: glow::Context,
    vao: glow::VertexArray,
    /// `glFramebufferParameteri`, where the driver has it.
    framebuffer_parameteri: Option<egl::FramebufferParameteri>,
    /// A framebuffer without attachments, for the kernels that write through image stores.
    image_fbo: glow::Framebuffer,
    /// The default size last given to `image_fbo` (0 x 0: none yet).
    image_fbo_size: std::cell::Cell<(u32, u32)>,
    /// Compiled vertex shaders by source (one per prelude: every kernel draws the same
    /// full-screen triangle), attached to each program linked with that source instead of
    /// compiled again for it.
    vertex_shaders: std::cell::RefCell<Vec<(String, glow::Shader)>>,
    /// Host time inside GL by kind of work, when profiling is on.
    profile: Profile,
    /// The framebuffers bound to the draw and read targets now (`None`: the default one).
    /// Bindings are left in place after each use and changed only when another one is
    /// needed: on NVIDIA's driver every change of the bound draw framebuffer costs the GPU
    /// 5-11 us, whatever the draw (BENCHMARKS.md, session 10), so binding the default
    /// framebuffer again after each draw doubled the cost of every pass. On Mesa 22.3's
    /// llvmpipe that pattern also lost work: the strip sgemm kernels' blended draws into
    /// eight targets, with the default framebuffer bound after each, gave ssyr2k a wrong
    /// C(1,5) in netlib's sblat3 (issue 31; `tests/level3_sym.rs`,
    /// `ssyr2k_sblat3_case_under_every_kernel`, fails with it and passes without).
    bound: std::cell::Cell<Bound>,
    /// Whether the next draw also makes an invalid GL call: a testing aid that raises a GL
    /// error inside a routine, where a driver's would come from.
    fault: std::cell::Cell<bool>,
}

/// The framebuffers bound to the draw and read targets.
#[derive(Clone, Copy, Default)]
struct Bound {
    draw: Option<glow::Framebuffer>,
    read: Option<glow::Framebuffer>,
}

/// Numbers read off a context once at creation.
#[derive(Debug, Clone)]
pub(crate) struct GlStrings {
    pub renderer: String,
    pub vendor: String,
    pub version: String,
    pub glsl_version: String,
    pub max_texture_size: u32,
    pub max_draw_buffers: u32,
    pub max_uniform_block_size: u32,
    pub max_fragment_uniform_blocks: u32,
    pub uniform_buffer_offset_alignment: u32,
    /// Whether fragment shaders can write two or more images and a framebuffer without
    /// attachments can be sized (GL 4.3 or GLES 3.1).
    pub image_stores: bool,
    /// `GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS` (0 before GL 4.3 / GLES 3.1).
    pub max_fragment_storage_blocks: u32,
    /// `GL_MAX_SHADER_STORAGE_BLOCK_SIZE`, bytes (0 before GL 4.3 / GLES 3.1).
    pub max_storage_block_size: u64,
    /// The context's version: (major, minor).
    pub version_number: (u32, u32),
    pub extensions: Vec<String>,
    /// `GL_SUBGROUP_SUPPORTED_STAGES_KHR` and `GL_SUBGROUP_SUPPORTED_FEATURES_KHR` where the
    /// context has `GL_KHR_shader_subgroup`.
    pub subgroup_stages_features: Option<(u32, u32)>,
}

/// `GL_SUBGROUP_SUPPORTED_STAGES_KHR` (`GL_KHR_shader_subgroup`; glow has no name for it).
const SUBGROUP_SUPPORTED_STAGES_KHR: u32 = 0x9533;
/// `GL_SUBGROUP_SUPPORTED_FEATURES_KHR`.
const SUBGROUP_SUPPORTED_FEATURES_KHR: u32 = 0x9534;

impl Gl {
    /// Wraps a loaded function table. The context must be current. With `profile`, the host
    /// time of GL calls is counted by kind ([`Gl::take_times`]).
    pub(crate) fn new(fns: egl::GlFns, profile: bool) -> Result<Self> {
        let gl = fns.glow;
        // SAFETY: the context that loaded `gl` is current (egl::create made it so).
        let vao = unsafe { gl.create_vertex_array() }.map_err(Error::Context)?;
        // SAFETY: as above.
        let image_fbo = unsafe { gl.create_framebuffer() }.map_err(Error::Context)?;
        // SAFETY: as above; `vao` was just created by this context.
        unsafe {
            gl.bind_vertex_array(Some(vao));
            gl.disable(glow::DITHER);
            gl.disable(glow::BLEND);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::SCISSOR_TEST);
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
        }
        Ok(Gl {
            gl,
            vao,
            framebuffer_parameteri: fns.framebuffer_parameteri,
            image_fbo,
            image_fbo_size: std::cell::Cell::new((0, 0)),
            vertex_shaders: std::cell::RefCell::new(Vec::new()),
            profile: Profile::new(profile),
            bound: std::cell::Cell::new(Bound::default()),
            fault: std::cell::Cell::new(false),
        })
    }

    pub(crate) fn strings(&self) -> GlStrings {
        // SAFETY: plain queries on the current context.
        unsafe {
            let mut extensions: Vec<String> =
                self.gl.supported_extensions().iter().cloned().collect();
            extensions.sort();
            let v = self.gl.version();
            let images_core = if v.is_embedded {
                (v.major, v.minor) >= (3, 1)
            } else {
                (v.major, v.minor) >= (4, 3)
            };
            // Queried only where the enum exists (an unknown enum would raise an error).
            let max_fragment_image_uniforms = if images_core {
                self.gl
                    .get_parameter_i32(glow::MAX_FRAGMENT_IMAGE_UNIFORMS)
                    .max(0) as u32
            } else {
                0
            };
            let (max_fragment_storage_blocks, max_storage_block_size) = if images_core {
                (
                    self.gl
                        .get_parameter_i32(glow::MAX_FRAGMENT_SHADER_STORAGE_BLOCKS)
                        .max(0) as u32,
                    self.gl
                        .get_parameter_i64(glow::MAX_SHADER_STORAGE_BLOCK_SIZE)
                        .max(0) as u64,
                )
            } else {
                (0, 0)
            };
            // Queried only where the extension is (its enums are errors elsewhere).
            let subgroup_stages_features = extensions
                .iter()
                .any(|e| e == "GL_KHR_shader_subgroup")
                .then(|| {
                    (
                        self.gl
                            .get_parameter_i32(SUBGROUP_SUPPORTED_STAGES_KHR)
                            .max(0) as u32,
                        self.gl
                            .get_parameter_i32(SUBGROUP_SUPPORTED_FEATURES_KHR)
                            .max(0) as u32,
                    )
                });
            GlStrings {
                subgroup_stages_features,
                max_fragment_storage_blocks,
                max_storage_block_size,
                image_stores: images_core
                    && self.framebuffer_parameteri.is_some()
                    && max_fragment_image_uniforms >= 2,
                version_number: (v.major, v.minor),
                renderer: self.gl.get_parameter_string(glow::RENDERER),
                vendor: self.gl.get_parameter_string(glow::VENDOR),
                version: self.gl.get_parameter_string(glow::VERSION),
                glsl_version: self.gl.get_parameter_string(glow::SHADING_LANGUAGE_VERSION),
                max_texture_size: self.gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE).max(0) as u32,
                max_draw_buffers: self.gl.get_parameter_i32(glow::MAX_DRAW_BUFFERS).max(0) as u32,
                max_uniform_block_size: self
                    .gl
                    .get_parameter_i32(glow::MAX_UNIFORM_BLOCK_SIZE)
                    .max(0) as u32,
                max_fragment_uniform_blocks: self
                    .gl
                    .get_parameter_i32(glow::MAX_FRAGMENT_UNIFORM_BLOCKS)
                    .max(0) as u32,
                uniform_buffer_offset_alignment: self
                    .gl
                    .get_parameter_i32(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT)
                    .max(1) as u32,
                extensions,
            }
        }
    }

    /// Makes the next draw also raise a GL error (`GL_INVALID_ENUM`), as a driver error
    /// inside a routine would: what tests use to check that such errors reach the caller.
    pub(crate) fn fail_next_draw(&self) {
        self.fault.set(true);
    }

    /// At a draw: raises the error [`Gl::fail_next_draw`] asked for.
    fn raise_planted_fault(&self) {
        if self.fault.take() {
            // SAFETY: glEnable of a capability that does not exist only records
            // GL_INVALID_ENUM; no state changes.
            unsafe { self.gl.enable(0xFFFF) };
        }
    }

    /// Binds `fbo` as the draw framebuffer unless it is bound already.
    fn bind_draw_fbo(&self, fbo: glow::Framebuffer) {
        let mut b = self.bound.get();
        if b.draw != Some(fbo) {
            // SAFETY: `fbo` is a live framebuffer of this context (owned by a Surface or the
            // Gl); binding it has no other effect.
            unsafe { self.gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo)) };
            b.draw = Some(fbo);
            self.bound.set(b);
        }
    }

    /// Binds `fbo` as the read framebuffer unless it is bound already.
    fn bind_read_fbo(&self, fbo: glow::Framebuffer) {
        let mut b = self.bound.get();
        if b.read != Some(fbo) {
            // SAFETY: as in `bind_draw_fbo`.
            unsafe { self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo)) };
            b.read = Some(fbo);
            self.bound.set(b);
        }
    }

    /// Forgets `fbo` as a bound framebuffer: GL binds the default one in its place when a
    /// bound framebuffer is deleted.
    fn forget_fbo(&self, fbo: glow::Framebuffer) {
        let mut b = self.bound.get();
        for slot in [&mut b.draw, &mut b.read] {
            if *slot == Some(fbo) {
                *slot = None;
            }
        }
        self.bound.set(b);
    }

    /// Blocks until every command issued so far has finished.
    pub(crate) fn finish(&self) {
        // SAFETY: plain call on the current context.
        self.profile
            .time(GlWork::Waits, || unsafe { self.gl.finish() })
    }

    /// Turns a pending GL error into an [`Error`], draining the error queue.
    pub(crate) fn check(&self, operation: &'static str) -> Result<()> {
        // SAFETY: plain query on the current context.
        let first = self
            .profile
            .time(GlWork::ErrorChecks, || unsafe { self.gl.get_error() });
        if first == glow::NO_ERROR {
            return Ok(());
        }
        // Drain any further flags so none is left behind for the next operation.
        for _ in 0..16 {
            // SAFETY: as above.
            if unsafe { self.gl.get_error() } == glow::NO_ERROR {
                break;
            }
        }
        Err(Error::Gl {
            operation,
            code: first,
        })
    }

    /// Frees the VAO; called once when the owning context is dropped.
    pub(crate) fn release(&self) {
        self.release_queries();
        // SAFETY: the VAO, framebuffer and kept vertex shaders were created by this context
        // and are deleted once, at teardown.
        self.forget_fbo(self.image_fbo);
        unsafe {
            self.gl.bind_vertex_array(None);
            self.gl.delete_vertex_array(self.vao);
            self.gl.delete_framebuffer(self.image_fbo);
            for (_, sh) in self.vertex_shaders.borrow_mut().drain(..) {
                self.gl.delete_shader(sh);
            }
        }
    }
}
