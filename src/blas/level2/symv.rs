//! The symmetric matrix-vector products: ssymv (full storage), ssbmv (band) and sspmv
//! (packed), `y := alpha*A*x + beta*y` with only one triangle of A stored and read. The
//! product is the shared level-2 pass; a row-major call is the column-major call with the
//! other triangle (A is its own transpose).

use crate::blas::args::{check_inc, ld_at_least, non_negative};
use crate::blas::level2::matrix::{col_major_uplo, Matrix, MvCall, Shape, Storage};
use crate::blas::types::{Layout, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// Which symmetric storage a call uses, with what its argument rules need.
#[derive(Clone, Copy)]
pub(crate) enum SymStorage {
    /// ssymv: `lda` (CBLAS position 6).
    Full { lda: i32 },
    /// ssbmv: `k` diagonals (position 4) and `lda` (position 7).
    Band { k: i32, lda: i32 },
    /// sspmv.
    Packed,
}

/// The argument rules of ssymv/ssbmv/sspmv in reference order (n, then k, lda, incx,
/// incy at their CBLAS positions), and the column-major form of the call.
pub(crate) fn sym_call(
    r: &'static str,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    storage: SymStorage,
    incx: i32,
    incy: i32,
) -> Result<MvCall> {
    non_negative(r, "n", 3, n)?;
    let uplo = col_major_uplo(layout, uplo);
    // Positions of incx and incy follow the arguments before them.
    let (storage, inc_pos) = match storage {
        SymStorage::Full { lda } => {
            ld_at_least(r, "lda", 6, lda, n as i64)?;
            (Storage::Full { lda: lda as usize }, (8, 11))
        }
        SymStorage::Band { k, lda } => {
            non_negative(r, "k", 4, k)?;
            ld_at_least(r, "lda", 7, lda, k as i64 + 1)?;
            let (kl, ku) = match uplo {
                Uplo::Upper => (0, k as usize),
                Uplo::Lower => (k as usize, 0),
            };
            (
                Storage::Band {
                    kl,
                    ku,
                    lda: lda as usize,
                },
                (9, 12),
            )
        }
        SymStorage::Packed => (Storage::Packed, (7, 10)),
    };
    check_inc(r, "incx", inc_pos.0, incx)?;
    check_inc(r, "incy", inc_pos.1, incy)?;
    Ok(MvCall {
        a: Matrix::square(storage, Shape::Symmetric(uplo), n as usize),
        trans: false,
    })
}

impl Context {
    /// `y := alpha * A * x + beta * y` for a symmetric `n x n` matrix A of which only the
    /// `uplo` triangle is stored and read (CBLAS `ssymv` on device buffers).
    ///
    /// As reference BLAS: `n == 0`, or `alpha == 0` with `beta == 1`, returns at once;
    /// `beta == 0` means y is not read; `alpha == 0` means A and x are not read.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// // [1 2; 2 3], upper triangle stored column-major; the lower element is never read.
    /// let a = ctx.upload(&[1.0, f32::NAN, 2.0, 3.0])?;
    /// let x = ctx.upload(&[1.0, 1.0])?;
    /// let mut y = ctx.zeros(2)?;
    /// ctx.ssymv(Layout::ColMajor, Uplo::Upper, 2, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssymv(
        &self,
        layout: Layout,
        uplo: Uplo,
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
        const R: &str = "ssymv";
        let call = sym_call(R, layout, uplo, n, SymStorage::Full { lda }, incx, incy)?;
        call.run(self, R, "a", alpha, a, (x, incx), beta, (y, incy))
    }

    /// `y := alpha * A * x + beta * y` for a symmetric band matrix with `k` diagonals on
    /// each side of the diagonal, the `uplo` triangle in band storage (CBLAS `ssbmv`):
    /// upper, A(i, j) at `k + i - j + j*lda`; lower, at `i - j + j*lda`.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// // [2 1 0; 1 2 1; 0 1 2], upper band (k = 1): columns (*, 2), (1, 2), (1, 2).
    /// let a = ctx.upload(&[0.0, 2.0, 1.0, 2.0, 1.0, 2.0])?;
    /// let x = ctx.upload(&[1.0, 1.0, 1.0])?;
    /// let mut y = ctx.zeros(3)?;
    /// ctx.ssbmv(Layout::ColMajor, Uplo::Upper, 3, 1, 1.0, &a, 2, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 4.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssbmv(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "ssbmv";
        let call = sym_call(R, layout, uplo, n, SymStorage::Band { k, lda }, incx, incy)?;
        call.run(self, R, "a", alpha, a, (x, incx), beta, (y, incy))
    }

    /// `y := alpha * A * x + beta * y` for a symmetric matrix whose `uplo` triangle is
    /// packed column by column in `ap` (CBLAS `sspmv`): upper, A(i, j) (i <= j) at
    /// `i + j(j+1)/2`; lower, (i >= j) at `i + j(2n-j-1)/2`.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// let ap = ctx.upload(&[1.0, 2.0, 3.0])?; // [1 2; 2 3], upper packed
    /// let x = ctx.upload(&[1.0, 1.0])?;
    /// let mut y = ctx.zeros(2)?;
    /// ctx.sspmv(Layout::ColMajor, Uplo::Upper, 2, 1.0, &ap, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sspmv(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        alpha: f32,
        ap: &Buffer,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "sspmv";
        let call = sym_call(R, layout, uplo, n, SymStorage::Packed, incx, incy)?;
        call.run(self, R, "ap", alpha, ap, (x, incx), beta, (y, incy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn pos(r: Result<MvCall>) -> (&'static str, u32) {
        match r.unwrap_err() {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn symmetric_rules_in_reference_order() {
        use Layout::*;
        let full = SymStorage::Full { lda: 3 };
        assert_eq!(
            pos(sym_call("ssymv", ColMajor, Uplo::Upper, -1, full, 0, 0)),
            ("n", 3)
        );
        assert_eq!(
            pos(sym_call("ssymv", ColMajor, Uplo::Upper, 4, full, 0, 0)),
            ("lda", 6)
        );
        assert_eq!(
            pos(sym_call("ssymv", ColMajor, Uplo::Upper, 3, full, 0, 0)),
            ("incx", 8)
        );
        assert_eq!(
            pos(sym_call("ssymv", ColMajor, Uplo::Upper, 3, full, 1, 0)),
            ("incy", 11)
        );
        let band = |k, lda| SymStorage::Band { k, lda };
        assert_eq!(
            pos(sym_call(
                "ssbmv",
                ColMajor,
                Uplo::Lower,
                3,
                band(-1, 0),
                0,
                0
            )),
            ("k", 4)
        );
        assert_eq!(
            pos(sym_call(
                "ssbmv",
                ColMajor,
                Uplo::Lower,
                3,
                band(2, 2),
                0,
                0
            )),
            ("lda", 7)
        );
        assert_eq!(
            pos(sym_call(
                "ssbmv",
                ColMajor,
                Uplo::Lower,
                3,
                band(2, 3),
                0,
                0
            )),
            ("incx", 9)
        );
        assert_eq!(
            pos(sym_call(
                "ssbmv",
                ColMajor,
                Uplo::Lower,
                3,
                band(2, 3),
                1,
                0
            )),
            ("incy", 12)
        );
        assert_eq!(
            pos(sym_call(
                "sspmv",
                ColMajor,
                Uplo::Lower,
                3,
                SymStorage::Packed,
                0,
                1
            )),
            ("incx", 7)
        );
        assert_eq!(
            pos(sym_call(
                "sspmv",
                ColMajor,
                Uplo::Lower,
                3,
                SymStorage::Packed,
                1,
                0
            )),
            ("incy", 10)
        );
        // lda may be 1 for n == 0; row-major flips the triangle.
        assert!(sym_call(
            "ssymv",
            ColMajor,
            Uplo::Upper,
            0,
            SymStorage::Full { lda: 1 },
            1,
            1
        )
        .is_ok());
        let c = sym_call("ssbmv", RowMajor, Uplo::Upper, 5, band(2, 3), 1, 1).unwrap();
        assert_eq!(c.a.shape, Shape::Symmetric(Uplo::Lower));
        assert_eq!(
            c.a.storage,
            Storage::Band {
                kl: 2,
                ku: 0,
                lda: 3
            }
        );
    }
}
