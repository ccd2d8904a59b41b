//! The triangular level-3 routines: strmm, `B := alpha*op(A)*B` or `alpha*B*op(A)`, and
//! strsm, `B := alpha*op(A)^-1*B` or `alpha*B*op(A)^-1`, for a triangular A of which one
//! triangle is read (with a unit diagonal, not its diagonal).
//!
//! Both run in the left form of `plan.rs` on pitched scratch matrices (`blocks.rs`): the
//! stored triangle is expanded once into `Ts = T^T`, B (or B^T) is copied into W (scaled by
//! alpha for a solve), and the plan's steps run: a diagonal block is one pass of
//! `tri_block.frag` or `tri_solve.frag` over the texels of its rows, an update is an sgemm on
//! the off-diagonal block of T (a product's updates all in one sgemm whose rows take only
//! the terms off their diagonal block, where the kernel can bound its sums), and the result
//! is copied back into B's window (transposed for the right side, scaled by alpha for a
//! product). Right-hand sides beyond the largest
//! texture go in panels. A product whose B is not transposed into W and whose columns
//! are aligned (a leading dimension that is a multiple of 4) goes straight into B on GPUs
//! with image stores (`Tri::multiply_into`): the diagonal blocks' pass writes B in place,
//! the sgemm reads T off A itself and adds into B, and only T's diagonal blocks are
//! expanded (on the H200 strmm 1024 took 1287-1322 us of GPU time so, 1347-1379 before:
//! BENCHMARKS.md session 32).
//!
//! Reference semantics: `m == 0` or `n == 0` return at once; `alpha == 0` sets B's window to
//! 0 without reading A or B; only the referenced triangle of A is read; a singular A gives
//! Inf and NaN as reference's loops do, not an error. The diagonal blocks follow reference's
//! zero tests exactly; the sgemm updates between blocks form every term, so where an Inf or
//! NaN meets a zero that reference would have skipped (in A for the left forms without
//! transpose, in B for the right forms) the result is NaN where reference's is not. With
//! finite A and B the results agree.

pub(crate) mod plan;

use crate::blas::level2::matrix::{Matrix, Shape, Storage};
use crate::blas::level2::trsv::{invert_blocks, SOLVE_BLOCK};
use crate::blas::level3::blocks::{expand, pitched, release, window_axpby, Fill, Win};
use crate::blas::level3::gemm::kernel::GemmKernel;
use crate::blas::level3::gemm::passes::quads_size;
use crate::blas::level3::gemm::shape::{GemmShape, Operand, Terms, Window};
use crate::blas::level3::gemm::{SharedA, Src};
use crate::blas::passes::install;
use crate::blas::types::{Diag, Layout, Side, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, Program, Rect, Surface};
use plan::{level_updates, product_levels, solve_plan, tri_call, LeftForm, Step, TriCall};

/// A block product: a diagonal block of a triangular product, or a small update.
static TRI_BLOCK: Kernel = crate::kernel!("level3/tri_block.frag").defines("#define COLS 1");
/// Columns of W a fragment of [`TRI_BLOCK_IMAGE`] multiplies (`COLS` in its defines). On
/// the H100 4 beats 8 and 16 (strmm 4096's block passes 11.2, 12.9 and 14.8 ms; one column
/// a fragment, the rendered kernel, 20.3 ms).
const BLOCK_IMAGE_COLS: usize = 4;
/// [`TRI_BLOCK`] on GPUs with image stores: a fragment multiplies [`BLOCK_IMAGE_COLS`]
/// columns of W by the same four rows of T (its texels of T fetched once for all of them)
/// and writes them through image stores.
static TRI_BLOCK_IMAGE: Kernel = crate::kernel!("level3/tri_block.frag")
    .defines("#define COLS 4")
    .image_stores();
/// A diagonal block of a triangular solve, of at most [`SOLVE_BASE`] rows.
static TRI_SOLVE: Kernel = crate::kernel!("level3/tri_solve.frag")
    .defines("#define STEP 16\n#define APPLY 0\n#define COLS 1");
/// A diagonal block of a triangular solve by its inverse, a block of [`SOLVE_BLOCK`] rows
/// (substitution where an Inf or NaN is met).
static TRI_APPLY: Kernel = crate::kernel!("level3/tri_solve.frag").defines(
    "#define STEP 64\n#define APPLY 1\n#define NB 64\n#define EVERY_LANE 0\n#define COLS 1",
);
/// Columns of W a fragment of [`TRI_APPLY_IMAGE`] solves (`COLS` in its defines), and
/// texels of the block's rows (`TEXELS`: 4 rows each). On the H100 (session 26) 4 columns of
/// 2 texels beat 8 of 1 (strsm 4096's inverse products 5.14 against 6.81 ms, 1024's 447-451
/// against 487-493 us): a fragment's W texel serves both of its texels, and W's fetches
/// spread over a warp's columns where the inverse's are shared. 8 of 2 (13.1 ms) and 2 of 4
/// (23.7 ms) lose; before session 26, 8 of 1 beat 4 and 16 of 1 (8.6, 9.0, 36.6 ms).
const APPLY_IMAGE_COLS: usize = 4;
/// See [`APPLY_IMAGE_COLS`].
const APPLY_IMAGE_TEXELS: usize = 2;
/// [`TRI_APPLY`] on GPUs with image stores: a fragment applies [`APPLY_IMAGE_TEXELS`] texels
/// of rows of the inverse to [`APPLY_IMAGE_COLS`] columns of W and writes them through image
/// stores.
static TRI_APPLY_IMAGE: Kernel = crate::kernel!("level3/tri_solve.frag")
    .defines(
        "#define STEP 64\n#define APPLY 1\n#define NB 64\n#define EVERY_LANE 0\n#define COLS 4\n#define TEXELS 2",
    )
    .image_stores();
/// [`TRI_APPLY_IMAGE`] writing the solved rows into the strip kernels' op(B) quads of all of
/// W's rows (`PACKED_W`), which the solve's updates read (no pack of W's rows for each
/// update), and into W's next texture, which W takes when the solve is done (no copy of
/// each block into W).
static TRI_APPLY_PACKED: Kernel = crate::kernel!("level3/tri_solve.frag")
    .defines(
        "#define STEP 64\n#define APPLY 1\n#define NB 64\n#define EVERY_LANE 0\n#define COLS 4\n#define TEXELS 2\n#define PACKED_W 1",
    )
    .image_stores();
/// W's rows copied back from the quads [`TRI_APPLY_PACKED`] wrote, for an update that does
/// not run on the strip kernels (which read the quads) and so reads them from W.
static TRI_UNPACK: Kernel = crate::kernel!("level3/tri_unpack.frag").image_stores();
/// [`TRI_APPLY`] with every fragment substituting and choosing its result, for software
/// devices (Mesa's softpipe goes wrong where only some fragments of a quad substitute).
static TRI_APPLY_EVERY_LANE: Kernel = crate::kernel!("level3/tri_solve.frag").defines(
    "#define STEP 64\n#define APPLY 1\n#define NB 64\n#define EVERY_LANE 1\n#define COLS 1",
);

/// The kernels of this family.
pub(crate) const KERNELS: [&Kernel; 8] = [
    &TRI_BLOCK,
    &TRI_BLOCK_IMAGE,
    &TRI_SOLVE,
    &TRI_APPLY,
    &TRI_APPLY_IMAGE,
    &TRI_APPLY_PACKED,
    &TRI_UNPACK,
    &TRI_APPLY_EVERY_LANE,
];

/// Rows of a diagonal block of a product: a lane of `tri_block.frag` sums at most this many
/// terms, and inside these blocks strmm follows reference's zero tests. The rest of T is
/// one sgemm (`Terms`), whose strips take the terms of a draw's 32 rows at once, so 32 is
/// the smallest block the strip kernel of 4 strips a draw can bound; a multiple of 16 (the
/// tile kernels' rows). Products of at most [`MUL_ONE_PASS`] rows are one block.
const MUL_BASE: usize = 32;
/// Orders of a product that run as a single diagonal block: one pass, every term by
/// reference's zero tests.
const MUL_ONE_PASS: usize = 64;
// The default kernels bound their sums over these blocks (`GemmKernel::bounds_terms`: a
// draw of Strip4 is 32 rows, a tile 8 or 16), and a one-pass product holds a whole block.
const _: () = assert!(MUL_BASE.is_multiple_of(32) && MUL_ONE_PASS >= MUL_BASE);
/// Levels of a product (`plan::product_levels`) whose blocks have at most this many rows run
/// as one pass of `tri_block.frag` over all their pairs of blocks; larger ones as an sgemm
/// a pair.
const GRID_MAX_H: usize = 64;
/// Rows of a diagonal block of a solve: a lane runs a substitution of at most this many rows
/// (the STEP of `tri_solve.frag`), so its work grows with the square of it. On the H100,
/// 16 beats 32 and 64 (`bench-results/h100-level3-block-sweep.txt`).
const SOLVE_BASE: usize = 16;
/// Updates summing at most this many rows run as one pass of `tri_block.frag` (no packing,
/// no merge), longer ones as sgemm calls: on the H100 an sgemm call of 32 x 4096 x 32 costs
/// 0.3 ms, and the pass beats it at 32 rows but not at 64
/// (`bench-results/h100-level3-block-sweep2.txt`: strsm 4096 at 552, 527 and 513 GFLOP/s
/// with 32, 0 and 64).
const BLOCK_MAX_K: usize = 32;

/// Which of the summed rows a block product keeps (`part` of `tri_block.frag`).
#[derive(Clone, Copy)]
enum Part {
    /// All of them: an off-diagonal block.
    All = 0,
    /// l >= r: a diagonal block of an upper T.
    Upper = 1,
    /// l <= r: a diagonal block of a lower T.
    Lower = 2,
}

/// Where a pass of `tri_block.frag` writes.
#[derive(Clone, Copy)]
enum Dest<'a> {
    /// A new texture shaped like c's, c pitched.
    Pitched(&'a Surface),
    /// c's own texture through image stores: its window from element `off`, leading
    /// dimension `ld` (both multiples of 4); elements outside the block keep their values.
    InPlace { off: usize, ld: usize },
}

/// What a call's panels share: its left form, the diagonal, and `Ts` with its leading
/// dimension.
struct Tri<'a> {
    form: LeftForm,
    diag: Diag,
    ts: &'a Buffer,
    ldt: usize,
    /// A as the caller stored it, with its leading dimension.
    a: (&'a Buffer, usize),
    /// The sgemm products read T off A itself, and `ts` holds only T's diagonal blocks
    /// (all the other passes read): see [`Tri::t_operand`].
    t_from_a: bool,
}

impl Tri<'_> {
    /// The texels of a pitched matrix of `cols` columns that hold rows `[r0, r1)`.
    fn rows_rect(r0: usize, r1: usize, cols: usize) -> Rect {
        let x0 = r0 / 4;
        ((x0) as u32, 0, (r1.div_ceil(4) - x0) as u32, cols as u32)
    }

    /// Rows `out` of `c` (pitched, `cols` columns) get `alpha*T(out, from)*W(from) +
    /// beta*c`, W read from `w` (`Src::C`: c itself). With `shared` (T as op(A), see
    /// [`Tri::shared_t`]) an sgemm update reads its block of T from the one pack of T.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        ctx: &Context,
        (out, from): ((usize, usize), (usize, usize)),
        (w, ldw): (Src, usize),
        cols: usize,
        (alpha, beta): (f32, f32),
        c: &mut Buffer,
        shared: Option<&mut SharedA>,
    ) -> Result<()> {
        if from.1 - from.0 <= BLOCK_MAX_K && !self.t_from_a {
            let w = match w {
                Src::Buf(b) => Some(b),
                Src::C => None,
            };
            let whole = (Part::All, 0);
            return self.block_pass(ctx, (out, from), whole, (alpha, beta), w, cols, c);
        }
        let s = self.update_shape((out, from), ldw, cols);
        match shared {
            Some(t) => ctx.gemm_block(&s, t, (out.0, from.0), alpha, w, beta, c),
            None => {
                let t = Src::Buf(self.t_buffer());
                ctx.gemm_shape_with(GemmKernel::Auto, &s, alpha, t, w, beta, c)
            }
        }
    }

    /// The sgemm of [`Tri::update`]: rows `out` of W (leading dimension `ldw`, `cols`
    /// columns) from T's block in those rows and the columns `from`, times W's rows `from`.
    fn update_shape(
        &self,
        (out, from): ((usize, usize), (usize, usize)),
        ldw: usize,
        cols: usize,
    ) -> GemmShape {
        GemmShape::block(
            (out.1 - out.0, cols, from.1 - from.0),
            self.t_operand(out.0, from.0),
            Operand::at(from.0, ldw, false),
            ldw,
            out.0,
            Window::Full,
        )
    }

    /// T from row `r` and column `l` as an sgemm's op(A): `Ts^T` (T = Ts^T), or with
    /// `t_from_a` read off A where it lies (Ts is A^T with `expand_trans`, else A, so T is
    /// A or A^T). The products that read T so take only blocks off its diagonal (bounded
    /// sums, or a solve's updates), all inside the stored triangle: the other triangle
    /// and a unit diagonal are never summed.
    fn t_operand(&self, r: usize, l: usize) -> Operand {
        let (ld, t_is_a) = if self.t_from_a {
            (self.a.1, self.form.expand_trans)
        } else {
            (self.ldt, false)
        };
        if t_is_a {
            Operand::at(r + l * ld, ld, false)
        } else {
            Operand::at(l + r * ld, ld, true)
        }
    }

    /// The buffer [`Tri::t_operand`] reads.
    fn t_buffer(&self) -> &Buffer {
        if self.t_from_a {
            self.a.0
        } else {
            self.ts
        }
    }

    /// T as the op(A) of the updates of a solve on `cols` columns, packed once for all of
    /// them where they run on the strip kernels ([`Context::gemm_block`]): on the H100 one
    /// pack of T cost less than the updates' packs of their blocks (BENCHMARKS.md session
    /// 27).
    fn shared_t(&self, cols: usize, ldw: usize) -> SharedA<'_> {
        SharedA::new(self.whole_product(cols, ldw), self.t_buffer())
    }

    /// The sgemm shape of all of `T*W` (op(A) = Ts^T) into a pitched matrix of `cols`
    /// columns with W's leading dimension `ldw`.
    fn whole_product(&self, cols: usize, ldw: usize) -> GemmShape {
        let order = self.form.order;
        GemmShape::block(
            (order, cols, order),
            self.t_operand(0, 0),
            Operand::at(0, ldw, false),
            ldw,
            0,
            Window::Full,
        )
    }

    /// Rows `rows` of `c` (pitched, `cols` columns) get `alpha*T(rows, from)*W(from) +
    /// beta*c` over the `part` of the terms, in one pass of `tri_block.frag` over their
    /// texels; W is `w` (`None`: c itself). With `grid` > 0, the grid mode of
    /// [`Tri::grid_pass`] instead.
    #[allow(clippy::too_many_arguments)]
    fn block_pass(
        &self,
        ctx: &Context,
        (rows, from): ((usize, usize), (usize, usize)),
        (part, grid): (Part, usize),
        (alpha, beta): (f32, f32),
        w: Option<&Buffer>,
        cols: usize,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let l = c.layout();
        let out = inner.take_surface(l.width, l.height)?;
        let rect = Self::rows_rect(rows.0, rows.1, cols);
        {
            let cr: &Buffer = c;
            let w = w.unwrap_or(cr);
            let dest = Dest::Pitched(&out);
            self.draw_block(
                ctx,
                (rows, from),
                (part, grid),
                (alpha, beta),
                w,
                cols,
                cr,
                dest,
            )?;
        }
        install(inner, c, out, rect)
    }

    /// The draw of [`Tri::block_pass`] (`Dest::Pitched`: into `out`, a texture shaped like
    /// c's) or of [`Tri::multiply_into`]'s diagonal blocks (`Dest::InPlace`: into c's own
    /// texture, c any matrix whose window's offset and leading dimension are multiples of
    /// 4; image stores only).
    #[allow(clippy::too_many_arguments)]
    fn draw_block(
        &self,
        ctx: &Context,
        (rows, from): ((usize, usize), (usize, usize)),
        (part, grid): (Part, usize),
        (alpha, beta): (f32, f32),
        w: &Buffer,
        cols: usize,
        c: &Buffer,
        dest: Dest,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let image = inner.image_store_paths;
        let prog = inner.program(if image { &TRI_BLOCK_IMAGE } else { &TRI_BLOCK })?;
        let rect = Self::rows_rect(rows.0, rows.1, cols);
        {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            gl.set_texture(&prog, "w", 0, w.surface());
            gl.set_texture(&prog, "ts", 1, self.ts.surface());
            gl.set_texture(&prog, "c", 2, c.surface());
            gl.set_i32(&prog, "r0", rows.0 as i32);
            gl.set_i32(&prog, "r1", rows.1 as i32);
            gl.set_i32(&prog, "l0", from.0 as i32);
            gl.set_i32(&prog, "l1", from.1 as i32);
            gl.set_i32(&prog, "part", part as i32);
            gl.set_f32(&prog, "alpha", alpha);
            gl.set_f32(&prog, "beta", beta);
            gl.set_i32(&prog, "skip_w", self.form.skip_w as i32);
            gl.set_i32(&prog, "skip_t", self.form.skip_t as i32);
            gl.set_i32(&prog, "grid", grid as i32);
            gl.set_i32(&prog, "lower_t", self.form.lower as i32);
            gl.set_i32(&prog, "order", self.form.order as i32);
            let c_width = c.layout().width as i32;
            let (target, (c_off4, ldc4), in_place) = match dest {
                Dest::Pitched(out) => (out, (0, c_width), false),
                Dest::InPlace { off, ld } => {
                    (c.surface(), ((off / 4) as i32, (ld / 4) as i32), true)
                }
            };
            if image {
                // Every texel of the rectangle written: x0 + g.x, the columns from
                // g.y * BLOCK_IMAGE_COLS.
                gl.set_i32(&prog, "x0", rect.0 as i32);
                gl.set_i32(&prog, "cols", cols as i32);
                gl.set_i32(&prog, "c_off4", c_off4);
                gl.set_i32(&prog, "ldc4", ldc4);
                gl.set_i32(&prog, "c_width", c_width);
                gl.set_i32(&prog, "in_place", in_place as i32);
                let rows_of_fragments = cols.div_ceil(BLOCK_IMAGE_COLS) as u32;
                gl.draw_image_stores(&[target], rect.2, rows_of_fragments);
            } else {
                debug_assert!(!in_place, "in-place block passes need image stores");
                gl.draw_rects(&[target], &[rect], |_| {});
            }
        }
        Ok(())
    }

    /// One pass of `tri_block.frag` in grid mode over every row of `c`: with `part` Upper
    /// or Lower, every diagonal block of `grid` rows; with `All`, level `grid` of the
    /// product (`plan::level_updates`). W is `w`.
    fn grid_pass(
        &self,
        ctx: &Context,
        (part, grid): (Part, usize),
        scalars: (f32, f32),
        w: &Buffer,
        cols: usize,
        c: &mut Buffer,
    ) -> Result<()> {
        let rows = (0, self.form.order);
        self.block_pass(ctx, (rows, rows), (part, grid), scalars, Some(w), cols, c)
    }

    /// `B := alpha*T*W` straight into the caller's B, whose window for these `cols`
    /// columns starts at element `off` with leading dimension `ldb` (both multiples of 4):
    /// the diagonal blocks as one in-place pass of `tri_block.frag` (reading them from
    /// `Ts`, of which only they need be expanded), then the rest of T as one sgemm on B's
    /// window with bounded sums that reads T off A where it lies: the terms
    /// [`Tri::multiply`] forms, without the pitched result and its copy into B, and
    /// without expanding T. The caller checks the rest (image stores, B's alignment:
    /// `straight` in `tri_checked`); `Ok(false)`, with nothing drawn, where the sgemm
    /// kernel cannot bound its sums.
    #[allow(clippy::too_many_arguments)]
    fn multiply_into(
        &self,
        ctx: &Context,
        (w, ldw): (&Buffer, usize),
        cols: usize,
        alpha: f32,
        b: &mut Buffer,
        (off, ldb): (usize, usize),
    ) -> Result<bool> {
        let order = self.form.order;
        debug_assert!(
            ctx.inner.image_store_paths && ldb.is_multiple_of(4) && off.is_multiple_of(4)
        );
        let diag = if self.form.lower {
            Part::Lower
        } else {
            Part::Upper
        };
        let in_place = Dest::InPlace { off, ld: ldb };
        let rows = (0, order);
        if order <= MUL_ONE_PASS {
            let grid = (diag, MUL_ONE_PASS);
            self.draw_block(ctx, (rows, rows), grid, (alpha, 0.0), w, cols, b, in_place)?;
            return Ok(true);
        }
        // With t_from_a the sgemm reads T off A where it lies (its bounded sums take only
        // the blocks off T's diagonal).
        let whole = GemmShape {
            ldc: ldb,
            c_off: off,
            ..self.whole_product(cols, ldw)
        };
        let t = self.t_buffer();
        let kernel = ctx.auto_kernel(&whole, t, w, b)?;
        if !kernel.bounds_terms(MUL_BASE) {
            return Ok(false);
        }
        let grid = (diag, MUL_BASE);
        self.draw_block(ctx, (rows, rows), grid, (alpha, 0.0), w, cols, b, in_place)?;
        let terms = if self.form.lower {
            Terms::Before(MUL_BASE)
        } else {
            Terms::After(MUL_BASE)
        };
        let s = GemmShape { terms, ..whole };
        ctx.gemm_shape_with(kernel, &s, alpha, Src::Buf(t), Src::Buf(w), 1.0, b)?;
        Ok(true)
    }

    /// `T*W` into a new pitched matrix: every diagonal block of [`MUL_BASE`] rows in one
    /// pass (all of T up to [`MUL_ONE_PASS`] rows), then the rest of T. Where the sgemm
    /// kernel bounds its sums (`GemmKernel::bounds_terms`), the rest is one sgemm over all of
    /// T whose rows take only the terms of T's blocks off the diagonal (`Terms`); elsewhere
    /// the levels of the halving (`plan::product_levels`), each level of at most [`GRID_MAX_H`] rows a block
    /// in one pass, larger ones an sgemm a pair of blocks. Both form the same terms.
    fn multiply(&self, ctx: &Context, w: &Buffer, ldw: usize, cols: usize) -> Result<Buffer> {
        debug_assert!(!self.t_from_a, "the pitched product reads all of Ts");
        let order = self.form.order;
        let (mut out, _) = pitched(ctx, order, cols)?;
        let diag = if self.form.lower {
            Part::Lower
        } else {
            Part::Upper
        };
        if order <= MUL_ONE_PASS {
            self.grid_pass(ctx, (diag, MUL_ONE_PASS), (1.0, 0.0), w, cols, &mut out)?;
            return Ok(out);
        }
        self.grid_pass(ctx, (diag, MUL_BASE), (1.0, 0.0), w, cols, &mut out)?;
        // T (op(A) = Ts^T) times W, added to the diagonal blocks' products; the kernel is
        // the one sgemm chooses for the whole product.
        let whole = self.whole_product(cols, ldw);
        let kernel = ctx.auto_kernel(&whole, self.ts, w, &out)?;
        if kernel.bounds_terms(MUL_BASE) {
            let terms = if self.form.lower {
                Terms::Before(MUL_BASE)
            } else {
                Terms::After(MUL_BASE)
            };
            let s = GemmShape { terms, ..whole };
            let (t, w) = (Src::Buf(self.ts), Src::Buf(w));
            ctx.gemm_shape_with(kernel, &s, 1.0, t, w, 1.0, &mut out)?;
            return Ok(out);
        }
        for h in product_levels(order, MUL_BASE) {
            if h <= GRID_MAX_H {
                self.grid_pass(ctx, (Part::All, h), (1.0, 1.0), w, cols, &mut out)?;
                continue;
            }
            for step in level_updates(order, h, self.form.lower) {
                if let Step::Update { out: o, from } = step {
                    let w = (Src::Buf(w), ldw);
                    self.update(ctx, (o, from), w, cols, (1.0, 1.0), &mut out, None)?;
                }
            }
        }
        Ok(out)
    }

    /// Every diagonal block of T on the grid of [`SOLVE_BLOCK`] rows inverted, in one pass
    /// (`level2::trsv`'s: T is the transpose of Ts, a full matrix with a leading dimension
    /// that is a multiple of 4).
    fn invert(&self, ctx: &Context) -> Result<Surface> {
        let uplo_s = if self.form.lower {
            Uplo::Upper
        } else {
            Uplo::Lower
        };
        let ts = Matrix::square(
            Storage::Full { lda: self.ldt },
            Shape::Triangular(uplo_s, self.diag),
            self.form.order,
        );
        invert_blocks(ctx, &ts, self.ts, true)
    }

    /// `T^-1*W` in place: by substitution on blocks of [`SOLVE_BASE`] rows, or (with
    /// `ContextOptions::inverse_solves`, at least two blocks) by the inverses of blocks of
    /// [`SOLVE_BLOCK`].
    fn solve(&self, ctx: &Context, w: &mut Buffer, ldw: usize, cols: usize) -> Result<()> {
        let inner = &ctx.inner;
        let order = self.form.order;
        let inv = if inner.inverse_solves && order > SOLVE_BLOCK {
            Some(self.invert(ctx)?)
        } else {
            None
        };
        // Softpipe (no image stores) needs every lane to substitute; a device with image
        // stores takes four columns of 8 rows a fragment.
        let image = inv.is_some() && inner.image_store_paths;
        let (base, kernel) = match inv {
            Some(_) if image => (SOLVE_BLOCK, &TRI_APPLY_IMAGE),
            Some(_) if ctx.info().software => (SOLVE_BLOCK, &TRI_APPLY_EVERY_LANE),
            Some(_) => (SOLVE_BLOCK, &TRI_APPLY),
            None => (SOLVE_BASE, &TRI_SOLVE),
        };
        // Where the strip kernels make the updates, the applies write W's solved rows as
        // their op(B) quads (`TRI_APPLY_PACKED`), which the updates read with no pack of
        // their own, and into W's next texture, which W takes at the end (every texel of
        // W's rows is written): no copy of each block into W. On the H200 (BENCHMARKS.md
        // session 35) strsm 1024's GPU time went from 2085-2153 to 1709-1714 us, 4096's
        // from 62.5 to 60.4 ms.
        let (qw, qh) = quads_size(cols, order);
        let max = inner.info.max_texture_size;
        let packed = image
            && qw <= max
            && qh <= max
            && TRI_APPLY_PACKED.runs_on(&inner.info)
            && TRI_UNPACK.runs_on(&inner.info);
        let l = w.layout();
        let quads = match packed {
            true => Some((
                inner.take_surface(qw, qh)?,
                inner.take_surface(l.width, l.height)?,
            )),
            false => None,
        };
        let mut shared = self.shared_t(cols, ldw);
        let steps = (base, kernel);
        let solved = self.solve_steps(
            ctx,
            (w, ldw, cols),
            steps,
            inv.as_ref(),
            (&mut shared, quads.as_ref().map(|(q, n)| (q, n))),
        );
        if let Some((q, next)) = quads {
            inner.give_surface(q);
            match solved {
                Ok(()) => inner.give_surface(w.replace_surface(next)),
                Err(_) => inner.give_surface(next),
            }
        }
        shared.release(ctx);
        if let Some(inv) = inv {
            inner.give_surface(inv);
        }
        solved
    }

    /// Makes `prog` (a kernel of `tri_solve.frag`) current with what every pass of it reads
    /// for the diagonal block of rows `[r0, r1)` of `w`: W, Ts, the block and the solve's
    /// form (direction, diagonal, reference's zero tests and division).
    fn set_block_solve(&self, gl: &Gl, prog: &Program, w: &Buffer, (r0, r1): (usize, usize)) {
        gl.use_program(prog);
        gl.set_texture(prog, "w", 0, w.surface());
        gl.set_texture(prog, "ts", 1, self.ts.surface());
        gl.set_i32(prog, "r0", r0 as i32);
        gl.set_i32(prog, "r1", r1 as i32);
        gl.set_i32(prog, "forward", self.form.lower as i32);
        gl.set_i32(prog, "unit_diag", (self.diag == Diag::Unit) as i32);
        gl.set_i32(prog, "skip_w", self.form.skip_w as i32);
        gl.set_i32(prog, "skip_t", self.form.skip_t as i32);
        gl.set_i32(prog, "recip", self.form.recip as i32);
    }

    /// Rows `[r0, r1)` of W (`cols` columns; r0 a multiple of 4) copied back from `quads`,
    /// where [`TRI_APPLY_PACKED`] wrote them.
    fn unpack(
        &self,
        ctx: &Context,
        quads: &Surface,
        w: &Buffer,
        (r0, r1): (usize, usize),
        cols: usize,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let prog = inner.program(&TRI_UNPACK)?;
        let rect = Self::rows_rect(r0, r1, cols);
        let gl = inner.enter()?;
        gl.use_program(&prog);
        gl.set_texture(&prog, "w", 0, w.surface());
        gl.set_texture(&prog, "wp", 1, quads);
        gl.set_i32(&prog, "x0", rect.0 as i32);
        gl.set_i32(&prog, "r1", r1 as i32);
        gl.set_i32(&prog, "cols", cols as i32);
        gl.draw_image_stores(&[w.surface()], rect.2, cols.div_ceil(4) as u32);
        Ok(())
    }

    /// The steps of [`Tri::solve`]'s plan on blocks of `base` rows, each diagonal block one
    /// pass of `kernel` (with `inv`, the blocks' inverses), each update an sgemm on
    /// `shared` T. With `quads` (the quads and W's next texture), each block by
    /// [`TRI_APPLY_PACKED`] into both, and each update reading its rows of W from the quads
    /// (where a strip kernel makes it; elsewhere they are copied back into W first); the
    /// caller then gives W the next texture.
    fn solve_steps(
        &self,
        ctx: &Context,
        (w, ldw, cols): (&mut Buffer, usize, usize),
        (base, kernel): (usize, &Kernel),
        inv: Option<&Surface>,
        (shared, quads): (&mut SharedA, Option<(&Surface, &Surface)>),
    ) -> Result<()> {
        let inner = &ctx.inner;
        let image = inv.is_some() && inner.image_store_paths;
        for step in solve_plan(self.form.order, base, self.form.lower) {
            match step {
                Step::Base(r0, r1) => {
                    let prog = inner.program(match quads {
                        Some(_) => &TRI_APPLY_PACKED,
                        None => kernel,
                    })?;
                    let rect = Self::rows_rect(r0, r1, cols);
                    // Where the block goes: the quads and W's next texture, or a scratch
                    // texture copied into W after the draw (taken before the binding:
                    // making a texture binds it to the active unit).
                    let out = match quads {
                        Some(_) => None,
                        None => {
                            let l = w.layout();
                            Some(inner.take_surface(l.width, l.height)?)
                        }
                    };
                    let gl = inner.enter()?;
                    self.set_block_solve(gl, &prog, w, (r0, r1));
                    if let Some(inv) = inv {
                        gl.set_texture(&prog, "inv", 2, inv);
                    }
                    let texels = rect.2.div_ceil(APPLY_IMAGE_TEXELS as u32);
                    if let Some(out) = out {
                        if image {
                            // Every texel of the rectangle written (rows r0.. from texel x0).
                            gl.set_i32(&prog, "cols", cols as i32);
                            let rows_of_fragments = cols.div_ceil(APPLY_IMAGE_COLS) as u32;
                            gl.draw_image_stores(&[&out], texels, rows_of_fragments);
                        } else {
                            gl.draw_rects(&[&out], &[rect], |_| {});
                        }
                        install(inner, w, out, rect)?;
                    } else if let Some((q, next)) = quads {
                        // Every column group of the quads: those past cols get zeros.
                        gl.set_i32(&prog, "cols", cols as i32);
                        let groups = 4 * cols.div_ceil(16) as u32;
                        gl.draw_image_stores(&[next, q], texels, groups);
                    }
                }
                Step::Update { out, from } => {
                    if let Some((q, _)) = quads {
                        let s = self.update_shape((out, from), ldw, cols);
                        let b = (Src::C, q, from.0);
                        let at = (out.0, from.0);
                        if ctx.gemm_block_packed_b(&s, shared, at, -1.0, b, 1.0, w)? {
                            continue;
                        }
                        self.unpack(ctx, q, w, from, cols)?;
                    }
                    let w_at = (Src::C, ldw);
                    let t = Some(&mut *shared);
                    self.update(ctx, (out, from), w_at, cols, (-1.0, 1.0), w, t)?
                }
            }
        }
        Ok(())
    }
}

/// Column panels `[c0, c1)` of at most `max` columns covering `[0, n)`.
fn panels(n: usize, max: usize) -> impl Iterator<Item = (usize, usize)> {
    let max = max.max(1);
    (0..n.div_ceil(max)).map(move |p| (p * max, ((p + 1) * max).min(n)))
}

impl Context {
    /// strmm (`solve` false) or strsm after the checks.
    fn tri_checked(
        &self,
        call: &TriCall,
        alpha: f32,
        a: &Buffer,
        b: &mut Buffer,
        solve: bool,
    ) -> Result<()> {
        let (m, n, ldb) = (call.m, call.n, call.ldb);
        if alpha == 0.0 {
            return window_axpby(self, Win::full(m, n, ldb, 0), 0.0, None, 0.0, b);
        }
        let form = call.left_form();
        let stored = (call.uplo, Fill::Triangular(call.diag));
        // A product goes straight into B where it can (`Tri::multiply_into`): B's columns
        // aligned, W not B's transpose, image stores. Its passes read T's diagonal blocks
        // from the expansion and the rest from A itself, so only those blocks are expanded.
        let image = self.inner.image_store_paths;
        let straight = !solve && image && !form.w_trans && ldb.is_multiple_of(4);
        // A solve by inverted blocks with image stores (`Tri::solve`) reads T's diagonal
        // blocks from the expansion (the inversion, the applies) and its updates' blocks
        // off A: again only the diagonal blocks are expanded.
        let inverse = solve && image && self.inner.inverse_solves && form.order > SOLVE_BLOCK;
        let diagonal = if straight {
            Some(if form.order <= MUL_ONE_PASS {
                MUL_ONE_PASS
            } else {
                MUL_BASE
            })
        } else {
            inverse.then_some(SOLVE_BLOCK)
        };
        let order = form.order;
        let (ts, ldt) = expand(
            self,
            (a, call.lda),
            order,
            stored,
            form.expand_trans,
            diagonal,
        )?;
        let tri = Tri {
            form,
            diag: call.diag,
            ts: &ts,
            ldt,
            a: (a, call.lda),
            t_from_a: diagonal.is_some(),
        };
        // The whole expansion, where a straight product turns out not to apply.
        let mut whole_ts: Option<(Buffer, usize)> = None;
        let (scale_in, scale_out) = if solve { (alpha, 1.0) } else { (1.0, alpha) };
        let max = self.info().max_texture_size as usize;
        // (On an error the scratch buffers are dropped, which frees their textures.)
        for (c0, c1) in panels(form.rhs, max) {
            let cols = c1 - c0;
            // W := scale_in * (B or B^T), columns c0..c1 of it; `back` is where they go.
            let (src, back) = if form.w_trans {
                (
                    Operand::at(c0, ldb, true),
                    Win::full(cols, form.order, ldb, c0),
                )
            } else {
                let off = c0 * ldb;
                (
                    Operand::at(off, ldb, false),
                    Win::full(form.order, cols, ldb, off),
                )
            };
            let (mut w, ldw) = pitched(self, form.order, cols)?;
            let whole = Win::full(form.order, cols, ldw, 0);
            window_axpby(self, whole, scale_in, Some((b, src)), 0.0, &mut w)?;
            let result = if solve {
                tri.solve(self, &mut w, ldw, cols)?;
                w
            } else {
                // Straight into B, scaled by alpha, without a pitched result to copy back.
                if straight
                    && tri.multiply_into(self, (&w, ldw), cols, alpha, b, (back.off, back.ld))?
                {
                    release(self, w);
                    continue;
                }
                let r = if straight {
                    // The sgemm kernel cannot bound its sums: the whole of T expanded.
                    let e = match whole_ts.take() {
                        Some(e) => e,
                        None => {
                            expand(self, (a, call.lda), order, stored, form.expand_trans, None)?
                        }
                    };
                    let r = Tri {
                        ts: &e.0,
                        ldt: e.1,
                        t_from_a: false,
                        ..tri
                    }
                    .multiply(self, &w, ldw, cols);
                    whole_ts = Some(e);
                    r?
                } else {
                    tri.multiply(self, &w, ldw, cols)?
                };
                release(self, w);
                r
            };
            let op = Operand::at(0, ldw, form.w_trans);
            window_axpby(self, back, scale_out, Some((&result, op)), 0.0, b)?;
            release(self, result);
        }
        if let Some((t, _)) = whole_ts {
            release(self, t);
        }
        release(self, ts);
        Ok(())
    }

    /// The checks strmm and strsm share; `Ok(None)` for a quick return.
    #[allow(clippy::too_many_arguments)]
    fn tri_call_checked(
        &self,
        r: &'static str,
        layout: Layout,
        (side, uplo, transa, diag): (Side, Uplo, Transpose, Diag),
        (m, n): (i32, i32),
        alpha: f32,
        (a, lda): (&Buffer, i32),
        (b, ldb): (&Buffer, i32),
    ) -> Result<Option<TriCall>> {
        let call = tri_call(r, layout, side, uplo, transa, diag, m, n, lda, ldb)?;
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        if call.quick_return() {
            return Ok(None);
        }
        call.check_lengths(r, alpha, a.len(), b.len())?;
        Ok(Some(call))
    }

    /// `B := alpha*op(A)*B` (`Side::Left`, A `m x m`) or `B := alpha*B*op(A)`
    /// (`Side::Right`, A `n x n`) for a triangular A of which only the `uplo` triangle is
    /// read (with `Diag::Unit`, not its diagonal, taken as ones); B is `m x n` (CBLAS
    /// `strmm` on device buffers).
    ///
    /// Reference semantics: `m == 0` or `n == 0` return at once; `alpha == 0` sets B's
    /// window to 0 without reading A or B; nothing outside B's window is written.
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Side, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// // A = [1 2; 0 3], upper triangle stored (the NaN is never read).
    /// let a = ctx.upload(&[1.0, f32::NAN, 2.0, 3.0])?;
    /// let mut b = ctx.upload(&[1.0, 1.0])?; // 2x1
    /// ctx.strmm(Layout::ColMajor, Side::Left, Uplo::Upper, NoTrans, Diag::NonUnit, 2, 1, 1.0, &a, 2, &mut b, 2)?;
    /// assert_eq!(b.to_vec()?, vec![3.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn strmm(
        &self,
        layout: Layout,
        side: Side,
        uplo: Uplo,
        transa: Transpose,
        diag: Diag,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &mut Buffer,
        ldb: i32,
    ) -> Result<()> {
        const R: &str = "strmm";
        let modes = (side, uplo, transa, diag);
        if let Some(call) =
            self.tri_call_checked(R, layout, modes, (m, n), alpha, (a, lda), (b, ldb))?
        {
            self.tri_checked(&call, alpha, a, b, false)?;
            self.inner.enter()?.check(R)?;
        }
        Ok(())
    }

    /// Solves `op(A)*X = alpha*B` (`Side::Left`, A `m x m`) or `X*op(A) = alpha*B`
    /// (`Side::Right`, A `n x n`) for X, which overwrites B (`m x n`), for a triangular A of
    /// which only the `uplo` triangle is read (with `Diag::Unit`, not its diagonal) (CBLAS
    /// `strsm` on device buffers).
    ///
    /// Reference semantics as [`Context::strmm`]; a singular A is not an error: the
    /// solution holds the Inf and NaN reference's substitution gives.
    ///
    /// ```
    /// use fragblas::{Context, Diag, Layout, Side, Transpose::NoTrans, Uplo};
    /// let ctx = Context::new()?;
    /// let a = ctx.upload(&[1.0, f32::NAN, 2.0, 4.0])?; // [1 2; 0 4], upper
    /// let mut b = ctx.upload(&[3.0, 4.0])?;
    /// ctx.strsm(Layout::ColMajor, Side::Left, Uplo::Upper, NoTrans, Diag::NonUnit, 2, 1, 1.0, &a, 2, &mut b, 2)?;
    /// assert_eq!(b.to_vec()?, vec![1.0, 1.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn strsm(
        &self,
        layout: Layout,
        side: Side,
        uplo: Uplo,
        transa: Transpose,
        diag: Diag,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &mut Buffer,
        ldb: i32,
    ) -> Result<()> {
        const R: &str = "strsm";
        let modes = (side, uplo, transa, diag);
        if let Some(call) =
            self.tri_call_checked(R, layout, modes, (m, n), alpha, (a, lda), (b, ldb))?
        {
            self.tri_checked(&call, alpha, a, b, true)?;
            self.inner.enter()?.check(R)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_counts_match_the_kernels_defines() {
        assert!(TRI_APPLY_IMAGE
            .defines
            .contains(&format!("#define TEXELS {APPLY_IMAGE_TEXELS}")));
        for (k, cols) in [
            (&TRI_BLOCK_IMAGE, BLOCK_IMAGE_COLS),
            (&TRI_APPLY_IMAGE, APPLY_IMAGE_COLS),
        ] {
            assert!(
                k.defines.contains(&format!("#define COLS {cols}")),
                "{}: {}",
                k.name,
                k.defines
            );
        }
    }

    #[test]
    fn panels_cover_the_columns() {
        assert_eq!(panels(0, 4).count(), 0);
        assert_eq!(
            panels(10, 4).collect::<Vec<_>>(),
            vec![(0, 4), (4, 8), (8, 10)]
        );
        assert_eq!(panels(8, 4).collect::<Vec<_>>(), vec![(0, 4), (4, 8)]);
        assert_eq!(Tri::rows_rect(32, 65, 7), (8, 0, 9, 7));
        // The solve kernel's arrays hold a diagonal block.
        assert!(TRI_SOLVE
            .defines
            .contains(&format!("#define STEP {SOLVE_BASE}")));
        // The inverse path's blocks are level 2's, and its substitution covers one.
        assert!(TRI_APPLY
            .defines
            .contains(&format!("#define STEP {SOLVE_BLOCK}")));
        assert!(TRI_APPLY
            .defines
            .contains(&format!("#define NB {SOLVE_BLOCK}")));
        assert_eq!(
            TRI_APPLY.defines.replace("EVERY_LANE 0", "EVERY_LANE 1"),
            TRI_APPLY_EVERY_LANE.defines
        );
    }
}
