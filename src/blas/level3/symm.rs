//! ssymm: `C := alpha*A*B + beta*C` (Side::Left) or `C := alpha*B*A + beta*C`
//! (Side::Right) for a symmetric A of which one triangle is read. The stored triangle is
//! expanded into a full matrix (`blocks::expand`), then one sgemm does the product: a
//! symmetric product has the flops of a full one, so nothing is saved by blocking.
//! Reference SSYMM skips no zeros, so the result is reference's in every case, Inf and NaN
//! included, up to the order of the sums.

use crate::blas::args::{ld_at_least, matrix_span, non_negative};
use crate::blas::level3::blocks::{expand, release, Fill};
use crate::blas::level3::gemm::kernel::GemmKernel;
use crate::blas::level3::gemm::shape::{GemmShape, Operand, Window};
use crate::blas::level3::gemm::Src;
use crate::blas::types::{Layout, Side, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::{Error, Result};

const R: &str = "ssymm";

/// An ssymm call in column-major form, after the argument rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SymmCall {
    pub side: Side,
    pub uplo: Uplo,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

/// The argument rules of ssymm in reference order, and the column-major form of the call.
/// A row-major call is the column-major one on the transposes: the other side, the other
/// triangle, m and n exchanged (C CBLAS's mapping); errors still name the user's own
/// parameters (reference CBLAS's `xerbla` exchanges the positions of m and n back).
#[allow(clippy::too_many_arguments)]
pub(crate) fn symm_call(
    layout: Layout,
    side: Side,
    uplo: Uplo,
    m: i32,
    n: i32,
    lda: i32,
    ldb: i32,
    ldc: i32,
) -> Result<SymmCall> {
    let row = layout == Layout::RowMajor;
    let (side, uplo) = if row {
        (flip_side(side), uplo.flip())
    } else {
        (side, uplo)
    };
    // Column-major m and n, and the user's names for them.
    let ((cm, m_name), (cn, n_name)) = if row {
        ((n, ("n", 5)), (m, ("m", 4)))
    } else {
        ((m, ("m", 4)), (n, ("n", 5)))
    };
    non_negative(R, m_name.0, m_name.1, cm)?;
    non_negative(R, n_name.0, n_name.1, cn)?;
    let ka = if side == Side::Left { cm } else { cn };
    ld_at_least(R, "lda", 8, lda, ka as i64)?;
    ld_at_least(R, "ldb", 10, ldb, cm as i64)?;
    ld_at_least(R, "ldc", 13, ldc, cm as i64)?;
    Ok(SymmCall {
        side,
        uplo,
        m: cm as usize,
        n: cn as usize,
        lda: lda as usize,
        ldb: ldb as usize,
        ldc: ldc as usize,
    })
}

/// The other side: a row-major matrix is the column-major transpose, and
/// `(A*B)^T = B^T * A^T`.
pub(crate) fn flip_side(side: Side) -> Side {
    match side {
        Side::Left => Side::Right,
        Side::Right => Side::Left,
    }
}

impl SymmCall {
    /// The order of A.
    pub(crate) fn ka(&self) -> usize {
        if self.side == Side::Left {
            self.m
        } else {
            self.n
        }
    }

    /// Reference's quick return: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1`.
    pub(crate) fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.m == 0 || self.n == 0 || (alpha == 0.0 && beta == 1.0)
    }

    /// Elements of A, B and C the call reads (A and B only when `alpha != 0`).
    pub(crate) fn spans(&self, alpha: f32) -> [(&'static str, usize); 3] {
        let product = alpha != 0.0;
        let read = |span: usize| if product { span } else { 0 };
        [
            ("a", read(matrix_span(self.ka(), self.ka(), self.lda))),
            ("b", read(matrix_span(self.m, self.n, self.ldb))),
            ("c", matrix_span(self.m, self.n, self.ldc)),
        ]
    }

    /// Checks the lengths of A, B and C (call after the quick return).
    pub(crate) fn check_lengths(&self, alpha: f32, lens: [usize; 3]) -> Result<()> {
        for ((param, needed), len) in self.spans(alpha).into_iter().zip(lens) {
            if needed > len {
                return Err(Error::TooShort {
                    routine: R,
                    param,
                    needed,
                    len,
                });
            }
        }
        Ok(())
    }
}

impl Context {
    /// `C := alpha*A*B + beta*C` (`Side::Left`) or `C := alpha*B*A + beta*C`
    /// (`Side::Right`) for a symmetric A of which only the `uplo` triangle is read; C and B
    /// are `m x n` (CBLAS `ssymm` on device buffers).
    ///
    /// Reference semantics: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1` return at
    /// once; `alpha == 0` does not read A or B; `beta == 0` does not read C; only the
    /// `m x n` window of C is written.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Side, Uplo};
    /// let ctx = Context::new()?;
    /// // A = [2 1; 1 3], upper triangle stored (the NaN is never read).
    /// let a = ctx.upload(&[2.0, f32::NAN, 1.0, 3.0])?;
    /// let b = ctx.upload(&[1.0, 1.0])?; // 2x1
    /// let mut c = ctx.zeros(2)?;
    /// ctx.ssymm(Layout::ColMajor, Side::Left, Uplo::Upper, 2, 1, 1.0, &a, 2, &b, 2, 0.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![3.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssymm(
        &self,
        layout: Layout,
        side: Side,
        uplo: Uplo,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        let call = symm_call(layout, side, uplo, m, n, lda, ldb, ldc)?;
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        c.check_owner(self, "c")?;
        if call.quick_return(alpha, beta) {
            return Ok(());
        }
        call.check_lengths(alpha, [a.len(), b.len(), c.len()])?;
        self.symm_checked(&call, alpha, a, b, beta, c)?;
        self.inner.enter()?.check(R)
    }

    /// ssymm after the checks.
    fn symm_checked(
        &self,
        call: &SymmCall,
        alpha: f32,
        a: &Buffer,
        b: &Buffer,
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let (m, n, ka) = (call.m, call.n, call.ka());
        if alpha == 0.0 {
            // C := beta*C, neither A nor B read.
            let s = GemmShape::block(
                (m, n, 0),
                Operand::at(0, 1, false),
                Operand::at(0, 1, false),
                call.ldc,
                0,
                Window::Full,
            );
            return self.gemm_shape_with(GemmKernel::Auto, &s, 0.0, Src::C, Src::C, beta, c);
        }
        let (full, ld) = expand(
            self,
            (a, call.lda),
            ka,
            (call.uplo, Fill::Symmetric),
            false,
            None,
        )?;
        let sym = Operand::at(0, ld, false);
        let bop = Operand::at(0, call.ldb, false);
        let (x, y, xo, yo) = match call.side {
            Side::Left => (&full, b, sym, bop),
            Side::Right => (b, &full, bop, sym),
        };
        let s = GemmShape::block((m, n, ka), xo, yo, call.ldc, 0, Window::Full);
        let done = self.gemm_shape_with(
            GemmKernel::Auto,
            &s,
            alpha,
            Src::Buf(x),
            Src::Buf(y),
            beta,
            c,
        );
        release(self, full);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Side::*;
    use Uplo::*;

    fn pos(r: Result<SymmCall>) -> (&'static str, u32) {
        match r.unwrap_err() {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn rules_in_reference_order() {
        let c = symm_call(ColMajor, Left, Upper, 3, 4, 3, 3, 3).unwrap();
        assert_eq!((c.m, c.n, c.ka()), (3, 4, 3));
        let c = symm_call(ColMajor, Right, Lower, 3, 4, 4, 3, 3).unwrap();
        assert_eq!(c.ka(), 4);
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, -1, -1, 0, 0, 0)),
            ("m", 4)
        );
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, 3, -1, 0, 0, 0)),
            ("n", 5)
        );
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, 3, 4, 2, 0, 0)),
            ("lda", 8)
        );
        assert_eq!(
            pos(symm_call(ColMajor, Right, Upper, 5, 4, 3, 5, 5)),
            ("lda", 8)
        );
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, 3, 4, 3, 2, 3)),
            ("ldb", 10)
        );
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, 3, 4, 3, 3, 2)),
            ("ldc", 13)
        );
        // Zero sizes still need leading dimensions of at least 1.
        assert_eq!(
            pos(symm_call(ColMajor, Left, Upper, 0, 0, 0, 1, 1)),
            ("lda", 8)
        );
    }

    #[test]
    fn row_major_is_the_transposed_call() {
        // Row-major Left, m x n = 3 x 4: A is 3x3 (lda >= 3), B and C rows of 4.
        let c = symm_call(RowMajor, Left, Upper, 3, 4, 3, 4, 4).unwrap();
        assert_eq!((c.side, c.uplo, c.m, c.n, c.ka()), (Right, Lower, 4, 3, 3));
        assert_eq!(
            pos(symm_call(RowMajor, Left, Upper, 3, 4, 3, 3, 4)),
            ("ldb", 10)
        );
        assert_eq!(
            pos(symm_call(RowMajor, Left, Upper, 3, 4, 3, 4, 3)),
            ("ldc", 13)
        );
        assert_eq!(
            pos(symm_call(RowMajor, Right, Upper, 3, 4, 3, 4, 4)),
            ("lda", 8)
        );
        // Reference CBLAS checks the row-major call's n first, and names it n.
        assert_eq!(
            pos(symm_call(RowMajor, Left, Upper, -1, -1, 1, 1, 1)),
            ("n", 5)
        );
        assert_eq!(
            pos(symm_call(RowMajor, Left, Upper, -1, 4, 1, 4, 4)),
            ("m", 4)
        );
    }

    #[test]
    fn quick_returns_and_spans() {
        let c = symm_call(ColMajor, Left, Upper, 3, 4, 5, 6, 7).unwrap();
        assert!(c.quick_return(0.0, 1.0));
        assert!(!c.quick_return(0.0, 0.5));
        assert!(!c.quick_return(1.0, 1.0));
        assert_eq!(c.spans(1.0), [("a", 13), ("b", 21), ("c", 24)]);
        assert_eq!(c.spans(0.0), [("a", 0), ("b", 0), ("c", 24)]);
        assert!(c.check_lengths(1.0, [13, 21, 24]).is_ok());
        assert!(c.check_lengths(1.0, [12, 21, 24]).is_err());
        assert!(c.check_lengths(0.0, [0, 0, 24]).is_ok());
    }
}
