//! sgbmv: `y := alpha*op(A)*x + beta*y` for a general band matrix (kl sub- and ku
//! super-diagonals in band storage). The product is the shared level-2 pass
//! ([`product`](crate::blas::level2::matrix::product)).

use crate::blas::args::{check_inc, ld_at_least, non_negative};
use crate::blas::level2::matrix::{Matrix, MvCall, Shape, Storage};
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// The argument rules of sgbmv in reference order, and the column-major form of the call.
/// A row-major call is the transposed column-major one: m and n, kl and ku swap places,
/// and errors name the user's own parameter.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gbmv_call(
    layout: Layout,
    trans: Transpose,
    m: i32,
    n: i32,
    kl: i32,
    ku: i32,
    lda: i32,
    incx: i32,
    incy: i32,
) -> Result<MvCall> {
    const R: &str = "sgbmv";
    let (t, rows, cols, sub, sup, names) = match layout {
        Layout::ColMajor => (
            trans.is_trans(),
            m,
            n,
            kl,
            ku,
            [("m", 3), ("n", 4), ("kl", 5), ("ku", 6)],
        ),
        Layout::RowMajor => (
            !trans.is_trans(),
            n,
            m,
            ku,
            kl,
            [("n", 4), ("m", 3), ("ku", 6), ("kl", 5)],
        ),
    };
    non_negative(R, names[0].0, names[0].1, rows)?;
    non_negative(R, names[1].0, names[1].1, cols)?;
    non_negative(R, names[2].0, names[2].1, sub)?;
    non_negative(R, names[3].0, names[3].1, sup)?;
    ld_at_least(R, "lda", 9, lda, sub as i64 + sup as i64 + 1)?;
    check_inc(R, "incx", 11, incx)?;
    check_inc(R, "incy", 14, incy)?;
    Ok(MvCall {
        a: Matrix {
            storage: Storage::Band {
                kl: sub as usize,
                ku: sup as usize,
                lda: lda as usize,
            },
            shape: Shape::General,
            rows: rows as usize,
            cols: cols as usize,
        },
        trans: t,
    })
}

impl Context {
    /// `y := alpha * op(A) * x + beta * y` for an `m x n` band matrix A with `kl` sub- and
    /// `ku` super-diagonals in band storage (CBLAS `sgbmv` on device buffers): column j
    /// of a column-major A holds A(i, j) at `ku + i - j + j*lda`.
    ///
    /// As reference BLAS: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1` returns at
    /// once; `beta == 0` means y is not read; `alpha == 0` means A and x are not read; only
    /// the band is read.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans};
    /// let ctx = Context::new()?;
    /// // The 3x3 tridiagonal matrix [2 1 0; 1 2 1; 0 1 2], band storage (kl = ku = 1).
    /// let a = ctx.upload(&[0.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0, 0.0])?;
    /// let x = ctx.upload(&[1.0, 1.0, 1.0])?;
    /// let mut y = ctx.zeros(3)?;
    /// ctx.sgbmv(Layout::ColMajor, NoTrans, 3, 3, 1, 1, 1.0, &a, 3, &x, 1, 0.0, &mut y, 1)?;
    /// assert_eq!(y.to_vec()?, vec![3.0, 4.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgbmv(
        &self,
        layout: Layout,
        trans: Transpose,
        m: i32,
        n: i32,
        kl: i32,
        ku: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        let call = gbmv_call(layout, trans, m, n, kl, ku, lda, incx, incy)?;
        call.run(self, "sgbmv", "a", alpha, a, (x, incx), beta, (y, incy))
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
    fn gbmv_rules_in_reference_order() {
        use Layout::*;
        use Transpose::*;
        let c = gbmv_call(ColMajor, NoTrans, 5, 4, 1, 2, 4, 1, -1).unwrap();
        assert_eq!((c.a.rows, c.a.cols, c.trans), (5, 4, false));
        assert_eq!(
            c.a.storage,
            Storage::Band {
                kl: 1,
                ku: 2,
                lda: 4
            }
        );
        assert_eq!((c.len_x(), c.len_y()), (4, 5));
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, -1, -1, -1, 2, 4, 1, 1)),
            ("m", 3)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, -1, -1, 2, 4, 1, 1)),
            ("n", 4)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, 1, -1, -2, 4, 1, 1)),
            ("kl", 5)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, 1, 1, -2, 4, 1, 1)),
            ("ku", 6)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, 1, 1, 2, 3, 0, 1)),
            ("lda", 9)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, 1, 1, 2, 4, 0, 0)),
            ("incx", 11)
        );
        assert_eq!(
            pos(gbmv_call(ColMajor, NoTrans, 1, 1, 1, 2, 4, 2, 0)),
            ("incy", 14)
        );
        // Row-major: the transposed call; n is checked before m, ku before kl.
        let c = gbmv_call(RowMajor, NoTrans, 5, 4, 1, 2, 4, 1, 1).unwrap();
        assert_eq!((c.a.rows, c.a.cols, c.trans), (4, 5, true));
        assert_eq!(
            c.a.storage,
            Storage::Band {
                kl: 2,
                ku: 1,
                lda: 4
            }
        );
        assert_eq!((c.len_x(), c.len_y()), (4, 5));
        assert_eq!(
            pos(gbmv_call(RowMajor, NoTrans, -1, -1, 1, 2, 4, 1, 1)),
            ("n", 4)
        );
        assert_eq!(
            pos(gbmv_call(RowMajor, NoTrans, 1, 1, -1, -1, 4, 1, 1)),
            ("ku", 6)
        );
    }
}
