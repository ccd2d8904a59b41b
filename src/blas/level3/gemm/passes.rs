//! sgemm's passes on the GPU: the generic kernel, the packing (reorder) passes, the
//! multiply passes of each kernel and their merges into C. [`multiply`] runs a chosen
//! kernel; nothing here chooses. Every multiply pass gets C's window (`set_window`): a
//! triangular window's kernels skip the blocks of their grid that hold none of it.

use crate::blas::level3::gemm::kernel::{
    GemmKernel, GEMM_GENERIC, GEMM_MERGE_STRIP_IMAGE, GEMM_PACK, GEMM_PACK_BLOCKS, GEMM_PACK_IMAGE,
    GEMM_PACK_STRIP, PACK_TEXELS, PACK_TEXELS_T,
};
use crate::blas::level3::gemm::plan::{
    StripDraw, StripPlan, StripWindow, TilePlan, STRIP_BAND, STRIP_BLOCK_BYTES, STRIP_KC,
};
use crate::blas::level3::gemm::shape::{GemmShape, Operand, Terms, Window};
use crate::blas::passes::in_spans;
use crate::device::buffer::Buffer;
use crate::device::context::Inner;
use crate::device::kernel::Kernel;
use crate::error::Result;
use crate::gl::{Gl, GlBuffer, Program, Rect, Surface};

/// One sgemm call in column-major form after the argument checks: what the passes read.
#[derive(Clone, Copy)]
pub(crate) struct GemmCall<'a> {
    pub s: &'a GemmShape,
    pub alpha: f32,
    pub a: &'a Buffer,
    pub b: &'a Buffer,
    pub beta: f32,
    pub c: &'a Buffer,
}

impl GemmCall<'_> {
    /// The texels of C the passes that write C draw ([`TexLayout::update_rect`]).
    ///
    /// [`TexLayout::update_rect`]: crate::layout::TexLayout::update_rect
    pub(crate) fn rect(&self) -> Rect {
        self.c
            .layout()
            .update_rect(self.s.c_off, (self.s.m, self.s.n), self.s.ldc)
    }
}

/// Sets the uniforms every pass that writes C shares: C's window and the BLAS scalars.
fn set_update_uniforms(gl: &Gl, p: &Program, s: &GemmShape, alpha: f32, beta: f32) {
    set_window(gl, p, (s.m, s.n), s.ldc, s.c_off, s.window);
    gl.set_f32(p, "alpha", alpha);
    gl.set_f32(p, "beta", beta);
}

/// Sets the uniforms of `gemm_window.glsl`: the `m x n` window of C from element `c_off`
/// with leading dimension `ldc`, and the part of it written.
pub(crate) fn set_window(
    gl: &Gl,
    p: &Program,
    (m, n): (usize, usize),
    ldc: usize,
    c_off: usize,
    window: Window,
) {
    gl.set_i32(p, "ldc", ldc as i32);
    gl.set_i32(p, "m", m as i32);
    gl.set_i32(p, "n", n as i32);
    gl.set_i32(p, "c_off", c_off as i32);
    let (tri, diag) = match window {
        Window::Full => (0, 0),
        Window::Upper(d) => (1, d),
        Window::Lower(d) => (2, d),
    };
    gl.set_i32(p, "c_tri", tri);
    gl.set_i32(p, "c_diag", diag as i32);
}

/// Sets the uniforms of `gemm_window.glsl`'s `term_range`: the terms of the sum each row of
/// C takes (only the kernels that bound their sums read them: [`GemmKernel::bounds_terms`]).
fn set_terms(gl: &Gl, p: &Program, terms: Terms) {
    let (tri, block) = match terms {
        Terms::All => (0, 1),
        Terms::Before(b) => (1, b),
        Terms::After(b) => (2, b),
    };
    gl.set_i32(p, "t_tri", tri);
    gl.set_i32(p, "t_block", block as i32);
}

/// Generic kernel over C's texture; `k = 0` skips A and B. k is covered in passes of
/// [`GENERIC_SPAN`]: the first computes alpha*part + beta*C, each further one
/// alpha*part + (the previous result).
pub(crate) fn generic_pass(inner: &Inner, call: &GemmCall, k: usize) -> Result<Surface> {
    let GemmCall {
        s,
        alpha,
        a,
        b,
        beta,
        c,
    } = *call;
    let prog = inner.program(&GEMM_GENERIC)?;
    let cl = c.layout();
    let rect = call.rect();
    in_spans(inner, k, (cl.width, cl.height), |gl, prev, k0, k1, out| {
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
        gl.set_i32(&prog, "a_off", s.a.off as i32);
        gl.set_i32(&prog, "lda", s.a.ld as i32);
        gl.set_i32(&prog, "a_trans", s.a.trans as i32);
        gl.set_i32(&prog, "b_off", s.b.off as i32);
        gl.set_i32(&prog, "ldb", s.b.ld as i32);
        gl.set_i32(&prog, "b_trans", s.b.trans as i32);
        gl.set_i32(&prog, "k0", k0 as i32);
        gl.set_i32(&prog, "k", k1 as i32);
        let beta = if prev.is_some() { 1.0 } else { beta };
        set_update_uniforms(gl, &prog, s, alpha, beta);
        gl.draw_rects(&[out], &[rect], |_| {});
    })
}

/// Where a packing pass puts layout texel (x, y) (rows 4x..4x+3 of column y of the packed
/// operand) in its texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// At (x, y).
    Plain,
    /// In 2x2 blocks: four neighbouring texels of a column share one (the strip kernels'
    /// op(B); `gemm_pack.frag`'s `quads`).
    Quads,
    /// In the strip kernels' uniform blocks of op(A): strip s, chunk c of `chunks`
    /// (`gemm_pack_strip.frag`).
    Strips { chunks: usize },
}

impl Place {
    /// `place_kind` of `gemm_pack_image.frag`.
    fn kind(self) -> i32 {
        match self {
            Place::Plain => 0,
            Place::Quads => 1,
            Place::Strips { .. } => 2,
        }
    }

    /// The layout's extent in texels for a texture of `(w, h)` texels.
    fn extent(self, (w, h): (u32, u32)) -> (u32, u32) {
        match self {
            Place::Plain => (w, h),
            Place::Quads => (2 * w, h / 2),
            // Texture row s*chunks + c holds strip s's chunk c, two texels a value of k.
            Place::Strips { chunks } => (2 * h / chunks as u32, chunks as u32 * w / 2),
        }
    }
}

/// Reorder pass: packs op(M) (rows x cols of the operand `op`: stored from `op.off` with
/// `op.ld`, transposed if `op.trans`) into a `ceil(rows/4)` x `height` texture, zero-padded.
fn pack(
    inner: &Inner,
    src: &Buffer,
    op: Operand,
    (rows, cols): (usize, usize),
    height: usize,
) -> Result<Surface> {
    let (w, h) = (rows.div_ceil(4).max(1), height.max(1));
    pack_sized(
        inner,
        src,
        op,
        (rows, cols),
        (w as u32, h as u32),
        Place::Plain,
    )
}

/// [`pack`] into a `w` x `h` texture (at least the size `pack` gives; texels past the
/// operand are zero), its texels where `place` puts them. On GPUs with image stores
/// (`gemm_pack_image.frag`, [`PACK_TEXELS`] texels a fragment) every place; elsewhere
/// (`gemm_pack.frag`, one texel a fragment) [`Place::Plain`] and [`Place::Quads`].
fn pack_sized(
    inner: &Inner,
    src: &Buffer,
    op: Operand,
    (rows, cols): (usize, usize),
    (w, h): (u32, u32),
    place: Place,
) -> Result<Surface> {
    let out = inner.take_surface(w, h)?;
    if inner.image_store_paths {
        let outs = [(PackOut::Image(&out), place)];
        pack_image(inner, src, op, (rows, cols), &outs, true, Terms::All)?;
        return Ok(out);
    }
    debug_assert!(!matches!(place, Place::Strips { .. }));
    let prog = inner.program(&GEMM_PACK)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    set_pack_source(gl, &prog, src, op, (rows, cols));
    gl.set_i32(&prog, "quads", (place == Place::Quads) as i32);
    gl.draw(&[&out], w, h);
    Ok(out)
}

/// Whether packed op(A) of `bytes` bytes is written straight into the buffer the multiply
/// reads ([`GEMM_PACK_BLOCKS`], [`ContextOptions::storage_packs`]) rather than into a
/// texture copied into it.
///
/// [`ContextOptions::storage_packs`]: crate::ContextOptions::storage_packs
fn packs_into_buffers(inner: &Inner, bytes: usize) -> bool {
    inner.storage_packs
        && inner.image_store_paths
        && GEMM_PACK_BLOCKS.runs_on(&inner.info)
        && bytes as u64 <= inner.info.max_storage_block_size
}

/// op(A) packed into a new buffer of at least `bytes` bytes that holds the texels of a
/// `(w, h)` layout row by row (the strip kernels' uniform blocks, the tile kernels' storage
/// buffer) at `place`; with `twin`, the same pass also writes op(A)'s layout into that
/// texture at its place ([`strip_twin_pack`]). Where the device can, the pack writes the
/// buffer itself ([`packs_into_buffers`]); elsewhere a texture, copied into the buffer.
/// With `then_b` (no twin), the caller packs op(B) next, whose pass's barrier covers this
/// one's writes too: the direct pack then leaves its own out, so that the GPU can run the
/// two packs side by side. With `terms` other than all (the strip kernels' blocks, no twin),
/// the direct pack leaves out the texels that no row of op(A) takes (`gemm_pack_image.frag`'s
/// `taken`): the product's kernel must bound its sums to those terms.
#[allow(clippy::too_many_arguments)]
fn pack_into_buffer(
    inner: &Inner,
    src: &Buffer,
    op: Operand,
    dims: (usize, usize),
    ((w, h), bytes): ((u32, u32), usize),
    place: Place,
    twin: Option<(&Surface, Place)>,
    (then_b, terms): (bool, Terms),
) -> Result<GlBuffer> {
    let buf = inner.take_block_buffer(bytes)?;
    if packs_into_buffers(inner, bytes) {
        let mut outs = vec![(PackOut::Buffer(&buf, (w, h)), place)];
        outs.extend(twin.map(|(t, p)| (PackOut::Image(t), p)));
        let ordered = !then_b || twin.is_some();
        pack_image(inner, src, op, dims, &outs, ordered, terms)?;
        return Ok(buf);
    }
    let tex = match twin {
        Some((t, tp)) => {
            let tex = inner.take_surface(w, h)?;
            let outs = [(PackOut::Image(&tex), place), (PackOut::Image(t), tp)];
            pack_image(inner, src, op, dims, &outs, true, Terms::All)?;
            tex
        }
        None => pack_sized(inner, src, op, dims, (w, h), place)?,
    };
    inner.enter()?.copy_to_block_buffer(&tex, &buf);
    inner.give_surface(tex);
    Ok(buf)
}

/// The uniforms of both packing kernels that name the operand read.
fn set_pack_source(
    gl: &Gl,
    prog: &Program,
    src: &Buffer,
    op: Operand,
    (rows, cols): (usize, usize),
) {
    src.bind(gl, prog, 0, "src", "src_width");
    gl.set_i32(prog, "src_off", op.off as i32);
    gl.set_i32(prog, "ld", op.ld as i32);
    gl.set_i32(prog, "trans", op.trans as i32);
    gl.set_i32(prog, "rows", rows as i32);
    gl.set_i32(prog, "cols", cols as i32);
}

/// Where a pass of `gemm_pack_image.frag` writes a layout.
#[derive(Clone, Copy)]
enum PackOut<'a> {
    /// Into this texture.
    Image(&'a Surface),
    /// Into this buffer, as the rows of a texture of this size would be read back (the
    /// first layout of a pass only: [`GEMM_PACK_BLOCKS`]).
    Buffer(&'a GlBuffer, (u32, u32)),
}

impl PackOut<'_> {
    /// The size in texels of the texture the layout fills.
    fn size(self) -> (u32, u32) {
        match self {
            PackOut::Image(s) => (s.width, s.height),
            PackOut::Buffer(_, size) => size,
        }
    }
}

/// The image-store pack (`gemm_pack_image.frag`): one pass writes op(M)'s layout into one
/// texture or buffer, or two at once (`outs`: where each goes and where it puts the
/// layout's texels), reading op(M) once.
fn pack_image(
    inner: &Inner,
    src: &Buffer,
    op: Operand,
    (rows, cols): (usize, usize),
    outs: &[(PackOut, Place)],
    ordered: bool,
    terms: Terms,
) -> Result<()> {
    let buffer = match outs[0].0 {
        PackOut::Buffer(b, (w, _)) => Some((b, w)),
        PackOut::Image(_) => None,
    };
    debug_assert!(outs[1..]
        .iter()
        .all(|(o, _)| matches!(o, PackOut::Image(_))));
    let kernel = if buffer.is_some() {
        &GEMM_PACK_BLOCKS
    } else {
        &GEMM_PACK_IMAGE
    };
    let prog = inner.program(kernel)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    set_pack_source(gl, &prog, src, op, (rows, cols));
    gl.set_i32(&prog, "src_last", src.last_texel());
    // A pass writing two layouts keeps its rows in order: spread, the second layout's image
    // stores scatter (ssyrk 4096's twin pack went from 1.21 to 1.49 ms on the H100).
    let spread = match outs.len() {
        1 => op.pack_spread(src.layout().width),
        _ => 1,
    };
    gl.set_i32(&prog, "spread", spread as i32);
    gl.set_i32(&prog, "twin", (outs.len() > 1) as i32);
    debug_assert!(
        terms == Terms::All || (outs.len() == 1 && matches!(outs[0].1, Place::Strips { .. }))
    );
    set_terms(gl, &prog, terms);
    if let Some((b, w)) = buffer {
        gl.bind_storage_buffer(0, Some(b));
        gl.set_i32(&prog, "dst_width", w as i32);
    }
    let (mut ew, mut eh) = (0, 0);
    for (i, (out, place)) in outs.iter().enumerate() {
        let (w, h) = place.extent(out.size());
        let names = [("place_kind", "extent"), ("place_kind2", "extent2")][i];
        gl.set_i32(&prog, names.0, place.kind());
        gl.set_ivec2(&prog, names.1, [w as i32, h as i32]);
        if let Place::Strips { chunks } = place {
            gl.set_i32(&prog, "chunks", *chunks as i32);
        }
        (ew, eh) = (ew.max(w), eh.max(h));
    }
    // A fragment writes PACK_TEXELS texels of a layout row (op(M) = M) or PACK_TEXELS_T of
    // a column (transposed: the grid's x then runs down the layout's columns).
    let grid = if op.trans {
        (eh.div_ceil(PACK_TEXELS_T as u32), ew)
    } else {
        (ew.div_ceil(PACK_TEXELS as u32), eh)
    };
    // The textures, on image units from 0 (a buffer takes none).
    let images: Vec<&Surface> = outs
        .iter()
        .filter_map(|(out, _)| match out {
            PackOut::Image(s) => Some(*s),
            PackOut::Buffer(..) => None,
        })
        .collect();
    if ordered {
        gl.draw_image_stores(&images, grid.0, grid.1);
    } else {
        gl.draw_image_stores_unordered(&images, grid.0, grid.1);
    }
    if buffer.is_some() {
        gl.bind_storage_buffer(0, None);
    }
    Ok(())
}

/// The merge pass every packed path ends with: `merge` reads the product textures
/// `prods` (uniform names and surfaces, on texture units 0, 1, ...) and C (on the next unit),
/// and alpha*product + beta*C lands in a new texture shaped like C's. The product textures
/// go back to the pool.
fn merge_into_c(
    inner: &Inner,
    call: &GemmCall,
    merge: Option<&'static Kernel>,
    prods: Vec<(&'static str, Surface)>,
) -> Result<Surface> {
    let prog = inner.program(merge.expect("the packed kernels have a merge pass"))?;
    let cl = call.c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    for (i, (name, p)) in prods.iter().enumerate() {
        gl.set_texture(&prog, name, i as u32, p);
    }
    call.c.bind(gl, &prog, prods.len() as u32, "c", "c_width");
    set_update_uniforms(gl, &prog, call.s, call.alpha, call.beta);
    gl.draw_rects(&[&out], &[call.rect()], |_| {});
    for (_, p) in prods {
        inner.give_surface(p);
    }
    Ok(out)
}

/// Names of the product textures of the 8-target merges (sgemm's and batched sgemm's).
pub(crate) const PRODUCTS: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];

/// The operand op(M)^T, whose packing puts 4 columns of op(M) in a texel.
fn by_columns(op: Operand) -> Operand {
    Operand {
        trans: !op.trans,
        ..op
    }
}

/// Vectorised path: pack op(A) and op(B), multiply, merge into a new C texture.
fn vec4_passes(inner: &Inner, call: &GemmCall) -> Result<Surface> {
    let GemmCall { s, a, b, .. } = *call;
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    let ap = pack(inner, a, s.a, (s.m, s.k), 4 * kb)?;
    let bp = pack(inner, b, s.b, (s.k, s.n), s.n)?;
    let prod = inner.take_surface(mb as u32, s.n as u32)?;
    let (mul, merge) = GemmKernel::Vec4.kernels();
    let prog = inner.program(mul)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "ap", 0, &ap);
    gl.set_texture(&prog, "bp", 1, &bp);
    gl.set_i32(&prog, "k4", kb as i32);
    set_window(gl, &prog, (s.m, s.n), s.ldc, s.c_off, s.window);
    gl.draw(&[&prod], mb as u32, s.n as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    merge_into_c(inner, call, merge, vec![("prod", prod)])
}

/// Register-tiled path (`kernel` Mrt4 or Mrt8): pack op(A) and op(B), multiply into `cols`
/// targets, merge into C.
fn mrt_passes(inner: &Inner, kernel: GemmKernel, call: &GemmCall) -> Result<Surface> {
    let GemmCall { s, a, b, .. } = *call;
    let (mul, merge) = kernel.kernels();
    let cols = mul.draw_buffers as usize;
    let (mb, kb, nb) = (s.m.div_ceil(4), s.k.div_ceil(4), s.n.div_ceil(cols));
    let ap = pack(inner, a, s.a, (s.m, s.k), 4 * kb)?;
    let bp = pack(inner, b, s.b, (s.k, s.n), s.n)?;
    let mut prods = Vec::with_capacity(cols);
    for _ in 0..cols {
        prods.push(inner.take_surface(mb as u32, nb as u32)?);
    }
    let prog = inner.program(mul)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "ap", 0, &ap);
    gl.set_texture(&prog, "bp", 1, &bp);
    gl.set_i32(&prog, "k4", kb as i32);
    set_window(gl, &prog, (s.m, s.n), s.ldc, s.c_off, s.window);
    let targets: Vec<&Surface> = prods.iter().collect();
    gl.draw(&targets, mb as u32, nb as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    let prods = PRODUCTS.into_iter().zip(prods).collect();
    merge_into_c(inner, call, merge, prods)
}

/// The strip kernels' plan for a call under `kernel`.
fn strip_plan(inner: &Inner, kernel: GemmKernel, s: &GemmShape) -> StripPlan {
    let align = inner.info.uniform_buffer_offset_alignment.max(1) as usize;
    StripPlan::new(s, kernel.kernels().0.uniform_blocks as usize, align)
}

/// Whether operand `x` (a buffer and how an sgemm reads it) is operand `y` transposed: the
/// same buffer, read the other way, so that one twin pack serves both.
fn reads_transposed((xb, xo): (&Buffer, Operand), (yb, yo): (&Buffer, Operand)) -> bool {
    std::ptr::eq(xb, yb) && xo == by_columns(yo)
}

/// The twin pack of the strip kernels (image stores only): op(M) (`op` of `src`, `s.m x
/// s.k`) read once, written as the uniform blocks of op(A) of `s` and as the quads of op(B)
/// of a call whose op(B) is op(M)^T.
fn strip_twin_pack(
    inner: &Inner,
    plan: &StripPlan,
    s: &GemmShape,
    src: &Buffer,
    op: Operand,
) -> Result<(GlBuffer, Surface)> {
    let (w, h) = quads_size(s.n, s.k);
    let bt = inner.take_surface(w, h)?;
    let size = (strip_a_size(plan), plan.buffer_bytes());
    let twin = Some((&bt, Place::Quads));
    let place = strip_place(plan);
    let blocks = pack_into_buffer(
        inner,
        src,
        op,
        (s.m, s.k),
        size,
        place,
        twin,
        (false, Terms::All),
    )?;
    Ok((blocks, bt))
}

/// The texture size of the strip kernels' packed op(A): a row of texels a block.
fn strip_a_size(plan: &StripPlan) -> (u32, u32) {
    (plan.block_texels() as u32, plan.blocks() as u32)
}

/// Where the strip kernels' op(A) goes.
fn strip_place(plan: &StripPlan) -> Place {
    Place::Strips {
        chunks: plan.chunks,
    }
}

/// op(A)'s packed blocks (`ap`, which goes back to the pool) copied into one buffer of
/// uniform blocks (the rendered pack's path).
fn strip_blocks(inner: &Inner, plan: &StripPlan, ap: Surface) -> Result<GlBuffer> {
    let blocks = inner.take_block_buffer(plan.buffer_bytes())?;
    inner.enter()?.copy_to_block_buffer(&ap, &blocks);
    inner.give_surface(ap);
    Ok(blocks)
}

/// Two strip-kernel products into the same window of C that read each other's operands
/// transposed (ssyr2k: `first` op(X) op(Y)^T, `second` op(Y) op(X)^T): X and Y are each
/// packed once for both, by twin packs. `None` where that does not apply (no image stores,
/// a kernel other than the strip kernels, other operands); else the packed operands of each
/// call, for [`strip_multiply`].
pub(crate) fn strip_pair_packs(
    inner: &Inner,
    kernel: GemmKernel,
    first: &GemmCall,
    second: &GemmCall,
) -> Result<Option<[(GlBuffer, Surface); 2]>> {
    let (s1, s2) = (first.s, second.s);
    let pair = kernel.is_strip()
        && inner.image_store_paths
        && s1.m == s1.n
        && (s1.m, s1.n, s1.k) == (s2.m, s2.n, s2.k)
        && reads_transposed((first.a, s1.a), (second.b, s2.b))
        && reads_transposed((second.a, s2.a), (first.b, s1.b));
    if !pair {
        return Ok(None);
    }
    let plan = strip_plan(inner, kernel, s1);
    let (ap_x, bt_x) = strip_twin_pack(inner, &plan, s1, first.a, s1.a)?;
    let (ap_y, bt_y) = strip_twin_pack(inner, &plan, s2, second.a, s2.a)?;
    Ok(Some([(ap_x, bt_y), (ap_y, bt_x)]))
}

/// Strip path: pack op(A) into uniform blocks and op(B) into rows of 4 columns, multiply
/// strip by strip (chunks of k after the first add by blending), merge into C.
fn strip_passes(inner: &Inner, kernel: GemmKernel, call: &GemmCall) -> Result<Option<Surface>> {
    let GemmCall { s, a, b, .. } = *call;
    let plan = strip_plan(inner, kernel, s);
    // op(A), strip by strip and chunk by chunk (copied into uniform blocks by
    // strip_multiply); op(B) by columns, in texels of 4: texel (j, l) = op(B)(l, 4j..4j+3).
    // Where op(B) is op(A)^T (ssyrk), the packs read the same texels: one pass writes both.
    if inner.image_store_paths && s.m == s.n && reads_transposed((a, s.a), (b, s.b)) {
        let (blocks, bt) = strip_twin_pack(inner, &plan, s, a, s.a)?;
        return strip_multiply(inner, kernel, call, StripA::Own(blocks), StripB::Own(bt));
    }
    let blocks = if inner.image_store_paths {
        let size = (strip_a_size(&plan), plan.buffer_bytes());
        let place = strip_place(&plan);
        // (op(B)'s pack follows at once. The strip kernels bound their sums to s.terms.)
        pack_into_buffer(
            inner,
            a,
            s.a,
            (s.m, s.k),
            size,
            place,
            None,
            (true, s.terms),
        )?
    } else {
        let (w, h) = strip_a_size(&plan);
        let prog = inner.program(&GEMM_PACK_STRIP)?;
        let ap = inner.take_surface(w, h)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "src", "src_width");
        gl.set_i32(&prog, "src_off", s.a.off as i32);
        gl.set_i32(&prog, "ld", s.a.ld as i32);
        gl.set_i32(&prog, "trans", s.a.trans as i32);
        gl.set_i32(&prog, "rows", s.m as i32);
        gl.set_i32(&prog, "cols", s.k as i32);
        gl.set_i32(&prog, "chunks", plan.chunks as i32);
        gl.draw(&[&ap], w, h);
        strip_blocks(inner, &plan, ap)?
    };
    let bt = pack_quads(inner, b, s.b, (s.k, s.n))?;
    strip_multiply(inner, kernel, call, StripA::Own(blocks), StripB::Own(bt))
}

/// op(A) of a product packed once into the strip kernels' uniform blocks (image stores
/// only), for several products whose op(A) is a part of it ([`StripA::Part`]): strsm's
/// updates, each a block of T, read one pack of all of T instead of packing their block.
pub(crate) struct PackedStrips {
    blocks: GlBuffer,
    plan: StripPlan,
    /// Rows and terms of the whole op(A).
    dims: (usize, usize),
}

impl PackedStrips {
    /// op(A) of `s` (read from `a`) packed for the strip kernels; `None` on a device
    /// without image stores. With `then_b` the pack leaves its barrier to an image-store
    /// pass that the caller draws next, before anything reads the pack (op(B)'s pack, as
    /// sgemm's op(A) pack does), so that the two can run side by side.
    pub(crate) fn new(
        inner: &Inner,
        s: &GemmShape,
        a: &Buffer,
        then_b: bool,
    ) -> Result<Option<Self>> {
        if !inner.image_store_paths {
            return Ok(None);
        }
        // The layout of the blocks does not depend on the strips a draw takes.
        let align = inner.info.uniform_buffer_offset_alignment.max(1) as usize;
        let plan = StripPlan::new(s, 1, align);
        let size = (strip_a_size(&plan), plan.buffer_bytes());
        let place = strip_place(&plan);
        let whole = (then_b, Terms::All);
        let blocks = pack_into_buffer(inner, a, s.a, (s.m, s.k), size, place, None, whole)?;
        Ok(Some(PackedStrips {
            blocks,
            plan,
            dims: (s.m, s.k),
        }))
    }

    /// Where a product whose op(A) is the block of `s.m` rows from `row0` and `s.k` terms
    /// from `k0` of the whole reads it ([`StripPlan::window`]); `None` where it cannot.
    pub(crate) fn window(&self, s: &GemmShape, at: (usize, usize)) -> Option<StripWindow> {
        self.plan.window(self.dims, (s.m, s.k), at)
    }

    /// Points uniform-block binding `binding` at the block of strip `strip` (of the whole)
    /// and chunk `chunk`.
    pub(crate) fn bind_block(&self, gl: &Gl, binding: u32, strip: usize, chunk: usize) {
        let offset = self.plan.block_offset(strip, chunk);
        gl.bind_block_range(binding, &self.blocks, offset, STRIP_BLOCK_BYTES);
    }

    /// The buffer back to the pool.
    pub(crate) fn release(self, inner: &Inner) {
        inner.give_block_buffer(self.blocks);
    }
}

/// op(B) (`op`, `k x n`) packed into the strip kernels' quads ([`quads_size`]).
pub(crate) fn pack_quads(
    inner: &Inner,
    b: &Buffer,
    op: Operand,
    (k, n): (usize, usize),
) -> Result<Surface> {
    pack_sized(
        inner,
        b,
        by_columns(op),
        (n, k),
        quads_size(n, k),
        Place::Quads,
    )
}

/// The uniform blocks of op(A) a strip-kernel product reads.
pub(crate) enum StripA<'a> {
    /// Packed for this product (the buffer goes back to the pool after it).
    Own(GlBuffer),
    /// A part of a larger op(A) packed once.
    Part(&'a PackedStrips, StripWindow),
}

/// The strip kernels' product of `call` whose op(A) is the part `at` of `packed`
/// ([`PackedStrips::window`]): op(B) packed, then [`strip_multiply`].
pub(crate) fn strip_multiply_part(
    inner: &Inner,
    kernel: GemmKernel,
    call: &GemmCall,
    packed: &PackedStrips,
    at: StripWindow,
    rows: Option<(&Surface, usize)>,
) -> Result<Option<Surface>> {
    let s = call.s;
    let b = match rows {
        Some((bt, k_off)) => StripB::Rows(bt, k_off),
        None => StripB::Own(pack_quads(inner, call.b, s.b, (s.k, s.n))?),
    };
    strip_multiply(inner, kernel, call, StripA::Part(packed, at), b)
}

/// The size of the strip kernels' quads of op(B) (texels of 4 columns in 2x2 blocks, zero
/// rows up to a multiple of 4 values of k) for an `n`-column op(B) of `k` terms.
pub(crate) fn quads_size(n: usize, k: usize) -> (u32, u32) {
    (
        2 * n.div_ceil(16).max(1) as u32,
        2 * k.next_multiple_of(4).max(1) as u32,
    )
}

/// The quads of op(B) a strip-kernel product reads.
pub(crate) enum StripB<'a> {
    /// Packed for this product (the texture goes back to the pool after it).
    Own(Surface),
    /// Rows from the given one of a larger op(B)'s quads, packed by the caller: the
    /// product's term t is row `k_off + t`. Its rows past the product's terms, up to a
    /// multiple of 4, must be zeros where op(A)'s are not (strsm's solved rows:
    /// `Tri::solve`).
    Rows(&'a Surface, usize),
}

/// The names of the strip kernels' uniform blocks of op(A), binding i for block i.
pub(crate) const STRIP_BLOCKS: [&str; 8] = [
    "AStrip[0]",
    "AStrip[1]",
    "AStrip[2]",
    "AStrip[3]",
    "AStrip[4]",
    "AStrip[5]",
    "AStrip[6]",
    "AStrip[7]",
];

/// The strip kernels' multiply and merge on packed operands (`a` op(A)'s uniform blocks,
/// `b` op(B)'s quads): `None` where the multiply ([`strips_in_place`]) or the merge wrote C
/// in place, else C's new texture for `install`.
pub(crate) fn strip_multiply(
    inner: &Inner,
    kernel: GemmKernel,
    call: &GemmCall,
    a: StripA,
    b: StripB,
) -> Result<Option<Surface>> {
    let (bt, k_off) = match &b {
        StripB::Own(bt) => (bt, 0),
        StripB::Rows(bt, k_off) => (*bt, *k_off),
    };
    let s = call.s;
    let (mul, merge) = kernel.kernels();
    let plan = strip_plan(inner, kernel, s);
    // Where op(A)'s blocks come from: strip `i` of the product is `strip0 + i` of the
    // blocks' plan, chunk `c` its chunk `chunk + c`, and its terms sit `shift` into it.
    let (blocks, a_plan, at) = match &a {
        StripA::Own(b) => (b, &plan, None),
        StripA::Part(p, w) => (&p.blocks, &p.plan, Some(*w)),
    };
    let (strip0, chunk0, shift) = at.map_or((0, 0, 0), |w| (w.strip0, w.chunk, w.shift));
    let in_place = strips_in_place(inner, kernel, call, &plan);
    // Each group of strips in the chunks of k where it takes terms (all of them but in a
    // blocked triangular product), the first setting the targets. In place, each group's
    // last draw writes C, after all the others (with one chunk, its only draw).
    let draws = plan.draws(s);
    let (partial, lasts) = match in_place {
        Some(_) => StripPlan::last_draws(&draws),
        None => (draws, Vec::new()),
    };
    let mut prods = Vec::with_capacity(8);
    if !partial.is_empty() {
        for _ in 0..8 {
            let (w, h) = (plan.band_width as u32, plan.target_height() as u32);
            prods.push(inner.take_surface(w, h)?);
        }
    }
    let band_rows = (plan.group * STRIP_BAND) as u32;
    // Each draw covers only the columns of its bands that hold tiles of the window.
    let rect = |d: &StripDraw| {
        let (x0, x1) = plan.live_columns(d.group, s.window);
        let y0 = d.group as u32 * band_rows;
        (x0 as u32, y0, (x1 - x0) as u32, band_rows)
    };
    // What both kernels read: op(B), the window, the terms, the blocks of op(A).
    let gl = inner.enter()?;
    let setup = |prog: &Program| {
        gl.use_program(prog);
        gl.set_texture(prog, "bt", 0, bt);
        gl.set_i32(prog, "quads", plan.quads as i32);
        set_update_uniforms(gl, prog, s, call.alpha, call.beta);
        set_terms(gl, prog, s.terms);
        for (i, name) in STRIP_BLOCKS.iter().enumerate().take(plan.group) {
            gl.set_block_binding(prog, name, i as u32);
        }
    };
    // Draw `d` of `draws`: its chunk of k, its terms, its strips' blocks.
    let bind = |prog: &Program, draws: &[StripDraw], d: usize| {
        let StripDraw {
            chunk,
            group,
            terms,
            ..
        } = draws[d];
        // The kernel reads term t of the product (from the chunk's start) at l = t + shift
        // of op(A)'s block and at row k0 + l = t of op(B)'s quads.
        let k0 = (chunk * STRIP_KC) as i32 - shift as i32;
        if d == 0 || draws[d - 1].chunk != chunk {
            gl.set_i32(prog, "k0", k0 + k_off as i32);
            let kc = (s.k - chunk * STRIP_KC).min(STRIP_KC).next_multiple_of(4);
            gl.set_i32(prog, "kc", kc as i32);
        }
        // The loop's bounds in the block (none when l0 >= l1).
        let a0 = shift as i32 - (chunk * STRIP_KC) as i32;
        gl.set_i32(prog, "l0", terms.0 as i32 + a0);
        gl.set_i32(prog, "l1", terms.1 as i32 + a0);
        for i in 0..plan.group {
            // Bands past the last strip read the last strip's block; nothing reads their
            // results.
            let strip = (group * plan.group + i).min(plan.strips - 1);
            let offset = a_plan.block_offset(strip0 + strip, chunk0 + chunk);
            gl.bind_block_range(i as u32, blocks, offset, STRIP_BLOCK_BYTES);
        }
    };
    if !partial.is_empty() {
        let prog = inner.program(mul)?;
        setup(&prog);
        let rects: Vec<_> = partial.iter().map(rect).collect();
        let targets: Vec<&Surface> = prods.iter().collect();
        gl.draw_rects(&targets, &rects, |d| {
            bind(&prog, &partial, d);
            let add = partial[d].add;
            if d == 0 || partial[d - 1].add != add {
                gl.set_additive_blend(add);
            }
        });
        gl.set_additive_blend(false);
    }
    if let Some(k) = in_place {
        let prog = inner.program(k)?;
        setup(&prog);
        call.c.bind(gl, &prog, 1, "c", "c_width");
        for (i, p) in prods.iter().enumerate() {
            gl.set_texture(&prog, PRODUCTS[i], 2 + i as u32, p);
        }
        let draws: Vec<StripDraw> = lasts.iter().map(|l| l.0).collect();
        let rects: Vec<_> = draws.iter().map(rect).collect();
        // Over several chunks (the PRIOR form), whether the group has earlier draws.
        let prior = plan.chunks > 1;
        gl.draw_image_store_rects(&[call.c.surface()], &rects, |d| {
            bind(&prog, &draws, d);
            if prior {
                gl.set_i32(&prog, "prior", lasts[d].1 as i32);
            }
        });
    }
    if let StripB::Own(bt) = b {
        inner.give_surface(bt);
    }
    if let StripA::Own(blocks) = a {
        inner.give_block_buffer(blocks);
    }
    if in_place.is_some() {
        for p in prods {
            inner.give_surface(p);
        }
        return Ok(None);
    }

    let s = call.s;
    let max = inner.info.max_texture_size as usize;
    if inner.image_store_paths
        && s.c_off.is_multiple_of(4)
        && s.ldc.is_multiple_of(4)
        && s.n.div_ceil(4).max(plan.strips) <= max
    {
        // In place: one fragment a tile of the targets, C's texels written where they are.
        let prog = inner.program(&GEMM_MERGE_STRIP_IMAGE)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        for (i, p) in prods.iter().enumerate() {
            gl.set_texture(&prog, PRODUCTS[i], i as u32, p);
        }
        call.c.bind(gl, &prog, 8, "c", "c_width");
        set_update_uniforms(gl, &prog, s, call.alpha, call.beta);
        // A grid of strips by column groups of 4.
        gl.draw_image_stores(
            &[call.c.surface()],
            plan.strips as u32,
            s.n.div_ceil(4) as u32,
        );
        for p in prods {
            inner.give_surface(p);
        }
        return Ok(None);
    }
    let prods = PRODUCTS.into_iter().zip(prods).collect();
    merge_into_c(inner, call, merge, prods).map(Some)
}

/// The in-place form of the strip kernel `kernel` where it can run `call` (on GPUs with
/// image stores, C's offset and leading dimension multiples of 4: a texel of C holds rows
/// of one column, and a tile's texels no other tile's), each group of strips' last draw
/// writing C ([`StripPlan::last_draws`]): with k in one chunk [`GemmKernel::in_place`]
/// (each group's only draw holds whole sums); with several chunks
/// [`GemmKernel::in_place_last`], which adds the earlier draws' targets, for a triangular
/// window only. `None`: the multiply writes targets that a merge pass adds into C.
///
/// (Measured on the H100, BENCHMARKS.md session 23: over several chunks the last-draw form
/// made ssyrk 4096 1.7% faster but sgemm 4096 1.1% slower, strmm 4096 the same.)
fn strips_in_place(
    inner: &Inner,
    kernel: GemmKernel,
    call: &GemmCall,
    plan: &StripPlan,
) -> Option<&'static Kernel> {
    let s = call.s;
    let k = match plan.chunks {
        1 => kernel.in_place()?,
        _ if s.window != Window::Full => kernel.in_place_last()?,
        _ => return None,
    };
    let fits = inner.image_store_paths
        && s.c_off.is_multiple_of(4)
        && s.ldc.is_multiple_of(4)
        && k.runs_on(&inner.info);
    fits.then_some(k)
}

/// Tile path (`kernel` Tile8 or Tile16): pack op(A) into a storage buffer and op(B) into
/// texels of 4 columns, multiply whole tiles into a product texture through image stores,
/// merge into C.
fn tile_passes(inner: &Inner, kernel: GemmKernel, call: &GemmCall) -> Result<Surface> {
    let GemmCall { s, a, b, .. } = *call;
    let plan = TilePlan::new(s, kernel.tile_rows());
    let (mul, merge) = kernel.kernels();
    let a_size = ((plan.a_width as u32, plan.k as u32), plan.a_bytes());
    let dims = (s.m, s.k);
    // (op(B)'s pack follows at once.)
    let first = (true, Terms::All);
    let a_buf = pack_into_buffer(inner, a, s.a, dims, a_size, Place::Plain, None, first)?;
    let gl = inner.enter()?;
    let bt = pack_sized(
        inner,
        b,
        by_columns(s.b),
        (s.n, s.k),
        (plan.b_width as u32, plan.k as u32),
        Place::Plain,
    )?;
    let prod = inner.take_surface(s.m.div_ceil(4).max(1) as u32, s.n.max(1) as u32)?;
    let prog = inner.program(mul)?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "bt", 0, &bt);
    gl.set_i32(&prog, "k", s.k as i32);
    gl.set_i32(&prog, "a_width", plan.a_width as i32);
    set_window(gl, &prog, (s.m, s.n), s.ldc, s.c_off, s.window);
    set_terms(gl, &prog, s.terms);
    gl.bind_storage_buffer(0, Some(&a_buf));
    gl.draw_image_stores(&[&prod], plan.grid.0 as u32, plan.grid.1 as u32);
    gl.bind_storage_buffer(0, None);
    inner.give_surface(bt);
    inner.give_block_buffer(a_buf);

    merge_into_c(inner, call, merge, vec![("prod", prod)])
}

/// `alpha*op(A)*op(B) + beta*C` of `call` with `kernel` (one that runs the shape): either
/// written into C in place (`None`: the strip kernels' merge on GPUs with image stores), or
/// as a new texture shaped like C's whose texels in [`GemmCall::rect`] are C's new ones
/// (elements there outside the window copied from C), which `install` puts in C.
pub(crate) fn multiply(
    inner: &Inner,
    kernel: GemmKernel,
    call: &GemmCall,
) -> Result<Option<Surface>> {
    match kernel {
        GemmKernel::Generic | GemmKernel::Auto => generic_pass(inner, call, call.s.k).map(Some),
        GemmKernel::Vec4 => vec4_passes(inner, call).map(Some),
        GemmKernel::Mrt4 | GemmKernel::Mrt8 => mrt_passes(inner, kernel, call).map(Some),
        GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8 => {
            strip_passes(inner, kernel, call)
        }
        GemmKernel::Tile8 | GemmKernel::Tile16 => tile_passes(inner, kernel, call).map(Some),
    }
}
