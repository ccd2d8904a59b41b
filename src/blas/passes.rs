//! Passes more than one routine family runs, each written once: a generic kernel's summed
//! index covered in spans ([`in_spans`]), and the fold of a rectangle of texels into a
//! smaller one ([`fold`]), which adds up reduction trees and the partial sums of split
//! products.

use crate::device::buffer::Buffer;
use crate::device::context::Inner;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, Program, Rect, Surface};

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
