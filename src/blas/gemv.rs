//! sgemv: y := alpha*op(A)*x + beta*y.

use crate::blas::args::check_span;
use crate::blas::level1::{axpby_pass, install, Op};
use crate::blas::shape::GemvShape;
use crate::blas::shape::{gemv_shape, Layout, Transpose};
use crate::buffer::Buffer;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::kernels::Kernel;

/// Which sgemv kernel runs. `Auto` is the default; the others exist so that tests and
/// benchmarks can reach each kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemvKernel {
    /// `Vec4` where it applies, else `Generic`.
    Auto,
    /// Scalar fetches: any leading dimension and increments.
    Generic,
    /// vec4 reads of A and x into a scratch vector, then `y := alpha*t + beta*y` with y's
    /// increment. Needs `lda % 4 == 0` (in column-major form) and `incx == 1`.
    Vec4,
}

/// Whether the vectorised kernel serves this call.
fn vec4_applies(s: &GemvShape, incx: i32) -> bool {
    s.lda.is_multiple_of(4) && incx == 1
}

impl Context {
    /// The vectorised path: op(A)*x into a pooled scratch vector, then the axpby merge.
    #[allow(clippy::too_many_arguments)]
    fn gemv_vec4(
        &self,
        s: &GemvShape,
        alpha: f32,
        a: &Buffer,
        x: &Buffer,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        let inner = &self.inner;
        let len_y = s.len_y();
        let l = inner.layout(len_y)?;
        let tmp = inner.take_surface(l.width, l.height)?;
        let prog = inner.program(Kernel::GemvVec4)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "a", "a_width");
        gl.set_i32(&prog, "lda", s.lda as i32);
        gl.set_i32(&prog, "trans", s.trans as i32);
        gl.set_i32(&prog, "rows", s.rows as i32);
        gl.set_i32(&prog, "cols", s.cols as i32);
        x.bind(gl, &prog, 1, "x", "x_width");
        gl.set_i32(&prog, "out_width", l.width as i32);
        gl.set_i32(&prog, "out_texels", l.data_texels() as i32);
        gl.draw(&[&tmp], l.width, l.height);
        let t = Buffer::from_surface(self, tmp, len_y)?;
        let out = axpby_pass(self, len_y as i32, Op::Axpby, alpha, beta, &t, 1, y, incy);
        inner.give_surface(t.into_surface());
        install(y, out?);
        Ok(())
    }

    /// `y := alpha * op(A) * x + beta * y` (CBLAS `sgemv` on device buffers); A is `m x n`
    /// in `layout` with leading dimension `lda`, x and y have any non-zero increments.
    ///
    /// As in reference BLAS: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1` returns
    /// at once; `beta == 0` means y is not read; `alpha == 0` means A and x are not read;
    /// elements of y the increment skips are never written.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemv(
        &self,
        layout: Layout,
        trans: Transpose,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        self.sgemv_with(
            GemvKernel::Auto,
            layout,
            trans,
            m,
            n,
            alpha,
            a,
            lda,
            x,
            incx,
            beta,
            y,
            incy,
        )
    }

    /// [`Context::sgemv`] with a chosen kernel; `GemvKernel::Vec4` on a call it does not
    /// serve is an error.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemv_with(
        &self,
        kernel: GemvKernel,
        layout: Layout,
        trans: Transpose,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "sgemv";
        a.check_owner(self, "a")?;
        x.check_owner(self, "x")?;
        y.check_owner(self, "y")?;
        let s = gemv_shape(layout, trans, m, n, lda, incx, incy)?;
        if s.a_span() > a.len() {
            return Err(Error::TooShort {
                routine: R,
                param: "a",
                needed: s.a_span(),
                len: a.len(),
            });
        }
        check_span(R, "x", x.len(), s.len_x() as i32, incx)?;
        check_span(R, "y", y.len(), s.len_y() as i32, incy)?;
        if s.rows == 0 || s.cols == 0 || (alpha == 0.0 && beta == 1.0) {
            return Ok(());
        }
        let fits = vec4_applies(&s, incx);
        if alpha != 0.0 {
            match kernel {
                GemvKernel::Vec4 if !fits => {
                    return Err(Error::Unsupported(format!(
                        "sgemv: the vectorised kernel needs a leading dimension that is a \
                         multiple of 4 and incx == 1 (lda {}, incx {incx})",
                        s.lda
                    )))
                }
                GemvKernel::Vec4 | GemvKernel::Auto if fits => {
                    self.gemv_vec4(&s, alpha, a, x, beta, y, incy)?;
                    return self.inner.enter()?.check(R);
                }
                _ => {}
            }
        }
        let inner = &self.inner;
        let prog = inner.program(Kernel::Gemv)?;
        let yl = y.layout();
        let out = inner.take_surface(yl.width, yl.height)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "a", "a_width");
        gl.set_i32(&prog, "lda", s.lda as i32);
        gl.set_i32(&prog, "trans", s.trans as i32);
        x.bind(gl, &prog, 1, "x", "x_width");
        gl.set_i32(&prog, "incx", incx);
        let len_x = if alpha == 0.0 { 0 } else { s.len_x() };
        gl.set_i32(&prog, "len_x", len_x as i32);
        y.bind(gl, &prog, 2, "y", "y_width");
        gl.set_i32(&prog, "incy", incy);
        gl.set_i32(&prog, "len_y", s.len_y() as i32);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_f32(&prog, "beta", beta);
        gl.draw(&[&out], yl.width, yl.height);
        let old = y.replace_surface(out);
        inner.give_surface(old);
        gl.check(R)
    }
}
