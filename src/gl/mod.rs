//! Thin safe wrappers over the GL calls this crate makes. Every `unsafe` GL call of the crate
//! lives in this module (and EGL set-up in [`egl`]); everything above it is safe Rust.
//!
//! The invariant that makes these calls sound: a [`Gl`] is only used while its context is
//! current on the calling thread (the owning `Context` makes it current before every
//! operation and is not `Send`), and every object handle passed in was created by the same
//! `Gl` and not yet deleted (handles are owned by types that delete them exactly once).

pub(crate) mod egl;

use std::cell::RefCell;
use std::collections::HashMap;

use glow::HasContext;

use crate::error::{Error, Result};

/// An RGBA32F texture with a framebuffer that renders into it.
#[derive(Debug)]
pub(crate) struct Surface {
    tex: glow::Texture,
    fbo: glow::Framebuffer,
    pub width: u32,
    pub height: u32,
}

/// A GL buffer object: pixel readbacks are written into one, staged uploads read from one,
/// and the strip sgemm kernels read one as uniform blocks.
#[derive(Debug)]
pub(crate) struct GlBuffer {
    buffer: glow::Buffer,
    pub capacity: usize,
}

/// A rectangle of a render target, in texels: x, y, width, height.
pub(crate) type Rect = (u32, u32, u32, u32);

/// A pixel-pack buffer being filled by the GPU, and the fence that says when it is done.
#[derive(Debug)]
pub(crate) struct Readback {
    pb: GlBuffer,
    fence: glow::Fence,
    bytes: usize,
}

/// A linked program with its uniform locations looked up once.
pub(crate) struct Program {
    name: &'static str,
    program: glow::Program,
    locations: RefCell<HashMap<&'static str, Option<glow::UniformLocation>>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Program({})", self.name)
    }
}

/// A GL function table bound to one context, plus the VAO every draw uses.
pub(crate) struct Gl {
    gl: glow::Context,
    vao: glow::VertexArray,
    /// `glFramebufferParameteri`, where the driver has it.
    framebuffer_parameteri: Option<egl::FramebufferParameteri>,
    /// A framebuffer without attachments, for the kernels that write through image stores.
    image_fbo: glow::Framebuffer,
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
    pub extensions: Vec<String>,
}

impl Gl {
    /// Wraps a loaded function table. The context must be current.
    pub(crate) fn new(fns: egl::GlFns) -> Result<Self> {
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
            GlStrings {
                image_stores: images_core
                    && self.framebuffer_parameteri.is_some()
                    && max_fragment_image_uniforms >= 2,
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

    /// Allocates a `width` x `height` RGBA32F texture and its framebuffer.
    pub(crate) fn create_surface(&self, width: u32, height: u32) -> Result<Surface> {
        let gl = &self.gl;
        // SAFETY: current context; sizes are checked against MAX_TEXTURE_SIZE by callers
        // (a bad size yields a GL error that is reported below, not undefined behaviour);
        // `None` pixels allocate without reading host memory.
        unsafe {
            let tex = gl.create_texture().map_err(Error::Context)?;
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MAG_FILTER,
                glow::NEAREST as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_WRAP_S,
                glow::CLAMP_TO_EDGE as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_WRAP_T,
                glow::CLAMP_TO_EDGE as i32,
            );
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
            // Immutable storage where the API has it (GLES binds only immutable textures
            // as images); GL 3.3 without texture storage allocates the mutable way.
            let v = gl.version();
            if v.is_embedded || (v.major, v.minor) >= (4, 2) {
                gl.tex_storage_2d(
                    glow::TEXTURE_2D,
                    1,
                    glow::RGBA32F,
                    width as i32,
                    height as i32,
                );
            } else {
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA32F as i32,
                    width as i32,
                    height as i32,
                    0,
                    glow::RGBA,
                    glow::FLOAT,
                    glow::PixelUnpackData::Slice(None),
                );
            }
            gl.bind_texture(glow::TEXTURE_2D, None);
            let err = gl.get_error();
            if err != glow::NO_ERROR {
                gl.delete_texture(tex);
                return Err(Error::Gl {
                    operation: "allocating an RGBA32F texture",
                    code: err,
                });
            }
            let fbo = gl.create_framebuffer().map_err(Error::Context)?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(tex),
                0,
            );
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            if status != glow::FRAMEBUFFER_COMPLETE {
                gl.delete_framebuffer(fbo);
                gl.delete_texture(tex);
                return Err(Error::Framebuffer(status));
            }
            Ok(Surface {
                tex,
                fbo,
                width,
                height,
            })
        }
    }

    /// Sets every texel of `s` to zero.
    pub(crate) fn clear(&self, s: &Surface) {
        // SAFETY: the framebuffer is complete; draw buffer 0 is its only colour attachment.
        unsafe {
            self.gl
                .bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(s.fbo));
            self.gl.clear_buffer_f32_slice(glow::COLOR, 0, &[0.0; 4]);
            self.gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        }
    }

    /// Frees a surface. Takes it by value so it cannot be used again.
    pub(crate) fn delete_surface(&self, s: Surface) {
        // SAFETY: the handles were created by this context and are deleted once (by value).
        unsafe {
            self.gl.delete_framebuffer(s.fbo);
            self.gl.delete_texture(s.tex);
        }
    }

    /// Writes `data` (exactly `w * h * 4` floats) into the rectangle at `(x, y)`.
    pub(crate) fn upload(&self, s: &Surface, x: u32, y: u32, w: u32, h: u32, data: &[f32]) {
        assert!(
            x + w <= s.width && y + h <= s.height,
            "upload rectangle outside the texture"
        );
        assert_eq!(data.len(), w as usize * h as usize * 4, "upload length");
        if w == 0 || h == 0 {
            return;
        }
        let pixels = glow::PixelUnpackData::Slice(Some(bytemuck::cast_slice(data)));
        // SAFETY: no unpack buffer is bound (every binder unbinds), `data` holds exactly the
        // w*h RGBA float texels GL reads (asserted above, with UNPACK_ALIGNMENT 4 and no row
        // length set), and the rectangle is inside the texture (asserted).
        unsafe { self.tex_sub_image(s, (x, y, w, h), pixels) }
    }

    /// `glTexSubImage2D` of RGBA floats into the rectangle `r` of `s`.
    ///
    /// # Safety
    /// The source must hold the rectangle's texels: a client slice with no unpack buffer
    /// bound, or an offset into the bound unpack buffer; the rectangle must lie inside the
    /// texture.
    unsafe fn tex_sub_image(&self, s: &Surface, r: Rect, pixels: glow::PixelUnpackData) {
        let (x, y, w, h) = r;
        // SAFETY: the caller's guarantees above; the texture is unbound afterwards.
        unsafe {
            self.gl.bind_texture(glow::TEXTURE_2D, Some(s.tex));
            self.gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                x as i32,
                y as i32,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::FLOAT,
                pixels,
            );
            self.gl.bind_texture(glow::TEXTURE_2D, None);
        }
    }

    /// Reads the rectangle at `(x, y)` into `out` (exactly `w * h * 4` floats).
    pub(crate) fn download(&self, s: &Surface, x: u32, y: u32, w: u32, h: u32, out: &mut [f32]) {
        assert!(
            x + w <= s.width && y + h <= s.height,
            "download rectangle outside the texture"
        );
        assert_eq!(out.len(), w as usize * h as usize * 4, "download length");
        if w == 0 || h == 0 {
            return;
        }
        // SAFETY: `out` has room for exactly the w*h RGBA float texels GL writes (asserted
        // above, PACK_ALIGNMENT 4), and the rectangle lies inside the attached texture.
        unsafe {
            self.gl
                .bind_framebuffer(glow::READ_FRAMEBUFFER, Some(s.fbo));
            self.gl.read_pixels(
                x as i32,
                y as i32,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(out))),
            );
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
        }
    }

    /// A pixel-unpack buffer of at least `bytes` bytes, for staged uploads (the same buffer
    /// type as a pack buffer, with a usage hint for host writes).
    pub(crate) fn create_unpack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::STREAM_DRAW)
    }

    /// Copies `data` into the start of `pb` through a mapping that discards the old
    /// contents, then zeros up to `padded_len` floats; the GPU then uploads from it with
    /// [`Gl::upload_from`].
    pub(crate) fn stage(&self, pb: &GlBuffer, data: &[f32], padded_len: usize) -> Result<()> {
        assert!(padded_len >= data.len() && padded_len * 4 <= pb.capacity);
        if padded_len == 0 {
            return Ok(());
        }
        // SAFETY: the mapping covers padded_len floats of the buffer (inside its capacity,
        // asserted); it is written only while mapped, then unmapped and unbound. The old
        // contents are invalidated, so a pending upload from them is not disturbed.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(pb.buffer));
            let ptr = self.gl.map_buffer_range(
                glow::PIXEL_UNPACK_BUFFER,
                0,
                (padded_len * 4) as i32,
                glow::MAP_WRITE_BIT | glow::MAP_INVALIDATE_BUFFER_BIT,
            ) as *mut f32;
            if ptr.is_null() {
                self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
                return Err(Error::Gl {
                    operation: "mapping a pixel-unpack buffer",
                    code: self.gl.get_error(),
                });
            }
            std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len());
            std::ptr::write_bytes(ptr.add(data.len()), 0, padded_len - data.len());
            self.gl.unmap_buffer(glow::PIXEL_UNPACK_BUFFER);
            self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        }
        Ok(())
    }

    /// Uploads the `w` x `h` rectangle at (x, y) of `s` from `pb`, starting `offset` bytes
    /// into it (texels row after row, as [`Gl::stage`] wrote them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn upload_from(
        &self,
        pb: &GlBuffer,
        offset: usize,
        s: &Surface,
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    ) {
        assert!(
            x + w <= s.width && y + h <= s.height,
            "upload rectangle outside the texture"
        );
        assert!(
            offset + w as usize * h as usize * 16 <= pb.capacity,
            "upload past the buffer"
        );
        if w == 0 || h == 0 {
            return;
        }
        let pixels = glow::PixelUnpackData::BufferOffset(offset as u32);
        // SAFETY: `pb` is a live buffer of this context, bound as the unpack source; the
        // texels GL reads lie inside it and the rectangle inside the texture (both asserted);
        // it is unbound afterwards so that later client-memory uploads read client memory.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(pb.buffer));
            self.tex_sub_image(s, (x, y, w, h), pixels);
            self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        }
    }

    /// A pixel-pack buffer of at least `bytes` bytes, for asynchronous readbacks.
    pub(crate) fn create_pack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::STREAM_READ)
    }

    fn create_pixel_buffer(&self, bytes: usize, usage: u32) -> Result<GlBuffer> {
        let size = i32::try_from(bytes.max(16)).map_err(|_| {
            Error::Unsupported(format!("a GL buffer of {bytes} bytes exceeds 2 GiB"))
        })?;
        // SAFETY: current context; the buffer is allocated without host data and unbound.
        unsafe {
            let buffer = self.gl.create_buffer().map_err(Error::Context)?;
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(buffer));
            self.gl
                .buffer_data_size(glow::PIXEL_PACK_BUFFER, size, usage);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            Ok(GlBuffer {
                buffer,
                capacity: size as usize,
            })
        }
    }

    /// Frees a GL buffer.
    pub(crate) fn delete_buffer(&self, pb: GlBuffer) {
        // SAFETY: created by this context, deleted once (by value).
        unsafe { self.gl.delete_buffer(pb.buffer) }
    }

    /// Starts an asynchronous readback of the first `h` rows (of `s.width` texels) into
    /// `pb` and fences it; nothing waits here.
    pub(crate) fn start_readback(&self, s: &Surface, h: u32, pb: GlBuffer) -> Result<Readback> {
        assert!(h <= s.height, "readback rows outside the texture");
        let bytes = s.width as usize * h as usize * 16;
        assert!(bytes <= pb.capacity, "pack buffer too small");
        self.read_rows_into(s, h, pb.buffer);
        // SAFETY: a fence on the current context, deleted with the readback (or here).
        unsafe {
            let fence = match self.gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0) {
                Ok(f) => f,
                Err(e) => {
                    self.delete_buffer(pb);
                    return Err(Error::Context(e));
                }
            };
            self.gl.flush();
            Ok(Readback { pb, fence, bytes })
        }
    }

    /// Whether the readback's fence has signalled; with `wait`, blocks until it has.
    pub(crate) fn readback_ready(&self, r: &Readback, wait: bool) -> bool {
        let timeout = if wait { i32::MAX } else { 0 };
        loop {
            // SAFETY: the fence belongs to this context and is deleted only with `r`.
            let status = unsafe {
                self.gl
                    .client_wait_sync(r.fence, glow::SYNC_FLUSH_COMMANDS_BIT, timeout)
            };
            match status {
                glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED => return true,
                glow::TIMEOUT_EXPIRED if wait => continue,
                glow::TIMEOUT_EXPIRED => return false,
                // WAIT_FAILED: say "ready"; mapping the buffer still waits for the GPU.
                _ => return true,
            }
        }
    }

    /// Copies the first `out.len()` floats of a finished readback into `out`.
    pub(crate) fn finish_readback(&self, r: &Readback, out: &mut [f32]) -> Result<()> {
        assert!(out.len() * 4 <= r.bytes, "readback shorter than the output");
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: the buffer holds r.bytes bytes written by read_pixels (the fence has been
        // waited on by the caller); the mapping covers out.len() floats, is read only while
        // mapped, and is unmapped before the buffer is unbound.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_PACK_BUFFER, Some(r.pb.buffer));
            let ptr = self.gl.map_buffer_range(
                glow::PIXEL_PACK_BUFFER,
                0,
                (out.len() * 4) as i32,
                glow::MAP_READ_BIT,
            );
            if ptr.is_null() {
                self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
                return Err(Error::Gl {
                    operation: "mapping a pixel buffer",
                    code: self.gl.get_error(),
                });
            }
            std::ptr::copy_nonoverlapping(ptr as *const f32, out.as_mut_ptr(), out.len());
            self.gl.unmap_buffer(glow::PIXEL_PACK_BUFFER);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
        }
        Ok(())
    }

    /// Frees a readback's fence and hands its pack buffer back for reuse.
    pub(crate) fn end_readback(&self, r: Readback) -> GlBuffer {
        // SAFETY: the fence belongs to this context and is deleted once (by value).
        unsafe { self.gl.delete_sync(r.fence) };
        r.pb
    }

    /// A buffer object of `bytes` bytes for uniform blocks, filled on the GPU.
    pub(crate) fn create_block_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::DYNAMIC_COPY)
    }

    /// Copies the whole of `s` into the start of `bb` on the GPU, row after row (texel
    /// (x, y) lands at byte 16 * (y * width + x)); nothing waits on the host.
    pub(crate) fn copy_to_block_buffer(&self, s: &Surface, bb: &GlBuffer) {
        let bytes = s.width as usize * s.height as usize * 16;
        assert!(bytes <= bb.capacity, "uniform-block buffer too small");
        self.read_rows_into(s, s.height, bb.buffer);
    }

    /// Copies the first `h` rows of `s` into the start of `buffer` on the GPU
    /// (`glReadPixels` into a bound pixel-pack buffer). Callers check that the buffer holds
    /// `16 * s.width * h` bytes.
    fn read_rows_into(&self, s: &Surface, h: u32, buffer: glow::Buffer) {
        // SAFETY: the buffer has room for the w*h RGBA float texels read_pixels writes into
        // it (checked by the callers, PACK_ALIGNMENT 4); it is unbound from the pack target
        // afterwards so later client-memory readbacks are unaffected.
        unsafe {
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(buffer));
            self.gl
                .bind_framebuffer(glow::READ_FRAMEBUFFER, Some(s.fbo));
            self.gl.read_pixels(
                0,
                0,
                s.width as i32,
                h as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::BufferOffset(0),
            );
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
        }
    }

    /// Points uniform-block binding `binding` at `size` bytes of `bb` from `offset`.
    pub(crate) fn bind_block_range(&self, binding: u32, bb: &GlBuffer, offset: usize, size: usize) {
        assert!(
            offset + size <= bb.capacity,
            "uniform block range outside its buffer"
        );
        // SAFETY: the range lies inside the buffer (asserted; capacity fits in i32); callers
        // keep offsets at multiples of UNIFORM_BUFFER_OFFSET_ALIGNMENT (a violation is a GL
        // error, reported by `check`, not undefined behaviour).
        unsafe {
            self.gl.bind_buffer_range(
                glow::UNIFORM_BUFFER,
                binding,
                Some(bb.buffer),
                offset as i32,
                size as i32,
            )
        }
    }

    /// Connects uniform block `name` of `p` to binding `binding`; a block the compiler
    /// removed is skipped.
    pub(crate) fn set_block_binding(&self, p: &Program, name: &str, binding: u32) {
        // SAFETY: `p` is a linked program of this context.
        unsafe {
            if let Some(index) = self.gl.get_uniform_block_index(p.program, name) {
                self.gl.uniform_block_binding(p.program, index, binding);
            }
        }
    }

    /// Turns additive blending (destination += fragment output) on or off for every target.
    pub(crate) fn set_additive_blend(&self, on: bool) {
        // SAFETY: plain state calls on the current context.
        unsafe {
            if on {
                self.gl.blend_func(glow::ONE, glow::ONE);
                self.gl.enable(glow::BLEND);
            } else {
                self.gl.disable(glow::BLEND);
            }
        }
    }

    /// Copies the whole of `src` into `dst` (same size) without a shader.
    pub(crate) fn blit(&self, src: &Surface, dst: &Surface) {
        assert!(
            src.width == dst.width && src.height == dst.height,
            "blit of unequal sizes"
        );
        // SAFETY: both framebuffers belong to this context and are complete; NEAREST is the
        // filter GL allows for float formats.
        unsafe {
            self.gl
                .bind_framebuffer(glow::READ_FRAMEBUFFER, Some(src.fbo));
            self.gl
                .bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(dst.fbo));
            self.gl.blit_framebuffer(
                0,
                0,
                src.width as i32,
                src.height as i32,
                0,
                0,
                dst.width as i32,
                dst.height as i32,
                glow::COLOR_BUFFER_BIT,
                glow::NEAREST,
            );
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            self.gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        }
    }

    /// Compiles and links a program; failures carry the driver's log.
    pub(crate) fn compile(&self, name: &'static str, vs: &str, fs: &str) -> Result<Program> {
        let gl = &self.gl;
        // SAFETY: current context; shader objects are deleted on every path.
        unsafe {
            let mut shaders = Vec::with_capacity(2);
            for (kind, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
                let sh = gl.create_shader(kind).map_err(Error::Context)?;
                gl.shader_source(sh, src);
                gl.compile_shader(sh);
                if !gl.get_shader_compile_status(sh) {
                    let log = gl.get_shader_info_log(sh);
                    gl.delete_shader(sh);
                    for s in shaders {
                        gl.delete_shader(s);
                    }
                    return Err(Error::ShaderCompile { kernel: name, log });
                }
                shaders.push(sh);
            }
            let program = gl.create_program().map_err(Error::Context)?;
            for &s in &shaders {
                gl.attach_shader(program, s);
            }
            gl.link_program(program);
            let ok = gl.get_program_link_status(program);
            for s in shaders {
                gl.detach_shader(program, s);
                gl.delete_shader(s);
            }
            if !ok {
                let log = gl.get_program_info_log(program);
                gl.delete_program(program);
                return Err(Error::ProgramLink { kernel: name, log });
            }
            Ok(Program {
                name,
                program,
                locations: RefCell::new(HashMap::new()),
            })
        }
    }

    pub(crate) fn delete_program(&self, p: Program) {
        // SAFETY: created by this context, deleted once (by value).
        unsafe { self.gl.delete_program(p.program) }
    }

    fn location(&self, p: &Program, name: &'static str) -> Option<glow::UniformLocation> {
        p.locations
            .borrow_mut()
            .entry(name)
            // SAFETY: `p` is a linked program of this context.
            .or_insert_with(|| unsafe { self.gl.get_uniform_location(p.program, name) })
            .to_owned()
    }

    /// Makes `p` the current program.
    pub(crate) fn use_program(&self, p: &Program) {
        // SAFETY: `p` is a linked program of this context.
        unsafe { self.gl.use_program(Some(p.program)) }
    }

    /// Binds `s` to texture unit `unit` and points sampler uniform `name` at it.
    /// A uniform the compiler optimised away is silently skipped (GL does the same).
    pub(crate) fn set_texture(&self, p: &Program, name: &'static str, unit: u32, s: &Surface) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current (callers use_program first), `s` is a live texture.
        unsafe {
            self.gl.active_texture(glow::TEXTURE0 + unit);
            self.gl.bind_texture(glow::TEXTURE_2D, Some(s.tex));
            self.gl.uniform_1_i32(loc.as_ref(), unit as i32);
        }
    }

    pub(crate) fn set_i32(&self, p: &Program, name: &'static str, v: i32) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        unsafe { self.gl.uniform_1_i32(loc.as_ref(), v) }
    }

    pub(crate) fn set_ivec2(&self, p: &Program, name: &'static str, v: [i32; 2]) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        unsafe { self.gl.uniform_2_i32(loc.as_ref(), v[0], v[1]) }
    }

    pub(crate) fn set_f32(&self, p: &Program, name: &'static str, v: f32) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        unsafe { self.gl.uniform_1_f32(loc.as_ref(), v) }
    }

    /// Runs the current program over the `w` x `h` rectangle at the origin of `targets`
    /// (one per `out` location), drawing one full-screen triangle.
    pub(crate) fn draw(&self, targets: &[&Surface], w: u32, h: u32) {
        self.draw_rects(targets, &[(0, 0, w, h)], |_| {});
    }

    /// Runs the current program once per rectangle of `targets` (one per `out` location),
    /// calling `before(i)` ahead of draw `i` so that it can change uniforms or bindings.
    /// The targets are attached once for all the draws.
    pub(crate) fn draw_rects(
        &self,
        targets: &[&Surface],
        rects: &[Rect],
        mut before: impl FnMut(usize),
    ) {
        assert!(!targets.is_empty());
        for t in targets {
            for &(x, y, w, h) in rects {
                assert!(
                    x + w <= t.width && y + h <= t.height,
                    "viewport outside the target"
                );
            }
        }
        // SAFETY: the first target's framebuffer is complete with attachment 0; further
        // targets are attached to it as extra colour attachments for these draws only and
        // detached afterwards; the VAO bound at creation stays bound.
        unsafe {
            let gl = &self.gl;
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(targets[0].fbo));
            if targets.len() > 1 {
                let mut bufs = vec![glow::COLOR_ATTACHMENT0];
                for (i, t) in targets.iter().enumerate().skip(1) {
                    let att = glow::COLOR_ATTACHMENT0 + i as u32;
                    gl.framebuffer_texture_2d(
                        glow::DRAW_FRAMEBUFFER,
                        att,
                        glow::TEXTURE_2D,
                        Some(t.tex),
                        0,
                    );
                    bufs.push(att);
                }
                gl.draw_buffers(&bufs);
            }
            for (i, &(x, y, w, h)) in rects.iter().enumerate() {
                before(i);
                gl.viewport(x as i32, y as i32, w as i32, h as i32);
                gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
            if targets.len() > 1 {
                for i in 1..targets.len() {
                    gl.framebuffer_texture_2d(
                        glow::DRAW_FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0 + i as u32,
                        glow::TEXTURE_2D,
                        None,
                        0,
                    );
                }
                gl.draw_buffers(&[glow::COLOR_ATTACHMENT0]);
            }
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        }
    }

    /// Runs the current program once over a `w` x `h` grid of fragments that render nothing
    /// and write `images` (bound to image units 0, 1, ... as write-only RGBA32F) through
    /// image stores; then makes those writes visible to every later GL command.
    ///
    /// Only for devices whose [`GlStrings::image_stores`] is true.
    pub(crate) fn draw_image_stores(&self, images: &[&Surface], w: u32, h: u32) {
        let set = self
            .framebuffer_parameteri
            .expect("image-store kernels only run where glFramebufferParameteri exists");
        // SAFETY: `image_fbo` belongs to this context and has no attachments; GL 4.3 / GLES
        // 3.1 (checked with `image_stores`) size such a framebuffer with
        // glFramebufferParameteri, called through the entry point of this context, on the
        // bound draw framebuffer with valid enums and positive sizes. The images are live
        // RGBA32F textures of this context with level 0 only, unbound again after the draw,
        // and the barrier orders the stores before any later read (texel fetch, read-back,
        // copy or attachment) of the textures.
        unsafe {
            let gl = &self.gl;
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(self.image_fbo));
            set(
                glow::DRAW_FRAMEBUFFER,
                glow::FRAMEBUFFER_DEFAULT_WIDTH,
                w.max(1) as i32,
            );
            set(
                glow::DRAW_FRAMEBUFFER,
                glow::FRAMEBUFFER_DEFAULT_HEIGHT,
                h.max(1) as i32,
            );
            for (unit, img) in images.iter().enumerate() {
                gl.bind_image_texture(
                    unit as u32,
                    Some(img.tex),
                    0,
                    false,
                    0,
                    glow::WRITE_ONLY,
                    glow::RGBA32F,
                );
            }
            gl.viewport(0, 0, w as i32, h as i32);
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            for unit in 0..images.len() {
                gl.bind_image_texture(
                    unit as u32,
                    None,
                    0,
                    false,
                    0,
                    glow::WRITE_ONLY,
                    glow::RGBA32F,
                );
            }
            gl.memory_barrier(glow::ALL_BARRIER_BITS);
            gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        }
    }

    /// Blocks until every command issued so far has finished.
    pub(crate) fn finish(&self) {
        // SAFETY: plain call on the current context.
        unsafe { self.gl.finish() }
    }

    /// Turns a pending GL error into an [`Error`], draining the error queue.
    pub(crate) fn check(&self, operation: &'static str) -> Result<()> {
        // SAFETY: plain query on the current context.
        let first = unsafe { self.gl.get_error() };
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
        // SAFETY: the VAO was created by this context and is deleted once, at teardown.
        unsafe {
            self.gl.bind_vertex_array(None);
            self.gl.delete_vertex_array(self.vao);
            self.gl.delete_framebuffer(self.image_fbo);
        }
    }
}
