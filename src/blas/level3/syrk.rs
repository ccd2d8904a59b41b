//! The symmetric rank-k updates of one triangle of C: ssyrk, `C := alpha*op(A)*op(A)^T +
//! beta*C`, and ssyr2k, `C := alpha*op(A)*op(B)^T + alpha*op(B)*op(A)^T + beta*C`, with
//! op(A) `n x k` (A itself with `Transpose::NoTrans`, A^T otherwise).
//!
//! Only the `uplo` triangle of C is read and written. Each product is one sgemm over all of
//! C with the triangle as its window (`Window::Upper`/`Lower`): every sgemm kernel skips the
//! blocks of its grid that hold no element of the triangle, so about half of a full product
//! is computed, A is packed once, and C is merged once. (Until session 18 the triangle was
//! cut into column blocks, one sgemm each, which computed 9/16 to 3/4 of a full product and
//! packed A once per block: ssyrk ran at 55-75% of sgemm's rate on the H100.)
//!
//! Reference SSYRK and SSYR2K with `Transpose::NoTrans` leave out the terms whose factor
//! from column j's row of A (and B) is zero. The sgemm passes form every term, so where A or
//! B holds an Inf or NaN that reference would only have multiplied by such a zero, the
//! result is NaN where reference's is not; with finite A and B the results agree.

use crate::blas::args::{ld_at_least, matrix_span, non_negative};
use crate::blas::level2::matrix::col_major_tri;
use crate::blas::level3::gemm::kernel::GemmKernel;
use crate::blas::level3::gemm::shape::{GemmShape, Operand, Window};
use crate::blas::level3::gemm::Src;
use crate::blas::types::{Layout, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::{Error, Result};

/// An ssyrk or ssyr2k call in column-major form, after the argument rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyrkCall {
    pub uplo: Uplo,
    /// op(A) = A^T (A is `k x n`).
    pub trans: bool,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    /// ssyr2k's ldb (0 for ssyrk).
    pub ldb: usize,
    pub ldc: usize,
}

/// The argument rules of ssyrk (`ldb` `None`) and ssyr2k in reference order: n (CBLAS
/// position 4), k (5), lda (8), ldb (10), ldc (11 for ssyrk, 13 for ssyr2k). A row-major
/// call is the column-major one with the other triangle and the other transpose.
#[allow(clippy::too_many_arguments)]
pub(crate) fn syrk_call(
    r: &'static str,
    layout: Layout,
    uplo: Uplo,
    trans: Transpose,
    n: i32,
    k: i32,
    lda: i32,
    ldb: Option<i32>,
    ldc: i32,
) -> Result<SyrkCall> {
    let (uplo, trans) = col_major_tri(layout, uplo, trans);
    non_negative(r, "n", 4, n)?;
    non_negative(r, "k", 5, k)?;
    let nrowa = if trans { k } else { n };
    ld_at_least(r, "lda", 8, lda, nrowa as i64)?;
    if let Some(ldb) = ldb {
        ld_at_least(r, "ldb", 10, ldb, nrowa as i64)?;
    }
    let ldc_pos = if ldb.is_some() { 13 } else { 11 };
    ld_at_least(r, "ldc", ldc_pos, ldc, n as i64)?;
    Ok(SyrkCall {
        uplo,
        trans,
        n: n as usize,
        k: k as usize,
        lda: lda as usize,
        ldb: ldb.unwrap_or(0) as usize,
        ldc: ldc as usize,
    })
}

impl SyrkCall {
    /// Reference's quick return: `n == 0`, or `alpha == 0` or `k == 0` with `beta == 1`.
    pub(crate) fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.n == 0 || ((alpha == 0.0 || self.k == 0) && beta == 1.0)
    }

    /// Elements of an operand stored with leading dimension `ld` the call reads: none
    /// unless the product is formed (`alpha != 0` and `k > 0`).
    pub(crate) fn operand_span(&self, alpha: f32, ld: usize) -> usize {
        let (rows, cols) = if self.trans {
            (self.k, self.n)
        } else {
            (self.n, self.k)
        };
        if alpha != 0.0 && self.k > 0 {
            matrix_span(rows, cols, ld)
        } else {
            0
        }
    }

    /// Elements of C the call spans.
    pub(crate) fn c_span(&self) -> usize {
        matrix_span(self.n, self.n, self.ldc)
    }

    /// Checks the lengths of A, B (ssyr2k) and C; call after the quick return.
    pub(crate) fn check_lengths(
        &self,
        r: &'static str,
        alpha: f32,
        a: usize,
        b: Option<usize>,
        c: usize,
    ) -> Result<()> {
        let checks = [
            ("a", self.operand_span(alpha, self.lda), Some(a)),
            ("b", self.operand_span(alpha, self.ldb), b),
            ("c", self.c_span(), Some(c)),
        ];
        for (param, needed, len) in checks {
            if let Some(len) = len {
                if needed > len {
                    return Err(Error::TooShort {
                        routine: r,
                        param,
                        needed,
                        len,
                    });
                }
            }
        }
        Ok(())
    }

    /// The window of C the call updates: its `uplo` triangle.
    fn window(&self) -> Window {
        if self.uplo == Uplo::Upper {
            Window::Upper(0)
        } else {
            Window::Lower(0)
        }
    }

    /// `op(X)*op(Y)^T` on the triangle as one sgemm shape (`X`, `Y` stored with leading
    /// dimensions `ldx`, `ldy`).
    fn product(&self, ldx: usize, ldy: usize) -> GemmShape {
        let (n, k) = (self.n, self.k);
        // op(X) as stored (A^T when trans), op(Y)^T the other way round.
        let (x, y) = (
            Operand::at(0, ldx, self.trans),
            Operand::at(0, ldy, !self.trans),
        );
        GemmShape::block((n, n, k), x, y, self.ldc, 0, self.window())
    }

    /// `C := alpha*op(X)*op(Y)^T + beta*C` on the triangle, one sgemm with the triangle as
    /// its window (`x`, `y` with their leading dimensions). `alpha == 0` or `k == 0` scale
    /// the triangle alone.
    fn update(
        &self,
        ctx: &Context,
        alpha: f32,
        (x, ldx): (&Buffer, usize),
        (y, ldy): (&Buffer, usize),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        if alpha == 0.0 || self.k == 0 {
            let none = Operand::at(0, 1, false);
            let s = GemmShape::block((self.n, self.n, 0), none, none, self.ldc, 0, self.window());
            return ctx.gemm_shape_with(GemmKernel::Auto, &s, 0.0, Src::C, Src::C, beta, c);
        }
        let s = self.product(ldx, ldy);
        let (x, y) = (Src::Buf(x), Src::Buf(y));
        ctx.gemm_shape_with(GemmKernel::Auto, &s, alpha, x, y, beta, c)
    }
}

impl Context {
    /// `C := alpha*A*A^T + beta*C` (`Transpose::NoTrans`, A `n x k`) or
    /// `C := alpha*A^T*A + beta*C` (otherwise, A `k x n`) on the `uplo` triangle of the
    /// `n x n` C (CBLAS `ssyrk` on device buffers).
    ///
    /// Reference semantics: `n == 0`, or `alpha == 0` or `k == 0` with `beta == 1`, return
    /// at once; `alpha == 0` or `k == 0` do not read A; `beta == 0` does not read C; the
    /// other triangle of C and everything outside its window are neither read nor written.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let a = ctx.upload(&[1.0, 2.0])?; // 2x1
    /// let mut c = ctx.upload(&[0.0, -7.0, 0.0, 0.0])?; // the lower element is left alone
    /// ctx.ssyrk(Layout::ColMajor, Uplo::Upper, NoTrans, 2, 1, 1.0, &a, 2, 0.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![1.0, -7.0, 2.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssyrk(
        &self,
        layout: Layout,
        uplo: Uplo,
        trans: Transpose,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        const R: &str = "ssyrk";
        let call = syrk_call(R, layout, uplo, trans, n, k, lda, None, ldc)?;
        a.check_owner(self, "a")?;
        c.check_owner(self, "c")?;
        if call.quick_return(alpha, beta) {
            return Ok(());
        }
        call.check_lengths(R, alpha, a.len(), None, c.len())?;
        call.update(self, alpha, (a, call.lda), (a, call.lda), beta, c)?;
        self.inner.enter()?.check(R)
    }

    /// `C := alpha*A*B^T + alpha*B*A^T + beta*C` (`Transpose::NoTrans`, A and B `n x k`)
    /// or `C := alpha*A^T*B + alpha*B^T*A + beta*C` (otherwise, `k x n`) on the `uplo`
    /// triangle of the `n x n` C (CBLAS `ssyr2k` on device buffers). Semantics as
    /// [`Context::ssyrk`], B read with A.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let a = ctx.upload(&[1.0, 2.0])?;
    /// let b = ctx.upload(&[1.0, 1.0])?;
    /// let mut c = ctx.zeros(4)?;
    /// ctx.ssyr2k(Layout::ColMajor, Uplo::Lower, NoTrans, 2, 1, 1.0, &a, 2, &b, 2, 0.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![2.0, 3.0, 0.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssyr2k(
        &self,
        layout: Layout,
        uplo: Uplo,
        trans: Transpose,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        const R: &str = "ssyr2k";
        let call = syrk_call(R, layout, uplo, trans, n, k, lda, Some(ldb), ldc)?;
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        c.check_owner(self, "c")?;
        if call.quick_return(alpha, beta) {
            return Ok(());
        }
        call.check_lengths(R, alpha, a.len(), Some(b.len()), c.len())?;
        if alpha == 0.0 || call.k == 0 {
            call.update(self, alpha, (a, call.lda), (b, call.ldb), beta, c)?;
        } else {
            // A B^T, then B A^T added: one pair, so that A and B are packed once each.
            let (ab, ba) = (
                call.product(call.lda, call.ldb),
                call.product(call.ldb, call.lda),
            );
            self.gemm_pair(&ab, &ba, alpha, (a, b), beta, c)?;
        }
        self.inner.enter()?.check(R)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Transpose::*;
    use Uplo::*;

    fn pos(r: Result<SyrkCall>) -> (&'static str, u32) {
        match r.unwrap_err() {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn rules_in_reference_order() {
        let r = "ssyrk";
        let c = syrk_call(r, ColMajor, Upper, NoTrans, 3, 5, 3, None, 3).unwrap();
        assert_eq!((c.uplo, c.trans, c.n, c.k), (Upper, false, 3, 5));
        let e = |l, t, n, k, lda, ldb, ldc| pos(syrk_call(r, l, Upper, t, n, k, lda, ldb, ldc));
        assert_eq!(e(ColMajor, NoTrans, -1, -1, 0, None, 0), ("n", 4));
        assert_eq!(e(ColMajor, NoTrans, 3, -1, 0, None, 0), ("k", 5));
        assert_eq!(e(ColMajor, NoTrans, 3, 5, 2, None, 3), ("lda", 8));
        assert_eq!(e(ColMajor, Trans, 3, 5, 4, None, 3), ("lda", 8));
        assert_eq!(e(ColMajor, NoTrans, 3, 5, 3, None, 2), ("ldc", 11));
        assert_eq!(e(ColMajor, NoTrans, 3, 5, 3, Some(2), 3), ("ldb", 10));
        assert_eq!(e(ColMajor, NoTrans, 3, 5, 3, Some(3), 2), ("ldc", 13));
        assert_eq!(e(ColMajor, NoTrans, 0, 0, 0, None, 1), ("lda", 8));
        // Row-major: the other triangle and transpose; A (n x k, NoTrans) has rows of k.
        let c = syrk_call(r, RowMajor, Upper, NoTrans, 3, 5, 5, None, 3).unwrap();
        assert_eq!((c.uplo, c.trans), (Lower, true));
        assert_eq!(e(RowMajor, NoTrans, 3, 5, 4, None, 3), ("lda", 8));
        assert_eq!(e(RowMajor, Trans, 3, 5, 2, None, 3), ("lda", 8));
        assert!(syrk_call(r, RowMajor, Upper, Trans, 3, 5, 3, None, 3).is_ok());
    }

    #[test]
    fn quick_returns_and_lengths() {
        let c = syrk_call("ssyr2k", ColMajor, Lower, Trans, 4, 3, 3, Some(5), 6).unwrap();
        assert!(c.quick_return(0.0, 1.0));
        assert!(!c.quick_return(0.0, 0.0));
        let k0 = syrk_call("ssyrk", ColMajor, Lower, Trans, 4, 0, 1, None, 4).unwrap();
        assert!(k0.quick_return(2.0, 1.0));
        // A is 3x4 with lda 3 (12), B 3x4 with ldb 5 (18), C 4x4 with ldc 6 (22).
        assert!(c.check_lengths("ssyr2k", 1.0, 12, Some(18), 22).is_ok());
        assert!(c.check_lengths("ssyr2k", 1.0, 11, Some(18), 22).is_err());
        assert!(c.check_lengths("ssyr2k", 1.0, 12, Some(17), 22).is_err());
        assert!(c.check_lengths("ssyr2k", 1.0, 12, Some(18), 21).is_err());
        assert!(c.check_lengths("ssyr2k", 0.0, 0, Some(0), 22).is_ok());
    }
}
