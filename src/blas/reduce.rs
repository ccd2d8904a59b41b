//! Reductions: sdot, sasum, snrm2, isamax.
//!
//! A map pass reads the input vector(s) and folds `fan_in` texels per fragment into a
//! scratch texture; ping-pong passes fold `fan_in` texels at a time between two pooled
//! scratch textures until one texel is left; a final pass writes the scalar into a 1x1
//! texture. No pass waits for the GPU: the only sync is the readback of a host result.
//!
//! Every pass folds a rectangle of texels without integer division: rows first (fragment
//! (x, y) combines (x, y + k*rows_out)), and once one row is left, columns (fragment (x, 0)
//! combines (x + k*width_out, 0)). Adjacent fragments read adjacent texels throughout.

use crate::blas::args::{one_vector, two_vectors, Lead};
use crate::buffer::Buffer;
use crate::context::{Context, Inner};
use crate::error::Result;
use crate::gl::{Gl, Program, Surface};
use crate::kernels::Kernel;
use crate::layout::texels_for;

/// A vector operand of a map pass.
struct Operand<'a> {
    /// Sampler, width and increment uniforms the kernel reads it through.
    names: OperandNames,
    buf: &'a Buffer,
    inc: i32,
}

type OperandNames = (&'static str, &'static str, &'static str);
const X: OperandNames = ("x", "x_width", "incx");
const Y: OperandNames = ("y", "y_width", "incy");

/// One fold of a `w x h` rectangle of texels: the output rectangle and the step between the
/// texels a fragment combines. Rows fold first; a single row folds along its length.
fn fold_rect(w: u32, h: u32, fan_in: u32) -> ((u32, u32), [i32; 2]) {
    if h > 1 {
        let rows = h.div_ceil(fan_in);
        ((w, rows), [0, rows as i32])
    } else {
        let cols = w.div_ceil(fan_in);
        ((cols, 1), [cols as i32, 0])
    }
}

/// Binds one vector operand: texture, width and increment.
fn bind_operand(gl: &Gl, p: &Program, unit: u32, op: &Operand) {
    let (sampler, width, inc) = op.names;
    op.buf.bind(gl, p, unit, sampler, width);
    gl.set_i32(p, inc, op.inc);
}

/// Runs `map` over `n` logical elements and the ping-pong passes of `combine` until one
/// texel is left. Returns the two scratch surfaces and the index of the one holding it.
fn reduce_to_texel(
    inner: &Inner,
    map: Kernel,
    operands: &[Operand],
    extra: Option<(&'static str, &Surface)>,
    n: i32,
    combine: Kernel,
) -> Result<([Surface; 2], usize)> {
    let fan_in = inner.reduce_fan_in();
    // The grid: the logical texels, as wide as the first operand's texture.
    let grid_width = operands[0].buf.layout().width;
    let grid_rows = texels_for(n as usize).div_ceil(grid_width as usize) as u32;
    let ((w, h), step) = fold_rect(grid_width, grid_rows, fan_in);
    let pair = [inner.take_surface(w, h)?, inner.take_surface(w, h)?];

    // Direct fetches at grid positions need unit strides and the same texel positions: a
    // one-row grid sits in the first row of any operand; otherwise every operand must be as
    // wide as the grid (two buffers of more than one row of one context always are).
    let unit = operands
        .iter()
        .all(|op| op.inc == 1 && (grid_rows == 1 || op.buf.layout().width == grid_width));
    let prog = inner.program(if unit { map.unit_stride() } else { map })?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    for (unit, op) in operands.iter().enumerate() {
        bind_operand(gl, &prog, unit as u32, op);
    }
    if let Some((name, s)) = extra {
        gl.set_texture(&prog, name, operands.len() as u32, s);
    }
    gl.set_i32(&prog, "n", n);
    gl.set_i32(&prog, "fan_in", fan_in as i32);
    gl.set_i32(&prog, "grid_width", grid_width as i32);
    gl.set_ivec2(&prog, "fold_step", step);
    gl.draw(&[&pair[0]], w, h);

    let mut cur = 0;
    let mut size = (w, h);
    if size != (1, 1) {
        let prog = inner.program(combine)?;
        gl.use_program(&prog);
        gl.set_i32(&prog, "fan_in", fan_in as i32);
        while size != (1, 1) {
            let ((w, h), step) = fold_rect(size.0, size.1, fan_in);
            gl.set_texture(&prog, "src", 0, &pair[cur]);
            gl.set_ivec2(&prog, "src_size", [size.0 as i32, size.1 as i32]);
            gl.set_ivec2(&prog, "fold_step", step);
            gl.draw(&[&pair[1 - cur]], w, h);
            cur = 1 - cur;
            size = (w, h);
        }
    }
    Ok((pair, cur))
}

/// Runs a one-texel-in, one-texel-out final pass into a new 1x1 surface.
fn final_pass(
    inner: &Inner,
    kernel: Kernel,
    src: &Surface,
    extra: Option<(&'static str, &Surface)>,
) -> Result<Surface> {
    let out = inner.take_surface(1, 1)?;
    let prog = inner.program(kernel)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "src", 0, src);
    if let Some((name, s)) = extra {
        gl.set_texture(&prog, name, 1, s);
    }
    gl.draw(&[&out], 1, 1);
    Ok(out)
}

/// Full sum-type reduction (`map`, then SumReduce, then `last`) into a 1x1 surface.
fn sum_reduction(
    inner: &Inner,
    map: Kernel,
    operands: &[Operand],
    extra: Option<(&'static str, &Surface)>,
    n: i32,
    last: Kernel,
) -> Result<Surface> {
    let (pair, cur) = reduce_to_texel(inner, map, operands, extra, n, Kernel::SumReduce)?;
    let out = final_pass(inner, last, &pair[cur], extra);
    for s in pair {
        inner.give_surface(s);
    }
    out
}

/// Reads lane 0 of a 1x1 surface (the one sync of a host-valued reduction) and pools it.
fn read_scalar(inner: &Inner, s: Surface, routine: &'static str) -> Result<f32> {
    let gl = inner.enter()?;
    let mut v = [0.0f32; 4];
    gl.download(&s, 0, 0, 1, 1, &mut v);
    inner.give_surface(s);
    gl.check(routine)?;
    Ok(v[0])
}

/// Wraps a 1x1 result surface as a one-element buffer.
fn scalar_buffer(ctx: &Context, s: Surface, routine: &'static str) -> Result<Buffer> {
    ctx.inner.enter()?.check(routine)?;
    Buffer::from_surface(ctx, s, 1)
}

impl Context {
    fn dot_surface(
        &self,
        n: i32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
    ) -> Result<Option<Surface>> {
        const R: &str = "sdot";
        if !two_vectors(self, R, Lead::N, n, false, (x, incx), (y, incy))? {
            return Ok(None);
        }
        // Both reversed walks pair the same elements as both forward ones.
        let (incx, incy) = if incx == -1 && incy == -1 {
            (1, 1)
        } else {
            (incx, incy)
        };
        let ops = [
            Operand {
                names: X,
                buf: x,
                inc: incx,
            },
            Operand {
                names: Y,
                buf: y,
                inc: incy,
            },
        ];
        sum_reduction(&self.inner, Kernel::DotMap, &ops, None, n, Kernel::SumFinal).map(Some)
    }

    /// The dot product of `n` elements of `x` and `y` (increments `incx`, `incy`); 0 for
    /// `n <= 0`. Waits for the GPU once, to read the result.
    pub fn sdot(&self, n: i32, x: &Buffer, incx: i32, y: &Buffer, incy: i32) -> Result<f32> {
        match self.dot_surface(n, x, incx, y, incy)? {
            Some(s) => read_scalar(&self.inner, s, "sdot"),
            None => Ok(0.0),
        }
    }

    /// [`Context::sdot`] with the result left on the GPU as a one-element buffer, so that
    /// it can feed further work without a sync.
    pub fn sdot_device(
        &self,
        n: i32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
    ) -> Result<Buffer> {
        match self.dot_surface(n, x, incx, y, incy)? {
            Some(s) => scalar_buffer(self, s, "sdot"),
            None => self.upload(&[0.0]),
        }
    }

    fn asum_surface(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<Surface>> {
        const R: &str = "sasum";
        if !one_vector(self, R, Lead::N, n, x, incx)? {
            return Ok(None);
        }
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        sum_reduction(
            &self.inner,
            Kernel::AsumMap,
            &ops,
            None,
            n,
            Kernel::SumFinal,
        )
        .map(Some)
    }

    /// Sum of `|x_i|` over `n` elements with increment `incx`; 0 for `n <= 0` or `incx < 0`
    /// (reference BLAS).
    pub fn sasum(&self, n: i32, x: &Buffer, incx: i32) -> Result<f32> {
        match self.asum_surface(n, x, incx)? {
            Some(s) => read_scalar(&self.inner, s, "sasum"),
            None => Ok(0.0),
        }
    }

    /// [`Context::sasum`] with the result left on the GPU as a one-element buffer.
    pub fn sasum_device(&self, n: i32, x: &Buffer, incx: i32) -> Result<Buffer> {
        match self.asum_surface(n, x, incx)? {
            Some(s) => scalar_buffer(self, s, "sasum"),
            None => self.upload(&[0.0]),
        }
    }

    fn nrm2_surface(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<Surface>> {
        const R: &str = "snrm2";
        if !one_vector(self, R, Lead::N, n, x, incx)? {
            return Ok(None);
        }
        let inner = &self.inner;
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        // Scale = max |x_i|, so that the squares summed next lie in [0, 1].
        let (pair, cur) =
            reduce_to_texel(inner, Kernel::AmaxMap, &ops, None, n, Kernel::MaxReduce)?;
        let scale = final_pass(inner, Kernel::MaxFinal, &pair[cur], None);
        for s in pair {
            inner.give_surface(s);
        }
        let scale = scale?;
        let out = sum_reduction(
            inner,
            Kernel::SsqMap,
            &ops,
            Some(("scale", &scale)),
            n,
            Kernel::Nrm2Final,
        );
        inner.give_surface(scale);
        out.map(Some)
    }

    /// Euclidean norm of `n` elements with increment `incx`, scaled by the largest magnitude
    /// so that values near the ends of the f32 range neither overflow nor underflow; 0 for
    /// `n <= 0` or `incx < 0` (reference BLAS). A NaN gives NaN, an Inf (without NaN) Inf.
    pub fn snrm2(&self, n: i32, x: &Buffer, incx: i32) -> Result<f32> {
        match self.nrm2_surface(n, x, incx)? {
            Some(s) => read_scalar(&self.inner, s, "snrm2"),
            None => Ok(0.0),
        }
    }

    /// [`Context::snrm2`] with the result left on the GPU as a one-element buffer.
    pub fn snrm2_device(&self, n: i32, x: &Buffer, incx: i32) -> Result<Buffer> {
        match self.nrm2_surface(n, x, incx)? {
            Some(s) => scalar_buffer(self, s, "snrm2"),
            None => self.upload(&[0.0]),
        }
    }

    /// Index (0-based) of the first element of largest `|x_i|` among `n` elements with
    /// increment `incx`; a NaN counts as largest, so the first NaN wins (as in BLIS and the
    /// proposed reference rule). `None` for `n <= 0` or `incx < 0`.
    ///
    /// The CBLAS-shaped [`crate::cblas::isamax`] returns the 1-based BLAS index instead.
    pub fn isamax(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<usize>> {
        const R: &str = "isamax";
        if !one_vector(self, R, Lead::N, n, x, incx)? {
            return Ok(None);
        }
        let inner = &self.inner;
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        let (pair, cur) =
            reduce_to_texel(inner, Kernel::IamaxMap, &ops, None, n, Kernel::IamaxReduce)?;
        let gl = inner.enter()?;
        let mut v = [0.0f32; 4];
        gl.download(&pair[cur], 0, 0, 1, 1, &mut v);
        for s in pair {
            inner.give_surface(s);
        }
        gl.check(R)?;
        let index = ((v[1] as usize) << 24) + v[2] as usize;
        Ok(Some(index))
    }
}

#[cfg(test)]
mod tests {
    use super::fold_rect;

    #[test]
    fn folds_rows_first_then_the_last_row() {
        assert_eq!(fold_rect(8192, 8192, 16), ((8192, 512), [0, 512]));
        assert_eq!(fold_rect(8192, 17, 16), ((8192, 2), [0, 2]));
        assert_eq!(fold_rect(8192, 2, 16), ((8192, 1), [0, 1]));
        assert_eq!(fold_rect(8192, 1, 16), ((512, 1), [512, 0]));
        assert_eq!(fold_rect(3, 1, 16), ((1, 1), [1, 0]));
        assert_eq!(fold_rect(1, 1, 2), ((1, 1), [1, 0]));
    }

    #[test]
    fn every_texel_is_folded_exactly_once() {
        for &(w, h, f) in &[(7u32, 5u32, 2u32), (8192, 3, 16), (100, 1, 3), (5, 40, 16)] {
            let ((ow, oh), [sx, sy]) = fold_rect(w, h, f);
            let mut seen = vec![0u32; (w * h) as usize];
            for y in 0..oh as i32 {
                for x in 0..ow as i32 {
                    for k in 0..f as i32 {
                        let (qx, qy) = (x + k * sx, y + k * sy);
                        if qx < w as i32 && qy < h as i32 {
                            seen[(qy as u32 * w + qx as u32) as usize] += 1;
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{w}x{h} fan-in {f}");
        }
    }
}
