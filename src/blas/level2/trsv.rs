//! The triangular solves: strsv (full storage), stbsv (band) and stpsv (packed),
//! `x := op(A)^-1 x`, with only one triangle of A read.
//!
//! The dependency from each unknown to the next is carried in blocks of [`SOLVE_BLOCK`]
//! unknowns on a fixed grid (`[lo, lo + nb)`, `lo` a multiple of the block), taken in the
//! order the solve takes them: for each block, a small draw solves the block (each of its
//! few fragments solving the whole block in registers, reading A by texels of four rows of
//! a column), then a draw over the right-hand side writes the block's solution and
//! subtracts its contribution from the unknowns after it that its columns reach (all of
//! them, or the band's `k`). Two draws a block, no host round trip, no `glFinish`. The
//! forms are reference BLAS's two loops (see `glsl/level2/trsv.frag`), so zeros are
//! skipped where reference skips them and a singular matrix is not an error (division by
//! a zero diagonal gives Inf or NaN, as in reference). Full storage whose leading
//! dimension is a multiple of 4 is read one texel a fetch; band, packed and other leading
//! dimensions element by element, except that on GPUs with image stores a packed triangle
//! is first copied into such full storage (`level2::product::unpack`). On those GPUs every
//! block step also writes through image stores (in place in the right-hand side), and
//! where their fragment shaders have quad operations the steps on full storage read a
//! texel a fetch split each texel's sum over a quad's four fragments ([`STEP_QUAD`]).
//!
//! A block's substitution is one warp's chain of 64 dependent steps (0.14 ms on the H100).
//! With [`ContextOptions::inverse_solves`](crate::ContextOptions::inverse_solves) (the
//! default on hardware devices) one pass first inverts every diagonal block, each column
//! of each inverse solved for a unit vector by the same code, all at once (on GPUs with
//! image stores, the columns of 16 x 16 diagonal sub-blocks, joined into the 64 x 64
//! inverses by two product passes a level: [`invert_blocks`]); each block is then solved
//! by a short pass that multiplies its inverse with the right-hand side. A
//! fragment whose inverse rows, right-hand side or result hold an Inf or NaN solves the
//! block by substitution instead, so Inf and NaN spread as reference's loops spread them.
//!
//! A band no wider than a block (`k <= 64`), with inverse solves on a GPU with image stores,
//! is solved by the band chain ([`MvCall::band_chain`]): a block's rows reach only the block
//! before it, so its solution is `y_b + Q_b s_prev` with `y_b` and `Q_b` computed for every
//! block at once, and composed over groups of [`CHAIN_GROUP`] blocks, so that one short draw
//! solves a group from the solution before it (stbsv 2^16, k = 64, on the H100: 33.6 ->
//! 6.7 ms). Where a result of the chain is not finite, the solve is done again by the block
//! steps; reading that flag back makes such a stbsv wait for the GPU.

use crate::blas::args::pass_inc;
use crate::blas::level1::update::{update, Op};
use crate::blas::level2::matrix::{Matrix, MvCall, Shape, Storage};
use crate::blas::level2::product::{unpack, STORAGE_GLSL, UNPACK_MAX_ORDER};
use crate::blas::level2::trmv::{tri_call, TriStorage};
use crate::blas::types::{Diag, Layout, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::Surface;

/// Unknowns per block (`NB` in the kernels' defines).
pub(crate) const SOLVE_BLOCK: usize = 64;

/// The kernels of `glsl/level2/trsv.frag`: `PASS` 0 updates the right-hand side with a
/// solved block, 1 solves a block by substitution, 2 inverts every diagonal block, 3
/// applies a block's inverse; `VEC4` 1 reads full storage with `lda % 4 == 0` one texel a
/// fetch, 0 any storage element by element.
macro_rules! trsv_kernel {
    ($pass:literal, $vec4:literal) => {
        crate::kernel!("level2/trsv.frag")
            .defines(concat!(
                "#define PASS ",
                $pass,
                "\n#define NB 64\n#define VEC4 ",
                $vec4
            ))
            .header(STORAGE_GLSL)
    };
}

/// `[pass][vec4]`, passes as in [`trsv_kernel`].
static PASSES: [[Kernel; 2]; 4] = [
    [trsv_kernel!(0, 0), trsv_kernel!(0, 1)],
    [trsv_kernel!(1, 0), trsv_kernel!(1, 1)],
    [trsv_kernel!(2, 0), trsv_kernel!(2, 1)],
    [trsv_kernel!(3, 0), trsv_kernel!(3, 1)],
];
/// A kernel of `glsl/level2/trsv.frag` that writes through image stores (GPUs that have
/// them), with `more` defines after PASS, NB and VEC4.
macro_rules! trsv_image_kernel {
    ($pass:literal, $vec4:literal, $more:literal) => {
        crate::kernel!("level2/trsv.frag")
            .defines(concat!(
                "#define PASS ",
                $pass,
                "\n#define NB 64\n#define VEC4 ",
                $vec4,
                $more
            ))
            .header(STORAGE_GLSL)
            .image_stores()
    };
}
/// The block steps' passes writing through image stores (`IMAGE`), on GPUs that have
/// them: `[pass][vec4]` as [`PASSES`] (the inversion pass has its own, [`INVERT_SUBBLOCKS`]).
/// A solve then never changes the bound framebuffer between its draws. The kernels that
/// read A element by element (band, packed, other leading dimensions) split each update
/// over [`STEP_SPLIT`] fragments a texel (`SPLIT`): on the H100 that cut stbsv's band update
/// from 25 to 11 us a step, while the next block's inverse product, which then adds the
/// partial sums, grew from 12 to 18 us: a gain there (stbsv 2^16 44.8 -> 37.0 ms), a loss
/// for full storage read a texel a fetch (15.6 -> 11.9 and 11.4 -> 17.8 us: strsv 4096
/// 2.05 -> 2.23 ms), which does not split.
static STEP_IMAGE: [[Kernel; 2]; 4] = [
    [
        trsv_image_kernel!(0, 0, "\n#define IMAGE 1\n#define SPLIT 4"),
        trsv_image_kernel!(0, 1, "\n#define IMAGE 1"),
    ],
    [
        trsv_image_kernel!(1, 0, "\n#define IMAGE 1\n#define SPLIT 4"),
        trsv_image_kernel!(1, 1, "\n#define IMAGE 1"),
    ],
    [trsv_kernel!(2, 0), trsv_kernel!(2, 1)],
    [
        trsv_image_kernel!(3, 0, "\n#define IMAGE 1\n#define SPLIT 4"),
        trsv_image_kernel!(3, 1, "\n#define IMAGE 1"),
    ],
];
/// The block steps of full storage with `lda % 4 == 0` on GPUs with quad operations
/// ([`ContextOptions::quad_steps`](crate::ContextOptions::quad_steps)): `[update, apply]`,
/// each texel's sum split over the four fragments of a quad (`QUAD`), whose grids are
/// [`quad_grid`]'s.
static STEP_QUAD: [Kernel; 2] = [
    trsv_image_kernel!(0, 1, "\n#define IMAGE 1\n#define QUAD 1").quads(),
    trsv_image_kernel!(3, 1, "\n#define IMAGE 1\n#define QUAD 1").quads(),
];

/// The grid of a quad kernel ([`STEP_QUAD`]) whose quads are laid out as `(width, rows)`:
/// twice as wide and twice as tall, so that every quad is whole.
pub(crate) fn quad_grid((width, rows): (usize, usize)) -> (u32, u32) {
    (2 * width as u32, 2 * rows as u32)
}

/// Unknowns of the diagonal sub-blocks the image-store inversion solves by substitution
/// (`SUB` in [`INVERT_SUB`]'s defines); [`COMBINE`] builds the blocks of twice, four times
/// ... that size up to [`SOLVE_BLOCK`] from them.
pub(crate) const INVERT_SUB: usize = 16;

/// The inversion pass on GPUs with image stores by sub-blocks of [`INVERT_SUB`] unknowns:
/// one fragment a column, a chain of 16 steps instead of 64 (`[vec4]`).
static INVERT_SUBBLOCKS: [Kernel; 2] = [
    trsv_image_kernel!(2, 0, "\n#define WHOLE 1\n#define SUB 16"),
    trsv_image_kernel!(2, 1, "\n#define WHOLE 1\n#define SUB 16"),
];

/// The two products that join two halves' inverses into their whole's (`trsv.frag` PASS
/// 4): `[part - 1][vec4]`, part 1 `E = C K`, part 2 `D = -R E`.
static COMBINE: [[Kernel; 2]; 2] = [
    [
        trsv_image_kernel!(4, 0, "\n#define PART 1"),
        trsv_image_kernel!(4, 1, "\n#define PART 1"),
    ],
    [
        trsv_image_kernel!(4, 0, "\n#define PART 2"),
        trsv_image_kernel!(4, 1, "\n#define PART 2"),
    ],
];

/// The band chain's kernels (`trsv.frag` PASS 5, 6 and 7, image stores): `[couple, step,
/// compose]`, see [`MvCall::band_chain`].
static CHAIN: [Kernel; 3] = [
    trsv_image_kernel!(5, 0, ""),
    trsv_image_kernel!(6, 0, ""),
    trsv_image_kernel!(7, 0, "\n#define ROWS 1"),
];

/// Blocks of the band chain solved a draw (`group` in `trsv.frag` PASS 6 and 7): each
/// group's blocks from the solution of the block before the group, by the maps that
/// PASS 7 composes, one pass for each place in the group after the first.
/// On the H100 (stbsv 2^16, k = 64) the compositions took 2.5-2.9 ms in all for groups of
/// 8, 16 and 32 and the steps 1.68, 0.87 and 0.43 ms (BENCHMARKS.md, session 29).
pub(crate) const CHAIN_GROUP: usize = 32;

/// The sizes of the halves [`COMBINE`] joins, in order: 16, 32 (blocks of 32, then 64).
pub(crate) fn combine_levels() -> Vec<usize> {
    std::iter::successors(Some(INVERT_SUB), |h| Some(h * 2))
        .take_while(|h| *h < SOLVE_BLOCK)
        .collect()
}

const UPDATE: usize = 0;
const SOLVE: usize = 1;
const INVERT: usize = 2;
const APPLY: usize = 3;
/// The texture unit of the block's solution s in the update pass: apart from the solve's
/// units (A 0, t 1, the inverses 2, pending sums 3), so that both passes' textures stay
/// bound through the loop.
const S_UNIT: u32 = 4;

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 25] = [
    &STEP_QUAD[0],
    &STEP_QUAD[1],
    &CHAIN[0],
    &CHAIN[1],
    &CHAIN[2],
    &INVERT_SUBBLOCKS[0],
    &INVERT_SUBBLOCKS[1],
    &COMBINE[0][0],
    &COMBINE[0][1],
    &COMBINE[1][0],
    &COMBINE[1][1],
    &STEP_IMAGE[UPDATE][0],
    &STEP_IMAGE[UPDATE][1],
    &STEP_IMAGE[SOLVE][0],
    &STEP_IMAGE[SOLVE][1],
    &STEP_IMAGE[APPLY][0],
    &STEP_IMAGE[APPLY][1],
    &PASSES[0][0],
    &PASSES[0][1],
    &PASSES[1][0],
    &PASSES[1][1],
    &PASSES[2][0],
    &PASSES[2][1],
    &PASSES[3][0],
    &PASSES[3][1],
];

/// The blocks of a solve of `n` unknowns in solve order: `(lo, nb)` each, on the grid of
/// [`SOLVE_BLOCK`] (only the last block of the grid is short).
pub(crate) fn solve_blocks(n: usize, forward: bool) -> Vec<(usize, usize)> {
    let blocks = (0..n.div_ceil(SOLVE_BLOCK)).map(|b| {
        let lo = b * SOLVE_BLOCK;
        (lo, SOLVE_BLOCK.min(n - lo))
    });
    if forward {
        blocks.collect()
    } else {
        blocks.rev().collect()
    }
}

/// The texels `[lo, hi)` of the right-hand side (unit stride, `n` unknowns) that block
/// `(lo, nb)`'s columns can change: the unknowns after it in the solve order, within
/// `reach` of it (the band's width; `n` for full and packed storage).
pub(crate) fn update_texels(
    (lo, nb): (usize, usize),
    forward: bool,
    reach: usize,
    n: usize,
) -> (usize, usize) {
    if forward {
        let from = lo + nb;
        (from / 4, (from + reach).min(n).div_ceil(4))
    } else {
        (lo.saturating_sub(reach) / 4, lo / 4)
    }
}

/// Fragments a row of the in-place update's grid (see [`step_grid`]).
const STEP_GRID_WIDTH: usize = 64;

/// Parts the in-place update of the element-by-element kernels splits a block's columns
/// into (`SPLIT` in [`STEP_IMAGE`]'s defines): as many fragments a texel, each a quarter of
/// the chain, whose partial sums the next step adds (see `glsl/level2/trsv.frag`).
pub(crate) const STEP_SPLIT: usize = 4;

/// The in-place form of a block's update (`IMAGE`): the texels `[lo, hi)` of the
/// right-hand side it covers (the block's own and `update`, the ones its columns reach,
/// which border them) and its grid of `split` fragments a texel, `(width, rows)`
/// fragments of at most [`STEP_GRID_WIDTH`] a row, fragment `(x, y)` on texel `lo + F %
/// (hi - lo)`, part `F / (hi - lo)` (`F = y*width + x`).
pub(crate) fn step_grid(
    (lo, nb): (usize, usize),
    (upd_lo, upd_hi): (usize, usize),
    split: usize,
) -> ((usize, usize), (usize, usize)) {
    let (mut from, mut to) = (lo / 4, (lo + nb).div_ceil(4));
    if upd_lo < upd_hi {
        from = from.min(upd_lo);
        to = to.max(upd_hi);
    }
    let count = (to - from) * split;
    let width = count.min(STEP_GRID_WIDTH);
    ((from, to), (width, count.div_ceil(width)))
}

/// Every diagonal block (on the grid of [`SOLVE_BLOCK`]) of the triangular `op(A)` inverted
/// (`trans`: op(A) = A^T, solved by reference's dot-product loop; else A, by its column
/// loop), into a new texture in which texel `(c*16 + f, b)` is texel `f` (rows `4f..4f+3`)
/// of column `c` of block `b`'s inverse. Columns past a short last block are 0; so are rows
/// past it. A zero or non-finite diagonal, or an Inf or NaN in a block, leaves Inf or NaN
/// in the inverse's columns it reaches: its users solve by substitution there. Also the
/// diagonal blocks of strsm (`level3/tri`).
///
/// Without image stores one pass solves every column of every block (64-step chains). With
/// them, one pass solves the columns of the [`INVERT_SUB`]-unknown diagonal sub-blocks
/// (16-step chains), and each level of [`combine_levels`] joins pairs of halves: with R and
/// K the inverses of the halves that hold the rows and the columns of the off-diagonal part
/// C of a block M of op(A), M's inverse has `-R C K` there (two passes: `E = C K`, then
/// `-R E`). An Inf or NaN of C, R or K reaches every column of that part it touches (a
/// product with it is Inf or NaN, 0*Inf included), so the users of those columns still
/// solve by substitution; they may do so where the whole-column solve would not (an Inf of
/// C that reference's zero tests would skip), never the other way round. On the H100 at
/// order 4096: 0.54 ms (whole columns) -> 0.31 ms; 2^16 band of 64: 15.4 -> 6.8 ms.
pub(crate) fn invert_blocks(
    ctx: &Context,
    matrix: &Matrix,
    a: &Buffer,
    trans: bool,
) -> Result<Surface> {
    let inner = &ctx.inner;
    let n = matrix.rows;
    let Shape::Triangular(uplo, _) = matrix.shape else {
        unreachable!("only a triangular matrix is inverted")
    };
    let vec4 = matches!(matrix.storage, Storage::Full { lda } if lda.is_multiple_of(4));
    let blocks = n.div_ceil(SOLVE_BLOCK);
    let width = (SOLVE_BLOCK * SOLVE_BLOCK / 4) as u32;
    let inv = inner.take_surface(width, blocks as u32)?;
    let whole = inner.image_store_paths;
    let v = vec4 as usize;
    let prog = inner.program(if whole {
        &INVERT_SUBBLOCKS[v]
    } else {
        &PASSES[INVERT][v]
    })?;
    let forward = (uplo == Uplo::Lower) != trans;
    let set = |p: &crate::gl::Program| {
        let gl = inner.enter()?;
        gl.use_program(p);
        matrix.bind(gl, p, a);
        // The right-hand side is a unit vector; t is bound but not read.
        a.bind(gl, p, 1, "t", "t_width");
        gl.set_i32(p, "n", n as i32);
        gl.set_i32(p, "forward", forward as i32);
        gl.set_i32(p, "dot_form", trans as i32);
        Ok::<_, crate::Error>(gl)
    };
    let gl = set(&prog)?;
    if !whole {
        gl.draw(&[&inv], width, blocks as u32);
        return Ok(inv);
    }
    gl.draw_image_stores(&[&inv], SOLVE_BLOCK as u32, blocks as u32);
    // Sub-blocks' inverses joined two by two: E = C K into a scratch, then D = -R E.
    let e = inner.take_surface(width, blocks as u32)?;
    let parts = [
        inner.program(&COMBINE[0][v])?,
        inner.program(&COMBINE[1][v])?,
    ];
    for h in combine_levels() {
        // A fragment a texel of four columns of each pair's off-diagonal part.
        let grid = ((SOLVE_BLOCK / (2 * h)) * (h / 4) * (h / 4)) as u32;
        let gl = set(&parts[0])?;
        gl.set_texture(&parts[0], "inv", 2, &inv);
        gl.set_i32(&parts[0], "half_size", h as i32);
        gl.draw_image_stores(&[&e], grid, blocks as u32);
        let gl = set(&parts[1])?;
        gl.set_texture(&parts[1], "inv", 2, &inv);
        gl.set_texture(&parts[1], "e", 3, &e);
        gl.set_i32(&parts[1], "half_size", h as i32);
        gl.draw_image_stores(&[&inv], grid, blocks as u32);
    }
    inner.give_surface(e);
    Ok(inv)
}

impl MvCall {
    /// `x := op(A)^-1 x`, after the checks. A packed triangle is first copied into full
    /// storage with `lda % 4 == 0` on GPUs with image stores (orders up to
    /// [`UNPACK_MAX_ORDER`]), whose block steps then read four rows of a column a fetch
    /// instead of every element through the packed index.
    fn triangular_solve(&self, ctx: &Context, a: &Buffer, x: &mut Buffer, incx: i32) -> Result<()> {
        let inner = &ctx.inner;
        if self.a.storage == Storage::Packed
            && inner.image_store_paths
            && self.a.rows <= UNPACK_MAX_ORDER
        {
            let (m, full) = unpack(ctx, &self.a, a)?;
            let done = MvCall { a: m, ..*self }.solve_stored(ctx, &full, x, incx);
            inner.give_surface(full.into_surface());
            return done;
        }
        self.solve_stored(ctx, a, x, incx)
    }

    /// [`MvCall::triangular_solve`] on A as stored.
    fn solve_stored(&self, ctx: &Context, a: &Buffer, x: &mut Buffer, incx: i32) -> Result<()> {
        let inner = &ctx.inner;
        let n = self.a.rows;
        let incx = pass_inc(n as i32, incx);
        let Shape::Triangular(uplo, _) = self.a.shape else {
            unreachable!("a solve has a triangular matrix")
        };
        // Lower and not transposed, or upper and transposed: the first unknown first.
        let forward = (uplo == Uplo::Lower) != self.trans;
        let (vec4, reach) = match self.a.storage {
            Storage::Full { lda } => (lda.is_multiple_of(4), n),
            Storage::Band { kl, ku, .. } => (false, kl.max(ku)),
            Storage::Packed => (false, n),
        };
        // t := x, unit stride, in logical order: x's own texture where x is that already (a
        // scratch texture stands in for it until the solve is done: a GL failure midway then
        // leaves x undefined), else a copy.
        let l = inner.layout(n)?;
        let own = x.is_vector(n, incx);
        let mut t = if own {
            let stand_in = inner.take_surface(l.width, l.height)?;
            Buffer::from_surface(ctx, x.replace_surface(stand_in), n)?
        } else {
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
            t
        };
        let blocks = n.div_ceil(SOLVE_BLOCK);
        let max = inner.info_max_texture() as usize;
        let inverse = inner.inverse_solves && blocks >= 2 && blocks <= max;
        let inv = if inverse {
            Some(invert_blocks(ctx, &self.a, a, self.trans)?)
        } else {
            None
        };
        let image = inner.image_store_paths;
        let band = matches!(self.a.storage, Storage::Band { .. });
        let chained = match &inv {
            Some(inv) if image && band && reach <= SOLVE_BLOCK => {
                self.band_chain(ctx, a, &t, inv, forward, reach)?
            }
            _ => None,
        };
        match chained {
            Some(sol) => inner.give_surface(t.replace_surface(sol.into_surface())),
            None => self.block_steps(ctx, a, &mut t, inv.as_ref(), (forward, vec4, reach))?,
        }
        if let Some(inv) = inv {
            inner.give_surface(inv);
        }
        if own {
            inner.give_surface(x.replace_surface(t.into_surface()));
            return Ok(());
        }
        let done = update(ctx, n as i32, Op::Copy, 1.0, 0.0, Some((&t, 1)), x, incx);
        inner.give_surface(t.into_surface());
        done
    }

    /// The band chain: for a band no wider than a block (`reach <= SOLVE_BLOCK`, so that a
    /// block's rows reach only the block before it in the solve order), with every block's
    /// inverse `inv` ([`invert_blocks`]): one pass computes, for every block b at once,
    /// `y_b = D_b t_b` and `Q_b = -D_b C_b` (D_b the block's inverse, C_b op(A)'s part in its
    /// rows and the block before's columns), so `s_b = y_b + Q_b s_prev`. The solve order's
    /// blocks are cut into groups of [`CHAIN_GROUP`]; one pass for each place in a group
    /// after the first composes the maps from the solution before the group, `[M_i | y'_i] =
    /// Q_i [M_{i-1} | y'_{i-1}] + [0 | y_i]` (all groups at once), and one short draw a group
    /// takes `s_i = y'_i + M_i s_last` for its blocks: blocks / [`CHAIN_GROUP`] dependent
    /// draws instead of the block steps' two a block, and no update of t. Returns the
    /// solution (unit stride, a new texture of t's shape), or `None` where some result was
    /// not finite (a zero or non-finite diagonal, an Inf or NaN
    /// in A or in t, an overflow: the flag the steps raise, read back here, which waits for
    /// the GPU): the caller then solves by [`MvCall::block_steps`], whose loops spread Inf
    /// and NaN as reference's do. t is not changed.
    fn band_chain(
        &self,
        ctx: &Context,
        a: &Buffer,
        t: &Buffer,
        inv: &Surface,
        forward: bool,
        reach: usize,
    ) -> Result<Option<Buffer>> {
        let inner = &ctx.inner;
        let n = self.a.rows;
        let blocks = n.div_ceil(SOLVE_BLOCK) as u32;
        // [Q_b | y_b]: the inverse's layout, then y's texels.
        let width = ((SOLVE_BLOCK + 1) * SOLVE_BLOCK / 4) as u32;
        let chain = inner.take_surface(width, blocks)?;
        let flag = inner.take_surface(1, 1)?;
        let l = t.layout();
        let sol = Buffer::from_surface(ctx, inner.take_surface(l.width, l.height)?, n)?;
        let set = |p: &crate::gl::Program| {
            let gl = inner.enter()?;
            gl.use_program(p);
            self.a.bind(gl, p, a);
            t.bind(gl, p, 1, "t", "t_width");
            gl.set_texture(p, "inv", 2, inv);
            gl.set_i32(p, "n", n as i32);
            gl.set_i32(p, "forward", forward as i32);
            gl.set_i32(p, "dot_form", self.trans as i32);
            gl.set_i32(p, "reach", reach as i32);
            Ok::<_, crate::Error>(gl)
        };
        let couple = inner.program(&CHAIN[0])?;
        // A fragment a texel of 4 columns and 4 row texels of Q (or of 4 texels of y).
        let grid = ((SOLVE_BLOCK / 4 + 1) * SOLVE_BLOCK / 16) as u32;
        set(&couple)?.draw_image_stores(&[&chain, &flag], grid, blocks);
        // Each group's maps from the solution before it, place by place.
        let group = CHAIN_GROUP.min(blocks as usize);
        let groups = (blocks as usize).div_ceil(group) as u32;
        let maps = inner.take_surface(width, blocks)?;
        let compose = inner.program(&CHAIN[2])?;
        // A fragment a texel of 4 columns of M (or of y') (ROWS 1).
        let compose_grid = ((SOLVE_BLOCK / 4 + 1) * SOLVE_BLOCK / 4) as u32;
        for place in 1..group {
            let gl = set(&compose)?;
            gl.set_texture(&compose, "chain", 3, &chain);
            gl.set_texture(&compose, "prev", 4, if place == 1 { &chain } else { &maps });
            gl.set_i32(&compose, "blocks", blocks as i32);
            gl.set_i32(&compose, "group", group as i32);
            gl.set_i32(&compose, "place", place as i32);
            gl.draw_image_stores(&[&maps], compose_grid, groups);
        }
        let step = inner.program(&CHAIN[1])?;
        for first in (0..blocks as usize).step_by(group) {
            let count = group.min(blocks as usize - first);
            let gl = set(&step)?;
            gl.set_texture(&step, "chain", 3, &chain);
            gl.set_texture(&step, "maps", 4, &maps);
            sol.bind(gl, &step, 5, "sol", "sol_width");
            gl.set_i32(&step, "blocks", blocks as i32);
            gl.set_i32(&step, "first_place", first as i32);
            let texels = (SOLVE_BLOCK / 4) as u32;
            gl.draw_image_stores(&[sol.surface(), &flag], texels, count as u32);
        }
        inner.give_surface(maps);
        inner.give_surface(chain);
        let flag = Buffer::from_surface(ctx, flag, 1)?;
        let raised = flag.to_vec()?.first() != Some(&0.0);
        inner.give_surface(flag.into_surface());
        if raised {
            inner.give_surface(sol.into_surface());
            return Ok(None);
        }
        Ok(Some(sol))
    }

    /// The block steps: for each block in the solve order, a draw that solves it (by its
    /// inverse in `inv`, or by substitution) and a draw that subtracts its contribution
    /// from the unknowns after it, in t.
    fn block_steps(
        &self,
        ctx: &Context,
        a: &Buffer,
        t: &mut Buffer,
        inv: Option<&Surface>,
        (forward, vec4, reach): (bool, bool, usize),
    ) -> Result<()> {
        let inner = &ctx.inner;
        let n = self.a.rows;
        let l = t.layout();
        let inverse = inv.is_some();
        let k = vec4 as usize;
        // What a block's draws read that no block changes: A (unit 0), t (unit 1), the
        // inverses (unit 2, the solve) and s (unit S_UNIT, the update) and the solve's form.
        // A program keeps its uniforms and the units keep their textures, so where t stays
        // in its texture (image stores) this is set once a call, not once a draw: strsv 4096
        // made 2852 state calls (44 a block), about 2000 of them setting what was set already.
        let bind_fixed = |p: &crate::gl::Program, t: &Buffer| {
            let gl = inner.enter()?;
            gl.use_program(p);
            self.a.bind(gl, p, a);
            t.bind(gl, p, 1, "t", "t_width");
            gl.set_i32(p, "n", n as i32);
            gl.set_i32(p, "forward", forward as i32);
            gl.set_i32(p, "dot_form", self.trans as i32);
            Ok::<_, crate::Error>(gl)
        };
        // On GPUs with image stores every draw of the loop writes through them (the
        // solution into s, the update into t in place), so the bound framebuffer stays,
        // and so does t's texture.
        let image = inner.image_store_paths;
        // The block's own uniforms on `p`. Without image stores `p` was bound (made
        // current) just before; with them, once before the loop, so it is made current.
        let bind_block = |p: &crate::gl::Program, (lo, nb): (usize, usize)| {
            let gl = inner.enter()?;
            if image {
                gl.use_program(p);
            }
            gl.set_i32(p, "block_lo", lo as i32);
            gl.set_i32(p, "block_nb", nb as i32);
            Ok::<_, crate::Error>(gl)
        };
        let passes = if image { &STEP_IMAGE } else { &PASSES };
        // Full storage read a texel a fetch, on GPUs with quad operations: each texel's
        // sum over a quad (the substitution, without inverses, stays one fragment a texel).
        let quad = image && vec4 && inner.quad_steps;
        let solve = inner.program(if quad && inverse {
            &STEP_QUAD[1]
        } else {
            &passes[if inverse { APPLY } else { SOLVE }][k]
        })?;
        let step = inner.program(if quad {
            &STEP_QUAD[0]
        } else {
            &passes[UPDATE][k]
        })?;
        let s = inner.take_surface((SOLVE_BLOCK / 4) as u32, 1)?;
        // The in-place steps' partial sums, two sets: the step's own and the step before's.
        let split = if image && !vec4 { STEP_SPLIT } else { 1 };
        let pl = inner.layout(l.data_texels() * split * 4)?;
        let pend = if split > 1 {
            vec![
                inner.take_surface(pl.width, pl.height)?,
                inner.take_surface(pl.width, pl.height)?,
            ]
        } else {
            Vec::new()
        };
        // What no block changes, for each program: set once before the loop where t stays
        // in its texture, else before each draw (after the next texture is made: making a
        // texture binds it to the active unit).
        let fixed_solve = |t: &Buffer| {
            let gl = bind_fixed(&solve, t)?;
            if let Some(inv) = inv {
                gl.set_texture(&solve, "inv", 2, inv);
            }
            Ok::<_, crate::Error>(())
        };
        let fixed_step = |t: &Buffer| {
            bind_fixed(&step, t)?.set_texture(&step, "s", S_UNIT, &s);
            Ok::<_, crate::Error>(())
        };
        if image {
            fixed_solve(t)?;
            fixed_step(t)?;
        }
        // Texels with partial sums pending from the step before (none at first).
        let mut pending = (0usize, 0usize);
        for (step_no, (lo, nb)) in solve_blocks(n, forward).into_iter().enumerate() {
            if !image {
                fixed_solve(t)?;
            }
            let set_pending = |gl: &crate::gl::Gl, p: &crate::gl::Program| {
                if split > 1 {
                    gl.set_texture(p, "pend", 3, &pend[(step_no + 1) % 2]);
                    gl.set_i32(p, "pend_width", pl.width as i32);
                    gl.set_i32(p, "pend_lo", pending.0 as i32);
                    gl.set_i32(p, "pend_hi", pending.1 as i32);
                }
            };
            let gl = bind_block(&solve, (lo, nb))?;
            set_pending(gl, &solve);
            let texels = (nb as u32).div_ceil(4);
            if quad && inverse {
                let (w, h) = quad_grid((texels as usize, 1));
                gl.draw_image_stores(&[&s], w, h);
            } else if image {
                gl.draw_image_stores(&[&s], texels, 1);
            } else {
                gl.draw(&[&s], texels, 1);
            }
            // (Taken before the binding: making a texture binds it to the active unit.)
            let next = if image {
                None
            } else {
                Some(inner.take_surface(l.width, l.height)?)
            };
            if !image {
                fixed_step(t)?;
            }
            let gl = bind_block(&step, (lo, nb))?;
            let upd = update_texels((lo, nb), forward, reach, n);
            gl.set_i32(&step, "upd_lo", upd.0 as i32);
            gl.set_i32(&step, "upd_hi", upd.1 as i32);
            if let Some(next) = next {
                gl.draw(&[&next], l.width, l.height);
                inner.give_surface(t.replace_surface(next));
            } else {
                let ((from, to), (w, h)) = step_grid((lo, nb), upd, split);
                gl.set_i32(&step, "range_lo", from as i32);
                gl.set_i32(&step, "range_hi", to as i32);
                gl.set_i32(&step, "grid_w", w as i32);
                if split > 1 {
                    set_pending(gl, &step);
                    gl.set_i32(&step, "part_width", pl.width as i32);
                    let part = &pend[step_no % 2];
                    gl.draw_image_stores(&[t.surface(), part], w as u32, h as u32);
                } else if quad {
                    let (w, h) = quad_grid((w, h));
                    gl.draw_image_stores(&[t.surface()], w, h);
                } else {
                    gl.draw_image_stores(&[t.surface()], w as u32, h as u32);
                }
                pending = upd;
            }
        }
        for p in pend {
            inner.give_surface(p);
        }
        inner.give_surface(s);
        Ok(())
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
        for n in [1usize, 2, 63, 64, 65, 128, 200] {
            for forward in [true, false] {
                let mut seen = Vec::new();
                for (lo, nb) in solve_blocks(n, forward) {
                    assert!((1..=SOLVE_BLOCK).contains(&nb) && lo % SOLVE_BLOCK == 0);
                    let mut block: Vec<usize> = (lo..lo + nb).collect();
                    if !forward {
                        block.reverse();
                    }
                    seen.extend(block);
                }
                let want: Vec<usize> = if forward {
                    (0..n).collect()
                } else {
                    (0..n).rev().collect()
                };
                assert_eq!(seen, want, "n={n} forward={forward}");
            }
        }
        for k in KERNELS {
            assert!(k.defines.contains(&format!("#define NB {SOLVE_BLOCK}\n")));
        }
        for k in &INVERT_SUBBLOCKS {
            assert!(k.defines.ends_with(&format!("#define SUB {INVERT_SUB}")));
        }
        // The joins double the sub-blocks up to a whole block.
        assert_eq!(combine_levels(), vec![16, 32]);
        assert_eq!(combine_levels().last().unwrap() * 2, SOLVE_BLOCK);
    }

    #[test]
    fn an_in_place_step_covers_the_block_and_its_update_once() {
        for n in [1usize, 5, 63, 64, 65, 198, 200, 4096, 5000] {
            for forward in [true, false] {
                for reach in [1usize, 5, 64, 100, n] {
                    for (lo, nb) in solve_blocks(n, forward) {
                        let upd = update_texels((lo, nb), forward, reach, n);
                        let ((from, to), (w, h)) = step_grid((lo, nb), upd, STEP_SPLIT);
                        // Every texel of the block and of its update, nothing else.
                        let mut want: Vec<usize> = (lo / 4..(lo + nb).div_ceil(4)).collect();
                        want.extend(upd.0..upd.1);
                        want.sort();
                        want.dedup();
                        let got: Vec<usize> = (from..to).collect();
                        assert_eq!(got, want, "n={n} forward={forward} reach={reach} lo={lo}");
                        // The grid covers the range's parts, with less than a row to spare.
                        let parts = (to - from) * STEP_SPLIT;
                        assert!((1..=STEP_GRID_WIDTH).contains(&w));
                        assert!(w * h >= parts && w * (h - 1) < parts);
                        // Every texel the update reaches is reached again by the next
                        // step's update or is the next block's own (nothing is left
                        // pending).
                        let blocks = solve_blocks(n, forward);
                        let i = blocks.iter().position(|b| *b == (lo, nb)).unwrap();
                        if let Some(&(nlo, nnb)) = blocks.get(i + 1) {
                            let next = update_texels((nlo, nnb), forward, reach, n);
                            for tx in upd.0..upd.1 {
                                let own = tx >= nlo / 4 && tx < (nlo + nnb).div_ceil(4);
                                assert!(own || (next.0..next.1).contains(&tx));
                            }
                        }
                    }
                }
            }
        }
        for k in &STEP_IMAGE {
            for v in k {
                assert!(v.defines.contains(&format!("#define NB {SOLVE_BLOCK}\n")));
            }
        }
        for pass in [UPDATE, SOLVE, APPLY] {
            let [elementwise, vec4] = &STEP_IMAGE[pass];
            assert!(elementwise
                .defines
                .ends_with(&format!("#define SPLIT {STEP_SPLIT}")));
            assert!(!vec4.defines.contains("SPLIT"));
        }
        assert_eq!(step_grid((64, 64), (32, 40), 1), ((16, 40), (24, 1)));
        // The quad kernels: full storage a texel a fetch, grids of whole quads.
        for k in &STEP_QUAD {
            assert!(k.quads && k.stores_images);
            assert!(k
                .defines
                .contains("#define VEC4 1\n#define IMAGE 1\n#define QUAD 1"));
        }
        assert_eq!(quad_grid((24, 1)), (48, 2));
        assert_eq!(quad_grid((64, 17)), (128, 34));
    }

    #[test]
    fn an_update_reaches_the_unknowns_after_the_block_within_the_band() {
        // Full storage: every unknown after the block.
        assert_eq!(update_texels((64, 64), true, 200, 200), (32, 50));
        assert_eq!(update_texels((128, 64), false, 200, 200), (0, 32));
        // A band of 5: unknowns 128..133 forward, 59..64 backward (texels 14..16).
        assert_eq!(update_texels((64, 64), true, 5, 200), (32, 34));
        assert_eq!(update_texels((64, 64), false, 5, 200), (14, 16));
        // The first block backward and the last forward change nothing.
        let (a, b) = update_texels((0, 64), false, 200, 200);
        assert_eq!(a, b);
        let (a, b) = update_texels((192, 8), true, 200, 200);
        assert_eq!(a, b);
    }
}
