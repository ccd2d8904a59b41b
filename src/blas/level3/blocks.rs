//! What the blocked level-3 routines share besides sgemm itself (which they run on
//! sub-blocks through `Context::gemm_shape_with`): pitched scratch matrices, the expansion
//! of a stored triangle into a full matrix (mirrored, or zero outside with an optional unit
//! diagonal, optionally transposed), and the window update `C := alpha*op(A) + beta*C`
//! that scales, copies and transposes blocks.
//!
//! A *pitched* matrix is column-major with a leading dimension `ld` that is a multiple of 4,
//! in a texture `ld / 4` texels wide: column j is row j of texels, so any block of rows
//! (starting at a multiple of 4) of any block of columns is a rectangle of texels, and a pass
//! that updates it draws only that rectangle.

use crate::blas::level3::gemm::kernel::WINDOW_GLSL;
use crate::blas::level3::gemm::passes::set_window;
use crate::blas::level3::gemm::shape::{Operand, Window};
use crate::blas::passes::install;
use crate::blas::types::{Diag, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::{Error, Result};
use crate::gl::{Gl, Program};
use crate::layout::TexLayout;

/// Expands a stored triangle into a full matrix, a texel a fragment.
static EXPAND: Kernel = crate::kernel!("level3/expand.frag").defines("#define IMAGE 0");
/// [`EXPAND`] through image stores, a 4 x 4 block a fragment (GPUs with image stores): on
/// the H100 strmm 1024's transposed expansion went from 100 to 67 us, 4096's from 1.53 to
/// 0.98 ms (session 25).
static EXPAND_IMAGE: Kernel = crate::kernel!("level3/expand.frag")
    .defines("#define IMAGE 1")
    .image_stores();
/// `C := alpha*op(A) + beta*C` on a window of C.
static WINDOW_AXPBY: Kernel = crate::kernel!("level3/window_axpby.frag")
    .defines("#define IMAGE 0")
    .header(WINDOW_GLSL);
/// Texels each fragment of [`WINDOW_AXPBY_IMAGE`] updates (`PER` in its defines).
const WINDOW_TEXELS_PER_FRAGMENT: u32 = 8;
/// [`WINDOW_AXPBY`] in place through image stores, 8 texels a fragment.
static WINDOW_AXPBY_IMAGE: Kernel = crate::kernel!("level3/window_axpby.frag")
    .defines("#define IMAGE 1\n#define PER 8")
    .header(WINDOW_GLSL)
    .image_stores();

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 4] =
    [&EXPAND, &EXPAND_IMAGE, &WINDOW_AXPBY, &WINDOW_AXPBY_IMAGE];

/// A pitched scratch matrix (see the module's notes) with `rows x cols` elements, its
/// contents whatever the pool held, and its leading dimension. Give it back with
/// [`release`].
pub(crate) fn pitched(ctx: &Context, rows: usize, cols: usize) -> Result<(Buffer, usize)> {
    let ld = rows.max(1).next_multiple_of(4);
    let (width, height) = ((ld / 4) as u32, cols.max(1) as u32);
    let max = ctx.info().max_texture_size;
    if width > max || height > max {
        return Err(Error::BufferTooLarge {
            n: ld * cols,
            width_cap: width,
            max_texture_size: max,
        });
    }
    let layout = TexLayout {
        len: ld * height as usize,
        width,
        height,
    };
    let surface = ctx.inner.take_surface(width, height)?;
    Ok((Buffer::with_layout(ctx, surface, layout), ld))
}

/// Gives a scratch buffer's texture back to the pool.
pub(crate) fn release(ctx: &Context, b: Buffer) {
    ctx.inner.give_surface(b.into_surface());
}

/// What a stored triangle expands into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    /// The other triangle mirrors the stored one.
    Symmetric,
    /// Zero outside the stored triangle; a unit diagonal is 1 (and not read).
    Triangular(Diag),
}

/// `op(A)` as a full `order x order` pitched matrix (and its leading dimension), for an A
/// whose `uplo` triangle is stored in `a` with leading dimension `lda`; only that triangle
/// is read. Rows past `order` in the pitch are 0. With `diagonal` (a multiple of 4), on GPUs
/// with image stores, only the diagonal blocks of that many rows are written (the rest of
/// the matrix is whatever the pool held); elsewhere the whole matrix.
pub(crate) fn expand(
    ctx: &Context,
    (a, lda): (&Buffer, usize),
    order: usize,
    (uplo, fill): (Uplo, Fill),
    trans: bool,
    diagonal: Option<usize>,
) -> Result<(Buffer, usize)> {
    let (out, ld) = pitched(ctx, order, order)?;
    let inner = &ctx.inner;
    let image = inner.image_store_paths;
    let prog = inner.program(if image { &EXPAND_IMAGE } else { &EXPAND })?;
    let l = out.layout();
    let gl = inner.enter()?;
    gl.use_program(&prog);
    a.bind(gl, &prog, 0, "a", "a_width");
    gl.set_i32(&prog, "lda", lda as i32);
    gl.set_i32(&prog, "order", order as i32);
    gl.set_i32(&prog, "ld", ld as i32);
    gl.set_i32(&prog, "upper", (uplo == Uplo::Upper) as i32);
    let (fill, unit) = match fill {
        Fill::Symmetric => (0, false),
        Fill::Triangular(d) => (1, d == Diag::Unit),
    };
    gl.set_i32(&prog, "fill", fill);
    gl.set_i32(&prog, "unit_diag", unit as i32);
    gl.set_i32(&prog, "trans", trans as i32);
    if image {
        gl.set_i32(&prog, "a_last", a.last_texel());
        let block = diagonal.map_or(0, |b| b.min(order.next_multiple_of(4)));
        gl.set_i32(&prog, "diag_block", block as i32);
        let rows = if block > 0 {
            (block / 4) as u32
        } else {
            l.height.div_ceil(4)
        };
        gl.draw_image_stores(&[out.surface()], l.width, rows);
    } else {
        gl.draw(&[out.surface()], l.width, l.height);
    }
    Ok((out, ld))
}

/// A window of a column-major matrix: `m x n` from element `off`, leading dimension `ld`,
/// the part `part` of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Win {
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    pub off: usize,
    pub part: Window,
}

impl Win {
    /// All of an `m x n` window from element `off` with leading dimension `ld`.
    pub(crate) fn full(m: usize, n: usize, ld: usize, off: usize) -> Self {
        Win {
            m,
            n,
            ld,
            off,
            part: Window::Full,
        }
    }
}

/// `C := alpha*op(A) + beta*C` on the window `w` of C, in place (`a` is `None` when
/// `alpha == 0`: then A is not read; `beta == 0` does not read C); A is another buffer
/// than C. On GPUs with image stores C's texels in the window are updated where they lie,
/// 8 a fragment; elsewhere only the texels that hold the window are drawn when it is a
/// small part of C.
pub(crate) fn window_axpby(
    ctx: &Context,
    w: Win,
    alpha: f32,
    a: Option<(&Buffer, Operand)>,
    beta: f32,
    c: &mut Buffer,
) -> Result<()> {
    if w.m == 0 || w.n == 0 {
        return Ok(());
    }
    let inner = &ctx.inner;
    if inner.image_store_paths {
        return window_axpby_in_place(ctx, w, alpha, a, beta, c);
    }
    let prog = inner.program(&WINDOW_AXPBY)?;
    let cl = c.layout();
    let rect = cl.update_rect(w.off, (w.m, w.n), w.ld);
    let out = inner.take_surface(cl.width, cl.height)?;
    {
        let gl = inner.enter()?;
        gl.use_program(&prog);
        set_axpby(gl, &prog, w, alpha, a, beta, c);
        gl.draw_rects(&[&out], &[rect], |_| {});
    }
    install(inner, c, out, rect)
}

/// Binds A (C itself, not read, where `a` is `None`) and C and sets the uniforms both forms
/// of `window_axpby.frag` read; returns the buffer bound as A.
fn set_axpby<'a>(
    gl: &Gl,
    prog: &Program,
    w: Win,
    alpha: f32,
    a: Option<(&'a Buffer, Operand)>,
    beta: f32,
    c: &'a Buffer,
) -> &'a Buffer {
    let (src, op) = match a {
        Some((b, op)) => (b, op),
        None => (c, Operand::at(0, 1, false)),
    };
    src.bind(gl, prog, 0, "a", "a_width");
    gl.set_i32(prog, "a_off", op.off as i32);
    gl.set_i32(prog, "lda", op.ld as i32);
    gl.set_i32(prog, "a_trans", op.trans as i32);
    c.bind(gl, prog, 1, "c", "c_width");
    gl.set_f32(prog, "alpha", if a.is_some() { alpha } else { 0.0 });
    gl.set_f32(prog, "beta", beta);
    set_window(gl, prog, (w.m, w.n), w.ld, w.off, w.part);
    src
}

/// [`window_axpby`] through image stores (`window_axpby.frag` with `IMAGE`): a grid over
/// the texels that hold the window, 8 texels a fragment, C written where it lies.
fn window_axpby_in_place(
    ctx: &Context,
    w: Win,
    alpha: f32,
    a: Option<(&Buffer, Operand)>,
    beta: f32,
    c: &mut Buffer,
) -> Result<()> {
    let inner = &ctx.inner;
    let prog = inner.program(&WINDOW_AXPBY_IMAGE)?;
    let (x, y, rw, rh) = c.layout().window_rect(w.off, (w.m, w.n), w.ld);
    let grid_width = rw.div_ceil(WINDOW_TEXELS_PER_FRAGMENT);
    let gl = inner.enter()?;
    gl.use_program(&prog);
    let src = set_axpby(gl, &prog, w, alpha, a, beta, c);
    gl.set_i32(&prog, "a_last", src.last_texel());
    // A fragment's texels lie 4*grid_width elements of C apart: that many rows and columns
    // of the window on.
    let step = 4 * grid_width as usize;
    let ld = w.ld.max(1);
    gl.set_i32(&prog, "step_i", (step % ld) as i32);
    gl.set_i32(&prog, "step_j", (step / ld) as i32);
    let aligned = match a {
        Some((_, op)) => {
            !op.trans
                && [op.off, op.ld, w.off, w.ld]
                    .iter()
                    .all(|v| v.is_multiple_of(4))
        }
        None => false,
    };
    gl.set_i32(&prog, "aligned", aligned as i32);
    if let (true, Some((src_buf, op))) = (aligned, a) {
        // A's texel index from one of a fragment's texels to the next, where the window's
        // place does not wrap into the next column: (step % ld + (step / ld) * lda) / 4.
        let a_step = (step % ld + (step / ld) * op.ld) / 4;
        let aw = src_buf.layout().width as usize;
        gl.set_i32(&prog, "a_step", a_step as i32);
        gl.set_ivec2(
            &prog,
            "a_step2",
            [(a_step % aw) as i32, (a_step / aw) as i32],
        );
    }
    gl.set_ivec2(&prog, "origin", [x as i32, y as i32]);
    gl.set_i32(&prog, "rect_width", rw as i32);
    gl.set_i32(&prog, "grid_width", grid_width as i32);
    gl.draw_image_stores(&[c.surface()], grid_width, rh);
    Ok(())
}
