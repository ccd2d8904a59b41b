//! The warp-tile product (`glsl/level2/symv_warp.frag`): ssymv's stored triangle (and
//! sspmv's packed one, where it lies) read once, each texel giving both of its terms, in
//! tiles of 128 x 128 that the GPU's warps take one at a time, the tile's column sums added
//! across the warp's lanes; the draw adds the tiles' sums into y itself. The other product
//! (`product_vec4.frag`) reads the triangle twice, by columns and by rows, and a fragment
//! cannot share a tile's sums with its neighbours without warp operations (BENCHMARKS.md,
//! session 20). The same tiles serve stpmv's packed triangle with one of the two terms
//! ([`trmv_warp`]), which the fragment kernel (`product_stored.frag`) reads two texels a
//! texel. [`Tiles`] is the plan (pure), [`applies`] says where it runs, [`symv_warp`] and
//! [`trmv_warp`] run it.

use crate::blas::level2::matrix::{Matrix, Shape, Storage};
use crate::blas::types::Diag;
use crate::device::buffer::Buffer;
use crate::device::context::{Context, Inner};
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::GlBuffer;

/// Where a packed triangle's elements lie: the kernel numbers its tiles as one.
const PACKED_GLSL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/glsl/level2/packed.glsl"
));

/// A kernel of the file: `PLAIN` 1 (the tiles off the diagonal inside the matrix, no
/// masks) or 0 (the others: the diagonal's and a partial last block column's, masked), for
/// full storage or (`PACKED`) packed. Warps, image stores (y) and three storage blocks (x,
/// the partial sums, the counts).
macro_rules! symv_warp_kernel {
    ($defines:literal) => {
        crate::kernel!("level2/symv_warp.frag")
            .defines($defines)
            .header(PACKED_GLSL)
            .warps()
            .storage(3)
    };
}
static PLAIN_FULL: Kernel = symv_warp_kernel!("#define PLAIN 1");
static MASKED_FULL: Kernel = symv_warp_kernel!("#define PLAIN 0");
static PLAIN_PACKED: Kernel = symv_warp_kernel!("#define PLAIN 1\n#define PACKED 1");
static MASKED_PACKED: Kernel = symv_warp_kernel!("#define PLAIN 0\n#define PACKED 1");
/// A packed triangle's product (stpmv): the rows' terms only (`TERMS` 1, `x := A x`) or
/// the columns' only (`TERMS` 2, `x := A^T x`).
static PLAIN_PACKED_ROWS: Kernel =
    symv_warp_kernel!("#define PLAIN 1\n#define PACKED 1\n#define TERMS 1");
static MASKED_PACKED_ROWS: Kernel =
    symv_warp_kernel!("#define PLAIN 0\n#define PACKED 1\n#define TERMS 1");
static PLAIN_PACKED_COLS: Kernel =
    symv_warp_kernel!("#define PLAIN 1\n#define PACKED 1\n#define TERMS 2");
static MASKED_PACKED_COLS: Kernel =
    symv_warp_kernel!("#define PLAIN 0\n#define PACKED 1\n#define TERMS 2");

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 8] = [
    &PLAIN_FULL,
    &MASKED_FULL,
    &PLAIN_PACKED,
    &MASKED_PACKED,
    &PLAIN_PACKED_ROWS,
    &MASKED_PACKED_ROWS,
    &PLAIN_PACKED_COLS,
    &MASKED_PACKED_COLS,
];

/// The (masked, plain) kernels for `a`'s storage and shape (a triangle's: `trans` picks
/// the columns' terms).
fn kernels(a: &Matrix, trans: bool) -> (&'static Kernel, &'static Kernel) {
    match (a.storage, a.shape, trans) {
        (Storage::Packed, Shape::Triangular(..), false) => {
            (&MASKED_PACKED_ROWS, &PLAIN_PACKED_ROWS)
        }
        (Storage::Packed, Shape::Triangular(..), true) => (&MASKED_PACKED_COLS, &PLAIN_PACKED_COLS),
        (Storage::Packed, ..) => (&MASKED_PACKED, &PLAIN_PACKED),
        _ => (&MASKED_FULL, &PLAIN_FULL),
    }
}

/// Rows (and columns) of a tile: 32 row texels, one for each lane of a 32-wide warp
/// (`BLOCK` in the kernel).
pub(crate) const BLOCK: usize = 128;

/// Warps of a diagonal tile (`DIAG_PARTS` in the kernel): a quarter of its columns each.
const DIAG_PARTS: usize = 4;

/// Row texels of a block (`BLOCK_TEXELS` in the kernel).
const BLOCK_TEXELS: usize = BLOCK / 4;

/// Fragments in a row of the draw's grid, and the multiple its height is rounded to:
/// NVIDIA deals the screen to its multiprocessors in tiles of 16 x 16, whose warps are then
/// full.
const GRID_WIDTH: usize = 64;
const GRID_ROWS_MULTIPLE: usize = 16;

/// The tiles of a symmetric product of order `n`: `blocks` blocks of [`BLOCK`] rows a side,
/// `full` of them wholly inside the matrix; of one triangle of them, the `plain` tiles off
/// the diagonal between whole blocks and the `masked` others (the diagonal's, each
/// [`DIAG_PARTS`] warps, then those of a partial last block column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiles {
    pub blocks: usize,
    pub full: usize,
    pub plain: usize,
    pub masked: usize,
}

impl Tiles {
    pub(crate) fn new(n: usize) -> Self {
        let blocks = n.div_ceil(BLOCK);
        let full = n / BLOCK;
        Tiles {
            blocks,
            full,
            plain: full * full.saturating_sub(1) / 2,
            masked: DIAG_PARTS * blocks + if full < blocks { blocks - 1 } else { 0 },
        }
    }

    /// Texels of a slot of partial sums: every row texel of every block.
    pub(crate) fn stride(&self) -> usize {
        self.blocks * BLOCK_TEXELS
    }

    /// Texels of the partial sums: the rows' sums (a slot a block column), the columns'
    /// (a slot a block row), the diagonal tiles' columns' (one slot) and the rows' sums of
    /// their parts after the first (a slot each).
    pub(crate) fn partial_texels(&self) -> usize {
        (2 * self.blocks + DIAG_PARTS) * self.stride()
    }

    /// Counts the draws keep: two of the tiles taken for each of the two kernels (by the
    /// parity of the call), then one a block.
    pub(crate) fn counts(&self) -> usize {
        4 + self.blocks
    }

    /// A draw's grid for `tiles` tiles: at least 32 fragments a tile, [`GRID_WIDTH`] wide, a
    /// multiple of [`GRID_ROWS_MULTIPLE`] tall (warps past the last tile find none and
    /// return).
    pub(crate) fn grid(tiles: usize) -> (u32, u32) {
        let rows = (tiles * BLOCK_TEXELS)
            .div_ceil(GRID_WIDTH)
            .next_multiple_of(GRID_ROWS_MULTIPLE);
        (GRID_WIDTH as u32, rows as u32)
    }
}

/// The smallest order [`symv_warp`] takes by default on a hardware device: on the H200 it
/// gained nothing at 1024 (59-67 us against the two-read product's 59-60) and 7-10% at
/// 4096 (BENCHMARKS.md, session 39).
const WARP_MIN_ORDER: usize = 2048;

/// Whether [`symv_warp`] computes `y := alpha*A*x + beta*y` for `a` and `x` (the callers'
/// x and y have increment 1): a symmetric matrix in full storage with `lda` a multiple of
/// 4 or in packed storage, on a context that runs warp products
/// ([`ContextOptions::warp_products`](crate::ContextOptions::warp_products); by default
/// on hardware devices from [`WARP_MIN_ORDER`], under GL and GLES: the H200 ran both
/// alike, BENCHMARKS.md session 40) on a device that runs the kernels, with the sums and
/// the copy of x within its storage blocks.
pub(crate) fn applies(inner: &Inner, a: &Matrix, x: &Buffer) -> bool {
    let wanted = inner
        .warp_products
        .unwrap_or(!inner.info.software && a.cols >= WARP_MIN_ORDER);
    let storage = match a.storage {
        Storage::Full { lda } => lda.is_multiple_of(4),
        Storage::Packed => true,
        Storage::Band { .. } => false,
    };
    let (masked, plain) = kernels(a, false);
    let shape = match a.shape {
        Shape::Symmetric(_) => true,
        Shape::Triangular(..) => a.storage == Storage::Packed,
        Shape::General => false,
    };
    let s = x.surface();
    let x_bytes = 16 * s.width as u64 * s.height as u64;
    let sums_bytes = 16 * Tiles::new(a.cols).partial_texels() as u64;
    let limit = inner.info.max_storage_block_size;
    wanted
        && inner.image_store_paths
        && shape
        && storage
        && a.rows == a.cols
        && a.cols > 0
        && x_bytes <= limit
        && sums_bytes <= limit
        && plain.runs_on(&inner.info)
        && masked.runs_on(&inner.info)
}

/// `y := alpha*A*x + beta*y` for a symmetric `a` in full storage (leading dimension a
/// multiple of 4) or packed storage (read where it lies) in `abuf`, x and y of increment
/// 1, alpha not 0: two draws of `symv_warp.frag`, the masked tiles' and the plain ones'
/// (see there). Only where [`applies`] says so.
pub(crate) fn symv_warp(
    ctx: &Context,
    a: &Matrix,
    abuf: &Buffer,
    x: &Buffer,
    alpha: f32,
    beta: f32,
    y: &mut Buffer,
) -> Result<()> {
    run(ctx, a, false, abuf, x, (alpha, beta), y)
}

/// `op(A) x` into a new vector for a triangular `a` in packed storage (stpmv's product;
/// with `trans`, A^T), x of increment 1: the same draws as [`symv_warp`] with one of the
/// two terms of each texel (`TERMS` 1 or 2 of the kernel: a row's terms skip an x_j of 0,
/// as reference's `x := A x` does). Only where [`applies`] says so.
pub(crate) fn trmv_warp(
    ctx: &Context,
    a: &Matrix,
    abuf: &Buffer,
    trans: bool,
    x: &Buffer,
) -> Result<Buffer> {
    let inner = &ctx.inner;
    let l = inner.layout(a.cols)?;
    let mut t = Buffer::from_surface(ctx, inner.take_surface(l.width, l.height)?, a.cols)?;
    match run(ctx, a, trans, abuf, x, (1.0, 0.0), &mut t) {
        Ok(()) => Ok(t),
        Err(e) => {
            inner.give_surface(t.into_surface());
            Err(e)
        }
    }
}

/// [`symv_warp`] and [`trmv_warp`]: `y := alpha*op(A)*x + beta*y`.
fn run(
    ctx: &Context,
    a: &Matrix,
    trans: bool,
    abuf: &Buffer,
    x: &Buffer,
    (alpha, beta): (f32, f32),
    y: &mut Buffer,
) -> Result<()> {
    let inner = &ctx.inner;
    let n = a.cols;
    let plan = Tiles::new(n);
    let upper = a.shape.upper();
    let lda = match a.storage {
        Storage::Full { lda } => lda,
        _ => 0,
    };
    let s = x.surface();
    let xb = inner.take_block_buffer(16 * s.width as usize * s.height as usize)?;
    let partials = match inner.take_partials_buffer(16 * plan.partial_texels()) {
        Ok(b) => b,
        Err(e) => {
            inner.give_block_buffer(xb);
            return Err(e);
        }
    };
    let (counts, used) = match inner.take_warp_counts(4 * plan.counts()) {
        Ok(c) => c,
        Err(e) => {
            inner.give_partials_buffer(partials);
            inner.give_block_buffer(xb);
            return Err(e);
        }
    };
    let mut after = used;
    let drawn = draw(
        ctx,
        (a, trans, lda, abuf, upper),
        plan,
        (x, &xb),
        (alpha, beta, y),
        (&partials, &counts),
        &mut after,
    );
    inner.give_warp_counts(counts, after);
    inner.give_partials_buffer(partials);
    inner.give_block_buffer(xb);
    drawn
}

/// [`symv_warp`]'s draws with their buffers: x copied into `xb`, the partial sums, and the
/// counts that `after` calls have used before; `after` counts this call too
/// (each draw takes its tiles from the count of its parity and zeroes the other, so a draw
/// that did not run leaves the parity as it was).
fn draw(
    ctx: &Context,
    (a, trans, lda, abuf, upper): (&Matrix, bool, usize, &Buffer, bool),
    plan: Tiles,
    (x, xb): (&Buffer, &GlBuffer),
    (alpha, beta, y): (f32, f32, &mut Buffer),
    (partials, counts): (&GlBuffer, &GlBuffer),
    after: &mut u32,
) -> Result<()> {
    let inner = &ctx.inner;
    let parity = (*after % 2) as i32;
    // Both programs before either draw: a call draws both or neither, so that the parity
    // stays right.
    let (masked, plain) = kernels(a, trans);
    let unit = matches!(a.shape, Shape::Triangular(_, Diag::Unit));
    let masked = inner.program(masked)?;
    let plain = inner.program(plain)?;
    let gl = inner.enter()?;
    gl.copy_to_block_buffer(x.surface(), xb);
    // The masked tiles first, without a barrier after them: their few warps (the diagonal's)
    // are a chain of latencies that the plain draw's may run beside.
    for (prog, tiles, ordered) in [
        (masked, plan.masked, plan.plain == 0),
        (plain, plan.plain, true),
    ] {
        if tiles == 0 {
            continue;
        }
        gl.use_program(&prog);
        abuf.bind(gl, &prog, 0, "a", "a_width");
        y.bind(gl, &prog, 1, "y", "sums_width");
        gl.set_i32(&prog, "lda", lda as i32);
        gl.set_i32(&prog, "a_last", abuf.last_texel());
        gl.set_i32(&prog, "n", a.cols as i32);
        gl.set_i32(&prog, "upper", upper as i32);
        gl.set_i32(&prog, "blocks", plan.blocks as i32);
        gl.set_i32(&prog, "full", plan.full as i32);
        gl.set_i32(&prog, "tiles", tiles as i32);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_f32(&prog, "beta", beta);
        gl.set_i32(&prog, "parity", parity);
        gl.set_i32(&prog, "unit", unit as i32);
        gl.bind_storage_buffer(0, Some(xb));
        gl.bind_storage_buffer(1, Some(partials));
        gl.bind_storage_buffer(2, Some(counts));
        let (w, h) = Tiles::grid(tiles);
        if ordered {
            gl.draw_image_stores(&[y.surface()], w, h);
        } else {
            gl.draw_image_stores_unordered(&[y.surface()], w, h);
        }
        for b in 0..3 {
            gl.bind_storage_buffer(b, None);
        }
    }
    *after = after.wrapping_add(1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_one_triangle_of_blocks_with_a_warp_each() {
        let t = Tiles::new;
        assert_eq!(
            t(1),
            Tiles {
                blocks: 1,
                full: 0,
                plain: 0,
                masked: 4
            }
        );
        assert_eq!((t(128).plain, t(128).masked), (0, 4));
        // 2 blocks, the second partial: the diagonal's 2 (4 warps each) and the last
        // column's 1.
        assert_eq!((t(129).plain, t(129).masked), (0, 9));
        assert_eq!((t(256).plain, t(256).masked), (1, 8));
        let big = t(4096);
        assert_eq!(
            (big.blocks, big.full, big.plain, big.masked),
            (32, 32, 496, 128)
        );
        // 2 * 32 + 4 slots of 32 * 32 texels; four counts of tiles taken and one a block.
        assert_eq!(big.partial_texels(), 68 * 1024);
        assert_eq!(big.counts(), 36);
        for n in [1, 5, 127, 128, 129, 255, 256, 257, 1000, 4096, 16384] {
            let p = t(n);
            let tiles = p.blocks * (p.blocks + 1) / 2;
            assert_eq!(p.plain + p.masked, tiles + 3 * p.blocks, "n = {n}");
            assert!(p.blocks * BLOCK >= n && (p.blocks - 1) * BLOCK < n);
            for tiles in [p.plain, p.masked] {
                let (w, h) = Tiles::grid(tiles);
                assert!(w as usize * h as usize >= 32 * tiles, "n = {n}");
                assert_eq!(h as usize % GRID_ROWS_MULTIPLE, 0);
                assert_eq!(w as usize % 16, 0);
            }
        }
    }
}
