//! sgemm: C := alpha*op(A)*op(B) + beta*C, with a generic kernel and the vectorised 4x4
//! kernel that reads operands packed by a reorder pass.

use crate::blas::shape::{gemm_shape, GemmShape, Layout, Transpose};
use crate::buffer::Buffer;
use crate::context::{Context, DeviceInfo, Inner};
use crate::error::{Error, Result};
use crate::gl::{Gl, Program, Surface};
use crate::kernels::{Kernel, STRIP_BAND, STRIP_BLOCK_BYTES, STRIP_KC};
use crate::tune::ShapeClass;

/// Which sgemm kernel runs. `Auto` is the default; the others exist so that tests and
/// benchmarks can reach each kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemmKernel {
    /// The widest register-tiled kernel the device's draw buffers allow, wherever its packed
    /// textures fit the device, else generic.
    Auto,
    /// Scalar fetches straight from the user's buffers: any shape, no scratch textures.
    Generic,
    /// Reorder pass into packed textures, then 16 multiply-adds per 5 vec4 fetches.
    Vec4,
    /// Reorder pass, then a 4-row x 4-column register tile per fragment written to 4
    /// render targets: 64 multiply-adds per 8 vec4 fetches.
    Mrt4,
    /// As `Mrt4` with 8 columns and 8 render targets: 128 multiply-adds per 12 fetches.
    /// Needs a device with 8 draw buffers.
    Mrt8,
    /// Strip kernel: op(A) is packed into uniform blocks, one per 8-row strip of C and 2048
    /// values of k, so all fragments of a strip share its A values; each fragment computes an
    /// 8 x 4 tile with one texture fetch of op(B) per 32 multiply-adds. One strip per draw.
    /// Needs 8 draw buffers, 64 KiB uniform blocks and float blending (k is split into
    /// chunks that add up in the targets).
    Strip1,
    /// The strip kernel with four strips per draw (four uniform blocks bound at once).
    Strip4,
    /// The strip kernel with eight strips per draw.
    Strip8,
}

impl GemmKernel {
    /// Render targets the kernel writes at once.
    pub fn draw_buffers(self) -> u32 {
        self.kernels().0.draw_buffers()
    }

    /// Every kernel a caller can name, `Auto` excepted.
    pub const ALL: [GemmKernel; 7] = [
        GemmKernel::Generic,
        GemmKernel::Vec4,
        GemmKernel::Mrt4,
        GemmKernel::Mrt8,
        GemmKernel::Strip1,
        GemmKernel::Strip4,
        GemmKernel::Strip8,
    ];

    /// The name of the kernel as the tuning cache and the benchmarks spell it.
    pub fn name(self) -> &'static str {
        match self {
            GemmKernel::Auto => "Auto",
            GemmKernel::Generic => "Generic",
            GemmKernel::Vec4 => "Vec4",
            GemmKernel::Mrt4 => "Mrt4",
            GemmKernel::Mrt8 => "Mrt8",
            GemmKernel::Strip1 => "Strip1",
            GemmKernel::Strip4 => "Strip4",
            GemmKernel::Strip8 => "Strip8",
        }
    }

    /// The kernel of a [`GemmKernel::name`], if there is one.
    pub fn from_name(name: &str) -> Option<Self> {
        std::iter::once(GemmKernel::Auto)
            .chain(GemmKernel::ALL)
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// The multiply pass and the merge pass (if any) of the kernel.
    fn kernels(self) -> (Kernel, Option<Kernel>) {
        match self {
            GemmKernel::Auto | GemmKernel::Generic => (Kernel::GemmGeneric, None),
            GemmKernel::Vec4 => (Kernel::GemmVec4, Some(Kernel::GemmMerge)),
            GemmKernel::Mrt4 => (Kernel::GemmMrt4, Some(Kernel::GemmMergeMrt4)),
            GemmKernel::Mrt8 => (Kernel::GemmMrt8, Some(Kernel::GemmMergeMrt8)),
            GemmKernel::Strip1 => (Kernel::GemmStrip1, Some(Kernel::GemmMergeStrip)),
            GemmKernel::Strip4 => (Kernel::GemmStrip4, Some(Kernel::GemmMergeStrip)),
            GemmKernel::Strip8 => (Kernel::GemmStrip8, Some(Kernel::GemmMergeStrip)),
        }
    }

    /// Whether the kernel can run on `info`'s device for shape `s` (draw buffers, uniform
    /// blocks, and the sizes of its scratch textures).
    pub(crate) fn runs(self, info: &DeviceInfo, s: &GemmShape) -> bool {
        let max = info.max_texture_size as usize;
        self.kernels().0.runs_on(info)
            && match self {
                GemmKernel::Auto | GemmKernel::Generic => true,
                GemmKernel::Vec4 | GemmKernel::Mrt4 | GemmKernel::Mrt8 => vec4_fits(s, max as u32),
                GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8 => {
                    let g = self.kernels().0.uniform_blocks() as usize;
                    let align = info.uniform_buffer_offset_alignment.max(1) as usize;
                    let p = StripPlan::new(s, g, align);
                    2 * STRIP_KC <= max
                        && p.blocks() <= max
                        && p.buffer_bytes() <= i32::MAX as usize
                        && STRIP_BLOCK_BYTES.is_multiple_of(align)
                        && 2 * p.quads <= max
                        && 2 * s.k.next_multiple_of(4) <= max
                        && p.band_width <= max
                        && p.target_height() <= max
                }
            }
    }
}

/// Kernels the tuner times for a shape: every packed kernel that runs, except Vec4 where
/// Mrt4 runs (the same passes with 4x the outputs per fragment; Mrt4 measured 2-2.5x faster
/// on both devices), and the generic one only for small products (where one pass can beat
/// three).
pub(crate) fn candidates(info: &DeviceInfo, s: &GemmShape) -> Vec<GemmKernel> {
    let small = s.m * s.n * s.k <= 1 << 21;
    let mrt4 = GemmKernel::Mrt4.runs(info, s);
    GemmKernel::ALL
        .into_iter()
        .filter(|k| small || *k != GemmKernel::Generic)
        .filter(|k| !(mrt4 && *k == GemmKernel::Vec4))
        .filter(|k| k.runs(info, s))
        .collect()
}

/// The kernel `Auto` uses without a tuning choice: the first that runs of an order fixed by
/// measurement (BENCHMARKS.md, `examples/tune.rs`). On the H100 the strip kernel is 2x the
/// others; on llvmpipe, whose uniform-block reads inside a loop are per-lane gathers, the
/// 4 x 8 register tile is a little ahead.
pub(crate) fn default_kernel(info: &DeviceInfo, s: &GemmShape) -> GemmKernel {
    const HARDWARE: [GemmKernel; 5] = [
        GemmKernel::Strip4,
        GemmKernel::Mrt4,
        GemmKernel::Mrt8,
        GemmKernel::Vec4,
        GemmKernel::Generic,
    ];
    const SOFTWARE: [GemmKernel; 5] = [
        GemmKernel::Mrt8,
        GemmKernel::Strip4,
        GemmKernel::Mrt4,
        GemmKernel::Vec4,
        GemmKernel::Generic,
    ];
    if info.software { SOFTWARE } else { HARDWARE }
        .into_iter()
        .find(|k| k.runs(info, s))
        .unwrap_or(GemmKernel::Generic)
}

/// The sizes of a strip-kernel sgemm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StripPlan {
    /// Strips of 8 rows of C.
    pub strips: usize,
    /// Chunks of STRIP_KC values of k.
    pub chunks: usize,
    /// 2x2 blocks of op(B)'s texels of 4 columns per value of k: ceil(ceil(n / 4) / 4), one
    /// per quad of fragments.
    pub quads: usize,
    /// Width of a strip's band in the targets: even, with STRIP_BAND / 2 rows of quads
    /// enough for `quads` quads.
    pub band_width: usize,
    /// Strips per draw.
    pub group: usize,
    /// Bytes from one packed block of A to the next: the k values a block holds (all
    /// STRIP_KC when k spans several chunks, else k rounded up to 4) at 32 bytes each,
    /// rounded up to the uniform-buffer offset alignment, at most STRIP_BLOCK_BYTES. A
    /// shorter k packs and copies only what the kernel reads.
    pub block_bytes: usize,
}

impl StripPlan {
    /// The plan for shape `s`, `group` strips per draw, on a device whose uniform-buffer
    /// offsets are multiples of `align` bytes.
    pub(crate) fn new(s: &GemmShape, group: usize, align: usize) -> Self {
        let quads = s.n.div_ceil(4).max(1).div_ceil(4);
        let chunks = s.k.div_ceil(STRIP_KC).max(1);
        let used = if chunks > 1 {
            STRIP_KC
        } else {
            s.k.max(1).next_multiple_of(4)
        };
        StripPlan {
            strips: s.m.div_ceil(8).max(1),
            chunks,
            quads,
            band_width: 2 * quads.div_ceil(STRIP_BAND / 2),
            group,
            block_bytes: (32 * used)
                .next_multiple_of(align.max(16))
                .min(STRIP_BLOCK_BYTES),
        }
    }

    /// Texels per row of the packed texture of A: one row is one block.
    pub(crate) fn block_texels(&self) -> usize {
        self.block_bytes / 16
    }

    /// Bytes of the buffer of packed A: every block, and room after the last for a whole
    /// STRIP_BLOCK_BYTES binding (the kernels declare blocks of that size).
    pub(crate) fn buffer_bytes(&self) -> usize {
        self.blocks() * self.block_bytes + (STRIP_BLOCK_BYTES - self.block_bytes)
    }

    /// Uniform blocks of packed A: one per strip and chunk.
    pub(crate) fn blocks(&self) -> usize {
        self.strips * self.chunks
    }

    /// Draws per chunk.
    pub(crate) fn groups(&self) -> usize {
        self.strips.div_ceil(self.group)
    }

    /// Rows of each target: every group's bands, the last group padded.
    pub(crate) fn target_height(&self) -> usize {
        self.groups() * self.group * STRIP_BAND
    }

    /// Byte offset of the uniform block of strip `strip` and chunk `chunk`.
    pub(crate) fn block_offset(&self, strip: usize, chunk: usize) -> usize {
        (strip * self.chunks + chunk) * self.block_bytes
    }
}

/// Whether the packed textures of the vectorised path fit a device with textures of at most
/// `max` texels on a side.
pub(crate) fn vec4_fits(s: &GemmShape, max: u32) -> bool {
    let max = max as usize;
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    mb <= max && 4 * kb <= max && s.n <= max
}

/// One sgemm call in column-major form after the argument checks: what the passes read.
#[derive(Clone, Copy)]
struct GemmCall<'a> {
    s: &'a GemmShape,
    alpha: f32,
    a: &'a Buffer,
    b: &'a Buffer,
    beta: f32,
    c: &'a Buffer,
}

/// Sets the uniforms every pass that writes C shares: C's window and the BLAS scalars.
fn set_update_uniforms(gl: &Gl, p: &Program, s: &GemmShape, alpha: f32, beta: f32) {
    gl.set_i32(p, "ldc", s.ldc as i32);
    gl.set_i32(p, "m", s.m as i32);
    gl.set_i32(p, "n", s.n as i32);
    gl.set_f32(p, "alpha", alpha);
    gl.set_f32(p, "beta", beta);
}

/// Values of the summed index one pass of a generic kernel covers. Mesa's llvmpipe stops a
/// fragment shader's loops after about 65535 iterations in all (a guard against endless
/// shaders), and the generic kernels loop over the summed index once per output lane (4 per
/// fragment); longer sums take several passes, each adding to the last.
pub(crate) const GENERIC_SPAN: usize = 8192;

/// Generic kernel over C's texture; `k = 0` skips A and B. k is covered in passes of
/// [`GENERIC_SPAN`]: the first computes alpha*part + beta*C, each further one
/// alpha*part + (the previous result).
fn generic_pass(inner: &Inner, call: &GemmCall, k: usize) -> Result<Surface> {
    let GemmCall {
        s,
        alpha,
        a,
        b,
        beta,
        c,
    } = *call;
    let prog = inner.program(Kernel::GemmGeneric)?;
    let cl = c.layout();
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
        gl.set_i32(&prog, "lda", s.a.ld as i32);
        gl.set_i32(&prog, "a_trans", s.a.trans as i32);
        gl.set_i32(&prog, "ldb", s.b.ld as i32);
        gl.set_i32(&prog, "b_trans", s.b.trans as i32);
        gl.set_i32(&prog, "k0", k0 as i32);
        gl.set_i32(&prog, "k", k1 as i32);
        let beta = if prev.is_some() { 1.0 } else { beta };
        set_update_uniforms(gl, &prog, s, alpha, beta);
        gl.draw(&[out], cl.width, cl.height);
    })
}

/// Runs a generic kernel over `[0, total)` of its summed index in passes of
/// [`GENERIC_SPAN`] (one pass when `total` is 0): `pass(gl, prev, lo, hi, out)` draws into
/// a fresh `size` surface `out`, reading `prev`, the previous pass's output (`None` for the
/// first, which reads the caller's buffer). Returns the last output.
pub(crate) fn in_spans(
    inner: &Inner,
    total: usize,
    size: (u32, u32),
    mut pass: impl FnMut(&Gl, Option<&Surface>, usize, usize, &Surface),
) -> Result<Surface> {
    let mut prev: Option<Surface> = None;
    for span in 0..total.div_ceil(GENERIC_SPAN).max(1) {
        let out = inner.take_surface(size.0, size.1)?;
        let lo = span * GENERIC_SPAN;
        pass(
            inner.enter()?,
            prev.as_ref(),
            lo,
            (lo + GENERIC_SPAN).min(total),
            &out,
        );
        if let Some(p) = prev.replace(out) {
            inner.give_surface(p);
        }
    }
    Ok(prev.expect("at least one pass"))
}

/// Reorder pass: packs op(M) (rows x cols, stored with `ld`, transposed if `trans`) into a
/// `ceil(rows/4)` x `height` texture, zero-padded.
#[allow(clippy::too_many_arguments)]
fn pack(
    inner: &Inner,
    src: &Buffer,
    ld: usize,
    trans: bool,
    rows: usize,
    cols: usize,
    height: usize,
    quads: bool,
) -> Result<Surface> {
    let prog = inner.program(Kernel::GemmPack)?;
    let (w, h) = if quads {
        (2 * rows.div_ceil(16).max(1), 2 * height.max(1))
    } else {
        (rows.div_ceil(4).max(1), height.max(1))
    };
    let (w, h) = (w as u32, h as u32);
    let out = inner.take_surface(w, h)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    src.bind(gl, &prog, 0, "src", "src_width");
    gl.set_i32(&prog, "ld", ld as i32);
    gl.set_i32(&prog, "trans", trans as i32);
    gl.set_i32(&prog, "rows", rows as i32);
    gl.set_i32(&prog, "cols", cols as i32);
    gl.set_i32(&prog, "quads", quads as i32);
    gl.draw(&[&out], w, h);
    Ok(out)
}

/// Vectorised path: pack op(A) and op(B), multiply, merge into a new C texture.
fn vec4_passes(inner: &Inner, call: &GemmCall) -> Result<Surface> {
    let GemmCall {
        s,
        alpha,
        a,
        b,
        beta,
        c,
    } = *call;
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    let ap = pack(inner, a, s.a.ld, s.a.trans, s.m, s.k, 4 * kb, false)?;
    let bp = pack(inner, b, s.b.ld, s.b.trans, s.k, s.n, s.n, false)?;
    let prod = inner.take_surface(mb as u32, s.n as u32)?;
    let prog = inner.program(Kernel::GemmVec4)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "ap", 0, &ap);
    gl.set_texture(&prog, "bp", 1, &bp);
    gl.set_i32(&prog, "k4", kb as i32);
    gl.draw(&[&prod], mb as u32, s.n as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    let prog = inner.program(Kernel::GemmMerge)?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "prod", 0, &prod);
    c.bind(gl, &prog, 1, "c", "c_width");
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    inner.give_surface(prod);
    Ok(out)
}

/// Register-tiled path: pack op(A) and op(B), multiply into `cols` targets, merge into C.
fn mrt_passes(inner: &Inner, cols: usize, call: &GemmCall) -> Result<Surface> {
    let GemmCall {
        s,
        alpha,
        a,
        b,
        beta,
        c,
    } = *call;
    let (mul, merge) = if cols == 8 {
        (Kernel::GemmMrt8, Kernel::GemmMergeMrt8)
    } else {
        (Kernel::GemmMrt4, Kernel::GemmMergeMrt4)
    };
    let (mb, kb, nb) = (s.m.div_ceil(4), s.k.div_ceil(4), s.n.div_ceil(cols));
    let ap = pack(inner, a, s.a.ld, s.a.trans, s.m, s.k, 4 * kb, false)?;
    let bp = pack(inner, b, s.b.ld, s.b.trans, s.k, s.n, s.n, false)?;
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
    gl.set_i32(&prog, "n", s.n as i32);
    let targets: Vec<&Surface> = prods.iter().collect();
    gl.draw(&targets, mb as u32, nb as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    const NAMES: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    let prog = inner.program(merge)?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    gl.use_program(&prog);
    for (i, p) in prods.iter().enumerate() {
        gl.set_texture(&prog, NAMES[i], i as u32, p);
    }
    c.bind(gl, &prog, cols as u32, "c", "c_width");
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    for p in prods {
        inner.give_surface(p);
    }
    Ok(out)
}

/// Strip path: pack op(A) into uniform blocks and op(B) into rows of 4 columns, multiply
/// strip by strip (chunks of k after the first add by blending), merge into C.
fn strip_passes(inner: &Inner, kernel: GemmKernel, call: &GemmCall) -> Result<Surface> {
    let GemmCall {
        s,
        alpha,
        a,
        b,
        beta,
        c,
    } = *call;
    let (mul, merge) = kernel.kernels();
    let align = inner.info.uniform_buffer_offset_alignment.max(1) as usize;
    let plan = StripPlan::new(s, mul.uniform_blocks() as usize, align);

    // A, strip by strip and chunk by chunk, copied into one buffer of uniform blocks.
    let prog = inner.program(Kernel::GemmPackStrip)?;
    let (w, h) = (plan.block_texels() as u32, plan.blocks() as u32);
    let ap = inner.take_surface(w, h)?;
    let blocks = inner.take_block_buffer(plan.buffer_bytes())?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    a.bind(gl, &prog, 0, "src", "src_width");
    gl.set_i32(&prog, "ld", s.a.ld as i32);
    gl.set_i32(&prog, "trans", s.a.trans as i32);
    gl.set_i32(&prog, "rows", s.m as i32);
    gl.set_i32(&prog, "cols", s.k as i32);
    gl.set_i32(&prog, "chunks", plan.chunks as i32);
    gl.draw(&[&ap], w, h);
    gl.copy_to_block_buffer(&ap, &blocks);
    inner.give_surface(ap);

    // op(B) transposed into texels of 4 columns: texel (j, l) = op(B)(l, 4j..4j+3), with
    // zero rows up to a multiple of 4 (the kernel steps k by 4).
    let bt = pack(
        inner,
        b,
        s.b.ld,
        !s.b.trans,
        s.n,
        s.k,
        s.k.next_multiple_of(4),
        true,
    )?;

    let mut prods = Vec::with_capacity(8);
    for _ in 0..8 {
        prods.push(inner.take_surface(plan.band_width as u32, plan.target_height() as u32)?);
    }
    let prog = inner.program(mul)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "bt", 0, &bt);
    gl.set_i32(&prog, "quads", plan.quads as i32);
    gl.set_i32(&prog, "band_width", plan.band_width as i32);
    const BLOCKS: [&str; 8] = [
        "AStrip[0]",
        "AStrip[1]",
        "AStrip[2]",
        "AStrip[3]",
        "AStrip[4]",
        "AStrip[5]",
        "AStrip[6]",
        "AStrip[7]",
    ];
    for (i, name) in BLOCKS.iter().enumerate().take(plan.group) {
        gl.set_block_binding(&prog, name, i as u32);
    }
    let band_rows = (plan.group * STRIP_BAND) as u32;
    let rects: Vec<_> = (0..plan.chunks * plan.groups())
        .map(|d| {
            (
                0,
                (d % plan.groups()) as u32 * band_rows,
                plan.band_width as u32,
                band_rows,
            )
        })
        .collect();
    let targets: Vec<&Surface> = prods.iter().collect();
    gl.draw_rects(&targets, &rects, |d| {
        let (chunk, group) = (d / plan.groups(), d % plan.groups());
        if group == 0 {
            let k0 = chunk * STRIP_KC;
            gl.set_i32(&prog, "k0", k0 as i32);
            gl.set_i32(
                &prog,
                "kc",
                (s.k - k0).min(STRIP_KC).next_multiple_of(4) as i32,
            );
            gl.set_additive_blend(chunk > 0);
        }
        for i in 0..plan.group {
            // Bands past the last strip read the last strip's block; the merge ignores them.
            let strip = (group * plan.group + i).min(plan.strips - 1);
            gl.bind_block_range(
                i as u32,
                &blocks,
                plan.block_offset(strip, chunk),
                STRIP_BLOCK_BYTES,
            );
        }
    });
    gl.set_additive_blend(false);
    inner.give_surface(bt);
    inner.give_block_buffer(blocks);

    let prog = inner.program(merge.expect("the strip kernels have a merge pass"))?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    gl.use_program(&prog);
    const NAMES: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    for (i, p) in prods.iter().enumerate() {
        gl.set_texture(&prog, NAMES[i], i as u32, p);
    }
    c.bind(gl, &prog, 8, "c", "c_width");
    gl.set_i32(&prog, "band_width", plan.band_width as i32);
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    for p in prods {
        inner.give_surface(p);
    }
    Ok(out)
}

impl Context {
    /// The kernel for `GemmKernel::Auto`: the tuner's choice for the shape's class (timing
    /// the candidates on these operands first if the mode asks for it), else the default.
    fn auto_kernel(&self, s: &GemmShape, a: &Buffer, b: &Buffer, c: &Buffer) -> Result<GemmKernel> {
        let info = self.info();
        let class = ShapeClass::of(s.m, s.n, s.k);
        let tuner = &self.inner.tuner;
        // A remembered choice counts if it can run this shape (a cache file edited by hand
        // may name any kernel).
        if let Some(k) = tuner.lookup(class).filter(|k| k.runs(info, s)) {
            return Ok(k);
        }
        if tuner.should_time(class, s.m * s.n * s.k) && candidates(info, s).len() > 1 {
            let mut scratch = c.try_clone()?;
            return Ok(self.tune_shape(s, a, b, &mut scratch)?.chosen);
        }
        Ok(default_kernel(info, s))
    }

    /// `C := alpha * op(A) * op(B) + beta * C` (CBLAS `sgemm` on device buffers), with the
    /// kernel chosen automatically. See [`Context::sgemm_with`].
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans};
    /// let ctx = Context::new()?;
    /// let a = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?; // 2x2, column-major
    /// let b = ctx.upload(&[1.0, 0.0, 0.0, 1.0])?; // identity
    /// let mut c = ctx.zeros(4)?;
    /// ctx.sgemm(Layout::ColMajor, NoTrans, NoTrans, 2, 2, 2, 1.0, &a, 2, &b, 2, 0.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(
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
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        self.sgemm_with(
            GemmKernel::Auto,
            layout,
            transa,
            transb,
            m,
            n,
            k,
            alpha,
            a,
            lda,
            b,
            ldb,
            beta,
            c,
            ldc,
        )
    }

    /// [`Context::sgemm`] with a chosen kernel.
    ///
    /// Semantics follow reference BLAS: arguments are checked first (each leading dimension
    /// on its own; errors name the parameter and its CBLAS position); `m == 0` or `n == 0`
    /// returns at once; `k == 0` or `alpha == 0` gives `C := beta*C` without reading A or B;
    /// `beta == 0` means C is not read (a NaN in C does not reach the result); elements of
    /// the buffer outside the `m x n` window (when `ldc > m`) are never written.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm_with(
        &self,
        kernel: GemmKernel,
        layout: Layout,
        transa: Transpose,
        transb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        const R: &str = "sgemm";
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        c.check_owner(self, "c")?;
        let s = gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc)?;
        // In column-major form A and B are the user's B and A for a row-major call.
        let (ca, cb, a_name, b_name) = if s.swapped {
            (b, a, "b", "a")
        } else {
            (a, b, "a", "b")
        };
        for (buf, name, needed) in [
            (ca, a_name, s.a_span()),
            (cb, b_name, s.b_span()),
            (&*c, "c", s.c_span()),
        ] {
            if needed > buf.len() {
                return Err(Error::TooShort {
                    routine: R,
                    param: name,
                    needed,
                    len: buf.len(),
                });
            }
        }
        if s.m == 0 || s.n == 0 || ((alpha == 0.0 || s.k == 0) && beta == 1.0) {
            return Ok(());
        }
        let inner = &self.inner;
        let call = GemmCall {
            s: &s,
            alpha,
            a: ca,
            b: cb,
            beta,
            c,
        };
        let out = if alpha == 0.0 || s.k == 0 {
            generic_pass(inner, &call, 0)?
        } else {
            let info = self.info();
            let kernel = match kernel {
                GemmKernel::Auto => self.auto_kernel(&s, ca, cb, c)?,
                k if k.runs(info, &s) => k,
                k => {
                    return Err(Error::Unsupported(format!(
                        "sgemm: kernel {k:?} cannot run m={}, n={}, k={} on this device \
                         ({} draw buffers, max texture {}, uniform blocks of {} bytes); use \
                         GemmKernel::Auto or Generic",
                        s.m,
                        s.n,
                        s.k,
                        info.max_draw_buffers,
                        info.max_texture_size,
                        info.max_uniform_block_size
                    )))
                }
            };
            match kernel {
                GemmKernel::Generic | GemmKernel::Auto => generic_pass(inner, &call, s.k)?,
                GemmKernel::Vec4 => vec4_passes(inner, &call)?,
                GemmKernel::Mrt4 => mrt_passes(inner, 4, &call)?,
                GemmKernel::Mrt8 => mrt_passes(inner, 8, &call)?,
                GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8 => {
                    strip_passes(inner, kernel, &call)?
                }
            }
        };
        let old = c.replace_surface(out);
        inner.give_surface(old);
        inner.enter()?.check(R)
    }
}

#[cfg(test)]
mod tests {
    use super::StripPlan;
    use crate::blas::shape::GemmShape;
    use crate::kernels::{STRIP_BLOCK_BYTES, STRIP_KC};

    #[test]
    fn packed_blocks_hold_the_k_values_the_kernel_reads_at_aligned_offsets() {
        for (k, align, want) in [
            (1024, 256, 32 * 1024),
            (1024, 16, 32 * 1024),
            (5, 256, 256),
            (5, 16, 256),
            (1, 1, 128),
            (1001, 256, 32 * 1008),
            (STRIP_KC, 256, STRIP_BLOCK_BYTES),
            (STRIP_KC + 1, 256, STRIP_BLOCK_BYTES),
            (3 * STRIP_KC, 16, STRIP_BLOCK_BYTES),
        ] {
            let p = StripPlan::new(&GemmShape::plain(100, 37, k), 4, align);
            assert_eq!(p.block_bytes, want, "k={k} align={align}");
            assert!(p.block_bytes.is_multiple_of(align) && p.block_bytes.is_multiple_of(16));
            // Every k value of a chunk fits its block: 32 bytes per value.
            let per_chunk = k.min(STRIP_KC).next_multiple_of(4);
            assert!(32 * per_chunk <= p.block_bytes, "k={k}");
            assert_eq!(p.block_offset(1, 0), p.chunks * p.block_bytes);
            // A whole declared block binds at the last offset.
            let last = p.block_offset(p.strips - 1, p.chunks - 1);
            assert_eq!(last + STRIP_BLOCK_BYTES, p.buffer_bytes(), "k={k}");
        }
    }
}
