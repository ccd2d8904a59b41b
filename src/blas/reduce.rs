//! Reductions: sdot, sasum, snrm2, isamax.
//!
//! A map pass reads the input vector(s) and folds `fan_in` texels per fragment into a
//! scratch texture; ping-pong passes fold `fan_in` texels at a time between two pooled
//! scratch textures until one texel is left; a final pass writes the scalar into a 1x1
//! texture. No pass waits for the GPU: the only sync is the readback of a host result.

use crate::blas::args::{one_vector, two_vectors, VecArg};
use crate::buffer::Buffer;
use crate::context::{Context, Inner};
use crate::error::Result;
use crate::gl::{Gl, Program, Surface};
use crate::kernels::Kernel;
use crate::layout::{texel_rect, texels_for};

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

/// Number of passes' outputs: `ceil(texels / fan_in)`.
fn fold(texels: usize, fan_in: u32) -> usize {
    texels.div_ceil(fan_in as usize)
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
    let logical = texels_for(n as usize);
    let first = fold(logical, fan_in);
    let (w, h) = texel_rect(first, inner.width_cap());
    let pair = [inner.take_surface(w, h)?, inner.take_surface(w, h)?];
    let level_width = |texels: usize| texels.min(w as usize) as u32;
    let level_height = |texels: usize| texels.div_ceil(level_width(texels) as usize) as u32;

    let prog = inner.program(map)?;
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
    gl.set_i32(&prog, "out_texels", first as i32);
    gl.set_i32(&prog, "out_width", level_width(first) as i32);
    gl.draw(&[&pair[0]], level_width(first), level_height(first));

    let mut cur = 0;
    let mut texels = first;
    if texels > 1 {
        let prog = inner.program(combine)?;
        gl.use_program(&prog);
        gl.set_i32(&prog, "fan_in", fan_in as i32);
        while texels > 1 {
            let next = fold(texels, fan_in);
            gl.set_texture(&prog, "src", 0, &pair[cur]);
            gl.set_i32(&prog, "src_width", level_width(texels) as i32);
            gl.set_i32(&prog, "src_texels", texels as i32);
            gl.set_i32(&prog, "out_texels", next as i32);
            gl.set_i32(&prog, "out_width", level_width(next) as i32);
            gl.draw(&[&pair[1 - cur]], level_width(next), level_height(next));
            cur = 1 - cur;
            texels = next;
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
        let xa = VecArg {
            buf: x,
            inc: incx,
            inc_pos: 3,
        };
        let ya = VecArg {
            buf: y,
            inc: incy,
            inc_pos: 5,
        };
        if !two_vectors(self, R, n, false, xa, ya)? {
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
        if !one_vector(
            self,
            R,
            n,
            VecArg {
                buf: x,
                inc: incx,
                inc_pos: 3,
            },
        )? {
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
        if !one_vector(
            self,
            R,
            n,
            VecArg {
                buf: x,
                inc: incx,
                inc_pos: 3,
            },
        )? {
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
        if !one_vector(
            self,
            R,
            n,
            VecArg {
                buf: x,
                inc: incx,
                inc_pos: 3,
            },
        )? {
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
