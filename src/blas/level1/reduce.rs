//! Reductions: sdot, sasum, snrm2, isamax.
//!
//! A map pass reads the input vector(s) and folds `fan_in` texels per fragment into a
//! scratch texture; ping-pong passes fold `fan_in` texels at a time between two pooled
//! scratch textures until one texel is left (at most `fan_in` for the sums, whose final pass
//! folds those itself); a final pass writes the scalar into a 1x1 texture. No pass waits
//! for the GPU: the only sync is the readback of a host result.
//!
//! Every pass folds a rectangle of texels without integer division: rows first (fragment
//! (x, y) combines (x, y + k*rows_out)), and once one row is left, columns (fragment (x, 0)
//! combines (x + k*width_out, 0)). Adjacent fragments read adjacent texels throughout.

use crate::blas::args::{check_span, one_vector, pass_inc, two_vectors};
use crate::blas::level1::update::check_owners;
use crate::blas::passes::{fold, SUM_REDUCE};
use crate::device::buffer::Buffer;
use crate::device::context::{Context, Inner};
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, Program, Surface};
use crate::layout::texels_for;

/// A map pass: the kernel for operands of any increments, and the one compiled with
/// `UNIT_STRIDE` for unit-stride operands laid out as wide as the grid (direct fetches).
pub(crate) type Map = [&'static Kernel; 2];

/// The define of a map kernel's unit-stride variant.
pub(crate) const UNIT: &str = "#define UNIT_STRIDE 1";
static DOT_MAP: Kernel = crate::kernel!("level1/dot_map.frag");
static DOT_MAP_UNIT: Kernel = crate::kernel!("level1/dot_map.frag").defines(UNIT);
static ASUM_MAP: Kernel = crate::kernel!("level1/asum_map.frag");
static ASUM_MAP_UNIT: Kernel = crate::kernel!("level1/asum_map.frag").defines(UNIT);
static AMAX_MAP: Kernel = crate::kernel!("level1/amax_map.frag");
static AMAX_MAP_UNIT: Kernel = crate::kernel!("level1/amax_map.frag").defines(UNIT);
static SSQ_MAP: Kernel = crate::kernel!("level1/ssq_map.frag");
static SSQ_MAP_UNIT: Kernel = crate::kernel!("level1/ssq_map.frag").defines(UNIT);
static IAMAX_MAP: Kernel = crate::kernel!("level1/iamax_map.frag");
static IAMAX_MAP_UNIT: Kernel = crate::kernel!("level1/iamax_map.frag").defines(UNIT);

/// First reduction pass of sdot: products of x and y, `fan_in` texels per fragment.
const DOT: Map = [&DOT_MAP, &DOT_MAP_UNIT];
/// First pass of sasum: |x|.
const ASUM: Map = [&ASUM_MAP, &ASUM_MAP_UNIT];
/// First pass of the snrm2 scale: max |x|.
const AMAX: Map = [&AMAX_MAP, &AMAX_MAP_UNIT];
/// Second snrm2 pass: sum of (x/scale)^2.
const SSQ: Map = [&SSQ_MAP, &SSQ_MAP_UNIT];
/// First pass of isamax: best (|x|, index) candidate per fragment.
const IAMAX: Map = [&IAMAX_MAP, &IAMAX_MAP_UNIT];

/// Ping-pong pass: maxima of `fan_in` texels.
static MAX_REDUCE: Kernel = crate::kernel!("level1/max_reduce.frag");
/// Ping-pong pass: best of `fan_in` isamax candidates.
static IAMAX_REDUCE: Kernel = crate::kernel!("level1/iamax_reduce.frag");
/// Last pass: the sum of the texels left, then of its four lanes.
static SUM_FINAL: Kernel = crate::kernel!("level1/sum_final.frag");
/// Last pass: max of the four lanes of texel 0.
static MAX_FINAL: Kernel = crate::kernel!("level1/max_final.frag");
/// Last snrm2 pass: scale * sqrt(sum of the texels left and their lanes).
static NRM2_FINAL: Kernel = crate::kernel!("level1/nrm2_final.frag");

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 15] = [
    &DOT_MAP,
    &DOT_MAP_UNIT,
    &ASUM_MAP,
    &ASUM_MAP_UNIT,
    &AMAX_MAP,
    &AMAX_MAP_UNIT,
    &SSQ_MAP,
    &SSQ_MAP_UNIT,
    &IAMAX_MAP,
    &IAMAX_MAP_UNIT,
    &MAX_REDUCE,
    &IAMAX_REDUCE,
    &SUM_FINAL,
    &MAX_FINAL,
    &NRM2_FINAL,
];

/// A vector operand of a map pass.
pub(crate) struct Operand<'a> {
    /// Sampler, width and increment uniforms the kernel reads it through.
    pub names: OperandNames,
    pub buf: &'a Buffer,
    pub inc: i32,
}

/// Sampler, width and increment uniform names of an operand.
pub(crate) type OperandNames = (&'static str, &'static str, &'static str);
/// The names of operand x.
pub(crate) const X: OperandNames = ("x", "x_width", "incx");
/// The names of operand y.
pub(crate) const Y: OperandNames = ("y", "y_width", "incy");

/// One fold of a `w x h` rectangle of texels: the output rectangle and the step between the
/// texels a fragment combines. Rows fold first while there are at least `fan_in` of them;
/// fewer rows than that fold along their length first (a fold of 2 rows into 1 would be a
/// pass that halves the work left, where folding the columns divides it by `fan_in`), and
/// a single column folds its rows.
fn fold_rect(w: u32, h: u32, fan_in: u32) -> ((u32, u32), [i32; 2]) {
    if h > 1 && (h >= fan_in || w == 1) {
        let rows = h.div_ceil(fan_in);
        ((w, rows), [0, rows as i32])
    } else {
        let cols = w.div_ceil(fan_in);
        ((cols, h), [cols as i32, 0])
    }
}

/// Binds one vector operand: texture, width and increment.
fn bind_operand(gl: &Gl, p: &Program, unit: u32, op: &Operand) {
    let (sampler, width, inc) = op.names;
    op.buf.bind(gl, p, unit, sampler, width);
    gl.set_i32(p, inc, op.inc);
}

/// Runs `map` over `n` logical elements and the ping-pong passes of `combine` until at most
/// `stop` texels are left (one, or as many as a final pass folds itself). Returns the two
/// scratch surfaces, the index of the one holding them and the rectangle they fill.
pub(crate) fn reduce_to_texels(
    inner: &Inner,
    map: Map,
    operands: &[Operand],
    extra: Option<(&'static str, &Surface)>,
    n: i32,
    combine: &Kernel,
    stop: u32,
) -> Result<([Surface; 2], usize, (u32, u32))> {
    let fan_in = inner.reduce_fan_in();
    // The grid: the logical texels, laid out as a buffer of n elements would be (so as wide
    // as a unit-stride operand of more than one row; a zero increment may leave an operand
    // of one texel, whose width could not hold the grid).
    let grid_width = inner.layout(n as usize)?.width;
    let grid_rows = texels_for(n as usize).div_ceil(grid_width as usize) as u32;
    let ((w, h), step) = fold_rect(grid_width, grid_rows, fan_in);
    let pair = [inner.take_surface(w, h)?, inner.take_surface(w, h)?];

    // Direct fetches at grid positions need unit strides and the same texel positions: a
    // one-row grid sits in the first row of any operand; otherwise every operand must be as
    // wide as the grid (two buffers of more than one row of one context always are).
    let unit = operands
        .iter()
        .all(|op| op.inc == 1 && (grid_rows == 1 || op.buf.layout().width == grid_width));
    let prog = inner.program(map[unit as usize])?;
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
    let left = |(w, h): (u32, u32)| w as u64 * h as u64 > stop.max(1) as u64;
    if left(size) {
        let prog = inner.program(combine)?;
        gl.use_program(&prog);
        while left(size) {
            let ((w, h), step) = fold_rect(size.0, size.1, fan_in);
            fold(
                gl,
                &prog,
                &pair[cur],
                size,
                step,
                fan_in,
                &pair[1 - cur],
                (w, h),
            );
            cur = 1 - cur;
            size = (w, h);
        }
    }
    Ok((pair, cur, size))
}

/// Runs a final pass into a new 1x1 surface: one fragment that reads the `size` rectangle
/// of `src` (one texel for the max kernels; the sum kernels fold up to the fan-in).
fn final_pass(
    inner: &Inner,
    kernel: &Kernel,
    src: &Surface,
    size: (u32, u32),
    extra: Option<(&'static str, &Surface)>,
) -> Result<Surface> {
    let out = inner.take_surface(1, 1)?;
    let prog = inner.program(kernel)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "src", 0, src);
    gl.set_ivec2(&prog, "src_size", [size.0 as i32, size.1 as i32]);
    if let Some((name, s)) = extra {
        gl.set_texture(&prog, name, 1, s);
    }
    gl.draw(&[&out], 1, 1);
    Ok(out)
}

/// Full sum-type reduction (`map`, then SumReduce, then `last`) into a 1x1 surface.
fn sum_reduction(
    inner: &Inner,
    map: Map,
    operands: &[Operand],
    extra: Option<(&'static str, &Surface)>,
    n: i32,
    last: &Kernel,
) -> Result<Surface> {
    // The final pass folds the last few texels itself: one pass fewer for each fold it
    // saves (every pass costs a render-target change, 5 us on the H100).
    let fan_in = inner.reduce_fan_in();
    let (pair, cur, size) = reduce_to_texels(inner, map, operands, extra, n, &SUM_REDUCE, fan_in)?;
    let out = final_pass(inner, last, &pair[cur], size, extra);
    for s in pair {
        inner.give_surface(s);
    }
    out
}

/// The increments a dot-product pass walks with: both reversed walks pair the same elements
/// as both forward ones, and a single element is element 0 whatever the increments.
pub(crate) fn dot_incs(n: i32, incx: i32, incy: i32) -> (i32, i32) {
    if incx == -1 && incy == -1 {
        (1, 1)
    } else {
        (pass_inc(n, incx), pass_inc(n, incy))
    }
}

/// A reduction's scalar result: in a 1x1 surface, or computed on the host.
enum Scalar {
    Gpu(Surface),
    Host(f32),
}

impl Scalar {
    /// The value (a sync for a GPU result).
    fn read(self, inner: &Inner, routine: &'static str) -> Result<f32> {
        match self {
            Scalar::Gpu(s) => read_scalar(inner, s, routine),
            Scalar::Host(v) => Ok(v),
        }
    }

    /// The value as a one-element buffer.
    fn into_buffer(self, ctx: &Context, routine: &'static str) -> Result<Buffer> {
        match self {
            Scalar::Gpu(s) => scalar_buffer(ctx, s, routine),
            Scalar::Host(v) => ctx.upload(&[v]),
        }
    }
}

/// Element 0 of a buffer.
pub(crate) fn first(b: &Buffer) -> Result<f32> {
    let mut v = [0.0f32];
    b.read_into(&mut v)?;
    Ok(v[0])
}

/// The sum of `n` copies of `x*y`, in closed form: `n x y` with the product exact in f64
/// and one rounding. (Reference adds the copies one by one, each addition rounding; this
/// is the exact sum, rounded once.)
pub(crate) fn repeated_product(n: i32, x: f32, y: f32) -> f64 {
    n as f64 * (x as f64 * y as f64)
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
    ) -> Result<Option<Scalar>> {
        const R: &str = "sdot";
        check_owners(self, x, y)?;
        if !two_vectors(R, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(None);
        }
        if incx == 0 && incy == 0 {
            // n copies of one product: n may exceed what a pass's grid can hold.
            let (x0, y0) = (first(x)?, first(y)?);
            return Ok(Some(Scalar::Host(repeated_product(n, x0, y0) as f32)));
        }
        let (incx, incy) = dot_incs(n, incx, incy);
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
        sum_reduction(&self.inner, DOT, &ops, None, n, &SUM_FINAL).map(|s| Some(Scalar::Gpu(s)))
    }

    /// The dot product of `n` elements of `x` and `y` (increments `incx`, `incy`); 0 for
    /// `n <= 0`. Waits for the GPU once, to read the result.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?;
    /// let y = ctx.upload(&[4.0, 3.0, 2.0, 1.0])?;
    /// assert_eq!(ctx.sdot(4, &x, 1, &y, 1)?, 20.0);
    /// assert_eq!(ctx.sdot(2, &x, 2, &y, -2)?, 1.0 * 2.0 + 3.0 * 4.0); // y walked from the end
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sdot(&self, n: i32, x: &Buffer, incx: i32, y: &Buffer, incy: i32) -> Result<f32> {
        self.dot_surface(n, x, incx, y, incy)?
            .map_or(Ok(0.0), |s| s.read(&self.inner, "sdot"))
    }

    /// [`Context::sdot`] with the result left on the GPU as a one-element buffer, so that
    /// it can feed further work without a sync.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// let d = ctx.sdot_device(3, &x, 1, &x, 1)?; // no wait here
    /// assert_eq!(d.to_vec()?, vec![14.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sdot_device(
        &self,
        n: i32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
    ) -> Result<Buffer> {
        match self.dot_surface(n, x, incx, y, incy)? {
            Some(s) => s.into_buffer(self, "sdot"),
            None => self.upload(&[0.0]),
        }
    }

    fn asum_surface(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<Surface>> {
        const R: &str = "sasum";
        x.check_owner(self, "x")?;
        if !one_vector(R, n, x.len(), incx)? {
            return Ok(None);
        }
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        sum_reduction(&self.inner, ASUM, &ops, None, n, &SUM_FINAL).map(Some)
    }

    /// Sum of `|x_i|` over `n` elements with increment `incx`; 0 for `n <= 0` or `incx <= 0`
    /// (reference BLAS).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, -2.0, 3.0, -4.0])?;
    /// assert_eq!(ctx.sasum(4, &x, 1)?, 10.0);
    /// assert_eq!(ctx.sasum(2, &x, 2)?, 4.0);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sasum(&self, n: i32, x: &Buffer, incx: i32) -> Result<f32> {
        match self.asum_surface(n, x, incx)? {
            Some(s) => read_scalar(&self.inner, s, "sasum"),
            None => Ok(0.0),
        }
    }

    /// [`Context::sasum`] with the result left on the GPU as a one-element buffer.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, -2.0, 3.0])?;
    /// assert_eq!(ctx.sasum_device(3, &x, 1)?.to_vec()?, vec![6.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sasum_device(&self, n: i32, x: &Buffer, incx: i32) -> Result<Buffer> {
        match self.asum_surface(n, x, incx)? {
            Some(s) => scalar_buffer(self, s, "sasum"),
            None => self.upload(&[0.0]),
        }
    }

    fn nrm2_surface(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<Scalar>> {
        const R: &str = "snrm2";
        x.check_owner(self, "x")?;
        // Reference 3.10 and later (snrm2.f90): a negative increment walks from the end, a
        // zero one reads x[0] n times; only n <= 0 returns at once. The norm of a set does
        // not depend on the order, so a negative increment walks forward.
        if n <= 0 {
            return Ok(None);
        }
        check_span(R, "x", x.len(), n, incx)?;
        if incx == 0 {
            // x[0] n times: sqrt(n) |x[0]| (n may exceed what a pass's grid can hold).
            let v = (n as f64).sqrt() * first(x)?.abs() as f64;
            return Ok(Some(Scalar::Host(v as f32)));
        }
        let incx = pass_inc(n, i32::try_from(incx.unsigned_abs()).unwrap_or(i32::MAX));
        let inner = &self.inner;
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        // Scale = max |x_i|, so that the squares summed next lie in [0, 1].
        let (pair, cur, _) = reduce_to_texels(inner, AMAX, &ops, None, n, &MAX_REDUCE, 1)?;
        let scale = final_pass(inner, &MAX_FINAL, &pair[cur], (1, 1), None);
        for s in pair {
            inner.give_surface(s);
        }
        let scale = scale?;
        let out = sum_reduction(inner, SSQ, &ops, Some(("scale", &scale)), n, &NRM2_FINAL);
        inner.give_surface(scale);
        out.map(|s| Some(Scalar::Gpu(s)))
    }

    /// Euclidean norm of `n` elements with increment `incx`, scaled by the largest magnitude
    /// so that values near the ends of the f32 range neither overflow nor underflow; 0 for
    /// `n <= 0`. As reference BLAS 3.10 and later: a negative increment walks from the end
    /// (the same norm), a zero one reads `x[0]` `n` times. A NaN gives NaN, an Inf (without
    /// NaN) Inf.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[3.0, 4.0])?;
    /// assert_eq!(ctx.snrm2(2, &x, 1)?, 5.0);
    /// let big = ctx.upload(&[3e30, 4e30])?; // the squares would overflow f32
    /// assert!((ctx.snrm2(2, &big, 1)? / 5e30 - 1.0).abs() < 1e-6);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn snrm2(&self, n: i32, x: &Buffer, incx: i32) -> Result<f32> {
        self.nrm2_surface(n, x, incx)?
            .map_or(Ok(0.0), |s| s.read(&self.inner, "snrm2"))
    }

    /// [`Context::snrm2`] with the result left on the GPU as a one-element buffer.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[3.0, 4.0])?;
    /// assert_eq!(ctx.snrm2_device(2, &x, 1)?.to_vec()?, vec![5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn snrm2_device(&self, n: i32, x: &Buffer, incx: i32) -> Result<Buffer> {
        match self.nrm2_surface(n, x, incx)? {
            Some(s) => s.into_buffer(self, "snrm2"),
            None => self.upload(&[0.0]),
        }
    }

    /// Index (0-based) of the first element of largest `|x_i|` among `n` elements with
    /// increment `incx`, as reference BLAS's loop finds it: a NaN never compares larger, so
    /// NaNs are passed over, unless the first element is a NaN, which then wins. `None` for
    /// `n <= 0` or `incx <= 0`.
    ///
    /// The CBLAS-shaped [`crate::cblas::isamax`] returns C CBLAS's 0-based index, 0 where
    /// there is none.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, -7.0, 3.0, 7.0])?;
    /// assert_eq!(ctx.isamax(4, &x, 1)?, Some(1)); // the first of equal magnitudes
    /// assert_eq!(ctx.isamax(0, &x, 1)?, None);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn isamax(&self, n: i32, x: &Buffer, incx: i32) -> Result<Option<usize>> {
        const R: &str = "isamax";
        x.check_owner(self, "x")?;
        if !one_vector(R, n, x.len(), incx)? {
            return Ok(None);
        }
        let inner = &self.inner;
        let ops = [Operand {
            names: X,
            buf: x,
            inc: incx,
        }];
        let (pair, cur, _) = reduce_to_texels(inner, IAMAX, &ops, None, n, &IAMAX_REDUCE, 1)?;
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
    fn folds_many_rows_first_then_along_the_rows() {
        assert_eq!(fold_rect(8192, 8192, 16), ((8192, 512), [0, 512]));
        assert_eq!(fold_rect(8192, 17, 16), ((8192, 2), [0, 2]));
        assert_eq!(fold_rect(8192, 16, 16), ((8192, 1), [0, 1]));
        assert_eq!(fold_rect(8192, 2, 16), ((512, 2), [512, 0]));
        assert_eq!(fold_rect(1, 2, 16), ((1, 1), [0, 1]));
        assert_eq!(fold_rect(8192, 1, 16), ((512, 1), [512, 0]));
        assert_eq!(fold_rect(3, 1, 16), ((1, 1), [1, 0]));
        assert_eq!(fold_rect(1, 1, 2), ((1, 1), [1, 0]));
    }

    #[test]
    fn every_texel_is_folded_exactly_once() {
        for &(w, h, f) in &[
            (7u32, 5u32, 2u32),
            (8192, 3, 16),
            (100, 1, 3),
            (5, 40, 16),
            (1, 9, 16),
            (30, 7, 4),
        ] {
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
