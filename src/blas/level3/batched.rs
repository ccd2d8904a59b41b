//! Batched sgemm: many products of one shape in one draw. `sgemm_batched_strided` takes one
//! buffer each for A, B and C with a fixed distance between consecutive matrices (cuBLAS's
//! `cublasSgemmStridedBatched`); `sgemm_batched` takes slices of buffers (cuBLAS's
//! `cublasSgemmBatched`), stacks them into one texture each with a copy per buffer, runs the
//! strided product and copies the C's back (`batched_slices.rs`). Small matrices, where one sgemm call costs far
//! more in passes and uniforms than in arithmetic, are the point: 1000 products of 64x64 are
//! one draw (`gemm_batched.frag`).
//!
//! Semantics per product are sgemm's (reference BLAS): `alpha == 0` or `k == 0` read no A or
//! B, `beta == 0` reads no C, nothing outside each C's window is written. A stride of 0 for A
//! or B reuses one matrix in every product; the C's must not overlap (an error naming
//! `stride_c`), and strides are not negative.

use crate::blas::level3::gemm::kernel::WINDOW_GLSL;
use crate::blas::level3::gemm::passes::{
    pack_quads, set_window, PackedStrips, PRODUCTS, STRIP_BLOCKS,
};
use crate::blas::level3::gemm::plan::{StripPlan, STRIP_BAND, STRIP_BLOCK_BYTES, STRIP_KC};
use crate::blas::level3::gemm::shape::{gemm_shape, GemmShape};
use crate::blas::level3::gemm::shape::{Operand, Window};
use crate::blas::passes::{in_spans, GENERIC_SPAN};
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::{Error, Result};
use crate::gl::{Gl, Program};

/// Every product of a batch in one pass.
static GEMM_BATCHED: Kernel = crate::kernel!("level3/gemm_batched.frag");
/// Every product of a batch in tiles of 8 x 4, to 8 targets.
static GEMM_BATCHED_TILE: Kernel = crate::kernel!("level3/gemm_batched_tile.frag")
    .defines("#define IMAGE 0\n#define COLS 4")
    .targets(8);
/// The tiles into C.
static GEMM_BATCHED_MERGE: Kernel = crate::kernel!("level3/gemm_batched_merge.frag");
/// Columns of a tile of [`GEMM_BATCHED_TILE_IMAGE`] (`COLS` in its defines). On the H100 4
/// beats 8 (1000 x 64^3: 1.12 against 1.25 ms; 100 x 256^3: 5.9 against 6.6 ms).
const IMAGE_TILE_COLS: usize = 4;
/// Every product of a batch in tiles of 8 x [`IMAGE_TILE_COLS`], each written into C
/// through image stores (no targets, no merge).
static GEMM_BATCHED_TILE_IMAGE: Kernel = crate::kernel!("level3/gemm_batched_tile.frag")
    .defines("#define IMAGE 1\n#define COLS 4")
    .image_stores();

/// Strips (bands) a draw of [`GEMM_STRIP_BATCHED`] takes (`GROUP` in its defines). On the
/// H200 (100 x 256^3) 4 beat 8: its strip draws 3.45 against 3.55 ms (BENCHMARKS.md,
/// session 36), the uniform data a draw reads half as much.
const STRIP_GROUP: usize = 4;
/// Batched sgemm on the strip kernels (GPUs with image stores): sgemm's strip kernel in place
/// (`gemm_strip.frag`), each of a draw's bands a strip of 8 rows of any product of the
/// batch, op(A) of every product packed once into uniform blocks and op(B) into quads.
static GEMM_STRIP_BATCHED: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 4\n#define IN_PLACE 1\n#define STORE_TILE 1\n#define BATCHED 1")
    .header(WINDOW_GLSL)
    .blocks(STRIP_GROUP as u32, STRIP_BLOCK_BYTES)
    .image_stores();
/// The fewest columns a product takes the strip kernels with: a band of n/4 fragments, a
/// draw of [`STRIP_GROUP`] bands (narrower products leave each draw too few fragments; the
/// tile kernel takes them).
const STRIPS_MIN_N: usize = 128;

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 5] = [
    &GEMM_BATCHED,
    &GEMM_BATCHED_TILE,
    &GEMM_BATCHED_MERGE,
    &GEMM_BATCHED_TILE_IMAGE,
    &GEMM_STRIP_BATCHED,
];

/// Rows and columns of a tile of the tiled path's render-target form.
const TILE: (usize, usize) = (8, 4);
/// Fragments a row of the tiled path's grid.
const GRID_WIDTH: usize = 1024;

/// The grid of the tiled path (`gemm_batched_tile.frag`): rows of tiles in a product, tiles
/// in a product, and the grid's width and height in fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiling {
    pub tm: usize,
    pub tiles: usize,
    pub width: usize,
    pub height: usize,
}

const STRIDED: &str = "sgemm_batched_strided";
pub(crate) const SLICES: &str = "sgemm_batched";

/// A batched call in column-major form: the shape of each product, the distances between
/// consecutive matrices (in the column-major call's order: A and B exchanged for a
/// row-major call) and the number of products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Batch {
    pub s: GemmShape,
    pub stride_a: usize,
    pub stride_b: usize,
    pub stride_c: usize,
    pub count: usize,
}

/// Renames an sgemm argument error for a batched routine: its name and the positions of
/// its parameters (`ldb`, `ldc` and the rest).
pub(crate) fn renamed(e: Error, routine: &'static str, positions: &[(&str, u32)]) -> Error {
    match e {
        Error::InvalidArgument {
            param,
            position,
            reason,
            ..
        } => Error::InvalidArgument {
            routine,
            param,
            position: positions
                .iter()
                .find(|(p, _)| *p == param)
                .map_or(position, |&(_, pos)| pos),
            reason,
        },
        e => e,
    }
}

/// The argument rules of `sgemm_batched_strided` in order: sgemm's (lda at CBLAS position
/// 9, ldb 12, ldc 16), then the strides (10, 13, 17: not negative, and C's at least one C's
/// span when there is more than one product) and the count (18, not negative).
#[allow(clippy::too_many_arguments)]
pub(crate) fn strided_call(
    layout: Layout,
    (transa, transb): (Transpose, Transpose),
    (m, n, k): (i32, i32, i32),
    (lda, stride_a): (i32, i64),
    (ldb, stride_b): (i32, i64),
    (ldc, stride_c): (i32, i64),
    count: i32,
) -> Result<Batch> {
    let positions = [("ldb", 12), ("ldc", 16)];
    let s = gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc)
        .map_err(|e| renamed(e, STRIDED, &positions))?;
    let stride = |name: &'static str, pos: u32, v: i64| -> Result<usize> {
        usize::try_from(v)
            .ok()
            .filter(|&v| v <= i32::MAX as usize)
            .ok_or_else(|| {
                crate::blas::args::invalid(
                    STRIDED,
                    name,
                    pos,
                    format!("{v} is negative or too large"),
                )
            })
    };
    let (sa, sb) = (
        stride("stride_a", 10, stride_a)?,
        stride("stride_b", 13, stride_b)?,
    );
    let sc = stride("stride_c", 17, stride_c)?;
    if count < 0 {
        return Err(crate::blas::args::invalid(
            STRIDED,
            "batch_count",
            18,
            format!("{count} is negative"),
        ));
    }
    if count > 1 && sc < s.c_span() {
        return Err(crate::blas::args::invalid(
            STRIDED,
            "stride_c",
            17,
            format!(
                "{sc} is less than the {} elements one C spans: the C's overlap",
                s.c_span()
            ),
        ));
    }
    // In column-major form A and B are the user's B and A for a row-major call.
    let (stride_a, stride_b) = if s.swapped { (sb, sa) } else { (sa, sb) };
    Ok(Batch {
        s,
        stride_a,
        stride_b,
        stride_c: sc,
        count: count as usize,
    })
}

impl Batch {
    /// Nothing to do: no product, or sgemm's quick return.
    pub(crate) fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.count == 0 || self.s.quick_return(alpha, beta)
    }

    /// Elements the buffers of the column-major call (A, B, C) span over the batch: the
    /// last matrix's start plus one matrix's span; none for A and B when they are not read.
    pub(crate) fn spans(&self, alpha: f32) -> [usize; 3] {
        let last = self.count.saturating_sub(1);
        let product = alpha != 0.0 && self.s.k > 0;
        let span = |stride: usize, one: usize, read: bool| {
            if read {
                last * stride + one
            } else {
                0
            }
        };
        [
            span(self.stride_a, self.s.a_span(), product),
            span(self.stride_b, self.s.b_span(), product),
            span(self.stride_c, self.s.c_span(), true),
        ]
    }

    /// Checks the user's A, B and C (lengths in the user's order) against the spans.
    pub(crate) fn check_lengths(
        &self,
        routine: &'static str,
        alpha: f32,
        lens: [usize; 3],
    ) -> Result<()> {
        let [a, b, c] = self.spans(alpha);
        let (ua, ub) = if self.s.swapped { (b, a) } else { (a, b) };
        for (param, needed, len) in [("a", ua, lens[0]), ("b", ub, lens[1]), ("c", c, lens[2])] {
            if needed > len {
                return Err(Error::TooShort {
                    routine,
                    param,
                    needed,
                    len,
                });
            }
        }
        Ok(())
    }

    /// Whether the fast paths of the kernel apply (see `gemm_batched.frag`).
    fn quads(&self) -> (bool, bool) {
        let s = &self.s;
        let four = |v: usize| v.is_multiple_of(4);
        let quad_a = !s.a.trans
            && [s.m, s.a.ld, s.ldc, self.stride_a, self.stride_c]
                .into_iter()
                .all(four);
        let quad_b = quad_a && !s.b.trans && four(s.b.ld) && four(self.stride_b);
        (quad_a, quad_b)
    }

    /// The tiled path's grid for tiles of 8 x `cols`, where it applies: a product to form
    /// (`k` from 1 to one span of the one-pass kernel), both quad cases, a grid that fits in
    /// `max_texture` rows.
    pub(crate) fn tiling(&self, product: bool, cols: usize, max_texture: usize) -> Option<Tiling> {
        let s = &self.s;
        let (quad_a, quad_b) = self.quads();
        if !(product && quad_a && quad_b && s.k <= GENERIC_SPAN) {
            return None;
        }
        let tm = s.m.div_ceil(TILE.0);
        let tiles = tm * s.n.div_ceil(cols);
        let total = tiles.checked_mul(self.count)?;
        let width = total.clamp(1, GRID_WIDTH);
        let height = total.div_ceil(width).max(1);
        (height <= max_texture).then_some(Tiling {
            tm,
            tiles,
            width,
            height,
        })
    }

    /// Whether the strip kernels can take the batch ([`GEMM_STRIP_BATCHED`]): the tiled path's
    /// quad case with a product to form, at least [`STRIPS_MIN_N`] columns (a multiple of
    /// 16: a product's quads of op(B) start on a quad), k a multiple of 4 and no more than a
    /// chunk, and the batch's A (B) one matrix of `count*k` terms (`count*n` columns): A_p
    /// (B_p) right after the one before it, or one for all. (Where k does not divide a
    /// chunk, [`Batch::strip_piece`] keeps each product's terms inside one.)
    pub(crate) fn on_strips(&self, product: bool) -> bool {
        let s = &self.s;
        let (quad_a, quad_b) = self.quads();
        let one = self.count == 1;
        product
            && quad_a
            && quad_b
            && s.n >= STRIPS_MIN_N
            && s.n.is_multiple_of(16)
            && s.k.is_multiple_of(4)
            && s.k <= STRIP_KC
            && (one || self.stride_a == 0 || self.stride_a == s.a.ld * s.k)
            && (one || self.stride_b == 0 || self.stride_b == s.b.ld * s.n)
    }

    /// Products a piece of a batch on the strip kernels ([`Batch::on_strips`]) holds so that
    /// its packs fit textures of `max` texels a side (op(A)'s pack draws a row of fragments a
    /// term; the quads are two texels a quad of columns wide; the blocks a row a strip and
    /// chunk) and no product's terms cross a chunk of its piece's pack (the strip kernel
    /// reads one block a band): the whole batch where that holds, else the most products
    /// that fit whose terms fill whole chunks (k divides a chunk), or that lie in one chunk
    /// (it does not); `None` where not even one product fits.
    pub(crate) fn strip_piece(&self, max: usize) -> Option<usize> {
        let s = &self.s;
        let strips = s.m.div_ceil(8);
        let (own_a, own_b) = (self.stride_a != 0, self.stride_b != 0);
        let fits = |count: usize| {
            let ka = if own_a { count } else { 1 } * s.k;
            let nb = if own_b { count } else { 1 } * s.n;
            ka <= max && 2 * nb.div_ceil(16) <= max && strips * ka.div_ceil(STRIP_KC) <= max
        };
        // Products one after another whose terms meet a chunk's end inside one of them.
        let whole_chunks = STRIP_KC.is_multiple_of(s.k);
        let crosses = own_a && !whole_chunks && self.count * s.k > STRIP_KC;
        if fits(self.count) && !crosses {
            return Some(self.count);
        }
        let mut most = self.count;
        if own_a {
            most = most.min(max / s.k).min(max / strips * STRIP_KC / s.k);
        }
        if own_b {
            most = most.min(max / 2 * 16 / s.n);
        }
        if own_a && whole_chunks {
            // Whole chunks a piece: each piece's products lie in its chunks as in one pack.
            let step = STRIP_KC / s.k;
            most -= most % step;
        } else if own_a {
            // One chunk a piece.
            most = most.min(STRIP_KC / s.k);
        }
        (most > 0 && fits(most)).then_some(most)
    }

    /// Distinct A's of the batch (1 for a stride of 0).
    fn a_products(&self) -> usize {
        if self.stride_a == 0 {
            1
        } else {
            self.count
        }
    }

    /// Distinct B's of the batch.
    fn b_products(&self) -> usize {
        if self.stride_b == 0 {
            1
        } else {
            self.count
        }
    }

    /// C's distance between products as the kernels take it: with one product, its span (any
    /// stride past it keeps the products apart).
    fn c_stride(&self) -> usize {
        if self.count == 1 {
            self.s.c_span()
        } else {
            self.stride_c
        }
    }
}

/// Binds A and B and sets what both forms of `gemm_batched_tile.frag` read of them and of
/// the grid: the leading dimensions, the strides, the grid and the summed range (all of k).
fn set_tile_operands(gl: &Gl, p: &Program, bt: &Batch, t: &Tiling, (a, b): (&Buffer, &Buffer)) {
    let s = &bt.s;
    a.bind(gl, p, 0, "a", "a_width");
    b.bind(gl, p, 1, "b", "b_width");
    gl.set_i32(p, "lda", s.a.ld as i32);
    gl.set_i32(p, "stride_a", bt.stride_a as i32);
    gl.set_i32(p, "ldb", s.b.ld as i32);
    gl.set_i32(p, "stride_b", bt.stride_b as i32);
    set_grid(gl, p, bt, t);
    gl.set_i32(p, "k0", 0);
    gl.set_i32(p, "k1", s.k as i32);
}

/// The grid's uniforms of the tiled path's kernels.
fn set_grid(gl: &Gl, p: &Program, bt: &Batch, t: &Tiling) {
    gl.set_i32(p, "batch", bt.count as i32);
    gl.set_i32(p, "tm", t.tm as i32);
    gl.set_i32(p, "tiles", t.tiles as i32);
    gl.set_i32(p, "grid_width", t.width as i32);
}

impl Context {
    /// The batch in one pass per span of k (or two passes on the tiled path), after the
    /// checks; `a` and `b` in column-major order.
    pub(crate) fn batched(
        &self,
        bt: &Batch,
        alpha: f32,
        a: &Buffer,
        b: &Buffer,
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &self.inner;
        let s = &bt.s;
        let product = alpha != 0.0 && s.k > 0;
        let info = self.info();
        let max = info.max_texture_size as usize;
        if inner.image_store_paths {
            if bt.on_strips(product) && self.batched_strips(bt, alpha, (a, b), beta, c)? {
                return Ok(());
            }
            if let Some(t) = bt.tiling(product, IMAGE_TILE_COLS, max) {
                return self.batched_tiled_in_place(bt, &t, alpha, (a, b), beta, c);
            }
        } else if info.max_draw_buffers >= 8 {
            if let Some(t) = bt.tiling(product, TILE.1, max) {
                return self.batched_tiled(bt, &t, alpha, (a, b), beta, c);
            }
        }
        let prog = inner.program(&GEMM_BATCHED)?;
        let (k, alpha) = if product { (s.k, alpha) } else { (0, 0.0) };
        let (quad_a, quad_b) = bt.quads();
        let stride_c = bt.c_stride();
        let cl = c.layout();
        let out = in_spans(inner, k, (cl.width, cl.height), |gl, prev, k0, k1, out| {
            gl.use_program(&prog);
            a.bind(gl, &prog, 0, "a", "a_width");
            b.bind(gl, &prog, 1, "b", "b_width");
            match prev {
                None => c.bind(gl, &prog, 2, "c", "c_width"),
                Some(p) => {
                    gl.set_texture(&prog, "c", 2, p);
                    gl.set_i32(&prog, "c_width", cl.width as i32);
                }
            }
            gl.set_i32(&prog, "lda", s.a.ld as i32);
            gl.set_i32(&prog, "a_trans", s.a.trans as i32);
            gl.set_i32(&prog, "stride_a", bt.stride_a as i32);
            gl.set_i32(&prog, "ldb", s.b.ld as i32);
            gl.set_i32(&prog, "b_trans", s.b.trans as i32);
            gl.set_i32(&prog, "stride_b", bt.stride_b as i32);
            gl.set_i32(&prog, "ldc", s.ldc as i32);
            gl.set_i32(&prog, "stride_c", stride_c as i32);
            gl.set_i32(&prog, "m", s.m as i32);
            gl.set_i32(&prog, "n", s.n as i32);
            gl.set_i32(&prog, "batch", bt.count as i32);
            gl.set_i32(&prog, "k0", k0 as i32);
            gl.set_i32(&prog, "k1", k1 as i32);
            gl.set_i32(&prog, "quad_a", quad_a as i32);
            gl.set_i32(&prog, "quad_b", quad_b as i32);
            gl.set_f32(&prog, "alpha", alpha);
            gl.set_f32(&prog, "beta", if prev.is_some() { 1.0 } else { beta });
            gl.draw(&[out], cl.width, cl.height);
        })?;
        inner.give_surface(c.replace_surface(out));
        Ok(())
    }

    /// The tiled path on GPUs with image stores: every product's tiles of 8 x
    /// [`IMAGE_TILE_COLS`] written into C where they lie, in one pass.
    fn batched_tiled_in_place(
        &self,
        bt: &Batch,
        t: &Tiling,
        alpha: f32,
        (a, b): (&Buffer, &Buffer),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &self.inner;
        let s = &bt.s;
        let prog = inner.program(&GEMM_BATCHED_TILE_IMAGE)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        set_tile_operands(gl, &prog, bt, t, (a, b));
        c.bind(gl, &prog, 2, "c", "c_width");
        gl.set_i32(&prog, "ldc", s.ldc as i32);
        gl.set_i32(&prog, "stride_c", bt.c_stride() as i32);
        gl.set_i32(&prog, "m", s.m as i32);
        gl.set_i32(&prog, "n", s.n as i32);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_f32(&prog, "beta", beta);
        gl.draw_image_stores(&[c.surface()], t.width as u32, t.height as u32);
        Ok(())
    }

    /// The batch on the strip kernels (see [`Batch::on_strips`]): every A_p packed once into
    /// the strip kernels' uniform blocks as one matrix of `count*k` terms, every B_p into
    /// one texture of quads of `count*n` columns, then draws of [`STRIP_GROUP`] strips of
    /// 8 rows, each strip a band of its own product, writing C in place. A batch whose packs
    /// would not fit the device's textures runs in pieces of as many products as fit, each
    /// packed and drawn in turn. `false` (nothing done) where even one product would not fit.
    fn batched_strips(
        &self,
        bt: &Batch,
        alpha: f32,
        (a, b): (&Buffer, &Buffer),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<bool> {
        let info = self.info();
        let Some(per) = bt.strip_piece(info.max_texture_size as usize) else {
            return Ok(false);
        };
        if !GEMM_STRIP_BATCHED.runs_on(info) || !self.inner.image_store_paths {
            return Ok(false);
        }
        for p0 in (0..bt.count).step_by(per) {
            let piece = Batch {
                count: per.min(bt.count - p0),
                ..*bt
            };
            let at = (p0 * bt.stride_a, p0 * bt.stride_b, p0 * bt.c_stride());
            self.strips_piece(&piece, at, alpha, (a, b), beta, c)?;
        }
        Ok(true)
    }

    /// [`Context::batched_strips`] on one piece of a batch: `bt` (its products) from
    /// elements `at` (A, B, C) of the buffers on.
    fn strips_piece(
        &self,
        bt: &Batch,
        (a_off, b_off, c_off): (usize, usize, usize),
        alpha: f32,
        (a, b): (&Buffer, &Buffer),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &self.inner;
        let s = &bt.s;
        let info = self.info();
        let (ka, nb) = (bt.a_products() * s.k, bt.b_products() * s.n);
        let strips = s.m.div_ceil(8);
        // The piece's A as one m x ka matrix, its B as one k x nb.
        let whole = GemmShape {
            k: ka,
            a: Operand::at(a_off, s.a.ld, false),
            ..*s
        };
        // (op(B)'s pack follows at once: its barrier orders both before the draws. The
        // device has image stores: Context::batched_strips checked.)
        let Some(packed) = PackedStrips::new(inner, &whole, a, true)? else {
            // (Not reached: Context::batched_strips checks for image stores.)
            return Err(Error::Unsupported(
                "batched strips without image stores".into(),
            ));
        };
        let quads = pack_quads(inner, b, Operand::at(b_off, s.b.ld, false), (s.k, nb))?;
        // Where each A_p's terms lie in the pack (Batch::strip_piece makes pieces whose
        // products each lie inside one chunk).
        let windows: Option<Vec<_>> = (0..bt.a_products())
            .map(|p| packed.window(s, (0, p * s.k)))
            .collect();
        let Some(windows) = windows else {
            inner.give_surface(quads);
            packed.release(inner);
            // (Not reached: Batch::strip_piece rules it out.)
            return Err(Error::Unsupported(
                "a batched product across a chunk".into(),
            ));
        };
        let align = info.uniform_buffer_offset_alignment.max(1) as usize;
        let plan = StripPlan::new(s, STRIP_GROUP, align);
        let units = bt.count * strips;
        let draws = units.div_ceil(STRIP_GROUP);
        let prog = inner.program(&GEMM_STRIP_BATCHED)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        gl.set_texture(&prog, "bt", 0, &quads);
        c.bind(gl, &prog, 1, "c", "c_width");
        gl.set_i32(&prog, "quads", plan.quads as i32);
        set_window(gl, &prog, (s.m, s.n), s.ldc, 0, Window::Full);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_f32(&prog, "beta", beta);
        // Every band's terms: k of them from its own first.
        gl.set_i32(&prog, "kc", s.k as i32);
        for (i, name) in STRIP_BLOCKS.iter().enumerate().take(STRIP_GROUP) {
            gl.set_block_binding(&prog, name, i as u32);
        }
        let rect = (
            0,
            0,
            plan.band_width as u32,
            (STRIP_GROUP * STRIP_BAND) as u32,
        );
        let rects = vec![rect; draws];
        let c_stride = bt.c_stride();
        gl.draw_image_store_rects(&[c.surface()], &rects, |d| {
            let mut row = [-1i32; STRIP_GROUP];
            let (mut l0, mut q0, mut c0) =
                ([0i32; STRIP_GROUP], [0; STRIP_GROUP], [0; STRIP_GROUP]);
            for g in 0..STRIP_GROUP {
                // A band past the last strip reads the first band's block and writes nothing.
                let u = (d * STRIP_GROUP + g).min(units - 1);
                let (p, strip) = (u / strips, u % strips);
                let (pa, pb) = (p.min(bt.a_products() - 1), p.min(bt.b_products() - 1));
                let w = windows[pa];
                packed.bind_block(gl, g as u32, w.strip0 + strip, w.chunk);
                if d * STRIP_GROUP + g < units {
                    row[g] = 8 * strip as i32;
                }
                l0[g] = w.shift as i32;
                q0[g] = (pb * s.n / 16) as i32;
                c0[g] = (c_off + p * c_stride) as i32;
            }
            gl.set_i32_array(&prog, "band_row", &row);
            gl.set_i32_array(&prog, "band_l0", &l0);
            gl.set_i32_array(&prog, "band_q0", &q0);
            gl.set_i32_array(&prog, "band_c", &c0);
        });
        inner.give_surface(quads);
        packed.release(inner);
        Ok(())
    }

    /// The tiled path: every product's tiles into 8 targets, then merged into C.
    fn batched_tiled(
        &self,
        bt: &Batch,
        t: &Tiling,
        alpha: f32,
        (a, b): (&Buffer, &Buffer),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &self.inner;
        let s = &bt.s;
        let (w, h) = (t.width as u32, t.height as u32);
        let mut prods = Vec::with_capacity(8);
        for _ in 0..8 {
            prods.push(inner.take_surface(w, h)?);
        }
        let prog = inner.program(&GEMM_BATCHED_TILE)?;
        {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            set_tile_operands(gl, &prog, bt, t, (a, b));
            let targets: Vec<&crate::gl::Surface> = prods.iter().collect();
            gl.draw(&targets, w, h);
        }
        let merge = inner.program(&GEMM_BATCHED_MERGE)?;
        let cl = c.layout();
        let out = inner.take_surface(cl.width, cl.height)?;
        {
            let gl = inner.enter()?;
            gl.use_program(&merge);
            for (i, (name, p)) in PRODUCTS.iter().zip(&prods).enumerate() {
                gl.set_texture(&merge, name, i as u32, p);
            }
            c.bind(gl, &merge, 8, "c", "c_width");
            gl.set_i32(&merge, "ldc", s.ldc as i32);
            gl.set_i32(&merge, "stride_c", bt.c_stride() as i32);
            gl.set_i32(&merge, "m", s.m as i32);
            gl.set_i32(&merge, "n", s.n as i32);
            set_grid(gl, &merge, bt, t);
            gl.set_f32(&merge, "alpha", alpha);
            gl.set_f32(&merge, "beta", beta);
            gl.draw(&[&out], cl.width, cl.height);
        }
        for p in prods {
            inner.give_surface(p);
        }
        inner.give_surface(c.replace_surface(out));
        Ok(())
    }

    /// `C_p := alpha*op(A_p)*op(B_p) + beta*C_p` for `p < batch_count`, where matrix `X_p`
    /// starts at element `p*stride_x` of buffer `x` (cuBLAS's `cublasSgemmStridedBatched`,
    /// with a layout as in CBLAS). All the products run in one draw (one per 8192 values of
    /// k).
    ///
    /// Each product has sgemm's semantics (see [`Context::sgemm_with`]). A stride of 0 for A
    /// or B uses one matrix in every product; the C's must not overlap (`stride_c` at least
    /// one C's span when `batch_count > 1`); strides are not negative. Errors name CBLAS-style
    /// positions: layout 1, transa 2, transb 3, m 4, n 5, k 6, alpha 7, a 8, lda 9,
    /// stride_a 10, b 11, ldb 12, stride_b 13, beta 14, c 15, ldc 16, stride_c 17,
    /// batch_count 18.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans};
    /// let ctx = Context::new()?;
    /// // Two 1x1 products: 2*3 and 4*5.
    /// let a = ctx.upload(&[2.0, 4.0])?;
    /// let b = ctx.upload(&[3.0, 5.0])?;
    /// let mut c = ctx.zeros(2)?;
    /// ctx.sgemm_batched_strided(Layout::ColMajor, NoTrans, NoTrans, 1, 1, 1, 1.0, &a, 1, 1, &b, 1, 1, 0.0, &mut c, 1, 1, 2)?;
    /// assert_eq!(c.to_vec()?, vec![6.0, 20.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm_batched_strided(
        &self,
        layout: Layout,
        transa: Transpose,
        transb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        stride_a: i64,
        b: &Buffer,
        ldb: i32,
        stride_b: i64,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
        stride_c: i64,
        batch_count: i32,
    ) -> Result<()> {
        let bt = strided_call(
            layout,
            (transa, transb),
            (m, n, k),
            (lda, stride_a),
            (ldb, stride_b),
            (ldc, stride_c),
            batch_count,
        )?;
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        c.check_owner(self, "c")?;
        if bt.quick_return(alpha, beta) {
            return Ok(());
        }
        bt.check_lengths(STRIDED, alpha, [a.len(), b.len(), c.len()])?;
        let (ca, cb) = if bt.s.swapped { (b, a) } else { (a, b) };
        self.batched(&bt, alpha, ca, cb, beta, c)?;
        self.inner.enter()?.check(STRIDED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Transpose::*;

    fn pos(e: Error) -> (&'static str, &'static str, u32) {
        match e {
            Error::InvalidArgument {
                routine,
                param,
                position,
                ..
            } => (routine, param, position),
            e => panic!("{e:?}"),
        }
    }

    fn call(
        l: Layout,
        lds: (i32, i32, i32),
        strides: (i64, i64, i64),
        count: i32,
    ) -> Result<Batch> {
        strided_call(
            l,
            (NoTrans, NoTrans),
            (3, 4, 5),
            (lds.0, strides.0),
            (lds.1, strides.1),
            (lds.2, strides.2),
            count,
        )
    }

    #[test]
    fn rules_and_positions() {
        let b = call(ColMajor, (3, 5, 3), (15, 20, 12), 7).unwrap();
        assert_eq!(
            (b.stride_a, b.stride_b, b.stride_c, b.count),
            (15, 20, 12, 7)
        );
        assert_eq!(b.spans(1.0), [6 * 15 + 15, 6 * 20 + 20, 6 * 12 + 12]);
        assert_eq!(b.spans(0.0), [0, 0, 6 * 12 + 12]);
        let e = |r: Result<Batch>| pos(r.unwrap_err());
        assert_eq!(
            e(call(ColMajor, (2, 5, 3), (15, 20, 12), 7)),
            (STRIDED, "lda", 9)
        );
        assert_eq!(
            e(call(ColMajor, (3, 4, 3), (15, 20, 12), 7)),
            (STRIDED, "ldb", 12)
        );
        assert_eq!(
            e(call(ColMajor, (3, 5, 2), (15, 20, 12), 7)),
            (STRIDED, "ldc", 16)
        );
        assert_eq!(
            e(call(ColMajor, (3, 5, 3), (-1, 20, 12), 7)),
            (STRIDED, "stride_a", 10)
        );
        assert_eq!(
            e(call(ColMajor, (3, 5, 3), (15, -1, 12), 7)),
            (STRIDED, "stride_b", 13)
        );
        assert_eq!(
            e(call(ColMajor, (3, 5, 3), (15, 20, -1), 7)),
            (STRIDED, "stride_c", 17)
        );
        assert_eq!(
            e(call(ColMajor, (3, 5, 3), (15, 20, 12), -1)),
            (STRIDED, "batch_count", 18)
        );
        // Overlapping C's; one product may have any stride, A and B may repeat.
        assert_eq!(
            e(call(ColMajor, (3, 5, 3), (15, 20, 11), 2)),
            (STRIDED, "stride_c", 17)
        );
        assert!(call(ColMajor, (3, 5, 3), (0, 0, 0), 1).is_ok());
        assert!(call(ColMajor, (3, 5, 3), (0, 0, 12), 3).is_ok());
        // Row-major: A and B exchange places, strides with them.
        let b = call(RowMajor, (5, 4, 4), (15, 20, 12), 2).unwrap();
        assert_eq!((b.stride_a, b.stride_b), (20, 15));
        assert!(b
            .check_lengths(STRIDED, 1.0, [15 + 15, 20 + 20, 12 + 12])
            .is_ok());
        assert!(b
            .check_lengths(STRIDED, 1.0, [15 + 14, 20 + 20, 12 + 12])
            .is_err());
    }

    #[test]
    fn strips_take_wide_products_of_contiguous_or_shared_operands() {
        let nn = (NoTrans, NoTrans);
        let batch = |(m, n, k): (i32, i32, i32), (sa, sb): (i64, i64), count: i32| {
            let lds = (m.max(1), k.max(1), m.max(1));
            strided_call(
                ColMajor,
                nn,
                (m, n, k),
                (lds.0, sa),
                (lds.1, sb),
                (lds.2, (m * n) as i64),
                count,
            )
            .unwrap()
        };
        // 100 x 256^3, A's and B's one after another, or one A or B for all.
        let b = batch((256, 256, 256), (65536, 65536), 100);
        assert!(b.on_strips(true));
        assert!(!b.on_strips(false));
        assert!(batch((256, 256, 256), (0, 65536), 100).on_strips(true));
        assert!(batch((256, 256, 256), (65536, 0), 100).on_strips(true));
        // Gaps between the A's (or B's): not one matrix.
        assert!(!batch((256, 256, 256), (65540, 65536), 100).on_strips(true));
        assert!(!batch((256, 256, 256), (65536, 65540), 100).on_strips(true));
        // One product: any strides.
        assert!(batch((256, 256, 256), (65540, 65540), 1).on_strips(true));
        // Too narrow, not a multiple of 16 columns, k not a multiple of 4 or past a chunk.
        assert!(!batch((64, 64, 64), (4096, 4096), 1000).on_strips(true));
        assert!(!batch((64, 136, 64), (4096, 64 * 136), 10).on_strips(true));
        assert!(!batch((64, 128, 62), (64 * 62, 62 * 128), 10).on_strips(true));
        assert!(!batch((8, 128, 2052), (8 * 2052, 2052 * 128), 1).on_strips(true));
        // k not dividing a chunk (260): taken, in pieces (Batch::strip_piece).
        assert!(batch((8, 128, 260), (8 * 260, 260 * 128), 8).on_strips(true));
        // m not a multiple of 4 (no quad case).
        assert!(!batch((6, 128, 8), (48, 1024), 4).on_strips(true));
    }

    #[test]
    fn strip_batches_too_long_for_one_pack_run_in_pieces_of_whole_chunks() {
        let nn = (NoTrans, NoTrans);
        let batch = |(m, n, k): (i32, i32, i32), (sa, sb): (i64, i64), count: i32| {
            strided_call(
                ColMajor,
                nn,
                (m, n, k),
                (m, sa),
                (k, sb),
                (m, (m * n) as i64),
                count,
            )
            .unwrap()
        };
        // Fits whole: 100 x 256 terms in textures of 32768.
        assert_eq!(
            batch((256, 256, 256), (65536, 65536), 100).strip_piece(32768),
            Some(100)
        );
        // 80 x 256 terms past 16384 (llvmpipe): 64 products a piece, 8 to a chunk.
        assert_eq!(
            batch((8, 128, 256), (2048, 32768), 80).strip_piece(16384),
            Some(64)
        );
        // 400 x 128^3 past 32768 terms: 256 a piece (16 to a chunk), the quads 4096 wide.
        let b = batch((128, 128, 128), (16384, 16384), 400);
        assert_eq!(b.strip_piece(32768), Some(256));
        // Each piece within every limit; a piece one chunk larger past one of them.
        for (b, max) in [(b, 32768), (batch((8, 128, 256), (2048, 32768), 80), 16384)] {
            let per = b.strip_piece(max).unwrap();
            let (k, n) = (b.s.k, b.s.n);
            assert!(per * k <= max && 2 * (per * n).div_ceil(16) <= max);
            assert_eq!((per * k) % STRIP_KC, 0);
            assert!((per + STRIP_KC / k) * k > max);
        }
        // One A for all, many B's: the quads' width decides (16384 / 2 * 16 / 256 = 512).
        assert_eq!(
            batch((8, 256, 64), (0, 64 * 256), 5000).strip_piece(16384),
            Some(512)
        );
        // k not dividing a chunk: the whole batch while its terms stay inside one chunk
        // (7 x 260 = 1820), else pieces of one chunk (the 8th A would cross 2048); one A
        // for all never crosses.
        let k260 = |count| batch((8, 128, 260), (8 * 260, 260 * 128), count);
        assert_eq!(k260(7).strip_piece(16384), Some(7));
        assert_eq!(k260(8).strip_piece(16384), Some(7));
        assert_eq!(k260(100).strip_piece(16384), Some(7));
        let shared = batch((8, 128, 260), (0, 260 * 128), 100);
        assert_eq!(shared.strip_piece(16384), Some(100));
        // 150 x 192^3: 10 products to a chunk (1920 terms).
        let k192 = batch((192, 192, 192), (192 * 192, 192 * 192), 150);
        assert_eq!(k192.strip_piece(32768), Some(10));
        // Not even one product: strips of one chunk past the texture's rows.
        assert_eq!(
            batch((8 * 20000, 128, 4), (0, 0), 2).strip_piece(16384),
            None
        );
    }

    #[test]
    fn the_batched_strip_kernel_matches_its_group() {
        let group = format!("#define GROUP {STRIP_GROUP}");
        assert!(GEMM_STRIP_BATCHED.defines.contains(&group));
        assert_eq!(GEMM_STRIP_BATCHED.uniform_blocks as usize, STRIP_GROUP);
    }

    #[test]
    fn image_tile_columns_match_the_kernel() {
        let cols = format!("#define COLS {IMAGE_TILE_COLS}");
        assert!(GEMM_BATCHED_TILE_IMAGE.defines.contains(&cols));
        assert!(GEMM_BATCHED_TILE
            .defines
            .contains(&format!("#define COLS {}", TILE.1)));
    }

    #[test]
    fn fast_paths_need_multiples_of_four() {
        let b = call(ColMajor, (4, 8, 4), (16, 32, 16), 2);
        // m = 3 is not a multiple of 4.
        assert_eq!(b.unwrap().quads(), (false, false));
        let b = strided_call(
            ColMajor,
            (NoTrans, NoTrans),
            (4, 4, 8),
            (4, 32),
            (8, 32),
            (4, 16),
            3,
        )
        .unwrap();
        assert_eq!(b.quads(), (true, true));
        let b = strided_call(
            ColMajor,
            (NoTrans, Trans),
            (4, 4, 8),
            (4, 32),
            (4, 32),
            (4, 16),
            3,
        )
        .unwrap();
        assert_eq!(b.quads(), (true, false));
    }
}
