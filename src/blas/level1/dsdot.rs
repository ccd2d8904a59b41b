//! sdsdot and dsdot: dot products accumulated beyond single precision. GLSL ES 3.0 and GL 3.3
//! have no doubles, so the GPU accumulates in float-float (a value is hi + lo, about 48
//! significant bits): every product is exact (each factor split into two 12-bit halves by a
//! bit mask, so no fused multiply-add is needed), the sums are two-sums, and the reduction
//! passes add float-float values. The host finishes in f64. (A device whose shaders lack the
//! `precise` qualifier, [`crate::DeviceInfo::precise_qualifier`], computes them on the
//! host with reference's loop instead.) The error is at the level of
//! reference BLAS's double accumulation (about 2^-47 of the sum of |x_i y_i|, against
//! reference's n 2^-53), not single precision's. One difference remains: the partial sums
//! live in the f32 range, so a product or sum beyond 3.4e38 is Inf here where reference's
//! double would hold it.

use crate::blas::args::{two_vectors, vector_span};
use crate::blas::level1::host;
use crate::blas::level1::reduce::{
    dot_incs, first, reduce_to_texels, repeated_product, Map, Operand, UNIT, X, Y,
};
use crate::blas::level1::update::check_owners;
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;

static DSDOT_MAP: Kernel = crate::kernel!("level1/dsdot_map.frag").precise();
static DSDOT_MAP_UNIT: Kernel = crate::kernel!("level1/dsdot_map.frag")
    .defines(UNIT)
    .precise();
/// First pass: float-float sums of exact products.
const DSDOT: Map = [&DSDOT_MAP, &DSDOT_MAP_UNIT];
/// Ping-pong pass: float-float sums.
static FF_REDUCE: Kernel = crate::kernel!("level1/ff_reduce.frag").precise();

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 3] = [&DSDOT_MAP, &DSDOT_MAP_UNIT, &FF_REDUCE];

impl Context {
    /// The dot product in float-float on the GPU, as an f64 (`None` for a quick return).
    fn ff_dot(
        &self,
        routine: &'static str,
        n: i32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
    ) -> Result<Option<f64>> {
        check_owners(self, x, y)?;
        if !two_vectors(routine, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(None);
        }
        if incx == 0 && incy == 0 {
            // n copies of one product: n may exceed what a pass's grid can hold.
            return Ok(Some(repeated_product(n, first(x)?, first(y)?)));
        }
        if !self.info().precise_qualifier {
            // Without `precise` the compiler may fold the float-float error terms away:
            // reference's own loop on the host instead.
            let mut hx = vec![0.0; vector_span(n, incx)];
            let mut hy = vec![0.0; vector_span(n, incy)];
            x.read_into(&mut hx)?;
            y.read_into(&mut hy)?;
            return Ok(Some(host::dsdot(n, &hx, incx, &hy, incy)));
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
        let inner = &self.inner;
        let (pair, cur, _) = reduce_to_texels(inner, DSDOT, &ops, None, n, &FF_REDUCE, 1)?;
        let gl = inner.enter()?;
        let mut v = [0.0f32; 4];
        gl.download(&pair[cur], 0, 0, 1, 1, &mut v);
        for s in pair {
            inner.give_surface(s);
        }
        gl.check(routine)?;
        Ok(Some(v[0] as f64 + v[1] as f64))
    }

    /// `sb + x.y` accumulated beyond single precision, rounded to f32 (reference SDSDOT);
    /// `sb` for `n <= 0`. Any increments, as [`Context::sdot`].
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0e8, 1.0, -1.0e8])?;
    /// let y = ctx.upload(&[1.0, 1.0, 1.0])?;
    /// assert_eq!(ctx.sdsdot(3, 0.5, &x, 1, &y, 1)?, 1.5); // an f32 sum would lose the 1
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn sdsdot(
        &self,
        n: i32,
        sb: f32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
    ) -> Result<f32> {
        let dot = self.ff_dot("sdsdot", n, x, incx, y, incy)?;
        Ok((sb as f64 + dot.unwrap_or(0.0)) as f32)
    }

    /// `x.y` of single-precision vectors accumulated beyond single precision, returned as
    /// f64 (reference DSDOT); 0 for `n <= 0`. Any increments, as [`Context::sdot`].
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0e8, 1.0, -1.0e8])?;
    /// let y = ctx.upload(&[1.0, 1.0, 1.0])?;
    /// assert_eq!(ctx.dsdot(3, &x, 1, &y, 1)?, 1.0);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn dsdot(&self, n: i32, x: &Buffer, incx: i32, y: &Buffer, incy: i32) -> Result<f64> {
        Ok(self.ff_dot("dsdot", n, x, incx, y, incy)?.unwrap_or(0.0))
    }
}
