//! Draws: one full-screen triangle per rectangle into one or several render targets, the
//! image-store draw that renders nothing, and the blending state the passes use.

use glow::HasContext;

use super::{Gl, GlWork, Rect, Surface};

impl Gl {
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

    /// Runs the current program over the `w` x `h` rectangle at the origin of `targets`
    /// (one per `out` location), drawing one full-screen triangle.
    pub(crate) fn draw(&self, targets: &[&Surface], w: u32, h: u32) {
        self.draw_rects(targets, &[(0, 0, w, h)], |_| {});
    }

    /// Runs the current program once per rectangle of `targets` (one per `out` location),
    /// calling `before(i)` ahead of draw `i` so that it can change uniforms or bindings.
    /// The targets are attached once for all the draws. A profile counts all of it, the
    /// uniforms `before` sets included, as draws.
    pub(crate) fn draw_rects(
        &self,
        targets: &[&Surface],
        rects: &[Rect],
        mut before: impl FnMut(usize),
    ) {
        assert!(!targets.is_empty());
        self.raise_planted_fault();
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
        self.profile.time(GlWork::Draws, || unsafe {
            let gl = &self.gl;
            self.bind_draw_fbo(targets[0].fbo);
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
            self.draw_each(rects, &mut before);
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
        })
    }

    /// One full-screen triangle per rectangle, each with the viewport on it, `before(i)`
    /// ahead of draw `i`: the loop of [`Gl::draw_rects`] and [`Gl::draw_image_store_rects`].
    ///
    /// # Safety
    ///
    /// The caller has bound a complete draw framebuffer and a linked program of this
    /// context; the VAO bound at creation stays bound.
    unsafe fn draw_each(&self, rects: &[Rect], before: &mut impl FnMut(usize)) {
        for (i, &(x, y, w, h)) in rects.iter().enumerate() {
            before(i);
            // SAFETY: as the caller promises (see above); plain state and draw calls.
            unsafe {
                self.gl.viewport(x as i32, y as i32, w as i32, h as i32);
                self.gl.draw_arrays(glow::TRIANGLES, 0, 3);
            }
            self.stamp_draw();
        }
    }

    /// Runs the current program once over a `w` x `h` grid of fragments that render nothing
    /// and write `images` (bound to image units 0, 1, ... as write-only RGBA32F) through
    /// image stores; then makes those writes visible to every later GL command.
    ///
    /// Only for devices whose [`GlStrings::image_stores`] is true.
    pub(crate) fn draw_image_stores(&self, images: &[&Surface], w: u32, h: u32) {
        self.draw_image_store_rects(images, &[(0, 0, w, h)], |_| {});
    }

    /// [`Gl::draw_image_stores`] without the barrier after it: the GPU may run the next
    /// commands beside it. Only where nothing reads what it writes before a later
    /// image-store draw, whose barrier makes both draws' writes visible (sgemm's pack of
    /// op(A) into the multiply's buffer, followed by the pack of op(B)).
    pub(crate) fn draw_image_stores_unordered(&self, images: &[&Surface], w: u32, h: u32) {
        self.image_store_draws(images, &[(0, 0, w, h)], |_| {}, false);
    }

    /// [`Gl::draw_image_stores`] once per rectangle of a grid of fragments, calling
    /// `before(i)` ahead of draw `i` so that it can change uniforms or bindings; one barrier
    /// after the last draw (the draws of one call must not read what another writes). A
    /// profile counts all of it as draws.
    pub(crate) fn draw_image_store_rects(
        &self,
        images: &[&Surface],
        rects: &[Rect],
        before: impl FnMut(usize),
    ) {
        self.image_store_draws(images, rects, before, true);
    }

    /// [`Gl::draw_image_store_rects`], the barrier after the draws only with `barrier`.
    fn image_store_draws(
        &self,
        images: &[&Surface],
        rects: &[Rect],
        mut before: impl FnMut(usize),
        barrier: bool,
    ) {
        self.raise_planted_fault();
        let set = self
            .framebuffer_parameteri
            .expect("image-store kernels only run where glFramebufferParameteri exists");
        let (w, h) = rects.iter().fold((0, 0), |(w, h), &(x, y, rw, rh)| {
            (w.max(x + rw), h.max(y + rh))
        });
        // SAFETY: `image_fbo` belongs to this context and has no attachments; GL 4.3 / GLES
        // 3.1 (checked with `image_stores`) size such a framebuffer with
        // glFramebufferParameteri, called through the entry point of this context, on the
        // bound draw framebuffer with valid enums and positive sizes. The images are live
        // RGBA32F textures of this context with level 0 only, unbound again after the draws,
        // and the barrier orders the stores before any later read (texel fetch, read-back,
        // copy or attachment) of the textures.
        self.profile.time(GlWork::Draws, || unsafe {
            let gl = &self.gl;
            self.bind_draw_fbo(self.image_fbo);
            // The framebuffer only grows: the viewport bounds each draw, and a size set
            // again for every draw of a different grid is a change of the framebuffer's
            // state that the driver may pay for like a change of binding.
            // (At least 1 x 1: a framebuffer without attachments of size 0 is incomplete.)
            let (fw, fh) = self.image_fbo_size.get();
            let (nw, nh) = (fw.max(w).max(1), fh.max(h).max(1));
            if nw != fw {
                set(
                    glow::DRAW_FRAMEBUFFER,
                    glow::FRAMEBUFFER_DEFAULT_WIDTH,
                    nw as i32,
                );
            }
            if nh != fh {
                set(
                    glow::DRAW_FRAMEBUFFER,
                    glow::FRAMEBUFFER_DEFAULT_HEIGHT,
                    nh as i32,
                );
            }
            self.image_fbo_size.set((nw, nh));
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
            self.draw_each(rects, &mut before);
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
            if barrier {
                gl.memory_barrier(glow::ALL_BARRIER_BITS);
            }
        })
    }
}
