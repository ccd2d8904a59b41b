//! The level-2 passes on the GPU: [`chunked`] runs a product kernel over chunks of the
//! summed index (stacked bands of the output, added by a fold pass, or on GPUs with image
//! stores by the kernel's own draw) so that enough fragments run; [`product`] is `op(A)*x` for a matrix of any storage and shape: full storage with
//! `lda % 4 == 0` and a unit-stride x by [`product_vec4`] (`glsl/level2/product_vec4.frag`,
//! A read as vec4 texels; sgemv's vectorised path too), any other (band, packed, other
//! leading dimensions) by [`product_stored`] (`glsl/level2/product_stored.frag`, four rows
//! of a column from the two texels that hold them); and
//! [`MvCall::run`] is `y := alpha*op(A)*x + beta*y` on it.

use crate::blas::args::pass_inc;
use crate::blas::level1::update::{update, Op};
use crate::blas::level2::matrix::{aligned_columns, Matrix, MvCall, Shape, Storage};
use crate::blas::level2::symv_warp;
use crate::blas::passes::{fold, VectorBlock, SUM_REDUCE};
use crate::blas::types::{Diag, Uplo};
use crate::device::buffer::Buffer;
use crate::device::context::{Context, Inner};
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, GlBuffer, Program, Surface};
use crate::layout::TexLayout;

/// Element access for level-2 matrices of any storage and shape.
pub(crate) const STORAGE_GLSL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/glsl/level2/storage.glsl"
));

/// What the product kernels share (`keep`, `unit`).
const PRODUCT_GLSL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/glsl/level2/product.glsl"
));

/// A product kernel in its two forms: `plain` renders each chunk's sums into its band of a
/// target, which a fold pass adds; `folding` (`FOLD` in `product.glsl`: image stores and two
/// more storage blocks) adds the chunks in its own draw and stores the result itself, one
/// dependent pass fewer ([`chunked`] takes it where the device runs it: [`folds`]).
pub(crate) struct ProductKernel {
    plain: Kernel,
    folding: Option<Kernel>,
}

/// A [`ProductKernel`] of `file` with `defines`, whose plain form reads `blocks` storage
/// blocks; with `plain only`, one without a folding form.
macro_rules! product_kernel {
    ($file:literal, $defines:literal, $blocks:expr) => {
        ProductKernel {
            plain: crate::kernel!($file)
                .defines($defines)
                .header(PRODUCT_GLSL)
                .storage($blocks),
            folding: Some(
                crate::kernel!($file)
                    .defines(concat!($defines, "\n#define FOLD 1"))
                    .header(PRODUCT_GLSL)
                    .image_stores()
                    .storage($blocks + 2),
            ),
        }
    };
    ($file:literal, $defines:literal, $blocks:expr, plain only) => {
        ProductKernel {
            plain: crate::kernel!($file)
                .defines($defines)
                .header(PRODUCT_GLSL)
                .storage($blocks),
            folding: None,
        }
    };
}

/// `kernel`'s folding form where [`chunked`] runs it on this context: the kernel has one,
/// the context takes the image-store paths, and the device runs it.
fn folding_form<'k>(inner: &Inner, kernel: &'k ProductKernel) -> Option<&'k Kernel> {
    kernel
        .folding
        .as_ref()
        .filter(|k| inner.image_store_paths && k.runs_on(&inner.info))
}

/// op(A)*x over one chunk of the summed index, any storage and shape, x of increment 1:
/// four rows of a column read as the two texels that hold them.
static PRODUCT_STORED: ProductKernel = product_kernel!("level2/product_stored.frag", "", 0);
/// [`PRODUCT_STORED`] for a band product without a row part (sgbmv, stbmv without
/// transpose): the column part alone, its positions stepped by addition.
static PRODUCT_BAND_COLUMNS: ProductKernel =
    product_kernel!("level2/product_stored.frag", "#define BAND 1", 0);
/// [`PRODUCT_STORED`] for a band product with a row part (ssbmv, sgbmv and stbmv
/// transposed): the storage fixed when the program is built.
static PRODUCT_BAND: ProductKernel =
    product_kernel!("level2/product_stored.frag", "#define STORAGE 1", 0);
/// op(A)*x over one chunk of the summed index with vec4 reads of A and x: full storage
/// with `lda % 4 == 0`, `incx == 1`; general, triangular or symmetric.
static PRODUCT_VEC4: ProductKernel = product_kernel!("level2/product_vec4.frag", "", 0);
/// [`PRODUCT_VEC4`] summing interleaved chunks in spread order
/// ([`ContextOptions::interleaved_products`](crate::ContextOptions::interleaved_products));
/// without it the kernel compiles none of that (llvmpipe ran the product 15-40% slower with
/// both in one kernel).
static PRODUCT_VEC4_INTERLEAVED: ProductKernel =
    product_kernel!("level2/product_vec4.frag", "#define INTERLEAVE 1", 0);

/// [`PRODUCT_VEC4_INTERLEAVED`] reading x's texels from a storage buffer (a copy of x's
/// texture) instead of fetching them through the texture unit, which then fetches only A's
/// texels: four a texel of x instead of five.
static PRODUCT_VEC4_X_BUFFER: ProductKernel = product_kernel!(
    "level2/product_vec4.frag",
    "#define INTERLEAVE 1\n#define X_BUFFER 1",
    1
);

/// [`PRODUCT_STORED`] reading x's texels from a storage buffer ([`VectorBlock`]): packed
/// storage of at least [`VECTOR_BLOCK_MIN_ELEMENTS`] elements. Without a folding form: on
/// the H200 it made stpmv 4096's product 477 -> 551 us (BENCHMARKS.md, session 31).
static PRODUCT_STORED_X_BUFFER: ProductKernel = product_kernel!(
    "level2/product_stored.frag",
    "#define X_BUFFER 1",
    1,
    plain only
);

/// The fold of [`chunked`]'s bands when the kernel computed its texels in spread order.
static SUM_GATHER: Kernel = crate::kernel!("common/sum_reduce.frag").defines("#define GATHER 1");

/// The most columns a row of [`UNPACK`]'s grid holds.
const GRID_COLUMNS: usize = 32;

/// Texels each fragment of [`UNPACK`] writes (`PER` in its defines).
const UNPACK_TEXELS_PER_FRAGMENT: u32 = 8;

/// A packed triangle copied into full storage through image stores, 8 texels a fragment.
static UNPACK: Kernel = crate::kernel!("level2/unpack.frag")
    .defines("#define PER 8")
    .image_stores();

/// The fold of [`chunked`]'s bands into `y := alpha*sums + beta*y` ([`Sink::Update`]).
static SUM_UPDATE: Kernel =
    crate::kernel!("common/sum_reduce.frag").defines("#define GATHER 1\n#define UPDATE 1");

/// The folding form of a kernel that has one (for [`KERNELS`]).
const fn folding(k: &'static ProductKernel) -> &'static Kernel {
    match &k.folding {
        Some(f) => f,
        None => panic!("a product kernel without a folding form"),
    }
}

/// The kernels of this file.
pub(crate) const KERNELS: [&Kernel; 16] = [
    &PRODUCT_STORED.plain,
    folding(&PRODUCT_STORED),
    &PRODUCT_BAND_COLUMNS.plain,
    folding(&PRODUCT_BAND_COLUMNS),
    &PRODUCT_BAND.plain,
    folding(&PRODUCT_BAND),
    &PRODUCT_STORED_X_BUFFER.plain,
    &PRODUCT_VEC4.plain,
    folding(&PRODUCT_VEC4),
    &PRODUCT_VEC4_INTERLEAVED.plain,
    folding(&PRODUCT_VEC4_INTERLEAVED),
    &PRODUCT_VEC4_X_BUFFER.plain,
    folding(&PRODUCT_VEC4_X_BUFFER),
    &SUM_GATHER,
    &SUM_UPDATE,
    &UNPACK,
];

/// Neighbouring indices a spread order moves apart (`spread_index` in `common.glsl`): the
/// results of neighbouring fragments of a row of a warp (NVIDIA's warps are 8 fragments
/// wide).
const SPREAD_RUN: usize = 8;

/// Neighbouring chunks the column part's spread order moves apart: a warp's rows of
/// fragments (NVIDIA's warps are 4 rows tall). Its blocks (`spread * CHUNK_RUN` texels)
/// must divide the chunk count: with 4, sgemv 1024^2's 32 chunks take the spread of 8.
const CHUNK_RUN: usize = 4;

/// Which elements of the diagonal block a part of `product_vec4.frag` counts, and with it
/// which texels off the diagonal it visits (the kernel's `col_rule`, `row_rule`): `None`
/// leaves the part out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Every element (a general matrix).
    All = 0,
    /// `i <= j`: the upper triangle with its diagonal.
    Upper = 1,
    /// `i < j`: the strict upper triangle.
    StrictUpper = 2,
    /// `i >= j`: the lower triangle with its diagonal.
    Lower = 3,
    /// `i > j`: the strict lower triangle.
    StrictLower = 4,
}

/// The two parts of `op(A)*x` in `product_vec4.frag` for a matrix of `shape`: the column
/// part (`sum_j A(i, j) x_j`, four results a texel of A) and the row part (`sum_i A(i, j)
/// x_i`, a dot product a texel). A symmetric matrix needs both: its stored triangle with the
/// diagonal as columns, the strict triangle again as rows, whatever the transpose.
pub(crate) fn vec4_rules(shape: Shape, trans: bool) -> (Option<Rule>, Option<Rule>) {
    match (shape, trans) {
        (Shape::General, false) => (Some(Rule::All), None),
        (Shape::General, true) => (None, Some(Rule::All)),
        (Shape::Triangular(Uplo::Upper, _), false) => (Some(Rule::Upper), None),
        (Shape::Triangular(Uplo::Upper, _), true) => (None, Some(Rule::Upper)),
        (Shape::Triangular(Uplo::Lower, _), false) => (Some(Rule::Lower), None),
        (Shape::Triangular(Uplo::Lower, _), true) => (None, Some(Rule::Lower)),
        (Shape::Symmetric(Uplo::Upper), _) => (Some(Rule::Upper), Some(Rule::StrictUpper)),
        (Shape::Symmetric(Uplo::Lower), _) => (Some(Rule::Lower), Some(Rule::StrictLower)),
    }
}

/// The parts of `op(A)*x` that `product_vec4.frag` and `product_stored.frag` compute
/// ([`vec4_rules`]), with the lengths of y and x.
struct Parts {
    col: Option<Rule>,
    row: Option<Rule>,
    len_y: usize,
    len_x: usize,
}

impl Parts {
    fn new(a: &Matrix, trans: bool) -> Self {
        let (col, row) = vec4_rules(a.shape, trans);
        let op = MvCall { a: *a, trans };
        Parts {
            col,
            row,
            len_y: op.len_y(),
            len_x: op.len_x(),
        }
    }

    /// The uniforms both kernels read for the parts of `a`: its shape, the rules (-1 for a
    /// part left out), the unit diagonal and `skip_zero`.
    fn set(&self, gl: &Gl, p: &Program, a: &Matrix, skip_zero: bool) {
        let rule = |r: Option<Rule>| r.map_or(-1, |r| r as i32);
        let unit = matches!(a.shape, Shape::Triangular(_, Diag::Unit));
        gl.set_i32(p, "rows", a.rows as i32);
        gl.set_i32(p, "cols", a.cols as i32);
        gl.set_i32(p, "col_rule", rule(self.col));
        gl.set_i32(p, "row_rule", rule(self.row));
        gl.set_i32(p, "unit_diag", unit as i32);
        gl.set_i32(p, "skip_zero", skip_zero as i32);
    }
}

/// Whether [`product`] reads `a` and x as vec4 texels: full storage with a leading
/// dimension that is a multiple of 4, and `incx == 1`.
pub(crate) fn vec4_applies(a: &Matrix, incx: i32) -> bool {
    matches!(a.storage, Storage::Full { lda } if lda.is_multiple_of(4)) && incx == 1
}

/// The shortest chunk of a split product on a hardware device, in texels. Short chunks
/// mean more fragments and shorter chains of fetches in each: sgemv 1024^2 on the H100
/// took 58 us a call with chunks of at least 64 texels, 44 with 16 and 39 with 8, and
/// 4096^2 was the same with each (BENCHMARKS.md, session 10).
const MIN_CHUNK_HARDWARE: usize = 8;

/// The shortest chunk on a software device, whose few cores gain nothing from more
/// fragments.
const MIN_CHUNK_SOFTWARE: usize = 64;

/// How a product's summed index splits over fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// Fragments to aim for (chunks times output texels).
    pub fragments: usize,
    /// The shortest chunk, in texels (unless the sum is shorter).
    pub min_chunk: usize,
    /// The longest chunk, in texels.
    pub max_chunk: usize,
}

impl Split {
    /// The generic kernel's split: about 2^17 fragments on a hardware device, 2^12 on a
    /// software one (a few cores), chunks of at least [`MIN_CHUNK_HARDWARE`] (or
    /// [`MIN_CHUNK_SOFTWARE`]) texels and at most `max_chunk`.
    pub(crate) fn new(software: bool, max_chunk: usize) -> Self {
        Split {
            fragments: if software { 1 << 12 } else { 1 << 17 },
            min_chunk: if software {
                MIN_CHUNK_SOFTWARE
            } else {
                MIN_CHUNK_HARDWARE
            },
            max_chunk,
        }
    }

    /// The split of `product_vec4.frag` with interleaved chunks: about 2^15 fragments of
    /// chunks of at least [`MIN_CHUNK_HARDWARE`] texels, whatever the device (a software
    /// device runs it only when asked to). On the H100 with interleaved chunks, sgemv
    /// 4096^2's product took 209, 207 and 211 us with 2^15, 2^16 and 2^17 fragments, and the
    /// fold of its bands 11, 14 and 21 us; ssymv's 208, 219 and 280 us (BENCHMARKS.md,
    /// session 13).
    pub(crate) fn interleaved() -> Self {
        Split {
            fragments: 1 << 15,
            min_chunk: MIN_CHUNK_HARDWARE,
            max_chunk: usize::MAX,
        }
    }

    /// [`Split::interleaved`] for a kernel that adds its chunks in its own draw: about 2^13
    /// fragments, so that each fragment's part of that work (storing its sums, counting
    /// itself, the last one adding the chunks) weighs less against its chunk. On the H200 the
    /// folding kernel with 2^15 / 2^14 / 2^13 fragments took sgemv 4096^2 243 / 222 / 202
    /// us and sgemv^T 251 / 230 / 213, against 217 and 224 for the plain kernel and its fold
    /// (BENCHMARKS.md, session 31). (A matrix too small for that many fragments of the
    /// shortest chunks runs fewer: 1024^2 already ran 2^13.)
    pub(crate) fn interleaved_folding() -> Self {
        Split {
            fragments: 1 << 13,
            ..Self::interleaved()
        }
    }
}

/// How a product splits its summed index (`summed` texels of 4 values) over fragments:
/// `(chunks, texels per chunk)`. Enough chunks that about `split.fragments` fragments run,
/// each chunk at least `split.min_chunk` texels long and at most `split.max_chunk`, and the
/// stacked bands (`chunks * band_rows` rows) within `max_texture`.
pub(crate) fn split_sum(
    out_texels: usize,
    summed: usize,
    band_rows: usize,
    max_texture: usize,
    split: Split,
) -> (usize, usize) {
    let most = max_texture / band_rows.max(1);
    let chunks = split
        .fragments
        .div_ceil(out_texels.max(1))
        .min(summed.div_ceil(split.min_chunk.max(1)))
        .max(summed.div_ceil(split.max_chunk.max(1)))
        .min(most)
        .max(1);
    let chunk = summed.div_ceil(chunks).max(1);
    // Round so that no chunk is empty.
    (summed.div_ceil(chunk).max(1), chunk)
}

/// Where [`chunked`] puts the sums of a product.
pub(crate) enum Sink<'a> {
    /// A new vector (a pooled texture: give it back with `into_surface`).
    Vector,
    /// `y := alpha*sums + beta*y` on a unit-stride y, as level 1's axpby does it (beta == 0
    /// reads no y): by the kernel's folding form in its own draw where it runs, else with
    /// more than one chunk by the fold of the chunks (one pass fewer), with one chunk by
    /// level 1's update.
    Update {
        alpha: f32,
        beta: f32,
        y: &'a mut Buffer,
    },
}

/// Runs a product kernel over chunks of its summed index and adds the chunks: the kernel
/// draws chunk `s` of `summed` texels into rows `s*band_rows..` of a target laid out like a
/// vector of `len` floats (uniforms `out_width`, `out_texels`, `band_rows`, `chunk`, `chunks`
/// are set here, the kernel's own by `set`), and a fold pass adds the bands; where the
/// kernel's folding form runs ([`folding_form`]) the draw adds the chunks itself and stores
/// the result (no bands, no fold pass: [`fold_in_draw`]). `split` says how the
/// summed index splits ([`split_sum`]); `None` draws one chunk of all of it. With `out_spread > 1` and more
/// than one chunk the kernel computes a band's texels in spread order (uniforms `out_spread`
/// and `spread_run`: fragment p of a band computes texel `spread_index(p)`), and the fold
/// gathers them back. The sums go to `sink`: returned as a vector of `len` floats
/// ([`Sink::Vector`]), or added into y ([`Sink::Update`]: returns `None`). With `block`,
/// the kernel reads x from it (bound for the kernel's draw, released at the end, whatever
/// the outcome).
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunked(
    ctx: &Context,
    kernel: &ProductKernel,
    len: usize,
    summed: usize,
    split: Option<Split>,
    out_spread: usize,
    sink: Sink<'_>,
    block: Option<VectorBlock>,
    set: impl FnOnce(&Gl, &Program),
) -> Result<Option<Buffer>> {
    let what = (kernel, len, summed, split, out_spread);
    let t = chunked_passes(ctx, what, sink, block.as_ref(), set);
    if let Some(b) = block {
        b.release(&ctx.inner);
    }
    t
}

/// [`chunked`]'s passes, `block` bound for the kernel's draw.
fn chunked_passes(
    ctx: &Context,
    (kernel, len, summed, split, out_spread): (&ProductKernel, usize, usize, Option<Split>, usize),
    sink: Sink<'_>,
    block: Option<&VectorBlock>,
    set: impl FnOnce(&Gl, &Program),
) -> Result<Option<Buffer>> {
    let inner = &ctx.inner;
    let l = inner.layout(len)?;
    let (chunks, chunk) = match split {
        Some(split) => split_sum(
            l.data_texels(),
            summed,
            l.height as usize,
            inner.info_max_texture() as usize,
            split,
        ),
        None => (1, summed.max(1)),
    };
    let band_rows = l.height;
    let folding = folding_form(inner, kernel);
    let folds = folding.is_some();
    // The targets and buffers first: making one binds it, which would undo the kernel's
    // bindings. The kernel that folds in its draw stores into y or a new vector; the plain
    // one renders the chunks' bands.
    let target = if folds {
        FoldTarget::take(inner, &l, chunks, &sink)?
    } else {
        FoldTarget::Bands(inner.take_surface(l.width, chunks as u32 * band_rows)?)
    };
    let prog = match inner.program(folding.unwrap_or(&kernel.plain)) {
        Ok(p) => p,
        Err(e) => {
            target.give(inner);
            return Err(e);
        }
    };
    let gl = inner.enter()?;
    gl.use_program(&prog);
    set(gl, &prog);
    gl.set_i32(&prog, "out_width", l.width as i32);
    gl.set_i32(&prog, "out_texels", l.data_texels() as i32);
    gl.set_i32(&prog, "band_rows", band_rows as i32);
    gl.set_i32(&prog, "chunk", chunk as i32);
    gl.set_i32(&prog, "chunks", chunks as i32);
    let out_spread = if chunks > 1 { out_spread.max(1) } else { 1 };
    gl.set_i32(&prog, "out_spread", out_spread as i32);
    gl.set_i32(&prog, "spread_run", SPREAD_RUN as i32);
    if let Some(b) = block {
        b.bind(gl);
    }
    let parts = match target {
        FoldTarget::Bands(parts) => parts,
        folding => return fold_in_draw(ctx, &prog, (&l, len, chunks), sink, folding),
    };
    gl.draw(&[&parts], l.width, chunks as u32 * band_rows);
    if chunks == 1 {
        let sums = Buffer::from_surface(ctx, parts, len)?;
        return match sink {
            Sink::Vector => Ok(Some(sums)),
            Sink::Update { alpha, beta, y } => {
                let done = update(
                    ctx,
                    len as i32,
                    Op::Axpby,
                    alpha,
                    beta,
                    Some((&sums, 1)),
                    y,
                    1,
                );
                inner.give_surface(sums.into_surface());
                done.map(|()| None)
            }
        };
    }
    // Add the chunks' bands: fragment (x, y) sums (x, y + c*band_rows), c < chunks (from its
    // texel's place in spread order when the kernel spread them; into y's texture, with
    // y's own texels kept past the sums, when they update y).
    let (prog, out) = match &sink {
        Sink::Vector if out_spread > 1 => (&SUM_GATHER, (l.width, l.height)),
        Sink::Vector => (&SUM_REDUCE, (l.width, l.height)),
        Sink::Update { y, .. } => (&SUM_UPDATE, (y.layout().width, y.layout().height)),
    };
    let sum = inner.take_surface(out.0, out.1)?;
    let prog = inner.program(prog)?;
    gl.use_program(&prog);
    gl.set_i32(&prog, "gather_width", out.0 as i32);
    gl.set_i32(&prog, "gather_src_width", l.width as i32);
    gl.set_i32(&prog, "gather_texels", l.data_texels() as i32);
    gl.set_i32(&prog, "gather_spread", out_spread as i32);
    gl.set_i32(&prog, "spread_run", SPREAD_RUN as i32);
    if let Sink::Update { alpha, beta, y } = &sink {
        y.bind(gl, &prog, 1, "y", "y_width");
        gl.set_f32(&prog, "alpha", *alpha);
        gl.set_f32(&prog, "beta", *beta);
        gl.set_i32(&prog, "len_y", len as i32);
    }
    fold(
        gl,
        &prog,
        &parts,
        (l.width, chunks as u32 * band_rows),
        [0, band_rows as i32],
        chunks as u32,
        &sum,
        out,
    );
    inner.give_surface(parts);
    match sink {
        Sink::Vector => Ok(Some(Buffer::from_surface(ctx, sum, len)?)),
        Sink::Update { y, .. } => {
            inner.give_surface(y.replace_surface(sum));
            Ok(None)
        }
    }
}

/// Where [`chunked`]'s kernel puts its sums: `Bands` (the plain kernel: each chunk's band
/// of a target, added by a fold pass), or the folding kernel's storage buffers (partial sums
/// and arrival counts) and, for a new vector, its surface.
enum FoldTarget {
    Bands(Surface),
    InDraw {
        buffers: (GlBuffer, GlBuffer),
        vector: Option<Surface>,
    },
}

impl FoldTarget {
    /// The folding kernel's buffers for `chunks` chunks of a result laid out as `l`, and a
    /// new vector's surface unless the sink is y.
    fn take(inner: &Inner, l: &TexLayout, chunks: usize, sink: &Sink<'_>) -> Result<Self> {
        let texels = l.data_texels();
        let buffers = inner.take_fold_buffers(16 * chunks * texels, 4 * texels)?;
        let vector = match sink {
            Sink::Vector => match inner.take_surface(l.width, l.height) {
                Ok(s) => Some(s),
                Err(e) => {
                    inner.give_fold_buffers(buffers);
                    return Err(e);
                }
            },
            Sink::Update { .. } => None,
        };
        Ok(FoldTarget::InDraw { buffers, vector })
    }

    /// Gives everything back (a call that fails before its draw).
    fn give(self, inner: &Inner) {
        match self {
            FoldTarget::Bands(s) => inner.give_surface(s),
            FoldTarget::InDraw { buffers, vector } => {
                inner.give_fold_buffers(buffers);
                if let Some(s) = vector {
                    inner.give_surface(s);
                }
            }
        }
    }
}

/// [`chunked`]'s draw with the kernel's folding form (`prog`, current, its uniforms set for
/// `chunks` chunks of a result of `len` floats laid out as `l`; `target` from
/// [`FoldTarget::take`]): the chunks added in the draw itself, the result stored into y's
/// own texture ([`Sink::Update`]: only y's texels that hold the result change, and each is
/// read and written by one fragment) or a new vector.
fn fold_in_draw(
    ctx: &Context,
    prog: &Program,
    (l, len, chunks): (&TexLayout, usize, usize),
    sink: Sink<'_>,
    target: FoldTarget,
) -> Result<Option<Buffer>> {
    let inner = &ctx.inner;
    let FoldTarget::InDraw { buffers, vector } = target else {
        unreachable!("the folding kernel's target")
    };
    let gl = inner.enter()?;
    gl.bind_storage_buffer(1, Some(&buffers.0));
    gl.bind_storage_buffer(2, Some(&buffers.1));
    let grid = (l.width, chunks as u32 * l.height);
    let sums = match (sink, vector) {
        (Sink::Update { alpha, beta, y }, _) => {
            y.bind(gl, prog, 2, "y", "sums_width");
            gl.set_i32(prog, "update", 1);
            gl.set_f32(prog, "alpha", alpha);
            gl.set_f32(prog, "beta", beta);
            gl.set_i32(prog, "len_y", len as i32);
            gl.draw_image_stores(&[y.surface()], grid.0, grid.1);
            Ok(None)
        }
        (Sink::Vector, Some(out)) => {
            gl.set_i32(prog, "update", 0);
            gl.set_i32(prog, "sums_width", l.width as i32);
            gl.draw_image_stores(&[&out], grid.0, grid.1);
            Buffer::from_surface(ctx, out, len).map(Some)
        }
        (Sink::Vector, None) => unreachable!("a new vector's surface is taken with the buffers"),
    };
    gl.bind_storage_buffer(1, None);
    gl.bind_storage_buffer(2, None);
    inner.give_fold_buffers(buffers);
    sums
}

/// Texels of the summed index a chunk of [`product_stored`] covers at most on a software
/// device: each fragment loops over them once per lane (4), within llvmpipe's budget of
/// about 65535 loop iterations per fragment.
const STORED_MAX_CHUNK: usize = 2048;

/// `op(A)*x` for a matrix `a` (stored in `abuf`) of any storage and shape, `x` with any
/// non-zero increment; with `skip_zero`, terms whose `x_j` is zero are left out, as
/// reference's triangular loops leave them (a NaN or Inf in such a column does not
/// spread). Full storage with `lda % 4 == 0` and a unit-stride x by [`product_vec4`], any
/// other by [`product_stored`] (an x of another increment copied to unit stride first).
/// The result goes to `sink` (see [`chunked`]).
pub(crate) fn product(
    ctx: &Context,
    a: &Matrix,
    abuf: &Buffer,
    trans: bool,
    (x, incx): (&Buffer, i32),
    skip_zero: bool,
    sink: Sink<'_>,
) -> Result<Option<Buffer>> {
    if let (Storage::Full { lda }, true) = (a.storage, vec4_applies(a, incx)) {
        return product_full(ctx, a, lda, abuf, trans, x, skip_zero, sink);
    }
    let len_x = MvCall { a: *a, trans }.len_x();
    let incx = pass_inc(len_x as i32, incx);
    if incx == 1 {
        return product_unit_x(ctx, a, abuf, trans, x, skip_zero, sink);
    }
    let inner = &ctx.inner;
    let l = inner.layout(len_x)?;
    let mut unit = Buffer::from_surface(ctx, inner.take_surface(l.width, l.height)?, len_x)?;
    let copied = update(
        ctx,
        len_x as i32,
        Op::Copy,
        1.0,
        0.0,
        Some((x, incx)),
        &mut unit,
        1,
    );
    let t = copied.and_then(|()| product_unit_x(ctx, a, abuf, trans, &unit, skip_zero, sink));
    inner.give_surface(unit.into_surface());
    t
}

/// The largest order whose packed triangle [`unpack`] copies (a scratch of `order^2`
/// floats: 256 MiB).
pub(crate) const UNPACK_MAX_ORDER: usize = 8192;

/// Whether [`product_unit_x`] unpacks `a`: a symmetric matrix in packed storage of order up
/// to [`UNPACK_MAX_ORDER`], on a context that sums interleaved chunks and writes images. On
/// the H100 at order 4096 the unpacking took 410 us and the full product 231 (sspmv: 653 us
/// against 825 with the packed kernel), but a triangular product reads the triangle once:
/// 132 us after the unpacking against 480 us packed (stpmv: 593 against 500).
fn unpacks(a: &Matrix, interleaved: bool, image_stores: bool) -> bool {
    a.storage == Storage::Packed
        && matches!(a.shape, Shape::Symmetric(_))
        && a.cols <= UNPACK_MAX_ORDER
        && interleaved
        && image_stores
}

/// [`product`] with a unit-stride x, any storage but full with `lda % 4 == 0`: a packed
/// symmetric matrix that updates y, or a packed triangle's product into a vector, is read
/// where it lies on warps where [`symv_warp::applies`]; else a packed symmetric matrix on a
/// GPU with image stores ([`unpacks`]) is first copied into full
/// storage (`glsl/level2/unpack.frag`) and multiplied there by [`product_vec4`] (on the
/// H100 the packed kernel reads at a third of the full one's rate: each packed column starts
/// at a different place of the texture's rows); every other by [`product_stored`].
#[allow(clippy::too_many_arguments)]
fn product_unit_x(
    ctx: &Context,
    a: &Matrix,
    abuf: &Buffer,
    trans: bool,
    x: &Buffer,
    skip_zero: bool,
    sink: Sink<'_>,
) -> Result<Option<Buffer>> {
    let inner = &ctx.inner;
    // A packed symmetric or triangular matrix read where it lies on warps (the symmetric
    // one without the unpacking); a triangle's rows' terms skip an x_j of 0, as reference's
    // `x := A x`, its columns' never.
    let packed_on_warps = a.storage == Storage::Packed && symv_warp::applies(inner, a, x);
    let sink = match (sink, a.shape) {
        (Sink::Update { alpha, beta, y }, Shape::Symmetric(_)) if packed_on_warps && !skip_zero => {
            return symv_warp::symv_warp(ctx, a, abuf, x, alpha, beta, y).map(|()| None);
        }
        (Sink::Vector, Shape::Triangular(..)) if packed_on_warps && skip_zero != trans => {
            return symv_warp::trmv_warp(ctx, a, abuf, trans, x).map(Some);
        }
        (sink, _) => sink,
    };
    if !unpacks(a, inner.interleaved_products, inner.image_store_paths) {
        return product_stored(ctx, a, abuf, trans, x, skip_zero, sink);
    }
    let (m, full) = unpack(ctx, a, abuf)?;
    let Storage::Full { lda } = m.storage else {
        unreachable!("unpack gives full storage")
    };
    let t = product_full(ctx, &m, lda, &full, trans, x, skip_zero, sink);
    inner.give_surface(full.into_surface());
    t
}

/// [`product_vec4`], or a symmetric product that updates y (of unit stride, as every
/// [`Sink::Update`]) on warps where [`symv_warp::applies`] (its triangle read once instead
/// of twice); x has unit stride here.
#[allow(clippy::too_many_arguments)]
fn product_full(
    ctx: &Context,
    a: &Matrix,
    lda: usize,
    abuf: &Buffer,
    trans: bool,
    x: &Buffer,
    skip_zero: bool,
    sink: Sink<'_>,
) -> Result<Option<Buffer>> {
    match sink {
        Sink::Update { alpha, beta, y } if !skip_zero && symv_warp::applies(&ctx.inner, a, x) => {
            symv_warp::symv_warp(ctx, a, abuf, x, alpha, beta, y).map(|()| None)
        }
        sink => product_vec4(ctx, a, lda, abuf, trans, x, skip_zero, sink),
    }
}

/// The packed triangle `a` (in `abuf`, order at most [`UNPACK_MAX_ORDER`]) copied into
/// full storage through image stores (`glsl/level2/unpack.frag`, 8 texels a fragment; GPUs
/// with image stores only), with a leading dimension that is a multiple of 4, so that the
/// kernels that read four rows of a column a fetch read it: the same matrix in that
/// storage, and the new buffer. Only the triangle's texels are written; their lanes outside
/// it hold whatever the packed array holds there, which every reader masks.
pub(crate) fn unpack(ctx: &Context, a: &Matrix, abuf: &Buffer) -> Result<(Matrix, Buffer)> {
    let inner = &ctx.inner;
    let n = a.cols;
    let lda = n.next_multiple_of(4).max(4);
    let l = inner.layout(lda * n)?;
    let full = Buffer::from_surface(ctx, inner.take_surface(l.width, l.height)?, lda * n)?;
    let per_col = (n.div_ceil(4) as u32).div_ceil(UNPACK_TEXELS_PER_FRAGMENT);
    // Grid rows of as many columns as lie between two that start at the same place of the
    // full texture's rows (as the rank updates' grid): a warp's rows of fragments then
    // write neighbouring rows of the texture.
    let columns = aligned_columns(l.width as usize, lda / 4).clamp(1, GRID_COLUMNS);
    let row = (per_col as usize * columns).min(inner.info_max_texture() as usize);
    let (gw, gh) = crate::layout::texel_rect(per_col as usize * n, row as u32);
    let prog = inner.program(&UNPACK)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    abuf.bind(gl, &prog, 0, "a", "a_width");
    gl.set_i32(&prog, "a_last", abuf.last_texel());
    gl.set_i32(&prog, "n", n as i32);
    gl.set_i32(&prog, "upper", a.shape.upper() as i32);
    gl.set_i32(&prog, "lda", lda as i32);
    gl.set_i32(&prog, "out_width", l.width as i32);
    gl.set_i32(&prog, "per_col", per_col as i32);
    gl.set_i32(&prog, "grid_width", gw as i32);
    gl.draw_image_stores(&[full.surface()], gw, gh);
    let m = Matrix {
        storage: Storage::Full { lda },
        ..*a
    };
    Ok((m, full))
}

/// The x texels one row of `op(A)` can reach: the columns it can hold
/// ([`Matrix::row_offsets`]) in texels, plus the two a run can straddle, at most all of x.
fn reach_texels(a: &Matrix, trans: bool, len_x: usize) -> usize {
    let (lo, hi) = a.row_offsets(trans);
    let width = (hi - lo + 1).max(1) as usize;
    len_x.div_ceil(4).min(width.div_ceil(4) + 2)
}

/// [`product`] on any storage with a unit-stride x (`product_stored.frag`): each column's
/// four rows read as the two texels that hold them, the summed index in chunks (interleaved
/// ones as many as a part's reach needs: a band's width).
#[allow(clippy::too_many_arguments)]
pub(crate) fn product_stored(
    ctx: &Context,
    a: &Matrix,
    abuf: &Buffer,
    trans: bool,
    x: &Buffer,
    skip_zero: bool,
    sink: Sink<'_>,
) -> Result<Option<Buffer>> {
    let parts = Parts::new(a, trans);
    let interleave = ctx.inner.interleaved_products;
    let split = if interleave {
        Split::interleaved()
    } else {
        Split::new(ctx.info().software, STORED_MAX_CHUNK)
    };
    let big = (a.rows + a.cols + 8) as i32;
    let (storage, lda, band_lo, band_hi, ku) = match a.storage {
        Storage::Full { lda } => (0, lda, -big, big, 0),
        Storage::Band { kl, ku, lda } => (1, lda, -(kl as i32), ku as i32, ku),
        Storage::Packed if a.shape.upper() => (2, 0, -big, big, 0),
        Storage::Packed => (3, 0, -big, big, 0),
    };
    // Interleaved chunks share a part's reach (a band's width at most); runs split all of x.
    let summed = if interleave {
        reach_texels(a, trans, parts.len_x)
    } else {
        parts.len_x.div_ceil(4)
    };
    // x's texels from a storage buffer where that pays ([`VectorBlock`]): for packed
    // storage (on the H200, stpmv 4096's product 489 -> 453 us, its transpose 422 -> 399),
    // not for a band (sgbmv 2^16's 246 -> 249 us, stbmv's 129 -> 142).
    let block = match a.storage {
        Storage::Packed => {
            let elements = a.cols * (a.cols + 1) / 2;
            VectorBlock::new(&ctx.inner, &PRODUCT_STORED_X_BUFFER.plain, x, elements)?
        }
        _ => None,
    };
    let kernel = match (&block, a.storage, parts.row) {
        (Some(_), ..) => &PRODUCT_STORED_X_BUFFER,
        (None, Storage::Band { .. }, None) => &PRODUCT_BAND_COLUMNS,
        (None, Storage::Band { .. }, Some(_)) => &PRODUCT_BAND,
        _ => &PRODUCT_STORED,
    };
    chunked(
        ctx,
        kernel,
        parts.len_y,
        summed,
        Some(split),
        1,
        sink,
        block,
        |gl, p| {
            abuf.bind(gl, p, 0, "a", "a_width");
            gl.set_i32(p, "a_last", abuf.last_texel());
            gl.set_i32(p, "storage", storage);
            gl.set_i32(p, "lda", lda as i32);
            gl.set_i32(p, "ku", ku as i32);
            gl.set_i32(p, "order", a.cols as i32);
            gl.set_i32(p, "band_lo", band_lo);
            gl.set_i32(p, "band_hi", band_hi);
            parts.set(gl, p, a, skip_zero);
            gl.set_i32(p, "interleave", interleave as i32);
            x.bind(gl, p, 1, "x", "x_width");
        },
    )
}

/// How far apart (in x texels) neighbouring chunks of an interleaved column part read, so that
/// the columns they read at one moment lie in neighbouring rows of A's texture
/// (`width` texels a row, `col` texels a column): columns [`aligned_columns`] apart share
/// their place in a row; x texels hold 4 columns, so a quarter of that. 1 (no spreading)
/// when that is under 8 or over 32 columns (no column shares a row's place with a near one).
pub(crate) fn spread(width: usize, col: usize) -> usize {
    let p = aligned_columns(width, col);
    if (8..=32).contains(&p) {
        p / 4
    } else {
        1
    }
}

/// [`product`] on full storage with leading dimension `lda` (a multiple of 4) and a
/// unit-stride x (`product_vec4.frag`): the summed index in chunks, each texel of A read as
/// one fetch.
#[allow(clippy::too_many_arguments)]
pub(crate) fn product_vec4(
    ctx: &Context,
    a: &Matrix,
    lda: usize,
    abuf: &Buffer,
    trans: bool,
    x: &Buffer,
    skip_zero: bool,
    sink: Sink<'_>,
) -> Result<Option<Buffer>> {
    let parts = Parts::new(a, trans);
    let interleave = ctx.inner.interleaved_products;
    // Neighbouring chunks (column part) and neighbouring results (row part) read columns
    // this many x texels apart, so that at one moment they read neighbouring rows of A's
    // texture.
    let q = if interleave {
        spread(abuf.layout().width as usize, lda / 4)
    } else {
        1
    };
    // x's texels from a storage buffer where that pays ([`VectorBlock`]).
    // A triangle's product (strmv, and those inside the solves) was slower that way on the
    // H200 (strmv 4096's 123 -> 130 us), a full or symmetric one faster (sgemv 4096^2
    // 219 -> 206 us, ssymv 210 -> 197).
    let triangular = matches!(a.shape, Shape::Triangular(..));
    let block = if interleave && !triangular {
        let elements = parts.len_x * parts.len_y;
        VectorBlock::new(&ctx.inner, &PRODUCT_VEC4_X_BUFFER.plain, x, elements)?
    } else {
        None
    };
    let kernel = match (&block, interleave) {
        (Some(_), _) => &PRODUCT_VEC4_X_BUFFER,
        (None, true) => &PRODUCT_VEC4_INTERLEAVED,
        (None, false) => &PRODUCT_VEC4,
    };
    let split = match (interleave, folding_form(&ctx.inner, kernel)) {
        (true, Some(_)) => Split::interleaved_folding(),
        (true, None) => Split::interleaved(),
        (false, _) => Split::new(ctx.info().software, usize::MAX),
    };
    chunked(
        ctx,
        kernel,
        parts.len_y,
        parts.len_x.div_ceil(4),
        Some(split),
        if parts.row.is_some() { q } else { 1 },
        sink,
        block,
        |gl, p| {
            abuf.bind(gl, p, 0, "a", "a_width");
            gl.set_i32(p, "lda", lda as i32);
            parts.set(gl, p, a, skip_zero);
            gl.set_i32(p, "spread", q as i32);
            gl.set_i32(p, "chunk_run", CHUNK_RUN as i32);
            x.bind(gl, p, 1, "x", "x_width");
        },
    )
}

/// `y := alpha*p + beta*y` for the product `p` that `run` computes into the sink it is
/// given: into y by the fold itself when y has unit stride, else as a vector then added by
/// level 1's update.
pub(crate) fn product_update(
    ctx: &Context,
    run: impl FnOnce(Sink<'_>) -> Result<Option<Buffer>>,
    alpha: f32,
    beta: f32,
    (y, incy, len_y): (&mut Buffer, i32, i32),
) -> Result<()> {
    if incy == 1 {
        return run(Sink::Update { alpha, beta, y }).map(|_| ());
    }
    let Some(t) = run(Sink::Vector)? else {
        unreachable!("a product into a vector returns it")
    };
    let done = update(ctx, len_y, Op::Axpby, alpha, beta, Some((&t, 1)), y, incy);
    ctx.inner.give_surface(t.into_surface());
    done
}

impl MvCall {
    /// `y := alpha*op(A)*x + beta*y` on the GPU, after the checks: as reference, beta comes
    /// first (0 without reading y when beta == 0) and nothing of A or x is read when
    /// alpha == 0.
    pub(crate) fn multiply_add(
        &self,
        ctx: &Context,
        alpha: f32,
        abuf: &Buffer,
        (x, incx): (&Buffer, i32),
        beta: f32,
        (y, incy): (&mut Buffer, i32),
    ) -> Result<()> {
        let len_y = self.len_y() as i32;
        let incy = pass_inc(len_y, incy);
        if alpha == 0.0 {
            return update(ctx, len_y, Op::Scale, 0.0, beta, None, y, incy);
        }
        product_update(
            ctx,
            |sink| product(ctx, &self.a, abuf, self.trans, (x, incx), false, sink),
            alpha,
            beta,
            (y, incy, len_y),
        )
    }

    /// `y := alpha*op(A)*x + beta*y` with every check, for the device API: the buffers'
    /// owners, the quick return, the lengths, then [`MvCall::multiply_add`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        ctx: &Context,
        r: &'static str,
        a_param: &'static str,
        alpha: f32,
        abuf: &Buffer,
        (x, incx): (&Buffer, i32),
        beta: f32,
        (y, incy): (&mut Buffer, i32),
    ) -> Result<()> {
        abuf.check_owner(ctx, a_param)?;
        x.check_owner(ctx, "x")?;
        y.check_owner(ctx, "y")?;
        if self.quick_return(alpha, beta) {
            return Ok(());
        }
        self.check_lengths(
            r,
            a_param,
            alpha,
            (abuf.len(), x.len(), y.len()),
            incx,
            incy,
        )?;
        self.multiply_add(ctx, alpha, abuf, (x, incx), beta, (y, incy))?;
        ctx.inner.enter()?.check(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec4_parts_of_each_shape() {
        use Rule::*;
        let tri = |u| Shape::Triangular(u, Diag::NonUnit);
        assert_eq!(vec4_rules(Shape::General, false), (Some(All), None));
        assert_eq!(vec4_rules(Shape::General, true), (None, Some(All)));
        assert_eq!(vec4_rules(tri(Uplo::Upper), false), (Some(Upper), None));
        assert_eq!(vec4_rules(tri(Uplo::Lower), true), (None, Some(Lower)));
        for t in [false, true] {
            assert_eq!(
                vec4_rules(Shape::Symmetric(Uplo::Upper), t),
                (Some(Upper), Some(StrictUpper))
            );
            assert_eq!(
                vec4_rules(Shape::Symmetric(Uplo::Lower), t),
                (Some(Lower), Some(StrictLower))
            );
        }
        let full = |lda| Matrix::square(Storage::Full { lda }, Shape::General, 3);
        assert!(vec4_applies(&full(4), 1));
        assert!(!vec4_applies(&full(6), 1));
        assert!(!vec4_applies(&full(8), -1));
        assert!(!vec4_applies(
            &Matrix::square(Storage::Packed, Shape::General, 4),
            1
        ));
    }

    #[test]
    fn the_summed_index_splits_into_non_empty_chunks_that_cover_it() {
        for &(out, summed, band, max, sw, most) in &[
            (4096, 4096, 1, 32768, false, usize::MAX),
            (1, 4096, 1, 32768, false, usize::MAX),
            (1, 3, 1, 32768, false, usize::MAX),
            (300_000, 4096, 37, 32768, false, usize::MAX),
            (1024, 1024, 1, 16384, true, usize::MAX),
            (10, 100_000, 16384, 16384, false, usize::MAX),
            (1, 100_000, 1, 16384, true, 2048),
        ] {
            let (chunks, chunk) = split_sum(out, summed, band, max, Split::new(sw, most));
            assert!(chunks >= 1 && chunk >= 1);
            assert!(chunks * chunk >= summed, "cover {out} {summed}");
            assert!(
                (chunks - 1) * chunk < summed.max(1),
                "no empty chunk {out} {summed}"
            );
            assert!(chunks * band <= max.max(band), "fits {out} {summed}");
            if chunks * band < max / 2 {
                assert!(chunk <= most, "chunk bound {out} {summed}");
            }
        }
        // 16384^2 on a GPU: 4096 outputs texels, 4096 summed texels: 32 chunks of 128.
        assert_eq!(
            split_sum(4096, 4096, 1, 32768, Split::new(false, usize::MAX)),
            (32, 128)
        );
        // 1024^2 on a GPU: 256 output texels, 256 summed: 32 chunks of the shortest, 8.
        assert_eq!(
            split_sum(256, 256, 1, 32768, Split::new(false, usize::MAX)),
            (32, 8)
        );
        assert_eq!(
            split_sum(4096, 4096, 1, 32768, Split::new(true, usize::MAX)),
            (1, 4096)
        );
        // Interleaved, 4096^2: 1024 output texels, 32 chunks of 32 texels (2^15 fragments).
        assert_eq!(
            split_sum(1024, 1024, 1, 32768, Split::interleaved()),
            (32, 32)
        );
        // Folding in the draw, 4096^2: 8 chunks of 128 texels (2^13 fragments); 1024^2
        // keeps its 32 chunks of the shortest, 8 texels (2^13 already).
        assert_eq!(
            split_sum(1024, 1024, 1, 32768, Split::interleaved_folding()),
            (8, 128)
        );
        assert_eq!(
            split_sum(256, 256, 1, 32768, Split::interleaved_folding()),
            (32, 8)
        );
    }

    #[test]
    fn spread_puts_neighbouring_reads_in_neighbouring_rows() {
        // 4096 rows (1024 texels a column) in rows of 8192 texels: columns 8 apart share
        // their place in a row, so x texels 2 apart.
        assert_eq!(spread(8192, 1024), 2);
        // 16384 rows: columns 2 apart already share it.
        assert_eq!(spread(8192, 4096), 1);
        // 1024 rows: columns 32 apart, x texels 8.
        assert_eq!(spread(8192, 256), 8);
        // Columns 64 or more apart (or never): no spreading.
        assert_eq!(spread(8192, 128), 1);
        assert_eq!(spread(8192, 1025), 1);
        // Tiny textures.
        assert_eq!(spread(16, 127), 4);
        assert_eq!(spread(4, 1), 1);
    }
}
