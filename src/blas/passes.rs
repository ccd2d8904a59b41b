//! Passes more than one routine family runs, each written once: a generic kernel's summed
//! index covered in spans ([`in_spans`]), the fold of a rectangle of texels into a
//! smaller one ([`fold`]), which adds up reduction trees and the partial sums of split
//! products, and vectors copied into a storage buffer for the kernels that read them there
//! ([`VectorBlock`]).

use crate::device::buffer::Buffer;
use crate::device::context::Inner;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, GlBuffer, Program, Rect, Surface};

/// Fold kernel that adds: fragment p sums the texels p + k*fold_step, k < fan_in.
pub(crate) static SUM_REDUCE: Kernel = crate::kernel!("common/sum_reduce.frag");

/// Values of the summed index one pass of a generic kernel covers. Mesa's llvmpipe stops a
/// fragment shader's loops after about 65535 iterations in all (a guard against endless
/// shaders), and the generic kernels loop over the summed index once per output lane (4 per
/// fragment); longer sums take several passes, each adding to the last.
pub(crate) const GENERIC_SPAN: usize = 8192;

/// Puts the output of a pass that updates a window of `c` into `c`: `out`, a texture shaped
/// like c's, holds the new texels in `rect` (from [`crate::layout::TexLayout::update_rect`]).
/// The whole texture replaces c's; a part of it is copied into c's texture in place, so a
/// pass over a small window of a large matrix costs the window, not the matrix.
pub(crate) fn install(inner: &Inner, c: &mut Buffer, out: Surface, rect: Rect) -> Result<()> {
    let l = c.layout();
    if rect == (0, 0, l.width, l.height) {
        inner.give_surface(c.replace_surface(out));
    } else {
        inner.enter()?.blit_rect(&out, c.surface(), rect);
        inner.give_surface(out);
    }
    Ok(())
}

/// Runs a generic kernel over `[0, total)` of its summed index in passes of
/// [`GENERIC_SPAN`] (one pass when `total` is 0): `pass(gl, prev, lo, hi, out)` draws into
/// a fresh `size` surface `out`, reading `prev`, the previous pass's output (`None` for the
/// first, which reads the caller's buffer). Returns the last output.
pub(crate) fn in_spans(
    inner: &Inner,
    total: usize,
    size: (u32, u32),
    mut pass: impl FnMut(&Gl, Option<&Surface>, usize, usize, &Surface),
) -> Result<Surface> {
    let mut prev: Option<Surface> = None;
    for span in 0..total.div_ceil(GENERIC_SPAN).max(1) {
        let out = inner.take_surface(size.0, size.1)?;
        let lo = span * GENERIC_SPAN;
        pass(
            inner.enter()?,
            prev.as_ref(),
            lo,
            (lo + GENERIC_SPAN).min(total),
            &out,
        );
        if let Some(p) = prev.replace(out) {
            inner.give_surface(p);
        }
    }
    Ok(prev.expect("at least one pass"))
}

/// One fold pass with a fold kernel (`prog`, current: [`SUM_REDUCE`] or a kernel with the
/// same uniforms): fragment p of the `out_size` rectangle of `out` combines the texels
/// p + k*`step` (k < `fan_in`) of the `src_size` rectangle of `src`; texels outside it are
/// skipped.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fold(
    gl: &Gl,
    prog: &Program,
    src: &Surface,
    src_size: (u32, u32),
    step: [i32; 2],
    fan_in: u32,
    out: &Surface,
    out_size: (u32, u32),
) {
    gl.set_texture(prog, "src", 0, src);
    gl.set_ivec2(prog, "src_size", [src_size.0 as i32, src_size.1 as i32]);
    gl.set_ivec2(prog, "fold_step", step);
    gl.set_i32(prog, "fan_in", fan_in as i32);
    gl.draw(&[out], out_size.0, out_size.1);
}

/// The fewest elements of a matrix for which a level-2 kernel reads its vectors from a
/// [`VectorBlock`]. The copy is one more dependent operation (on the H200, sgemv 1024^2's
/// product took 23.8 us with x fetched, 31.5 with x read from a copy), which a small
/// matrix does not earn back; at 4096^2 the product went 219 -> 208 us and at 16384^2
/// 3.30 -> 2.88 ms (BENCHMARKS.md, session 30).
pub(crate) const VECTOR_BLOCK_MIN_ELEMENTS: usize = 1 << 22;

/// A vector whose texels a kernel reads from a shader storage buffer (binding 0) instead of
/// fetching them through the texture unit, which then fetches only the matrix: the
/// vector's whole texture copied on the GPU, texel (x, y) at index `y * width + x`; with
/// [`VectorBlock::new_pair`] a second vector after the first ([`VectorBlock::second`]).
pub(crate) struct VectorBlock {
    buf: GlBuffer,
    second: usize,
}

impl VectorBlock {
    /// `v` copied into a storage buffer for `kernel`, which reads it for a matrix of
    /// `elements` elements: where the image-store paths run (GL 4.3 / GLES 3.1), the device
    /// can run the kernel, the copy fits its storage blocks, and the context asks for it
    /// ([`ContextOptions::vector_blocks`]; by default on a hardware device for a matrix of
    /// at least [`VECTOR_BLOCK_MIN_ELEMENTS`]); `None` elsewhere (the kernel's texture form
    /// then runs).
    ///
    /// [`ContextOptions::vector_blocks`]: crate::ContextOptions::vector_blocks
    pub(crate) fn new(
        inner: &Inner,
        kernel: &Kernel,
        v: &Buffer,
        elements: usize,
    ) -> Result<Option<Self>> {
        Self::new_pair(inner, kernel, v, None, elements)
    }

    /// [`VectorBlock::new`] for `v` and, if given, `w` after it in the same buffer (from
    /// texel [`VectorBlock::second`] on).
    pub(crate) fn new_pair(
        inner: &Inner,
        kernel: &Kernel,
        v: &Buffer,
        w: Option<&Buffer>,
        elements: usize,
    ) -> Result<Option<Self>> {
        Self::of_surfaces(inner, kernel, v.surface(), w.map(Buffer::surface), elements)
    }

    /// [`VectorBlock::new_pair`] for vectors held in textures of their own (such as the
    /// shifted copies of the packed rank updates).
    pub(crate) fn of_surfaces(
        inner: &Inner,
        kernel: &Kernel,
        v: &Surface,
        w: Option<&Surface>,
        elements: usize,
    ) -> Result<Option<Self>> {
        let texels = |s: &Surface| s.width as usize * s.height as usize;
        let second = texels(v);
        let bytes = 16 * (second + w.map_or(0, texels));
        let wanted = inner
            .vector_blocks
            .unwrap_or(!inner.info.software && elements >= VECTOR_BLOCK_MIN_ELEMENTS);
        if !wanted
            || !inner.image_store_paths
            || !kernel.runs_on(&inner.info)
            || bytes as u64 > inner.info.max_storage_block_size
        {
            return Ok(None);
        }
        let buf = inner.take_block_buffer(bytes)?;
        let gl = inner.enter()?;
        gl.copy_to_block_buffer(v, &buf);
        if let Some(w) = w {
            gl.copy_to_block_buffer_at(w, &buf, 16 * second);
        }
        Ok(Some(VectorBlock { buf, second }))
    }

    /// The texel where the second vector starts (after the first's whole texture).
    pub(crate) fn second(&self) -> usize {
        self.second
    }

    /// Binds the buffer to storage binding 0 for the next draws.
    pub(crate) fn bind(&self, gl: &Gl) {
        gl.bind_storage_buffer(0, Some(&self.buf));
    }

    /// Unbinds the buffer and keeps it for the next use.
    pub(crate) fn release(self, inner: &Inner) {
        if let Ok(gl) = inner.enter() {
            gl.bind_storage_buffer(0, None);
        }
        inner.give_block_buffer(self.buf);
    }
}
