//! The triangular matrix-vector products: strmv (full storage), stbmv (band) and stpmv
//! (packed), `x := op(A)*x` with only one triangle of A read. The product is the shared
//! level-2 pass into a scratch vector, which then replaces x; as reference's column loops
//! do, a non-transposed product leaves out the columns whose x_j is 0. Also the argument
//! rules the triangular solves (`trsv.rs`) share.

use crate::blas::args::{check_inc, check_span, ld_at_least, non_negative, pass_inc};
use crate::blas::level1::update::{update, Op};
use crate::blas::level2::matrix::{check_matrix, col_major_tri, Matrix, MvCall, Shape, Storage};
use crate::blas::level2::product::{product, Sink};
use crate::blas::types::{Diag, Layout, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// Which triangular storage a call uses, with what its argument rules need.
#[derive(Clone, Copy)]
pub(crate) enum TriStorage {
    /// strmv/strsv: `lda` (CBLAS position 7).
    Full { lda: i32 },
    /// stbmv/stbsv: `k` diagonals (position 6) and `lda` (position 8).
    Band { k: i32, lda: i32 },
    /// stpmv/stpsv.
    Packed,
}

/// The argument rules of the triangular routines in reference order (n at CBLAS position
/// 5, then k, lda, incx), and the column-major form of the call: a row-major call is the
/// column-major one with the other triangle and the other transpose.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tri_call(
    r: &'static str,
    layout: Layout,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    n: i32,
    storage: TriStorage,
    incx: i32,
) -> Result<MvCall> {
    non_negative(r, "n", 5, n)?;
    let (uplo, trans) = col_major_tri(layout, uplo, trans);
    let (storage, inc_pos) = match storage {
        TriStorage::Full { lda } => {
            ld_at_least(r, "lda", 7, lda, n as i64)?;
            (Storage::Full { lda: lda as usize }, 9)
        }
        TriStorage::Band { k, lda } => {
            non_negative(r, "k", 6, k)?;
            ld_at_least(r, "lda", 8, lda, k as i64 + 1)?;
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
                10,
            )
        }
        TriStorage::Packed => (Storage::Packed, 8),
    };
    check_inc(r, "incx", inc_pos, incx)?;
    Ok(MvCall {
        a: Matrix::square(storage, Shape::Triangular(uplo, diag), n as usize),
        trans,
    })
}

impl MvCall {
    /// The checks every triangular routine makes after its argument rules: the buffers'
    /// owners, reference's quick return (`n == 0`: `Ok(false)`), and the lengths of A and x.
    fn check_triangular(
        &self,
        ctx: &Context,
        r: &'static str,
        a_param: &'static str,
        a: &Buffer,
        x: &Buffer,
        incx: i32,
    ) -> Result<bool> {
        a.check_owner(ctx, a_param)?;
        x.check_owner(ctx, "x")?;
        if self.a.rows == 0 {
            return Ok(false);
        }
        check_matrix(r, a_param, &self.a, a.len())?;
        check_span(r, "x", x.len(), self.a.rows as i32, incx)?;
        Ok(true)
    }

    /// `x := op(A)*x`, after the checks.
    fn triangular_multiply(
        &self,
        ctx: &Context,
        a: &Buffer,
        x: &mut Buffer,
        incx: i32,
    ) -> Result<()> {
        let n = self.a.rows as i32;
        let incx = pass_inc(n, incx);
        let Some(t) = product(
            ctx,
            &self.a,
            a,
            self.trans,
            (x, incx),
            !self.trans,
            Sink::Vector,
        )?
        else {
            unreachable!("a product into a vector returns it")
        };
        if x.is_vector(t.len(), incx) {
            // x is the product's length with unit stride: the product's texture becomes x's
            // (same shape; the lanes past n of its last texel, which no routine reads, hold
            // whatever the fold left there) instead of a copy pass (on the H100 about 8 us
            // of GPU time, against 122 for strmv 4096's product).
            ctx.inner.give_surface(x.replace_surface(t.into_surface()));
            return Ok(());
        }
        let done = update(ctx, n, Op::Copy, 1.0, 0.0, Some((&t, 1)), x, incx);
        ctx.inner.give_surface(t.into_surface());
        done
    }

    /// A triangular routine with every check, for the device API: the checks, then
    /// `op` (the multiply here, the solve in `trsv`), then the GL error check.
    pub(crate) fn run_triangular(
        &self,
        ctx: &Context,
        r: &'static str,
        a_param: &'static str,
        (a, x, incx): (&Buffer, &mut Buffer, i32),
        op: fn(&Self, &Context, &Buffer, &mut Buffer, i32) -> Result<()>,
    ) -> Result<()> {
        if !self.check_triangular(ctx, r, a_param, a, x, incx)? {
            return Ok(());
        }
        op(self, ctx, a, x, incx)?;
        ctx.inner.enter()?.check(r)
    }
}

impl Context {
    /// `x := op(A) * x` for an `n x n` triangular matrix A of which only the `uplo`
    /// triangle is read (and, with `Diag::Unit`, not its diagonal, taken as ones)
    /// (CBLAS `strmv` on device buffers). `n == 0` returns at once.
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// // [1 2; 0 3] column-major; the lower element is never read.
    /// let a = ctx.upload(&[1.0, f32::NAN, 2.0, 3.0])?;
    /// let mut x = ctx.upload(&[1.0, 1.0])?;
    /// ctx.strmv(Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &a, 2, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![3.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn strmv(
        &self,
        layout: Layout,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: i32,
        a: &Buffer,
        lda: i32,
        x: &mut Buffer,
        incx: i32,
    ) -> Result<()> {
        const R: &str = "strmv";
        let call = tri_call(
            R,
            layout,
            uplo,
            trans,
            diag,
            n,
            TriStorage::Full { lda },
            incx,
        )?;
        call.run_triangular(self, R, "a", (a, x, incx), MvCall::triangular_multiply)
    }

    /// `x := op(A) * x` for a triangular band matrix with `k` diagonals beside the diagonal,
    /// the `uplo` triangle in band storage (CBLAS `stbmv`; storage as in
    /// [`Context::ssbmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// // [1 2; 0 3], upper band (k = 1): columns (*, 1), (2, 3).
    /// let a = ctx.upload(&[0.0, 1.0, 2.0, 3.0])?;
    /// let mut x = ctx.upload(&[1.0, 1.0])?;
    /// ctx.stbmv(Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, 1, &a, 2, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![3.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn stbmv(
        &self,
        layout: Layout,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: i32,
        k: i32,
        a: &Buffer,
        lda: i32,
        x: &mut Buffer,
        incx: i32,
    ) -> Result<()> {
        const R: &str = "stbmv";
        let call = tri_call(
            R,
            layout,
            uplo,
            trans,
            diag,
            n,
            TriStorage::Band { k, lda },
            incx,
        )?;
        call.run_triangular(self, R, "a", (a, x, incx), MvCall::triangular_multiply)
    }

    /// `x := op(A) * x` for a triangular matrix packed in `ap` (CBLAS `stpmv`; storage as
    /// in [`Context::sspmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::Trans, Uplo};
    /// let ctx = Context::new()?;
    /// let ap = ctx.upload(&[1.0, 2.0, 3.0])?; // [1 2; 0 3], upper packed
    /// let mut x = ctx.upload(&[1.0, 1.0])?;
    /// ctx.stpmv(Layout::ColMajor, Uplo::Upper, Trans, Diag::NonUnit, 2, &ap, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 5.0]); // [1 0; 2 3] x
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn stpmv(
        &self,
        layout: Layout,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: i32,
        ap: &Buffer,
        x: &mut Buffer,
        incx: i32,
    ) -> Result<()> {
        const R: &str = "stpmv";
        let call = tri_call(R, layout, uplo, trans, diag, n, TriStorage::Packed, incx)?;
        call.run_triangular(self, R, "ap", (ap, x, incx), MvCall::triangular_multiply)
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
    fn triangular_rules_in_reference_order() {
        use Layout::*;
        use Transpose::*;
        let (u, d) = (Uplo::Upper, Diag::NonUnit);
        let full = |lda| TriStorage::Full { lda };
        let band = |k, lda| TriStorage::Band { k, lda };
        assert_eq!(
            pos(tri_call("strmv", ColMajor, u, NoTrans, d, -1, full(0), 0)),
            ("n", 5)
        );
        assert_eq!(
            pos(tri_call("strmv", ColMajor, u, NoTrans, d, 3, full(2), 0)),
            ("lda", 7)
        );
        assert_eq!(
            pos(tri_call("strmv", ColMajor, u, NoTrans, d, 3, full(3), 0)),
            ("incx", 9)
        );
        assert_eq!(
            pos(tri_call(
                "stbmv",
                ColMajor,
                u,
                NoTrans,
                d,
                3,
                band(-1, 0),
                0
            )),
            ("k", 6)
        );
        assert_eq!(
            pos(tri_call("stbmv", ColMajor, u, NoTrans, d, 3, band(1, 1), 0)),
            ("lda", 8)
        );
        assert_eq!(
            pos(tri_call("stbmv", ColMajor, u, NoTrans, d, 3, band(1, 2), 0)),
            ("incx", 10)
        );
        assert_eq!(
            pos(tri_call(
                "stpmv",
                ColMajor,
                u,
                NoTrans,
                d,
                3,
                TriStorage::Packed,
                0
            )),
            ("incx", 8)
        );
        let c = tri_call("strsv", RowMajor, u, NoTrans, Diag::Unit, 4, full(4), 1).unwrap();
        assert_eq!(
            (c.a.shape, c.trans),
            (Shape::Triangular(Uplo::Lower, Diag::Unit), true)
        );
        let c = tri_call(
            "stbsv",
            RowMajor,
            Uplo::Lower,
            ConjTrans,
            d,
            4,
            band(2, 3),
            1,
        )
        .unwrap();
        assert_eq!(
            (c.a.shape, c.trans),
            (Shape::Triangular(Uplo::Upper, d), false)
        );
        assert_eq!(
            c.a.storage,
            Storage::Band {
                kl: 0,
                ku: 2,
                lda: 3
            }
        );
    }
}
