//! sgemv: y := alpha*op(A)*x + beta*y, its argument rules (pure, unit-tested below) and
//! its two kernels.

use crate::blas::args::{check_inc, check_span, invalid, pass_inc};
use crate::blas::level2::matrix::{Matrix, Shape, Storage};
use crate::blas::level2::product::{product_update, product_vec4};
use crate::blas::passes::in_spans;
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::{Error, Result};

/// sgemv, any increments.
static GEMV: Kernel = crate::kernel!("level2/gemv.frag");

/// The kernels of this file (the vectorised one is `product.rs`'s).
pub(crate) const KERNELS: [&Kernel; 1] = [&GEMV];

/// A sgemv call in column-major form: y (len_y) = alpha * op(A) x (len_x) + beta y, with A
/// stored as `rows` x `cols` column-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GemvShape {
    pub rows: usize,
    pub cols: usize,
    pub lda: usize,
    pub trans: bool,
}

impl GemvShape {
    /// Logical length of x.
    pub fn len_x(&self) -> usize {
        if self.trans {
            self.rows
        } else {
            self.cols
        }
    }
    /// Logical length of y.
    pub fn len_y(&self) -> usize {
        if self.trans {
            self.cols
        } else {
            self.rows
        }
    }
    /// Elements the stored A spans.
    pub fn a_span(&self) -> usize {
        crate::blas::args::matrix_span(self.rows, self.cols, self.lda)
    }

    /// Reference SGEMV's quick return: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1`.
    pub fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.rows == 0 || self.cols == 0 || (alpha == 0.0 && beta == 1.0)
    }

    /// Checks that A, x and y (their lengths) hold what the call reads: A and x only when
    /// `alpha != 0`, y always. Call after [`GemvShape::quick_return`].
    pub fn check_lengths(
        &self,
        alpha: f32,
        (a, x, y): (usize, usize, usize),
        incx: i32,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "sgemv";
        if alpha != 0.0 {
            if self.a_span() > a {
                return Err(Error::TooShort {
                    routine: R,
                    param: "a",
                    needed: self.a_span(),
                    len: a,
                });
            }
            check_span(R, "x", x, self.len_x() as i32, incx)?;
        }
        check_span(R, "y", y, self.len_y() as i32, incy)
    }
}

/// Validates sgemv arguments and returns the column-major form of the call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemv_shape(
    layout: Layout,
    trans: Transpose,
    m: i32,
    n: i32,
    lda: i32,
    incx: i32,
    incy: i32,
) -> Result<GemvShape> {
    const R: &str = "sgemv";
    // A row-major m x n matrix is the column-major n x m matrix A^T.
    let (rows, cols, t, rows_name, cols_name) = match layout {
        Layout::ColMajor => (m, n, trans, ("m", 3), ("n", 4)),
        Layout::RowMajor => (n, m, trans.flip(), ("n", 4), ("m", 3)),
    };
    if rows < 0 {
        return Err(invalid(
            R,
            rows_name.0,
            rows_name.1,
            format!("{rows} is negative"),
        ));
    }
    if cols < 0 {
        return Err(invalid(
            R,
            cols_name.0,
            cols_name.1,
            format!("{cols} is negative"),
        ));
    }
    if lda < rows.max(1) {
        return Err(invalid(
            R,
            "lda",
            7,
            format!("{lda} is less than max(1, {rows})"),
        ));
    }
    check_inc(R, "incx", 9, incx)?;
    check_inc(R, "incy", 12, incy)?;
    Ok(GemvShape {
        rows: rows as usize,
        cols: cols as usize,
        lda: lda as usize,
        trans: t.is_trans(),
    })
}

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
        let len_y = s.len_y();
        let m = Matrix {
            storage: Storage::Full { lda: s.lda },
            shape: Shape::General,
            rows: s.rows,
            cols: s.cols,
        };
        product_update(
            self,
            |sink| product_vec4(self, &m, s.lda, a, s.trans, x, false, sink),
            alpha,
            beta,
            (y, incy, len_y as i32),
        )
    }

    /// `y := alpha * op(A) * x + beta * y` (CBLAS `sgemv` on device buffers); A is `m x n`
    /// in `layout` with leading dimension `lda`, x and y have any non-zero increments.
    ///
    /// As in reference BLAS: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1` returns
    /// at once; `beta == 0` means y is not read; `alpha == 0` means A and x are not read;
    /// elements of y the increment skips are never written.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// use fragblas::{Layout, Transpose};
    /// let a = ctx.upload(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3, row-major
    /// let x = ctx.upload(&[1.0, 1.0, 1.0])?;
    /// let mut y = ctx.upload(&[10.0, 20.0])?;
    /// ctx.sgemv(Layout::RowMajor, Transpose::NoTrans, 2, 3, 1.0, &a, 3, &x, 1, 1.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![16.0, 35.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
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
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// use fragblas::{GemvKernel, Layout, Transpose};
    /// let a = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?; // 2 x 2, column-major
    /// let x = ctx.upload(&[1.0, 1.0])?;
    /// let mut y = ctx.zeros(2)?;
    /// ctx.sgemv_with(GemvKernel::Generic, Layout::ColMajor, Transpose::Trans, 2, 2, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 7.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
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
        if s.quick_return(alpha, beta) {
            return Ok(());
        }
        s.check_lengths(alpha, (a.len(), x.len(), y.len()), incx, incy)?;
        let incy = pass_inc(s.len_y() as i32, incy);
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
        // The generic kernel in passes over the summed index (see passes::in_spans): the first
        // computes alpha*part + beta*y, each further one adds to the last.
        let inner = &self.inner;
        let prog = inner.program(&GEMV)?;
        let yl = y.layout();
        let len_x = if alpha == 0.0 { 0 } else { s.len_x() };
        let y_ref: &Buffer = y;
        let out = in_spans(
            inner,
            len_x,
            (yl.width, yl.height),
            |gl, prev, l0, l1, out| {
                gl.use_program(&prog);
                a.bind(gl, &prog, 0, "a", "a_width");
                gl.set_i32(&prog, "lda", s.lda as i32);
                gl.set_i32(&prog, "trans", s.trans as i32);
                x.bind(gl, &prog, 1, "x", "x_width");
                gl.set_i32(&prog, "incx", incx);
                gl.set_i32(&prog, "len_x", len_x as i32);
                gl.set_i32(&prog, "l0", l0 as i32);
                gl.set_i32(&prog, "l1", l1 as i32);
                match prev {
                    None => y_ref.bind(gl, &prog, 2, "y", "y_width"),
                    Some(p) => {
                        gl.set_texture(&prog, "y", 2, p);
                        gl.set_i32(&prog, "y_width", yl.width as i32);
                    }
                }
                gl.set_i32(&prog, "incy", incy);
                gl.set_i32(&prog, "len_y", s.len_y() as i32);
                gl.set_f32(&prog, "alpha", alpha);
                gl.set_f32(&prog, "beta", if prev.is_some() { 1.0 } else { beta });
                gl.draw(&[out], yl.width, yl.height);
            },
        )?;
        let gl = inner.enter()?;
        let old = y.replace_surface(out);
        inner.give_surface(old);
        gl.check(R)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Transpose::*;

    fn pos(e: Error) -> (&'static str, u32) {
        match e {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn gemv_rules() {
        let s = gemv_shape(ColMajor, NoTrans, 3, 5, 4, 1, -2).unwrap();
        assert_eq!((s.rows, s.cols, s.lda, s.trans), (3, 5, 4, false));
        assert_eq!((s.len_x(), s.len_y(), s.a_span()), (5, 3, 19));
        let s = gemv_shape(RowMajor, NoTrans, 3, 5, 5, 1, 1).unwrap();
        assert_eq!((s.rows, s.cols, s.lda, s.trans), (5, 3, 5, true));
        assert_eq!((s.len_x(), s.len_y()), (5, 3));
        let e = |r: Result<GemvShape>| pos(r.unwrap_err());
        assert_eq!(e(gemv_shape(ColMajor, NoTrans, -1, 5, 4, 1, 1)), ("m", 3));
        assert_eq!(e(gemv_shape(ColMajor, NoTrans, 3, -1, 4, 1, 1)), ("n", 4));
        assert_eq!(e(gemv_shape(ColMajor, NoTrans, 3, 5, 2, 1, 1)), ("lda", 7));
        assert_eq!(e(gemv_shape(RowMajor, NoTrans, 3, 5, 4, 1, 1)), ("lda", 7));
        assert_eq!(e(gemv_shape(ColMajor, Trans, 3, 5, 3, 0, 1)), ("incx", 9));
        assert_eq!(e(gemv_shape(ColMajor, Trans, 3, 5, 3, 1, 0)), ("incy", 12));
    }
}
