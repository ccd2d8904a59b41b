//! Level 1 element-wise routines: sscal, scopy, sswap, saxpy.
//!
//! Two ways to write the result:
//! - in place, through image stores, where the context allows it
//!   ([`crate::ContextOptions::image_stores`]), both increments are the same +1 or -1 and
//!   the two textures have the same width: each fragment updates
//!   [`IMAGE_TEXELS_PER_FRAGMENT`] texels, and only the texels holding the `n` elements are
//!   visited;
//! - otherwise by rendering the new contents of the output into a scratch texture of the
//!   output's shape (reading the old one, since GL cannot read and write one texture in a
//!   draw) and swapping it into the buffer; the old texture goes back to the context's pool.
//!   Elements the BLAS definition does not touch pass through unchanged.

use crate::blas::args::{one_vector, two_vectors, Lead};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, Program, Surface};

/// `y = alpha*x + beta*y` (or a copy) on unit-stride vectors, one texel per fragment.
static AXPBY_UNIT: Kernel = crate::kernel!("level1/axpby_unit.frag");
/// The same with any increments; untouched elements pass through.
static AXPBY_STRIDED: Kernel = crate::kernel!("level1/axpby_strided.frag");
/// `AXPBY_UNIT` in place: image stores, [`IMAGE_TEXELS_PER_FRAGMENT`] texels per fragment.
static AXPBY_IMAGE: Kernel = crate::kernel!("level1/axpby_image.frag")
    .defines("#define PER 8\n#define SWAP 0")
    .image_stores();
/// In-place exchange of two unit-stride vectors through image stores.
static SWAP_IMAGE: Kernel = crate::kernel!("level1/axpby_image.frag")
    .defines("#define PER 8\n#define SWAP 1")
    .image_stores();

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 4] = [&AXPBY_UNIT, &AXPBY_STRIDED, &AXPBY_IMAGE, &SWAP_IMAGE];

/// Texels each fragment of the image-store kernels updates (`PER` in their defines).
const IMAGE_TEXELS_PER_FRAGMENT: u32 = 8;

/// `op` uniform of the axpby kernels.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    /// y := x
    Copy = 0,
    /// y := alpha*x + beta*y (y not read when beta == 0)
    Axpby = 1,
}

/// Renders, into a scratch surface shaped like `y`, the result of applying `op` to the `n`
/// logical elements of `x` (increment `incx`) and `y` (increment `incy`).
#[allow(clippy::too_many_arguments)]
fn axpby_pass(
    ctx: &Context,
    n: i32,
    op: Op,
    alpha: f32,
    beta: f32,
    x: &Buffer,
    incx: i32,
    y: &Buffer,
    incy: i32,
) -> Result<Surface> {
    let inner = &ctx.inner;
    // Equal unit increments (both +1 or both -1) pair element k of x with element k of y.
    let unit = incx == incy && incx.abs() == 1;
    let kernel = if unit { &AXPBY_UNIT } else { &AXPBY_STRIDED };
    let prog = inner.program(kernel)?;
    let yl = y.layout();
    let out = inner.take_surface(yl.width, yl.height)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    x.bind(gl, &prog, 0, "x", "x_width");
    y.bind(gl, &prog, 1, "y", "y_width");
    gl.set_i32(&prog, "incx", incx);
    gl.set_i32(&prog, "incy", incy);
    set_update_uniforms(gl, &prog, n, op, alpha, beta);
    gl.draw(&[&out], yl.width, yl.height);
    Ok(out)
}

/// The uniforms both kinds of update kernel share.
fn set_update_uniforms(gl: &Gl, prog: &Program, n: i32, op: Op, alpha: f32, beta: f32) {
    gl.set_i32(prog, "n", n);
    gl.set_i32(prog, "op", op as i32);
    gl.set_f32(prog, "alpha", alpha);
    gl.set_f32(prog, "beta", beta);
}

/// Whether the in-place path takes an update of `y` (increment `incy`) from `x` (increment
/// `incx`) in this context.
fn in_place(ctx: &Context, incx: i32, x: &Buffer, incy: i32, y: &Buffer) -> bool {
    ctx.inner.in_place_level1
        && incx == incy
        && incx.abs() == 1
        && x.layout().width == y.layout().width
}

/// Grid of fragments that covers the texels holding `n` elements of a texture `width`
/// texels wide, [`IMAGE_TEXELS_PER_FRAGMENT`] texels per fragment along each row.
fn image_grid(n: i32, width: u32) -> (u32, u32) {
    let texels = (n.max(0) as u32).div_ceil(4);
    (
        width.div_ceil(IMAGE_TEXELS_PER_FRAGMENT),
        texels.div_ceil(width),
    )
}

/// Applies `op` in place to the first `n` elements of `y` (both vectors unit-stride, with
/// textures of equal width: see [`in_place`]). With `swap`, exchanges them instead.
#[allow(clippy::too_many_arguments)]
fn image_pass(
    ctx: &Context,
    n: i32,
    op: Op,
    alpha: f32,
    beta: f32,
    x: &Buffer,
    y: &Buffer,
    swap: bool,
) -> Result<()> {
    let inner = &ctx.inner;
    let kernel = if swap { &SWAP_IMAGE } else { &AXPBY_IMAGE };
    let prog = inner.program(kernel)?;
    let width = y.layout().width;
    let (gw, gh) = image_grid(n, width);
    let gl = inner.enter()?;
    gl.use_program(&prog);
    x.bind(gl, &prog, 0, "x", "width");
    y.bind(gl, &prog, 1, "y", "width");
    gl.set_i32(&prog, "grid_width", gw as i32);
    set_update_uniforms(gl, &prog, n, op, alpha, beta);
    if swap {
        gl.draw_image_stores(&[y.surface(), x.surface()], gw, gh);
    } else {
        gl.draw_image_stores(&[y.surface()], gw, gh);
    }
    Ok(())
}

/// Applies `op` to the `n` logical elements of `y` (increment `incy`) from those of `x`
/// (`None`: `y` itself, with the same increment), in place where [`in_place`] allows,
/// else by rendering a new texture and installing it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn update(
    ctx: &Context,
    n: i32,
    op: Op,
    alpha: f32,
    beta: f32,
    x: Option<(&Buffer, i32)>,
    y: &mut Buffer,
    incy: i32,
) -> Result<()> {
    let s = {
        let (x, incx) = x.unwrap_or((&*y, incy));
        if in_place(ctx, incx, x, incy, y) {
            return image_pass(ctx, n, op, alpha, beta, x, y, false);
        }
        axpby_pass(ctx, n, op, alpha, beta, x, incx, y, incy)?
    };
    install(y, s);
    Ok(())
}

/// Checks that `x` and `y` belong to `ctx`.
pub(crate) fn check_owners(ctx: &Context, x: &Buffer, y: &Buffer) -> Result<()> {
    x.check_owner(ctx, "x")?;
    y.check_owner(ctx, "y")
}

/// Swaps `s` into `buf` and returns the old texture to the pool.
fn install(buf: &mut Buffer, s: Surface) {
    let old = buf.replace_surface(s);
    buf.ctx.give_surface(old);
}

impl Context {
    /// `x := alpha * x` over `n` elements of `x` with increment `incx`.
    ///
    /// As in reference BLAS, `n <= 0` or `incx < 0` returns without touching `x`, and
    /// `alpha == 0` multiplies too (a NaN or Inf in `x` becomes NaN). `incx == 0` is an error.
    pub fn sscal(&self, n: i32, alpha: f32, x: &mut Buffer, incx: i32) -> Result<()> {
        const R: &str = "sscal";
        x.check_owner(self, "x")?;
        if !one_vector(R, Lead::NAlpha, n, x.len(), incx)? {
            return Ok(());
        }
        update(self, n, Op::Axpby, alpha, 0.0, None, x, incx)?;
        self.inner.enter()?.check(R)
    }

    /// `y := x` over `n` elements (increments `incx`, `incy`; negative ones walk from the end).
    pub fn scopy(&self, n: i32, x: &Buffer, incx: i32, y: &mut Buffer, incy: i32) -> Result<()> {
        const R: &str = "scopy";
        check_owners(self, x, y)?;
        if !two_vectors(R, Lead::N, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        update(self, n, Op::Copy, 1.0, 0.0, Some((x, incx)), y, incy)?;
        self.inner.enter()?.check(R)
    }

    /// Exchanges `n` elements of `x` and `y` (increments `incx`, `incy`).
    pub fn sswap(
        &self,
        n: i32,
        x: &mut Buffer,
        incx: i32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "sswap";
        check_owners(self, x, y)?;
        if !two_vectors(R, Lead::N, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if in_place(self, incx, x, incy, y) {
            image_pass(self, n, Op::Copy, 1.0, 0.0, x, y, true)?;
            return self.inner.enter()?.check(R);
        }
        // Both new contents are rendered from the old textures before either is replaced.
        let new_x = axpby_pass(self, n, Op::Copy, 1.0, 0.0, y, incy, x, incx)?;
        let new_y = axpby_pass(self, n, Op::Copy, 1.0, 0.0, x, incx, y, incy)?;
        install(x, new_x);
        install(y, new_y);
        self.inner.enter()?.check(R)
    }

    /// `y := alpha * x + y` over `n` elements (increments `incx`, `incy`).
    ///
    /// `n <= 0` or `alpha == 0` returns at once without reading `x`, as in reference BLAS.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0])?;
    /// let mut y = ctx.upload(&[0.0, 0.0, 0.0, 0.0])?;
    /// ctx.saxpy(2, 3.0, &x, 1, &mut y, -2)?; // y[2] += 3*x[0], y[0] += 3*x[1]
    /// assert_eq!(y.to_vec()?, vec![6.0, 0.0, 3.0, 0.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn saxpy(
        &self,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "saxpy";
        check_owners(self, x, y)?;
        if !two_vectors(
            R,
            Lead::NAlpha,
            n,
            alpha == 0.0,
            (x.len(), incx),
            (y.len(), incy),
        )? {
            return Ok(());
        }
        update(self, n, Op::Axpby, alpha, 1.0, Some((x, incx)), y, incy)?;
        self.inner.enter()?.check(R)
    }
}
