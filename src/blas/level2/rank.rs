//! The rank updates: sger (`A += alpha x y^T`), ssyr and sspr (`A += alpha x x^T`, one
//! triangle, full or packed storage), ssyr2 and sspr2 (`A += alpha x y^T + alpha y x^T`).
//! One kernel (`glsl/level2/rank.frag`) maps every element of A's storage back to its
//! (i, j) and updates the ones the definition touches; the gaps below the rows, the other
//! triangle and everything past the matrix keep their bits. Full storage whose leading
//! dimension is a multiple of 4 has its own kernel (`glsl/level2/rank_vec4.frag`) that
//! updates whole vec4 texels (four rows of a column) with one fetch of x per texel. Where
//! the context writes level 1 in place (image stores), A is updated in place, several
//! texels per fragment; else a new texture is rendered and replaces A's. In place, a packed
//! triangle has its own kernel (`glsl/level2/rank_packed.frag`): each fragment a run of
//! its texture row's texels, following the triangle's columns, with x's (and y's) four rows
//! of a texel one fetch from shifted copies of the vector (`glsl/level2/shifted.frag`).

use crate::blas::args::{check_inc, check_span, ld_at_least, non_negative, pass_inc};
use crate::blas::level2::matrix::{
    aligned_columns, check_matrix, col_major_uplo, Matrix, Shape, Storage,
};
use crate::blas::passes::VectorBlock;
use crate::blas::types::{Layout, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::Surface;

/// The most columns a row of the in-place vec4 kernel's grid holds to put columns that start
/// at the same place of A's texture rows in neighbouring grid rows; past it, rows as wide as
/// A's texture.
const RANK_GRID_MAX_COLUMNS: usize = 32;

/// Texels each fragment of the in-place element-by-element kernel updates (`PER` in its
/// defines).
const IMAGE_TEXELS_PER_FRAGMENT: u32 = 8;

/// Fragments of the in-place vec4 kernel a column aims at (see [`vec4_texels_per_fragment`]).
const VEC4_FRAGMENTS_PER_COLUMN: usize = 16;

/// The fewest texels of a column a fragment of the in-place vec4 kernel updates.
const VEC4_MIN_TEXELS_PER_FRAGMENT: usize = 8;

/// Texels of one column each fragment of the in-place vec4 kernel updates (`per` in the
/// kernel), for columns of `col_texels` texels: about [`VEC4_FRAGMENTS_PER_COLUMN`]
/// fragments a column, at least [`VEC4_MIN_TEXELS_PER_FRAGMENT`] texels each. Long runs
/// amortise what each fragment pays before its first store (its position, the column's
/// factor, a dependent fetch); on the H100 (session 17) sger 4096 ran at 48, 58, 61 and 63%
/// of the read ceiling with 8, 16, 32 and 64 texels a fragment, ssyr 29, 40, 48 and 51%.
pub(crate) fn vec4_texels_per_fragment(col_texels: usize) -> usize {
    col_texels
        .div_ceil(VEC4_FRAGMENTS_PER_COLUMN)
        .max(VEC4_MIN_TEXELS_PER_FRAGMENT)
}

/// Where a packed triangle's elements lie (`glsl/level2/packed.glsl`).
const PACKED_GLSL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/glsl/level2/packed.glsl"
));

/// Rendered: one texel of A per fragment.
static RANK: Kernel = crate::kernel!("level2/rank.frag")
    .defines("#define IMAGE 0")
    .header(PACKED_GLSL);
/// In place through image stores, [`IMAGE_TEXELS_PER_FRAGMENT`] texels per fragment.
static RANK_IMAGE: Kernel = crate::kernel!("level2/rank.frag")
    .defines("#define IMAGE 1\n#define PER 8")
    .header(PACKED_GLSL)
    .image_stores();

/// Full storage with `lda % 4 == 0`, rendered: one vec4 texel of A per fragment.
static RANK_VEC4: Kernel = crate::kernel!("level2/rank_vec4.frag").defines("#define IMAGE 0");
/// Full storage with `lda % 4 == 0`, in place: [`vec4_texels_per_fragment`] texels of one
/// column per fragment (sger).
static RANK_VEC4_IMAGE: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines("#define IMAGE 1\n#define TRIANGLE 0\n#define COLS 1")
    .image_stores();
/// [`RANK_VEC4_IMAGE`] for a triangle (ssyr): the texels wholly inside it skip the lane
/// masks.
static RANK_VEC4_TRIANGLE_IMAGE: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines("#define IMAGE 1\n#define TRIANGLE 1\n#define COLS 1\n#define KIND 1")
    .image_stores();
/// [`RANK_VEC4_TRIANGLE_IMAGE`] over two columns a fragment (ssyr2): each texel of x and y
/// is fetched once for both.
static RANK_VEC4_PAIRS_IMAGE: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines("#define IMAGE 1\n#define TRIANGLE 1\n#define COLS 2\n#define KIND 2")
    .image_stores();

/// [`RANK_VEC4_IMAGE`], [`RANK_VEC4_TRIANGLE_IMAGE`] and [`RANK_VEC4_PAIRS_IMAGE`] with x
/// (and y) from a storage buffer ([`VectorBlock`]): the texture unit fetches only A. On the
/// H200 at 4096 (BENCHMARKS.md session 40, GPU time) sger 438 -> 359 us, ssyr (upper) 224
/// -> 191, ssyr2 (upper) 287 -> 254.
static RANK_VEC4_IMAGE_BLOCKS: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines("#define IMAGE 1\n#define TRIANGLE 0\n#define COLS 1\n#define BLOCKS 1")
    .image_stores()
    .storage(1);
static RANK_VEC4_TRIANGLE_IMAGE_BLOCKS: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines(
        "#define IMAGE 1\n#define TRIANGLE 1\n#define COLS 1\n#define KIND 1\n#define BLOCKS 1",
    )
    .image_stores()
    .storage(1);
static RANK_VEC4_PAIRS_IMAGE_BLOCKS: Kernel = crate::kernel!("level2/rank_vec4.frag")
    .defines(
        "#define IMAGE 1\n#define TRIANGLE 1\n#define COLS 2\n#define KIND 2\n#define BLOCKS 1",
    )
    .image_stores()
    .storage(1);

/// Columns each fragment of the in-place vec4 kernel updates (`COLS` of the kernel
/// [`Rank::vec4_image_kernel`] gives). A rank-2 update fetches a texel of x and one of y
/// for each texel of A it updates; over two columns a fragment those fetches serve both.
/// On the H100 at 4096 (session 24, GPU time): ssyr2 328 -> 284 us with 2 columns (282
/// with 4), while ssyr went 248 -> 249 (258 with 4) and sger 438 -> 526 (630 with 4): for
/// them the one fetch of x saved is worth less than the wider spread of each warp's stores.
fn vec4_columns_per_fragment(rank: Rank) -> usize {
    match rank {
        Rank::Two => 2,
        Rank::General | Rank::One => 1,
    }
}

impl Rank {
    /// The in-place kernel of full storage with `lda % 4 == 0` for this update.
    fn vec4_image_kernel(self) -> &'static Kernel {
        match self {
            Rank::General => &RANK_VEC4_IMAGE,
            Rank::One => &RANK_VEC4_TRIANGLE_IMAGE,
            Rank::Two => &RANK_VEC4_PAIRS_IMAGE,
        }
    }

    /// [`Rank::vec4_image_kernel`] reading x (and y) from a [`VectorBlock`].
    fn vec4_image_blocks_kernel(self) -> &'static Kernel {
        match self {
            Rank::General => &RANK_VEC4_IMAGE_BLOCKS,
            Rank::One => &RANK_VEC4_TRIANGLE_IMAGE_BLOCKS,
            Rank::Two => &RANK_VEC4_PAIRS_IMAGE_BLOCKS,
        }
    }
}

/// A packed triangle (sspr), in place: [`packed_texels_per_fragment`] texels a fragment,
/// the update (`kind`) a uniform.
static RANK_PACKED_IMAGE: Kernel = crate::kernel!("level2/rank_packed.frag")
    .header(PACKED_GLSL)
    .image_stores();

/// [`RANK_PACKED_IMAGE`] for sspr2, its update fixed when the program is built (`KIND`):
/// in the H200's benchmark table (session 42) sspr2 4096 386-400 us with it, 396-416
/// without, while sspr 4096 ran 323-334 us with `KIND` 1 and 290-304 without (so sspr
/// keeps [`RANK_PACKED_IMAGE`]).
static RANK_PACKED_TWO_IMAGE: Kernel = crate::kernel!("level2/rank_packed.frag")
    .defines("#define KIND 2")
    .header(PACKED_GLSL)
    .image_stores();

/// [`RANK_PACKED_IMAGE`] with the shifted copies from a storage buffer ([`VectorBlock`]):
/// on the H200 at 4096, sspr 384 -> 376 us, sspr2 564 -> 502 (GPU time of the draw).
static RANK_PACKED_IMAGE_BLOCKS: Kernel = crate::kernel!("level2/rank_packed.frag")
    .defines("#define BLOCKS 1")
    .header(PACKED_GLSL)
    .image_stores()
    .storage(1);

/// [`RANK_PACKED_TWO_IMAGE`] with the shifted copies from a storage buffer.
static RANK_PACKED_TWO_IMAGE_BLOCKS: Kernel = crate::kernel!("level2/rank_packed.frag")
    .defines("#define BLOCKS 1\n#define KIND 2")
    .header(PACKED_GLSL)
    .image_stores()
    .storage(1);

/// The shifted copies of x (and y) the packed kernel reads ([`RankCall::shifted_copies`]).
static SHIFTED: Kernel = crate::kernel!("level2/shifted.frag");

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 14] = [
    &RANK_PACKED_IMAGE_BLOCKS,
    &RANK_PACKED_TWO_IMAGE_BLOCKS,
    &SHIFTED,
    &RANK_VEC4_TRIANGLE_IMAGE,
    &RANK_VEC4_PAIRS_IMAGE,
    &RANK_VEC4_IMAGE_BLOCKS,
    &RANK_VEC4_TRIANGLE_IMAGE_BLOCKS,
    &RANK_VEC4_PAIRS_IMAGE_BLOCKS,
    &RANK,
    &RANK_IMAGE,
    &RANK_VEC4,
    &RANK_VEC4_IMAGE,
    &RANK_PACKED_IMAGE,
    &RANK_PACKED_TWO_IMAGE,
];

/// Which update (`kind` in the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rank {
    /// `A += alpha x y^T` (sger).
    General = 0,
    /// `A += alpha x x^T` on a triangle (ssyr, sspr).
    One = 1,
    /// `A += alpha (x y^T + y x^T)` on a triangle (ssyr2, sspr2).
    Two = 2,
}

/// A rank-update call in column-major form: the matrix, which update, and whether the
/// user's x and y trade places (a row-major sger).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RankCall {
    pub a: Matrix,
    pub rank: Rank,
    pub swap_xy: bool,
}

/// sger's argument rules in reference order (m 2, n 3, incx 6, incy 8, lda 10, at their
/// CBLAS positions). A row-major call is the column-major call of the transpose: m and n,
/// x and y trade places, and errors name the user's own parameter.
pub(crate) fn ger_call(
    layout: Layout,
    m: i32,
    n: i32,
    incx: i32,
    incy: i32,
    lda: i32,
) -> Result<RankCall> {
    const R: &str = "sger";
    let row = layout == Layout::RowMajor;
    let (rows, cols) = if row { (n, m) } else { (m, n) };
    let dims = if row {
        [("n", 3), ("m", 2)]
    } else {
        [("m", 2), ("n", 3)]
    };
    let incs = if row {
        [("incy", 8, incy), ("incx", 6, incx)]
    } else {
        [("incx", 6, incx), ("incy", 8, incy)]
    };
    non_negative(R, dims[0].0, dims[0].1, rows)?;
    non_negative(R, dims[1].0, dims[1].1, cols)?;
    for (name, pos, inc) in incs {
        check_inc(R, name, pos, inc)?;
    }
    ld_at_least(R, "lda", 10, lda, rows as i64)?;
    Ok(RankCall {
        a: Matrix {
            storage: Storage::Full { lda: lda as usize },
            shape: Shape::General,
            rows: rows as usize,
            cols: cols as usize,
        },
        rank: Rank::General,
        swap_xy: row,
    })
}

/// The argument rules of ssyr/sspr/ssyr2/sspr2 in reference order (n 3, incx 6, then incy
/// 8 for the rank-2 ones, then lda), with `lda` `None` for packed storage.
pub(crate) fn sym_rank_call(
    r: &'static str,
    layout: Layout,
    uplo: Uplo,
    n: i32,
    incx: i32,
    incy: Option<i32>,
    lda: Option<i32>,
) -> Result<RankCall> {
    non_negative(r, "n", 3, n)?;
    check_inc(r, "incx", 6, incx)?;
    if let Some(incy) = incy {
        check_inc(r, "incy", 8, incy)?;
    }
    let storage = match lda {
        Some(lda) => {
            ld_at_least(r, "lda", if incy.is_some() { 10 } else { 8 }, lda, n as i64)?;
            Storage::Full { lda: lda as usize }
        }
        None => Storage::Packed,
    };
    Ok(RankCall {
        a: Matrix::square(
            storage,
            Shape::Symmetric(col_major_uplo(layout, uplo)),
            n as usize,
        ),
        rank: if incy.is_some() { Rank::Two } else { Rank::One },
        swap_xy: false,
    })
}

impl RankCall {
    /// Logical lengths of the user's x and y (a row-major sger's x runs along the
    /// column-major columns).
    pub(crate) fn lens(&self) -> (usize, usize) {
        match (self.rank, self.swap_xy) {
            (Rank::General, false) => (self.a.rows, self.a.cols),
            (Rank::General, true) => (self.a.cols, self.a.rows),
            _ => (self.a.rows, self.a.rows),
        }
    }

    /// The update with every check, for the device API: owners, reference's quick return
    /// (an empty matrix or `alpha == 0`), lengths, then the pass. `y` is `None` for ssyr
    /// and sspr.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        ctx: &Context,
        r: &'static str,
        a_param: &'static str,
        alpha: f32,
        (x, incx): (&Buffer, i32),
        y: Option<(&Buffer, i32)>,
        a: &mut Buffer,
    ) -> Result<()> {
        x.check_owner(ctx, "x")?;
        if let Some((y, _)) = y {
            y.check_owner(ctx, "y")?;
        }
        a.check_owner(ctx, a_param)?;
        if self.a.rows == 0 || self.a.cols == 0 || alpha == 0.0 {
            return Ok(());
        }
        let (len_x, len_y) = self.lens();
        check_span(r, "x", x.len(), len_x as i32, incx)?;
        if let Some((y, incy)) = y {
            check_span(r, "y", y.len(), len_y as i32, incy)?;
        }
        check_matrix(r, a_param, &self.a, a.len())?;
        let x = (x, pass_inc(len_x as i32, incx));
        let y = y.map(|(y, incy)| (y, pass_inc(len_y as i32, incy)));
        // Column-major x and y: a row-major sger trades them.
        let (cx, cy) = match (y, self.swap_xy) {
            (Some(y), true) => (y, x),
            (Some(y), false) => (x, y),
            (None, _) => (x, x),
        };
        self.pass(ctx, alpha, cx, cy, a)?;
        ctx.inner.enter()?.check(r)
    }

    /// Whether A is in full storage with `lda % 4 == 0` (the kernels that update whole
    /// vec4 texels).
    fn vec4(&self) -> bool {
        matches!(self.a.storage, Storage::Full { lda } if lda.is_multiple_of(4))
    }

    /// The update pass, in place where the context writes level 1 in place.
    fn pass(
        &self,
        ctx: &Context,
        alpha: f32,
        (x, incx): (&Buffer, i32),
        (y, incy): (&Buffer, i32),
        a: &mut Buffer,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let in_place = inner.image_store_paths;
        let vec4 = self.vec4();
        let packed = matches!(self.a.storage, Storage::Packed);
        if packed && in_place {
            return self.packed_pass(ctx, alpha, (x, incx), (y, incy), a);
        }
        // x (and y for a rank-2 update) from a storage buffer where they have increment 1.
        let block = if vec4 && in_place && incx == 1 && (self.rank != Rank::Two || incy == 1) {
            let w = (self.rank == Rank::Two).then_some(y);
            let kernel = self.rank.vec4_image_blocks_kernel();
            VectorBlock::new_pair(inner, kernel, x, w, self.a.rows * self.a.cols)?
        } else {
            None
        };
        let drawn = self.draw(ctx, alpha, (x, incx), (y, incy), a, block.as_ref());
        if let Some(b) = block {
            b.release(inner);
        }
        drawn
    }

    /// [`RankCall::pass`]'s draw (full storage, or packed where the update renders a new
    /// texture), x (and y) from `block` if given.
    fn draw(
        &self,
        ctx: &Context,
        alpha: f32,
        (x, incx): (&Buffer, i32),
        (y, incy): (&Buffer, i32),
        a: &mut Buffer,
        block: Option<&VectorBlock>,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let in_place = inner.image_store_paths;
        let vec4 = self.vec4();
        let prog = inner.program(match (vec4, in_place, block) {
            (false, false, _) => &RANK,
            (false, true, _) => &RANK_IMAGE,
            (true, false, _) => &RANK_VEC4,
            (true, true, None) => self.rank.vec4_image_kernel(),
            (true, true, Some(_)) => self.rank.vec4_image_blocks_kernel(),
        })?;
        let l = a.layout();
        let span = self.a.span();
        let rows_used = (span.div_ceil(4)).div_ceil(l.width as usize) as u32;
        let out = if in_place {
            None
        } else {
            Some(inner.take_surface(l.width, l.height)?)
        };
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "a", "a_width");
        x.bind(gl, &prog, 1, "x", "x_width");
        y.bind(gl, &prog, 2, "y", "y_width");
        let (packed, lda) = match self.a.storage {
            Storage::Full { lda } => (0, lda),
            _ => (1, 0),
        };
        let upper = self.a.shape.upper();
        gl.set_i32(&prog, "is_packed", packed);
        gl.set_i32(&prog, "span", span as i32);
        gl.set_i32(&prog, "lda", lda as i32);
        gl.set_i32(&prog, "rows", self.a.rows as i32);
        gl.set_i32(&prog, "cols", self.a.cols as i32);
        gl.set_i32(&prog, "triangle", (self.rank != Rank::General) as i32);
        gl.set_i32(&prog, "upper", upper as i32);
        gl.set_i32(&prog, "kind", self.rank as i32);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_i32(&prog, "incx", incx);
        gl.set_i32(&prog, "incy", incy);
        gl.set_i32(&prog, "x_last", x.last_texel());
        gl.set_i32(&prog, "y_last", y.last_texel());
        match out {
            None if vec4 => {
                // Fragment f (row-major in a grid of rows of `groups` groups of `group`
                // columns) updates texels f % per_col + k*per_col of the columns of group
                // f / per_col. The fragments of a warp lie in a few neighbouring rows of the
                // grid; with rows of as many columns as lie between two that start at the
                // same place of A's texture rows, those grid rows update neighbouring rows
                // of the texture.
                let col_texels = self.a.rows.div_ceil(4);
                let per = vec4_texels_per_fragment(col_texels);
                let per_col = col_texels.div_ceil(per) as u32;
                let group = vec4_columns_per_fragment(self.rank);
                let total = per_col as usize * self.a.cols.div_ceil(group);
                let columns = aligned_columns(l.width as usize, lda / 4);
                let groups = (columns / group).max(1);
                let max = inner.info_max_texture() as usize;
                let row = per_col as usize * groups;
                let (gw, gh) =
                    if columns <= RANK_GRID_MAX_COLUMNS && row <= max && total.div_ceil(row) <= max
                    {
                        crate::layout::texel_rect(total, row as u32)
                    } else {
                        crate::layout::texel_rect(total, l.width)
                    };
                for (name, layout) in [
                    ("step_a", l),
                    ("step_x", x.layout()),
                    ("step_y", y.layout()),
                ] {
                    let (sx, sy) = layout.coord(per_col as usize);
                    gl.set_ivec2(&prog, name, [sx as i32, sy as i32]);
                }
                let (cx, cy) = l.coord(lda / 4);
                gl.set_ivec2(&prog, "step_col", [cx as i32, cy as i32]);
                gl.set_i32(&prog, "per", per as i32);
                gl.set_i32(&prog, "per_col", per_col as i32);
                gl.set_i32(&prog, "grid_width", gw as i32);
                if let Some(b) = block {
                    gl.set_i32(&prog, "y_base", b.second() as i32);
                    b.bind(gl);
                }
                gl.draw_image_stores(&[a.surface()], gw, gh);
            }
            None => {
                let gw = l.width.div_ceil(IMAGE_TEXELS_PER_FRAGMENT);
                gl.set_i32(&prog, "grid_width", gw as i32);
                gl.draw_image_stores(&[a.surface()], gw, rows_used);
            }
            Some(out) => {
                gl.draw(&[&out], l.width, l.height);
                inner.give_surface(a.replace_surface(out));
            }
        }
        Ok(())
    }
}

impl RankCall {
    /// sspr / sspr2 in place (`glsl/level2/rank_packed.frag`): fragment (x, y) updates the
    /// texels (x / RUN * RUN * per + x % RUN + k * RUN, y), k < per, of A's texture (RUN:
    /// [`PACKED_RUN`]), following the triangle's columns as it goes.
    fn packed_pass(
        &self,
        ctx: &Context,
        alpha: f32,
        (x, incx): (&Buffer, i32),
        (y, incy): (&Buffer, i32),
        a: &mut Buffer,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let xs = self.shifted_copies(ctx, (x, incx), (y, incy))?;
        let block = match VectorBlock::of_surfaces(
            inner,
            self.packed_kernel(true),
            &xs,
            None,
            self.a.cols * self.a.cols,
        ) {
            Ok(b) => b,
            Err(e) => {
                inner.give_surface(xs);
                return Err(e);
            }
        };
        let drawn = self.packed_draw(ctx, alpha, &xs, block.as_ref(), a);
        if let Some(b) = block {
            b.release(inner);
        }
        inner.give_surface(xs);
        drawn
    }

    /// The in-place packed kernel of this update, reading the shifted copies from a
    /// [`VectorBlock`] with `blocks`.
    fn packed_kernel(&self, blocks: bool) -> &'static Kernel {
        match (self.rank, blocks) {
            (Rank::Two, true) => &RANK_PACKED_TWO_IMAGE_BLOCKS,
            (Rank::Two, false) => &RANK_PACKED_TWO_IMAGE,
            (_, true) => &RANK_PACKED_IMAGE_BLOCKS,
            (_, false) => &RANK_PACKED_IMAGE,
        }
    }

    /// [`RankCall::packed_pass`]'s draw, the shifted copies `xs` read from `block` if given.
    fn packed_draw(
        &self,
        ctx: &Context,
        alpha: f32,
        xs: &Surface,
        block: Option<&VectorBlock>,
        a: &mut Buffer,
    ) -> Result<()> {
        let inner = &ctx.inner;
        let prog = inner.program(self.packed_kernel(block.is_some()))?;
        let l = a.layout();
        let span = self.a.span();
        let texels = span.div_ceil(4);
        let per = packed_texels_per_fragment(texels, l.width as usize);
        let gw = packed_grid_width(l.width as usize, per);
        let gh = texels.div_ceil(l.width as usize) as u32;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "a", "a_width");
        gl.set_texture(&prog, "xs", 1, xs);
        if let Some(b) = block {
            b.bind(gl);
        }
        gl.set_i32(&prog, "xs_shift", SHIFTED_WIDTH.trailing_zeros() as i32);
        gl.set_i32(&prog, "m", shifted_copy_texels(self.a.cols) as i32);
        gl.set_i32(&prog, "cols", self.a.cols as i32);
        gl.set_i32(&prog, "upper", self.a.shape.upper() as i32);
        gl.set_i32(&prog, "kind", self.rank as i32);
        gl.set_i32(&prog, "span", span as i32);
        gl.set_f32(&prog, "alpha", alpha);
        gl.set_i32(&prog, "per", per as i32);
        gl.set_i32(&prog, "run_shift", PACKED_RUN.trailing_zeros() as i32);
        gl.draw_image_stores(&[a.surface()], gw, gh);
        Ok(())
    }

    /// x's four shifted copies, then y's for sspr2 (`glsl/level2/shifted.frag`): copy s
    /// holds elements 4q+s..4q+s+3 in its texel q, so that the packed kernel reads any four
    /// consecutive rows of a column in one fetch (two texels of x otherwise: sspr 4096's
    /// kernel took 532 -> 499 us, sspr2's 895 -> 724 on the H100). The copies lie in a
    /// texture [`SHIFTED_WIDTH`] texels wide, copy s of x at texels s*m.., y's from 4m.
    fn shifted_copies(
        &self,
        ctx: &Context,
        (x, incx): (&Buffer, i32),
        (y, incy): (&Buffer, i32),
    ) -> Result<Surface> {
        let inner = &ctx.inner;
        let n = self.a.cols;
        let m = shifted_copy_texels(n);
        let vectors = if self.rank == Rank::Two { 2 } else { 1 };
        let texels = 4 * m * vectors;
        let (w, h) = (
            SHIFTED_WIDTH,
            texels.div_ceil(SHIFTED_WIDTH as usize) as u32,
        );
        let xs = inner.take_surface(w, h)?;
        let prog = inner.program(&SHIFTED)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        x.bind(gl, &prog, 0, "x", "x_width");
        y.bind(gl, &prog, 1, "y", "y_width");
        gl.set_i32(&prog, "incx", incx);
        gl.set_i32(&prog, "incy", incy);
        gl.set_i32(&prog, "n", n as i32);
        gl.set_i32(&prog, "m", m as i32);
        gl.set_i32(&prog, "vectors", vectors as i32);
        gl.set_i32(&prog, "out_width", w as i32);
        gl.draw(&[&xs], w, h);
        Ok(xs)
    }
}

/// Texels a row of the shifted copies' texture (a power of 2: the kernel shifts and masks):
/// a narrow 2D texture rather than one row. On the H100 (session 19) sspr 4096's kernel took
/// 444 us with the copies in one row, 419 with rows of 64 or 16 texels (sspr2 671 and 600).
const SHIFTED_WIDTH: u32 = 64;

/// Texels of one shifted copy of an n-vector: the last texel a run of four rows can start in
/// (element n - 4's) and its neighbour, with room for n < 4.
fn shifted_copy_texels(n: usize) -> usize {
    n.div_ceil(4) + 1
}

/// The most texels a fragment of the in-place packed kernel updates.
const PACKED_MAX_TEXELS_PER_FRAGMENT: usize = 64;

/// Fragments the in-place packed kernel aims at. Few and long wins: each fragment pays for
/// its first texel's column (a square root) once. On the H100 (session 19, texels a row's
/// width / per apart) sspr 1024 took 84, 69 and 104 us with 8, 32 and 64 texels a fragment
/// (32768, 4096 and 2048 here); 2048 and 4096 the same with 64. On the H200 (session 41,
/// runs of [`PACKED_RUN`]) sspr 4096's kernel took 288, 294 and 294 us with 32, 64 and 128.
const PACKED_FRAGMENTS: usize = 4096;

/// Fragments side by side whose texels interleave in the in-place packed kernel
/// (`1 << run_shift` there): lane l of a group of [`PACKED_RUN`] updates texels
/// `l + k*PACKED_RUN` of the group's `PACKED_RUN * per`, so a warp's row of fragments
/// stores neighbouring texels at each step and a fragment's texels lie 4 * PACKED_RUN
/// elements apart (few column crossings). On the H200 (session 42, `examples/passes`'
/// profiled draw times, each draw timed alone, of programs with KIND fixed for both
/// updates) sspr / sspr2 4096's draws took 305 / 367, 309 / 372 and 303 / 369 us with
/// groups of 4, 8 and 16, at 1024 33.9 / 48.7, 33.1 / 46.7 and 37.1 / 51.0 us; the
/// benchmark table was not run on the other group sizes.
const PACKED_RUN: usize = 8;

/// The grid's width for the in-place packed kernel in a texture `width` texels wide,
/// `per` texels a fragment: groups of [`PACKED_RUN`] fragments, each covering
/// `PACKED_RUN * per` texels of the row.
fn packed_grid_width(width: usize, per: usize) -> u32 {
    (width.div_ceil(PACKED_RUN * per) * PACKED_RUN) as u32
}

/// Texel k (< per) of fragment x's row in the in-place packed kernel (as the kernel
/// computes it).
#[cfg(test)]
fn packed_fragment_texel(x: usize, k: usize, per: usize) -> usize {
    (x / PACKED_RUN) * PACKED_RUN * per + x % PACKED_RUN + k * PACKED_RUN
}

/// Texels each fragment of the in-place packed kernel updates, for an array of `texels`
/// texels in a texture `width` wide: about [`PACKED_FRAGMENTS`] fragments, 8 to
/// [`PACKED_MAX_TEXELS_PER_FRAGMENT`] texels each, at most a row.
pub(crate) fn packed_texels_per_fragment(texels: usize, width: usize) -> usize {
    (texels / PACKED_FRAGMENTS)
        .clamp(8, PACKED_MAX_TEXELS_PER_FRAGMENT)
        .min(width.max(1))
}

impl Context {
    /// `A := alpha * x * y^T + A` for an `m x n` matrix A (CBLAS `sger` on device buffers).
    /// As reference BLAS: `m == 0`, `n == 0` or `alpha == 0` returns at once; a column whose
    /// `y_j` is 0 is not touched (so a NaN in x does not reach it); elements of A's buffer
    /// outside the `m x n` window are never written.
    ///
    /// ```
    /// use fragblas::{Context, Layout};
    /// let ctx = Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0])?;
    /// let y = ctx.upload(&[3.0, 4.0])?;
    /// let mut a = ctx.zeros(4)?;
    /// ctx.sger(Layout::ColMajor, 2, 2, 1.0, &x, 1, &y, 1, &mut a, 2)?;
    /// assert_eq!(a.to_vec()?, vec![3.0, 6.0, 4.0, 8.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sger(
        &self,
        layout: Layout,
        m: i32,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
        a: &mut Buffer,
        lda: i32,
    ) -> Result<()> {
        let call = ger_call(layout, m, n, incx, incy, lda)?;
        call.run(self, "sger", "a", alpha, (x, incx), Some((y, incy)), a)
    }

    /// `A := alpha * x * x^T + A` on the `uplo` triangle of a symmetric `n x n` matrix
    /// (CBLAS `ssyr`); the other triangle is never read or written, and a column whose
    /// `x_j` is 0 is not touched.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0])?;
    /// let mut a = ctx.upload(&[0.0, -1.0, 0.0, 0.0])?;
    /// ctx.ssyr(Layout::ColMajor, Uplo::Upper, 2, 1.0, &x, 1, &mut a, 2)?;
    /// assert_eq!(a.to_vec()?, vec![1.0, -1.0, 2.0, 4.0]); // a[1] is in the lower triangle
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssyr(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        a: &mut Buffer,
        lda: i32,
    ) -> Result<()> {
        const R: &str = "ssyr";
        let call = sym_rank_call(R, layout, uplo, n, incx, None, Some(lda))?;
        call.run(self, R, "a", alpha, (x, incx), None, a)
    }

    /// `A := alpha * x * x^T + A` on a symmetric matrix packed in `ap` (CBLAS `sspr`;
    /// storage as in [`Context::sspmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0])?;
    /// let mut ap = ctx.zeros(3)?;
    /// ctx.sspr(Layout::ColMajor, Uplo::Lower, 2, 1.0, &x, 1, &mut ap)?;
    /// assert_eq!(ap.to_vec()?, vec![1.0, 2.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sspr(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        ap: &mut Buffer,
    ) -> Result<()> {
        const R: &str = "sspr";
        let call = sym_rank_call(R, layout, uplo, n, incx, None, None)?;
        call.run(self, R, "ap", alpha, (x, incx), None, ap)
    }

    /// `A := alpha * x * y^T + alpha * y * x^T + A` on the `uplo` triangle of a symmetric
    /// matrix (CBLAS `ssyr2`); a column whose `x_j` and `y_j` are both 0 is not touched.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// let x = ctx.upload(&[1.0, 0.0])?;
    /// let y = ctx.upload(&[0.0, 1.0])?;
    /// let mut a = ctx.zeros(4)?;
    /// ctx.ssyr2(Layout::ColMajor, Uplo::Upper, 2, 1.0, &x, 1, &y, 1, &mut a, 2)?;
    /// assert_eq!(a.to_vec()?, vec![0.0, 0.0, 1.0, 0.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn ssyr2(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
        a: &mut Buffer,
        lda: i32,
    ) -> Result<()> {
        const R: &str = "ssyr2";
        let call = sym_rank_call(R, layout, uplo, n, incx, Some(incy), Some(lda))?;
        call.run(self, R, "a", alpha, (x, incx), Some((y, incy)), a)
    }

    /// `A := alpha * x * y^T + alpha * y * x^T + A` on a symmetric matrix packed in `ap`
    /// (CBLAS `sspr2`; storage as in [`Context::sspmv`]).
    ///
    /// ```
    /// use fragblas::{Context, Layout, Uplo};
    /// let ctx = Context::new()?;
    /// let x = ctx.upload(&[1.0, 0.0])?;
    /// let y = ctx.upload(&[0.0, 1.0])?;
    /// let mut ap = ctx.zeros(3)?;
    /// ctx.sspr2(Layout::ColMajor, Uplo::Upper, 2, 1.0, &x, 1, &y, 1, &mut ap)?;
    /// assert_eq!(ap.to_vec()?, vec![0.0, 1.0, 0.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sspr2(
        &self,
        layout: Layout,
        uplo: Uplo,
        n: i32,
        alpha: f32,
        x: &Buffer,
        incx: i32,
        y: &Buffer,
        incy: i32,
        ap: &mut Buffer,
    ) -> Result<()> {
        const R: &str = "sspr2";
        let call = sym_rank_call(R, layout, uplo, n, incx, Some(incy), None)?;
        call.run(self, R, "ap", alpha, (x, incx), Some((y, incy)), ap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn packed_runs_fit_the_row() {
        // The grid's fragments, texels k < per each, cover every texel of a row exactly
        // once (those past the row's end are skipped by the kernel).
        assert!(PACKED_RUN.is_power_of_two());
        for (texels, width) in [
            (1, 1),
            (14, 14),
            (131_328, 8192),
            (2_098_176, 8192),
            (100, 16),
            (1000, 1000),
            (70_000, 16384),
        ] {
            let per = packed_texels_per_fragment(texels, width);
            assert!((1..=PACKED_MAX_TEXELS_PER_FRAGMENT).contains(&per));
            assert!(per <= width);
            let gw = packed_grid_width(width, per) as usize;
            let mut hits = vec![0u32; width];
            for x in 0..gw {
                for k in 0..per {
                    let t = packed_fragment_texel(x, k, per);
                    if t < width {
                        hits[t] += 1;
                    }
                }
            }
            assert!(
                hits.iter().all(|&h| h == 1),
                "texels {texels}, width {width}"
            );
            // No group lies wholly past the row.
            assert!(packed_fragment_texel(gw - PACKED_RUN, 0, per) < width);
        }
        assert_eq!(packed_texels_per_fragment(2_098_176, 8192), 64);
        assert_eq!(packed_texels_per_fragment(131_328, 8192), 32);
    }

    #[test]
    fn in_place_fragments_cover_each_column_once() {
        // Fragment q of a column updates texels q + k*per_col, k < per: every texel of the
        // column exactly once, and no fragment starts past the column.
        for col in [
            1usize, 2, 7, 8, 9, 100, 128, 129, 256, 258, 1024, 4096, 4097,
        ] {
            let per = vec4_texels_per_fragment(col);
            let per_col = col.div_ceil(per);
            let mut seen = vec![0u8; col];
            for q in 0..per_col {
                for k in 0..per {
                    if q + k * per_col < col {
                        seen[q + k * per_col] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "column of {col} texels");
            assert!(per >= VEC4_MIN_TEXELS_PER_FRAGMENT);
            assert!(
                per_col <= VEC4_FRAGMENTS_PER_COLUMN,
                "{col}: {per_col} fragments"
            );
        }
        // The H100's best (session 17): 64 texels a fragment for columns of 1024.
        assert_eq!(vec4_texels_per_fragment(1024), 64);
        assert_eq!(vec4_texels_per_fragment(256), 16);
        assert_eq!(vec4_texels_per_fragment(10), 8);
    }

    #[test]
    fn in_place_kernels_group_the_columns_the_grid_assumes() {
        // The grid gives each fragment vec4_columns_per_fragment columns; the kernel must
        // update as many, and the columns of a group must share j / 4 (COLS divides 4); its
        // KIND, where it is fixed, is the rank's.
        for rank in [Rank::General, Rank::One, Rank::Two] {
            let group = vec4_columns_per_fragment(rank);
            for k in [rank.vec4_image_kernel(), rank.vec4_image_blocks_kernel()] {
                let cols = format!("#define COLS {group}\n");
                let d = format!("{}\n", k.defines);
                assert!(d.contains(&cols), "{rank:?}: {}", k.defines);
                // sger's programs take the kind as a uniform; the triangles' fix it.
                let kind = match rank {
                    Rank::General => None,
                    _ => Some(format!("#define KIND {}\n", rank as i32)),
                };
                assert_eq!(kind.is_some(), d.contains("#define KIND"), "{rank:?}: {d}");
                if let Some(kind) = kind {
                    assert!(d.contains(&kind), "{rank:?}: {}", k.defines);
                }
            }
            let k = rank.vec4_image_kernel();
            assert_eq!(4 % group, 0);
            assert_eq!(k.defines.contains("TRIANGLE 1"), rank != Rank::General);
        }
    }

    fn pos(r: Result<RankCall>) -> (&'static str, u32) {
        match r.unwrap_err() {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn rank_rules_in_reference_order() {
        use Layout::*;
        assert_eq!(pos(ger_call(ColMajor, -1, -1, 0, 0, 0)), ("m", 2));
        assert_eq!(pos(ger_call(ColMajor, 1, -1, 0, 0, 0)), ("n", 3));
        assert_eq!(pos(ger_call(ColMajor, 1, 1, 0, 0, 0)), ("incx", 6));
        assert_eq!(pos(ger_call(ColMajor, 1, 1, 1, 0, 0)), ("incy", 8));
        assert_eq!(pos(ger_call(ColMajor, 3, 1, 1, 1, 2)), ("lda", 10));
        // Row-major: the transposed call checks n, m, incy, incx, lda (lda >= n).
        assert_eq!(pos(ger_call(RowMajor, -1, -1, 0, 0, 0)), ("n", 3));
        assert_eq!(pos(ger_call(RowMajor, 1, 1, 0, 0, 0)), ("incy", 8));
        assert_eq!(pos(ger_call(RowMajor, 1, 3, 1, 1, 2)), ("lda", 10));
        let c = ger_call(RowMajor, 2, 3, 1, 1, 3).unwrap();
        assert_eq!((c.a.rows, c.a.cols, c.swap_xy), (3, 2, true));
        let syr = |n, incx, lda| sym_rank_call("ssyr", ColMajor, Uplo::Upper, n, incx, None, lda);
        assert_eq!(pos(syr(-1, 0, Some(0))), ("n", 3));
        assert_eq!(pos(syr(2, 0, Some(0))), ("incx", 6));
        assert_eq!(pos(syr(2, 1, Some(1))), ("lda", 8));
        let syr2 = |incy, lda| sym_rank_call("ssyr2", ColMajor, Uplo::Upper, 2, 1, Some(incy), lda);
        assert_eq!(pos(syr2(0, Some(1))), ("incy", 8));
        assert_eq!(pos(syr2(1, Some(1))), ("lda", 10));
        assert!(syr2(1, None).is_ok());
        let c = sym_rank_call("sspr", RowMajor, Uplo::Upper, 2, 1, None, None).unwrap();
        assert_eq!(
            (c.a.shape, c.a.storage),
            (Shape::Symmetric(Uplo::Lower), Storage::Packed)
        );
    }
}
