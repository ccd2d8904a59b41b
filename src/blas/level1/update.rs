//! Level 1 element-wise routines that write vectors: sscal, scopy, sswap, saxpy, and the
//! update mechanism they share with the rotations (`rot.rs`) and with sgemv's final
//! `y := alpha*t + beta*y`.
//!
//! Three ways to write the result:
//! - in place, through image stores, where the context allows it
//!   ([`crate::ContextOptions::image_stores`]), both increments are the same +1 or -1 and
//!   the two textures have the same width: each fragment updates
//!   [`IMAGE_TEXELS_PER_FRAGMENT`] texels, and only the texels holding the `n` elements are
//!   visited;
//! - on the host, with reference BLAS's own loop (`host.rs`), where a zero increment makes
//!   the result depend on the order of the elements: the touched prefix of each vector is
//!   read back, updated and written again;
//! - otherwise by rendering the new contents of the output into a scratch texture of the
//!   output's shape (reading the old one, since GL cannot read and write one texture in a
//!   draw) and swapping it into the buffer; the old texture goes back to the context's pool.
//!   Elements the BLAS definition does not touch pass through unchanged.

use crate::blas::args::{one_vector, two_vectors, vector_span};
use crate::blas::level1::host;
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
    .defines("#define PER 8\n#define MODE 0")
    .image_stores();
/// In-place exchange of two unit-stride vectors through image stores.
static SWAP_IMAGE: Kernel = crate::kernel!("level1/axpby_image.frag")
    .defines("#define PER 8\n#define MODE 1")
    .image_stores();
/// In-place plane rotation of two unit-stride vectors through image stores.
static ROT_IMAGE: Kernel = crate::kernel!("level1/axpby_image.frag")
    .defines("#define PER 8\n#define MODE 2")
    .image_stores();

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 5] = [
    &AXPBY_UNIT,
    &AXPBY_STRIDED,
    &AXPBY_IMAGE,
    &SWAP_IMAGE,
    &ROT_IMAGE,
];

/// Texels each fragment of the image-store kernels updates (`PER` in their defines).
const IMAGE_TEXELS_PER_FRAGMENT: u32 = 8;

/// `op` uniform of the axpby kernels.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    /// y := x
    Copy = 0,
    /// y := alpha*x + beta*y (y not read when beta == 0)
    Axpby = 1,
    /// y := alpha*x + beta*y with both products always taken (a row of a rotation)
    Combine = 2,
    /// y := beta*y, 0 without reading y when beta == 0 (x is not read)
    Scale = 3,
}

/// What an update of both vectors does.
#[derive(Clone, Copy)]
pub(crate) enum Pair {
    /// Exchange x and y.
    Swap,
    /// `x := h[0]*x + h[1]*y`, `y := h[2]*x + h[3]*y`, every product taken.
    Rotate([f32; 4]),
}

/// Renders, into a scratch surface shaped like `y`, the result of applying `op` to the `n`
/// logical elements of `x` (increment `incx`, any) and `y` (increment `incy`, not zero).
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
    let unit = incx == incy && incx.unsigned_abs() == 1;
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
    ctx.inner.image_store_paths
        && incx == incy
        && incx.unsigned_abs() == 1
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

/// What an in-place pass does.
enum Image {
    /// `op` on y from x.
    Update(Op, f32, f32),
    /// Both vectors.
    Pair(Pair),
}

/// Runs an in-place pass over the first `n` elements of `x` and `y` (both unit-stride, with
/// textures of equal width: see [`in_place`]).
fn image_pass(ctx: &Context, n: i32, what: Image, x: &Buffer, y: &Buffer) -> Result<()> {
    let inner = &ctx.inner;
    let kernel = match what {
        Image::Update(..) => &AXPBY_IMAGE,
        Image::Pair(Pair::Swap) => &SWAP_IMAGE,
        Image::Pair(Pair::Rotate(_)) => &ROT_IMAGE,
    };
    let prog = inner.program(kernel)?;
    let width = y.layout().width;
    let (gw, gh) = image_grid(n, width);
    let gl = inner.enter()?;
    gl.use_program(&prog);
    x.bind(gl, &prog, 0, "x", "width");
    y.bind(gl, &prog, 1, "y", "width");
    gl.set_i32(&prog, "grid_width", gw as i32);
    match what {
        Image::Update(op, alpha, beta) => {
            set_update_uniforms(gl, &prog, n, op, alpha, beta);
            gl.draw_image_stores(&[y.surface()], gw, gh);
        }
        Image::Pair(pair) => {
            gl.set_i32(&prog, "n", n);
            if let Pair::Rotate(h) = pair {
                gl.set_vec4(&prog, "h", h);
            }
            gl.draw_image_stores(&[y.surface(), x.surface()], gw, gh);
        }
    }
    Ok(())
}

/// Applies `op` to the `n` logical elements of `y` (increment `incy`, not zero) from those
/// of `x` (`None`: `y` itself, with the same increment), in place where [`in_place`]
/// allows, else by rendering a new texture and installing it.
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
            return image_pass(ctx, n, Image::Update(op, alpha, beta), x, y);
        }
        axpby_pass(ctx, n, op, alpha, beta, x, incx, y, incy)?
    };
    install(y, s);
    Ok(())
}

/// Applies `pair` to the `n` logical elements of `x` and `y` (increments not zero): in
/// place where [`in_place`] allows, else by rendering both new contents from the old
/// textures and installing them.
pub(crate) fn update_pair(
    ctx: &Context,
    n: i32,
    pair: Pair,
    x: &mut Buffer,
    incx: i32,
    y: &mut Buffer,
    incy: i32,
) -> Result<()> {
    if in_place(ctx, incx, x, incy, y) {
        return image_pass(ctx, n, Image::Pair(pair), x, y);
    }
    // new x = alpha*y + beta*x rendered over x; new y = alpha*x + beta*y over y.
    let ((ax, bx, ay, by), op) = match pair {
        Pair::Swap => ((1.0, 0.0, 1.0, 0.0), Op::Copy),
        Pair::Rotate(h) => ((h[1], h[0], h[2], h[3]), Op::Combine),
    };
    let new_x = axpby_pass(ctx, n, op, ax, bx, y, incy, x, incx)?;
    let new_y = axpby_pass(ctx, n, op, ay, by, x, incx, y, incy);
    let new_y = match new_y {
        Ok(s) => s,
        Err(e) => {
            ctx.inner.give_surface(new_x);
            return Err(e);
        }
    };
    install(x, new_x);
    install(y, new_y);
    Ok(())
}

/// Runs a sequential update of `y` from `x` on the host with reference BLAS's loop `f`:
/// reads the touched prefix of each vector, runs the loop, writes `y`'s prefix back.
pub(crate) fn y_on_host(
    n: i32,
    (x, incx): (&Buffer, i32),
    (y, incy): (&mut Buffer, i32),
    f: impl FnOnce(&[f32], &mut [f32]),
) -> Result<()> {
    let mut hx = vec![0.0; vector_span(n, incx)];
    let mut hy = vec![0.0; vector_span(n, incy)];
    x.read_into(&mut hx)?;
    y.read_into(&mut hy)?;
    f(&hx, &mut hy);
    y.write_prefix(&hy)
}

/// Runs a sequential update of both vectors on the host with reference BLAS's loop `f`.
pub(crate) fn pair_on_host(
    n: i32,
    (x, incx): (&mut Buffer, i32),
    (y, incy): (&mut Buffer, i32),
    f: impl FnOnce(&mut [f32], &mut [f32]),
) -> Result<()> {
    let mut hx = vec![0.0; vector_span(n, incx)];
    let mut hy = vec![0.0; vector_span(n, incy)];
    x.read_into(&mut hx)?;
    y.read_into(&mut hy)?;
    f(&mut hx, &mut hy);
    x.write_prefix(&hx)?;
    y.write_prefix(&hy)
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
    /// As in reference BLAS (3.11 and later): `n <= 0`, `incx <= 0` or `alpha == 1` returns
    /// without touching `x`; `alpha == 0` multiplies too (a NaN or Inf in `x` becomes NaN).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let mut x = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?;
    /// ctx.sscal(2, 10.0, &mut x, 2)?; // x[0] and x[2]
    /// assert_eq!(x.to_vec()?, vec![10.0, 2.0, 30.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sscal(&self, n: i32, alpha: f32, x: &mut Buffer, incx: i32) -> Result<()> {
        const R: &str = "sscal";
        x.check_owner(self, "x")?;
        if alpha == 1.0 || !one_vector(R, n, x.len(), incx)? {
            return Ok(());
        }
        update(self, n, Op::Axpby, alpha, 0.0, None, x, incx)?;
        self.inner.enter()?.check(R)
    }

    /// `y := x` over `n` elements (increments `incx`, `incy`; negative ones walk from the
    /// end; a zero `incx` copies `x[0]` everywhere, a zero `incy` leaves the last element
    /// of x in `y[0]`, as reference BLAS's loop does).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// let mut y = ctx.zeros(3)?;
    /// ctx.scopy(3, &x, 1, &mut y, -1)?; // reversed
    /// assert_eq!(y.to_vec()?, vec![3.0, 2.0, 1.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn scopy(&self, n: i32, x: &Buffer, incx: i32, y: &mut Buffer, incy: i32) -> Result<()> {
        const R: &str = "scopy";
        check_owners(self, x, y)?;
        if !two_vectors(R, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if host::y_sequential(incy) {
            return y_on_host(n, (x, incx), (y, incy), |x, y| {
                host::scopy(n, x, incx, y, incy)
            });
        }
        update(self, n, Op::Copy, 1.0, 0.0, Some((x, incx)), y, incy)?;
        self.inner.enter()?.check(R)
    }

    /// Exchanges `n` elements of `x` and `y` (increments `incx`, `incy`; with a zero
    /// increment the exchanges happen one after another, as in reference BLAS's loop).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let mut x = ctx.upload(&[1.0, 2.0])?;
    /// let mut y = ctx.upload(&[3.0, 4.0])?;
    /// ctx.sswap(2, &mut x, 1, &mut y, 1)?;
    /// assert_eq!((x.to_vec()?, y.to_vec()?), (vec![3.0, 4.0], vec![1.0, 2.0]));
    /// # Ok::<(), fragblas::Error>(())
    /// ```
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
        if !two_vectors(R, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if host::pair_sequential(incx, incy) {
            return pair_on_host(n, (x, incx), (y, incy), |x, y| {
                host::sswap(n, x, incx, y, incy)
            });
        }
        update_pair(self, n, Pair::Swap, x, incx, y, incy)?;
        self.inner.enter()?.check(R)
    }

    /// `y := alpha * x + y` over `n` elements (increments `incx`, `incy`).
    ///
    /// `n <= 0` or `alpha == 0` returns at once without reading `x`, as in reference BLAS.
    /// A zero `incx` adds `alpha * x[0]` to every element; a zero `incy` accumulates
    /// `y[0] + alpha*x[0] + alpha*x[1] + ...` in that order.
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
        if !two_vectors(R, n, alpha == 0.0, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if host::y_sequential(incy) {
            return y_on_host(n, (x, incx), (y, incy), |x, y| {
                host::saxpy(n, alpha, x, incx, y, incy)
            });
        }
        update(self, n, Op::Axpby, alpha, 1.0, Some((x, incx)), y, incy)?;
        self.inner.enter()?.check(R)
    }
}
