//! Textures and their framebuffers: allocation, clearing, host uploads and downloads of
//! rectangles, and device copies. Every buffer of the crate is one [`Surface`].

use glow::HasContext;

use super::{Gl, GlWork, Rect};
use crate::error::{Error, Result};

/// An RGBA32F texture with a framebuffer that renders into it.
#[derive(Debug)]
pub(crate) struct Surface {
    pub(super) tex: glow::Texture,
    pub(super) fbo: glow::Framebuffer,
    pub width: u32,
    pub height: u32,
}

impl Gl {
    /// Allocates a `width` x `height` RGBA32F texture and its framebuffer.
    pub(crate) fn create_surface(&self, width: u32, height: u32) -> Result<Surface> {
        self.profile.time(GlWork::Allocations, || {
            self.create_surface_untimed(width, height)
        })
    }

    fn create_surface_untimed(&self, width: u32, height: u32) -> Result<Surface> {
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
            self.bind_draw_fbo(fbo);
            gl.framebuffer_texture_2d(
                glow::DRAW_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(tex),
                0,
            );
            let status = gl.check_framebuffer_status(glow::DRAW_FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                self.forget_fbo(fbo);
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
        self.bind_draw_fbo(s.fbo);
        unsafe { self.gl.clear_buffer_f32_slice(glow::COLOR, 0, &[0.0; 4]) }
    }

    /// Frees a surface. Takes it by value so it cannot be used again.
    pub(crate) fn delete_surface(&self, s: Surface) {
        self.forget_fbo(s.fbo);
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
    pub(super) unsafe fn tex_sub_image(&self, s: &Surface, r: Rect, pixels: glow::PixelUnpackData) {
        let (x, y, w, h) = r;
        // SAFETY: the caller's guarantees above; the texture is unbound afterwards.
        self.profile.time(GlWork::Transfers, || unsafe {
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
        })
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
        self.bind_read_fbo(s.fbo);
        self.profile.time(GlWork::Transfers, || unsafe {
            self.gl.read_pixels(
                x as i32,
                y as i32,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(out))),
            );
        })
    }

    /// Copies the whole of `src` into `dst` (same size) without a shader.
    pub(crate) fn blit(&self, src: &Surface, dst: &Surface) {
        assert!(
            src.width == dst.width && src.height == dst.height,
            "blit of unequal sizes"
        );
        self.blit_rect(src, dst, (0, 0, src.width, src.height));
    }

    /// Copies the texels of `rect` from `src` into the same place of `dst` without a shader.
    pub(crate) fn blit_rect(&self, src: &Surface, dst: &Surface, rect: Rect) {
        self.blit_to(src, rect, dst, (rect.0, rect.1));
    }

    /// Copies the texels of `rect` of `src` to `dst` with its corner at `to`, without a
    /// shader.
    pub(crate) fn blit_to(&self, src: &Surface, rect: Rect, dst: &Surface, to: (u32, u32)) {
        let (x, y, w, h) = rect;
        assert!(
            x + w <= src.width && y + h <= src.height,
            "blit outside the source"
        );
        assert!(
            to.0 + w <= dst.width && to.1 + h <= dst.height,
            "blit outside the destination"
        );
        let (x0, y0, x1, y1) = (x as i32, y as i32, (x + w) as i32, (y + h) as i32);
        let (u0, v0) = (to.0 as i32, to.1 as i32);
        // SAFETY: both framebuffers belong to this context and are complete; both rectangles
        // lie inside their surfaces (checked above) and have the same size, so texels are
        // copied unscaled; NEAREST is the filter GL allows for float formats.
        self.bind_read_fbo(src.fbo);
        self.bind_draw_fbo(dst.fbo);
        self.profile.time(GlWork::Transfers, || unsafe {
            self.gl.blit_framebuffer(
                x0,
                y0,
                x1,
                y1,
                u0,
                v0,
                u0 + (x1 - x0),
                v0 + (y1 - y0),
                glow::COLOR_BUFFER_BIT,
                glow::NEAREST,
            );
        })
    }
}
