//! sgemm's kernels: the public [`GemmKernel`] choice, the fragment kernels behind each
//! choice, which of them can run a shape on a device, and the default order.

use crate::blas::level3::gemm::plan::{
    vec4_fits, StripPlan, TilePlan, STRIP_BAND, STRIP_BLOCK_BYTES, STRIP_KC,
};
use crate::blas::level3::gemm::shape::GemmShape;
use crate::device::info::DeviceInfo;
use crate::device::kernel::Kernel;

/// Where a pass writes in C: the helpers of every kernel that writes C.
pub(crate) const WINDOW_GLSL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/glsl/level3/gemm_window.glsl"
));

/// sgemm with scalar fetches, any shape, over C's own texture.
pub(crate) static GEMM_GENERIC: Kernel =
    crate::kernel!("level3/gemm_generic.frag").header(WINDOW_GLSL);
/// Reorder pass: packs op(A) or op(B) into texels of 4 rows.
pub(crate) static GEMM_PACK: Kernel = crate::kernel!("level3/gemm_pack.frag");
/// 4x4 vectorised kernel on packed operands.
static GEMM_VEC4: Kernel = crate::kernel!("level3/gemm_vec4.frag").header(WINDOW_GLSL);
/// alpha*product + beta*C into C's texture.
static GEMM_MERGE: Kernel = crate::kernel!("level3/gemm_merge.frag").header(WINDOW_GLSL);
/// Register-tiled kernel writing 4 columns to 4 render targets.
static GEMM_MRT4: Kernel = crate::kernel!("level3/gemm_mrt.frag")
    .defines("#define COLS 4")
    .header(WINDOW_GLSL)
    .targets(4);
/// Register-tiled kernel writing 8 columns to 8 render targets.
static GEMM_MRT8: Kernel = crate::kernel!("level3/gemm_mrt.frag")
    .defines("#define COLS 8")
    .header(WINDOW_GLSL)
    .targets(8);
/// Merge pass reading the 4 targets of GEMM_MRT4.
static GEMM_MERGE_MRT4: Kernel = crate::kernel!("level3/gemm_merge_mrt.frag")
    .defines("#define COLS 4")
    .header(WINDOW_GLSL);
/// Merge pass reading the 8 targets of GEMM_MRT8.
static GEMM_MERGE_MRT8: Kernel = crate::kernel!("level3/gemm_merge_mrt.frag")
    .defines("#define COLS 8")
    .header(WINDOW_GLSL);
/// Texels of the packed layout each fragment of `gemm_pack_image.frag` writes (`PER` in its
/// defines).
pub(crate) const PACK_TEXELS: usize = 2;
/// Texels of a layout column each fragment of the transposed image-store pack writes
/// (`PER_T`): four columns of a whole source texel each, every element fetched used (with
/// 2, half of each fetch was thrown away; on the H100 sgemm 1024's op(B) pack went from 92
/// to 47 us, session 25).
pub(crate) const PACK_TEXELS_T: usize = 4;
/// Reorder pass through image stores, [`PACK_TEXELS`] texels a fragment: any of the packed
/// layouts, into one texture or two at once (GPUs with GL 4.3 / GLES 3.1).
pub(crate) static GEMM_PACK_IMAGE: Kernel = crate::kernel!("level3/gemm_pack_image.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define PER 2\n#define PER_T 4")
    .image_stores();
/// [`GEMM_PACK_IMAGE`] with its first layout written into a storage buffer (`DST_BUFFER`)
/// rather than a texture: packed op(A) straight into the strip kernels' uniform-block buffer
/// or the tile kernels' storage buffer, with no copy of a texture into it afterwards (on the
/// H100 that copy cost 115 us of sgemm 1024's 1.98 ms). Needs a fragment storage block.
pub(crate) static GEMM_PACK_BLOCKS: Kernel = crate::kernel!("level3/gemm_pack_image.frag")
    .defines(
        "#define KC 2048\n#define BAND 8\n#define PER 2\n#define PER_T 4\n#define DST_BUFFER 1",
    )
    .image_stores()
    .storage(1);
/// Strip path, reorder pass: packs op(A) into one uniform block per 8-row strip and chunk
/// of k.
pub(crate) static GEMM_PACK_STRIP: Kernel =
    crate::kernel!("level3/gemm_pack_strip.frag").defines("#define KC 2048\n#define BAND 8");
/// Strip kernel drawing one strip per draw.
static GEMM_STRIP1: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 1")
    .header(WINDOW_GLSL)
    .targets(8)
    .blocks(1, STRIP_BLOCK_BYTES)
    .blending();
/// Strip kernel drawing four strips per draw.
static GEMM_STRIP4: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 4")
    .header(WINDOW_GLSL)
    .targets(8)
    .blocks(4, STRIP_BLOCK_BYTES)
    .blending();
/// Strip kernel drawing eight strips per draw.
static GEMM_STRIP8: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 8")
    .header(WINDOW_GLSL)
    .targets(8)
    .blocks(8, STRIP_BLOCK_BYTES)
    .blending();
/// [`GEMM_STRIP1`] writing C in place through image stores (`IN_PLACE`): for products whose
/// k is one chunk, where the merge would only apply alpha and beta.
static GEMM_STRIP1_IN_PLACE: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 1\n#define IN_PLACE 1\n#define STORE_TILE 1")
    .header(WINDOW_GLSL)
    .blocks(1, STRIP_BLOCK_BYTES)
    .image_stores();
/// [`GEMM_STRIP4`] writing C in place.
static GEMM_STRIP4_IN_PLACE: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 4\n#define IN_PLACE 1\n#define STORE_TILE 1")
    .header(WINDOW_GLSL)
    .blocks(4, STRIP_BLOCK_BYTES)
    .image_stores();
/// [`GEMM_STRIP8`] writing C in place.
static GEMM_STRIP8_IN_PLACE: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 8\n#define IN_PLACE 1\n#define STORE_TILE 1")
    .header(WINDOW_GLSL)
    .blocks(8, STRIP_BLOCK_BYTES)
    .image_stores();
/// [`GEMM_STRIP1_IN_PLACE`] for a strip's last draw of several (`PRIOR`): it adds what the
/// earlier draws left in the targets before writing C.
static GEMM_STRIP1_LAST: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 1\n#define IN_PLACE 1\n#define STORE_TILE 1\n#define PRIOR 1")
    .header(WINDOW_GLSL)
    .blocks(1, STRIP_BLOCK_BYTES)
    .image_stores();
/// [`GEMM_STRIP4_IN_PLACE`] for a strip's last draw of several.
static GEMM_STRIP4_LAST: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 4\n#define IN_PLACE 1\n#define STORE_TILE 1\n#define PRIOR 1")
    .header(WINDOW_GLSL)
    .blocks(4, STRIP_BLOCK_BYTES)
    .image_stores();
/// [`GEMM_STRIP8_IN_PLACE`] for a strip's last draw of several.
static GEMM_STRIP8_LAST: Kernel = crate::kernel!("level3/gemm_strip.frag")
    .defines("#define KC 2048\n#define BAND 8\n#define GROUP 8\n#define IN_PLACE 1\n#define STORE_TILE 1\n#define PRIOR 1")
    .header(WINDOW_GLSL)
    .blocks(8, STRIP_BLOCK_BYTES)
    .image_stores();
/// Merge pass reading the 8 targets of the strip kernels.
static GEMM_MERGE_STRIP: Kernel = crate::kernel!("level3/gemm_merge_strip.frag")
    .defines("#define KC 2048\n#define BAND 8")
    .header(WINDOW_GLSL);
/// The strip kernels' merge in place through image stores: one fragment a tile of 8 x 4
/// elements, C updated where it lies (offset and leading dimension multiples of 4).
pub(crate) static GEMM_MERGE_STRIP_IMAGE: Kernel =
    crate::kernel!("level3/gemm_merge_strip_image.frag")
        .defines("#define KC 2048\n#define BAND 8\n#define STORE_TILE 1")
        .header(WINDOW_GLSL)
        .image_stores();

/// Tile kernel: 8 x 8 tiles, op(A) from a storage buffer, image stores.
static GEMM_TILE8: Kernel = crate::kernel!("level3/gemm_tile.frag")
    .defines("#define ROWS 8\n#define UNROLL 4")
    .header(WINDOW_GLSL)
    .storage(1)
    .image_stores();
/// Tile kernel: 16 x 8 tiles.
static GEMM_TILE16: Kernel = crate::kernel!("level3/gemm_tile.frag")
    .defines("#define ROWS 16\n#define UNROLL 2")
    .header(WINDOW_GLSL)
    .storage(1)
    .image_stores();

/// The kernels of sgemm.
pub(crate) const KERNELS: [&Kernel; 24] = [
    &GEMM_GENERIC,
    &GEMM_PACK,
    &GEMM_PACK_IMAGE,
    &GEMM_PACK_BLOCKS,
    &GEMM_MERGE_STRIP_IMAGE,
    &GEMM_VEC4,
    &GEMM_MERGE,
    &GEMM_MRT4,
    &GEMM_MRT8,
    &GEMM_MERGE_MRT4,
    &GEMM_MERGE_MRT8,
    &GEMM_PACK_STRIP,
    &GEMM_STRIP1,
    &GEMM_STRIP4,
    &GEMM_STRIP8,
    &GEMM_STRIP1_IN_PLACE,
    &GEMM_STRIP4_IN_PLACE,
    &GEMM_STRIP8_IN_PLACE,
    &GEMM_STRIP1_LAST,
    &GEMM_STRIP4_LAST,
    &GEMM_STRIP8_LAST,
    &GEMM_MERGE_STRIP,
    &GEMM_TILE8,
    &GEMM_TILE16,
];

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
    /// Tile kernel: each fragment computes an 8 x 8 tile of C over all of k in registers and
    /// writes it through image stores; op(A) is read from a storage buffer, op(B) from a
    /// packed texture: 64 multiply-adds per two texel fetches and two vec4 loads. Needs
    /// GL 4.3 or GLES 3.1 with fragment storage blocks and image stores, and packed op(A)
    /// within the device's largest storage block.
    Tile8,
    /// The tile kernel with 16 x 8 tiles: 128 multiply-adds per two fetches and four loads.
    Tile16,
}

impl GemmKernel {
    /// Render targets the kernel writes at once.
    pub fn draw_buffers(self) -> u32 {
        self.kernels().0.draw_buffers
    }

    /// Every kernel a caller can name, `Auto` excepted.
    pub const ALL: [GemmKernel; 9] = [
        GemmKernel::Generic,
        GemmKernel::Vec4,
        GemmKernel::Mrt4,
        GemmKernel::Mrt8,
        GemmKernel::Strip1,
        GemmKernel::Strip4,
        GemmKernel::Strip8,
        GemmKernel::Tile8,
        GemmKernel::Tile16,
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
            GemmKernel::Tile8 => "Tile8",
            GemmKernel::Tile16 => "Tile16",
        }
    }

    /// The kernel of a [`GemmKernel::name`], if there is one.
    pub fn from_name(name: &str) -> Option<Self> {
        std::iter::once(GemmKernel::Auto)
            .chain(GemmKernel::ALL)
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// The multiply pass and the merge pass (if any) of the kernel.
    pub(crate) fn kernels(self) -> (&'static Kernel, Option<&'static Kernel>) {
        match self {
            GemmKernel::Auto | GemmKernel::Generic => (&GEMM_GENERIC, None),
            GemmKernel::Vec4 => (&GEMM_VEC4, Some(&GEMM_MERGE)),
            GemmKernel::Mrt4 => (&GEMM_MRT4, Some(&GEMM_MERGE_MRT4)),
            GemmKernel::Mrt8 => (&GEMM_MRT8, Some(&GEMM_MERGE_MRT8)),
            GemmKernel::Strip1 => (&GEMM_STRIP1, Some(&GEMM_MERGE_STRIP)),
            GemmKernel::Strip4 => (&GEMM_STRIP4, Some(&GEMM_MERGE_STRIP)),
            GemmKernel::Strip8 => (&GEMM_STRIP8, Some(&GEMM_MERGE_STRIP)),
            GemmKernel::Tile8 => (&GEMM_TILE8, Some(&GEMM_MERGE)),
            GemmKernel::Tile16 => (&GEMM_TILE16, Some(&GEMM_MERGE)),
        }
    }

    /// Whether this is one of the strip kernels (op(A) from uniform blocks, op(B) from
    /// packed quads).
    pub(crate) fn is_strip(self) -> bool {
        matches!(
            self,
            GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8
        )
    }

    /// The in-place form of a strip kernel (C written through image stores by the multiply
    /// itself, no merge: for products whose k is one chunk); `None` for the other kernels.
    pub(crate) fn in_place(self) -> Option<&'static Kernel> {
        match self {
            GemmKernel::Strip1 => Some(&GEMM_STRIP1_IN_PLACE),
            GemmKernel::Strip4 => Some(&GEMM_STRIP4_IN_PLACE),
            GemmKernel::Strip8 => Some(&GEMM_STRIP8_IN_PLACE),
            _ => None,
        }
    }

    /// The form of a strip kernel for each strip's last draw where k spans several chunks
    /// ([`GemmKernel::in_place`] that first adds what the strip's earlier draws left in the
    /// targets); `None` for the other kernels.
    pub(crate) fn in_place_last(self) -> Option<&'static Kernel> {
        match self {
            GemmKernel::Strip1 => Some(&GEMM_STRIP1_LAST),
            GemmKernel::Strip4 => Some(&GEMM_STRIP4_LAST),
            GemmKernel::Strip8 => Some(&GEMM_STRIP8_LAST),
            _ => None,
        }
    }

    /// Whether the kernel sums only the terms a shape's [`Terms`] give each row, for blocks
    /// of `b` rows: the strip kernels where a block holds whole draws (`b` a multiple of
    /// their strips a draw times 8 rows), the tile kernels where it holds whole tiles. The
    /// others sum every term, so the blocked triangular product runs on them as several
    /// products instead of one.
    ///
    /// [`Terms`]: crate::blas::level3::gemm::shape::Terms
    pub(crate) fn bounds_terms(self, b: usize) -> bool {
        match self {
            GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8 => {
                let rows = self.kernels().0.uniform_blocks as usize * STRIP_BAND;
                b.is_multiple_of(rows)
            }
            GemmKernel::Tile8 | GemmKernel::Tile16 => b.is_multiple_of(self.tile_rows()),
            _ => false,
        }
    }

    /// Rows of C per fragment of a tile kernel.
    pub(crate) fn tile_rows(self) -> usize {
        match self {
            GemmKernel::Tile16 => 16,
            _ => 8,
        }
    }

    /// Whether `info`'s device has what the kernel needs at all (GL features and limits:
    /// image stores, storage and uniform blocks, draw buffers, float blending); a kernel that
    /// does may still be too large for a given shape. `sgemm_with` refuses a kernel the
    /// device cannot run with [`crate::Error::Unsupported`]; `Auto` never picks one.
    ///
    /// ```
    /// use fragblas::{Context, GemmKernel};
    /// let ctx = Context::new()?;
    /// let usable: Vec<GemmKernel> =
    ///     GemmKernel::ALL.into_iter().filter(|k| k.runs_on(ctx.info())).collect();
    /// assert!(usable.contains(&GemmKernel::Generic)); // every device runs the generic kernel
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn runs_on(self, info: &DeviceInfo) -> bool {
        let (main, merge) = self.kernels();
        main.runs_on(info) && merge.is_none_or(|m| m.runs_on(info))
    }

    /// Whether the kernel can run on `info`'s device for shape `s` (draw buffers, uniform
    /// and storage blocks, image stores, and the sizes of its scratch textures and buffers).
    pub(crate) fn runs(self, info: &DeviceInfo, s: &GemmShape) -> bool {
        let max = info.max_texture_size as usize;
        // A BLAS dimension is an i32; anything larger (only `sgemm_kernel_for` and
        // `tune_sgemm` can name one) fits no packed texture, and the size arithmetic below
        // stays far from overflow within it.
        if s.m.max(s.n).max(s.k) > i32::MAX as usize {
            return matches!(self, GemmKernel::Auto | GemmKernel::Generic);
        }
        self.runs_on(info)
            && match self {
                GemmKernel::Auto | GemmKernel::Generic => true,
                GemmKernel::Vec4 | GemmKernel::Mrt4 | GemmKernel::Mrt8 => vec4_fits(s, max as u32),
                GemmKernel::Strip1 | GemmKernel::Strip4 | GemmKernel::Strip8 => {
                    let g = self.kernels().0.uniform_blocks as usize;
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
                GemmKernel::Tile8 | GemmKernel::Tile16 => {
                    TilePlan::new(s, self.tile_rows()).fits(s, max, info.max_storage_block_size)
                }
            }
    }
}

/// Kernels the tuner times for a shape: every packed kernel that runs, except Vec4 where
/// Mrt4 runs (the same passes with 4x the outputs per fragment; Mrt4 measured 2-2.5x faster
/// on both devices), and the generic one only for small products (where one pass can beat
/// three).
pub(crate) fn candidates(info: &DeviceInfo, s: &GemmShape) -> Vec<GemmKernel> {
    let small = s.m.saturating_mul(s.n).saturating_mul(s.k) <= 1 << 21;
    let mrt4 = GemmKernel::Mrt4.runs(info, s);
    GemmKernel::ALL
        .into_iter()
        .filter(|k| small || *k != GemmKernel::Generic)
        .filter(|k| !(mrt4 && *k == GemmKernel::Vec4))
        .filter(|k| k.runs(info, s))
        .collect()
}

/// Products smaller than this (128^3) default to the generic kernel.
pub(crate) const SMALL_WORK: usize = 1 << 21;

/// The kernel `Auto` uses without a tuning choice: the first that runs of an order fixed by
/// measurement (BENCHMARKS.md, `examples/tune.rs`). On the H100 the strip kernel is 2.7x the
/// register-tiled ones and 1.15x the 8 x 8 tile kernel (the next where the strip kernel
/// cannot run); on llvmpipe, whose uniform-block reads inside a loop are per-lane gathers, the
/// 16 x 8 tile kernel leads from 1024^3 (up to 1.3x the others) and the 4 x 8 register tile
/// follows, for devices without storage blocks in fragment shaders. On hardware, products below [`SMALL_WORK`]
/// multiply-adds take the generic kernel: their time is the call's fixed cost whatever the kernel, and it is one
/// small program to compile, where the strip kernel and its passes are several (a program's
/// first sgemm 64 on the H100 with an empty driver cache: 245 ms with Strip4, most of it
/// compiling). Not on llvmpipe, where the generic kernel is 7x slower at 64^3 (6.4 against
/// 0.9 ms a call) and compiling costs less than that over a few calls.
pub(crate) fn default_kernel(info: &DeviceInfo, s: &GemmShape) -> GemmKernel {
    if !info.software && s.m.saturating_mul(s.n).saturating_mul(s.k) < SMALL_WORK {
        return GemmKernel::Generic;
    }
    const HARDWARE: [GemmKernel; 6] = [
        GemmKernel::Strip4,
        GemmKernel::Tile8,
        GemmKernel::Mrt4,
        GemmKernel::Mrt8,
        GemmKernel::Vec4,
        GemmKernel::Generic,
    ];
    const SOFTWARE: [GemmKernel; 6] = [
        GemmKernel::Tile16,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_match_the_plan_constants() {
        for k in [
            &GEMM_STRIP1,
            &GEMM_STRIP4,
            &GEMM_STRIP8,
            &GEMM_PACK_STRIP,
            &GEMM_MERGE_STRIP,
            &GEMM_PACK_IMAGE,
            &GEMM_PACK_BLOCKS,
            &GEMM_MERGE_STRIP_IMAGE,
        ] {
            assert!(
                k.defines.contains(&format!("#define KC {STRIP_KC}")),
                "{}",
                k.name
            );
            assert!(
                k.defines.contains(&format!("#define BAND {STRIP_BAND}")),
                "{}",
                k.name
            );
        }
        assert!(GEMM_PACK_IMAGE
            .defines
            .contains(&format!("#define PER {PACK_TEXELS}")));
        assert!(GEMM_PACK_IMAGE
            .defines
            .contains(&format!("#define PER_T {PACK_TEXELS_T}")));
        // The two packs differ only in where the first layout goes.
        assert_eq!(
            format!("{}\n#define DST_BUFFER 1", GEMM_PACK_IMAGE.defines),
            GEMM_PACK_BLOCKS.defines
        );
        for (k, g) in [
            (GemmKernel::Strip1, 1),
            (GemmKernel::Strip4, 4),
            (GemmKernel::Strip8, 8),
        ] {
            let mul = k.kernels().0;
            assert_eq!(mul.uniform_blocks, g);
            assert!(mul.defines.contains(&format!("#define GROUP {g}")));
            // The in-place form is the same kernel with IN_PLACE (and its tile store).
            let direct = k.in_place().unwrap();
            assert_eq!(direct.uniform_blocks, g);
            assert_eq!(
                format!("{}\n#define IN_PLACE 1\n#define STORE_TILE 1", mul.defines),
                direct.defines
            );
            let last = k.in_place_last().unwrap();
            assert_eq!(last.uniform_blocks, g);
            assert_eq!(format!("{}\n#define PRIOR 1", direct.defines), last.defines);
        }
    }
}
