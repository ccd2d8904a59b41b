//! The triangular solves: strsv (full storage), stbsv (band) and stpsv (packed),
//! `x := op(A)^-1 x`, with only one triangle of A read.
//!
//! The dependency from each unknown to the next is carried in blocks of [`SOLVE_BLOCK`]
//! unknowns, in the order the solve takes them: for each block, a small draw solves the
//! block (each of its few fragments solving the block's leading unknowns itself), then a
//! draw over the whole right-hand side writes the block's solution and subtracts its
//! contribution from every unknown after it, a matrix-vector update. Two draws a block, no
//! host round trip, no `glFinish`. Each unknown receives the same subtractions in the same
//! order as in reference BLAS's loops, and a singular matrix is not an error (division by a
//! zero diagonal gives Inf or NaN, as in reference).

use crate::blas::args::pass_inc;
use crate::blas::level1::update::{update, Op};
use crate::blas::level2::matrix::{MvCall, Shape};
use crate::blas::level2::product::STORAGE_GLSL;
use crate::blas::level2::trmv::{tri_call, TriStorage};
use crate::blas::types::{Diag, Layout, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;

/// Unknowns per block (`NB` in the kernels' defines).
pub(crate) const SOLVE_BLOCK: usize = 32;

/// Solves one block of unknowns.
static TRSV_SOLVE: Kernel = crate::kernel!("level2/trsv.frag")
    .defines("#define SOLVE 1\n#define NB 32")
    .header(STORAGE_GLSL);
/// Writes a block's solution and subtracts it from the unknowns after it.
static TRSV_UPDATE: Kernel = crate::kernel!("level2/trsv.frag")
    .defines("#define SOLVE 0\n#define NB 32")
    .header(STORAGE_GLSL);

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 2] = [&TRSV_SOLVE, &TRSV_UPDATE];

/// The blocks of a solve of `n` unknowns: `(b0, dir, nb)` each, the first unknown of the
/// block in solve order, the direction (+1 or -1) and the block's length.
pub(crate) fn solve_blocks(n: usize, forward: bool) -> Vec<(i32, i32, i32)> {
    (0..n.div_ceil(SOLVE_BLOCK))
        .map(|b| {
            let done = b * SOLVE_BLOCK;
            let nb = SOLVE_BLOCK.min(n - done) as i32;
            if forward {
                (done as i32, 1, nb)
            } else {
                ((n - 1 - done) as i32, -1, nb)
            }
        })
        .collect()
}

impl MvCall {
    /// `x := op(A)^-1 x`, after the checks.
    fn triangular_solve(&self, ctx: &Context, a: &Buffer, x: &mut Buffer, incx: i32) -> Result<()> {
        let inner = &ctx.inner;
        let n = self.a.rows;
        let incx = pass_inc(n as i32, incx);
        let Shape::Triangular(uplo, _) = self.a.shape else {
            unreachable!("a solve has a triangular matrix")
        };
        // Lower and not transposed, or upper and transposed: the first unknown first.
        let forward = (uplo == Uplo::Lower) != self.trans;
        let (lo, hi) = self.a.row_offsets(self.trans);
        // t := x, unit stride, in logical order.
        let l = inner.layout(n)?;
        let mut t = Buffer::from_surface(ctx, inner.take_surface(l.width, l.height)?, n)?;
        update(
            ctx,
            n as i32,
            Op::Copy,
            1.0,
            0.0,
            Some((&*x, incx)),
            &mut t,
            1,
        )?;
        let solve = inner.program(&TRSV_SOLVE)?;
        let step = inner.program(&TRSV_UPDATE)?;
        let s = inner.take_surface((SOLVE_BLOCK / 4) as u32, 1)?;
        for (b0, dir, nb) in solve_blocks(n, forward) {
            let set = |p| {
                let gl = inner.enter()?;
                gl.use_program(p);
                self.a.bind(gl, p, a);
                t.bind(gl, p, 1, "t", "t_width");
                gl.set_i32(p, "trans", self.trans as i32);
                gl.set_i32(p, "n", n as i32);
                gl.set_i32(p, "b0", b0);
                gl.set_i32(p, "dir", dir);
                gl.set_i32(p, "nb", nb);
                gl.set_i32(p, "skip_zero", !self.trans as i32);
                gl.set_i32(p, "lo_off", lo as i32);
                gl.set_i32(p, "hi_off", hi as i32);
                Ok::<_, crate::Error>(gl)
            };
            let gl = set(&solve)?;
            gl.draw(&[&s], (nb as u32).div_ceil(4), 1);
            let next = inner.take_surface(l.width, l.height)?;
            let gl = set(&step)?;
            gl.set_texture(&step, "s", 2, &s);
            gl.draw(&[&next], l.width, l.height);
            inner.give_surface(t.replace_surface(next));
        }
        inner.give_surface(s);
        let done = update(ctx, n as i32, Op::Copy, 1.0, 0.0, Some((&t, 1)), x, incx);
        inner.give_surface(t.into_surface());
        done
    }
}

impl Context {
    /// Solves `op(A) * x = b` for x, overwriting b (in `x`), with A an `n x n` triangular
    /// matrix of which only the `uplo` triangle is read (with `Diag::Unit`, not its
    /// diagonal, taken as ones) (CBLAS `strsv` on device buffers). A singular A is not an
    /// error: as in reference BLAS, a zero diagonal gives Inf or NaN. `n == 0` returns at
    /// once.
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// // [2 1; 0 4] x = [4, 8]: x = [1, 2].
    /// let a = ctx.upload(&[2.0, f32::NAN, 1.0, 4.0])?;
    /// let mut x = ctx.upload(&[4.0, 8.0])?;
    /// ctx.strsv(Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &a, 2, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn strsv(
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
        const R: &str = "strsv";
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
        call.run_triangular(self, R, "a", (a, x, incx), MvCall::triangular_solve)
    }

    /// Solves `op(A) * x = b` for a triangular band matrix with `k` diagonals beside the
    /// diagonal (CBLAS `stbsv`; storage as in [`Context::ssbmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// // [2 0; 1 4] lower band (k = 1): columns (2, 1), (4, *). Solve for b = [2, 9].
    /// let a = ctx.upload(&[2.0, 1.0, 4.0, 0.0])?;
    /// let mut x = ctx.upload(&[2.0, 9.0])?;
    /// ctx.stbsv(Layout::ColMajor, Uplo::Lower, NoTrans, Diag::NonUnit, 2, 1, &a, 2, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn stbsv(
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
        const R: &str = "stbsv";
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
        call.run_triangular(self, R, "a", (a, x, incx), MvCall::triangular_solve)
    }

    /// Solves `op(A) * x = b` for a triangular matrix packed in `ap` (CBLAS `stpsv`;
    /// storage as in [`Context::sspmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let ap = ctx.upload(&[2.0, 1.0, 4.0])?; // [2 1; 0 4], upper packed
    /// let mut x = ctx.upload(&[4.0, 8.0])?;
    /// ctx.stpsv(Layout::ColMajor, Uplo::Upper, NoTrans, Diag::NonUnit, 2, &ap, &mut x, 1)?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn stpsv(
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
        const R: &str = "stpsv";
        let call = tri_call(R, layout, uplo, trans, diag, n, TriStorage::Packed, incx)?;
        call.run_triangular(self, R, "ap", (ap, x, incx), MvCall::triangular_solve)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_unknown_once_in_solve_order() {
        for n in [1usize, 2, 31, 32, 33, 64, 100] {
            for forward in [true, false] {
                let mut seen = Vec::new();
                for (b0, dir, nb) in solve_blocks(n, forward) {
                    assert!(nb >= 1 && nb as usize <= SOLVE_BLOCK);
                    for k in 0..nb {
                        seen.push(b0 + dir * k);
                    }
                }
                let want: Vec<i32> = if forward {
                    (0..n as i32).collect()
                } else {
                    (0..n as i32).rev().collect()
                };
                assert_eq!(seen, want, "n={n} forward={forward}");
            }
        }
        assert!(TRSV_SOLVE
            .defines
            .contains(&format!("#define NB {SOLVE_BLOCK}")));
    }
}
