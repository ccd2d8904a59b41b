//! The fragment kernels: each lives in one file under `glsl/`, loaded with `include_str!`.
//! A program's source is the version prelude, the shared helpers of `glsl/common.glsl`, and
//! the kernel file, in that order; nothing else is pasted in.

/// Every fragment kernel of the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kernel {
    /// `y = alpha*x + beta*y` (or a copy) on unit-stride vectors, one texel per fragment.
    AxpbyUnit,
    /// The same with any increments; untouched elements pass through.
    AxpbyStrided,
    /// `AxpbyUnit` in place: image stores, [`IMAGE_TEXELS_PER_FRAGMENT`] texels per
    /// fragment.
    AxpbyImage,
    /// In-place exchange of two unit-stride vectors through image stores.
    SwapImage,
    /// First reduction pass of sdot: products of x and y, `fan_in` texels per fragment.
    DotMap,
    /// First pass of sasum: |x|.
    AsumMap,
    /// First pass of the snrm2 scale: max |x|.
    AmaxMap,
    /// Second snrm2 pass: sum of (x/scale)^2.
    SsqMap,
    /// First pass of isamax: best (|x|, index) candidate per fragment.
    IamaxMap,
    /// `DotMap` for unit-stride operands laid out as wide as the grid: direct fetches.
    DotMapUnit,
    /// `AsumMap` for a unit-stride operand.
    AsumMapUnit,
    /// `AmaxMap` for a unit-stride operand.
    AmaxMapUnit,
    /// `SsqMap` for a unit-stride operand.
    SsqMapUnit,
    /// `IamaxMap` for a unit-stride operand.
    IamaxMapUnit,
    /// Ping-pong pass: sums `fan_in` texels.
    SumReduce,
    /// Ping-pong pass: maxima of `fan_in` texels.
    MaxReduce,
    /// Ping-pong pass: best of `fan_in` isamax candidates.
    IamaxReduce,
    /// Last pass: sum of the four lanes of texel 0.
    SumFinal,
    /// Last pass: max of the four lanes of texel 0.
    MaxFinal,
    /// Last snrm2 pass: scale * sqrt(sum of lanes).
    Nrm2Final,
    /// sgemm with scalar fetches, any shape, over C's own texture.
    GemmGeneric,
    /// sgemm reorder pass: packs op(A) or op(B) into texels of 4 rows.
    GemmPack,
    /// sgemm 4x4 vectorised kernel on packed operands.
    GemmVec4,
    /// sgemm: alpha*product + beta*C into C's texture.
    GemmMerge,
    /// sgemm register-tiled kernel writing 4 columns to 4 render targets.
    GemmMrt4,
    /// sgemm register-tiled kernel writing 8 columns to 8 render targets.
    GemmMrt8,
    /// sgemm merge pass reading the 4 targets of GemmMrt4.
    GemmMergeMrt4,
    /// sgemm merge pass reading the 8 targets of GemmMrt8.
    GemmMergeMrt8,
    /// sgemm strip kernel, reorder pass: packs op(A) into one uniform block per 8-row
    /// strip and chunk of k.
    GemmPackStrip,
    /// sgemm strip kernel drawing one strip per draw.
    GemmStrip1,
    /// sgemm strip kernel drawing four strips per draw.
    GemmStrip4,
    /// sgemm strip kernel drawing eight strips per draw.
    GemmStrip8,
    /// sgemm merge pass reading the 8 targets of the strip kernels.
    GemmMergeStrip,
    /// sgemv, any increments.
    Gemv,
    /// sgemv product op(A)*x with vec4 reads (lda % 4 == 0, incx == 1), per chunk.
    GemvVec4,
    /// Calibration: pure multiply-add throughput, 8 independent vec4 chains.
    CalibFma,
    /// Calibration: pure multiply-add throughput, 2 independent vec4 chains.
    CalibFmaNarrow,
    /// Calibration: texel copy bandwidth.
    CalibCopy,
    /// Calibration: four-input streaming bandwidth.
    CalibStream,
    /// Calibration: read bandwidth, 16 texels read per texel written.
    CalibRead,
}

const VERTEX: &str = include_str!("../glsl/fullscreen.vert");
const COMMON: &str = include_str!("../glsl/common.glsl");

impl Kernel {
    /// File name of the kernel, used in error messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::AxpbyUnit => "axpby_unit.frag",
            Kernel::AxpbyStrided => "axpby_strided.frag",
            Kernel::AxpbyImage | Kernel::SwapImage => "axpby_image.frag",
            Kernel::DotMap | Kernel::DotMapUnit => "dot_map.frag",
            Kernel::AsumMap | Kernel::AsumMapUnit => "asum_map.frag",
            Kernel::AmaxMap | Kernel::AmaxMapUnit => "amax_map.frag",
            Kernel::SsqMap | Kernel::SsqMapUnit => "ssq_map.frag",
            Kernel::IamaxMap | Kernel::IamaxMapUnit => "iamax_map.frag",
            Kernel::SumReduce => "sum_reduce.frag",
            Kernel::MaxReduce => "max_reduce.frag",
            Kernel::IamaxReduce => "iamax_reduce.frag",
            Kernel::SumFinal => "sum_final.frag",
            Kernel::MaxFinal => "max_final.frag",
            Kernel::Nrm2Final => "nrm2_final.frag",
            Kernel::GemmGeneric => "gemm_generic.frag",
            Kernel::GemmPack => "gemm_pack.frag",
            Kernel::GemmVec4 => "gemm_vec4.frag",
            Kernel::GemmMerge => "gemm_merge.frag",
            Kernel::GemmMrt4 | Kernel::GemmMrt8 => "gemm_mrt.frag",
            Kernel::GemmMergeMrt4 | Kernel::GemmMergeMrt8 => "gemm_merge_mrt.frag",
            Kernel::GemmPackStrip => "gemm_pack_strip.frag",
            Kernel::GemmStrip1 | Kernel::GemmStrip4 | Kernel::GemmStrip8 => "gemm_strip.frag",
            Kernel::GemmMergeStrip => "gemm_merge_strip.frag",
            Kernel::Gemv => "gemv.frag",
            Kernel::GemvVec4 => "gemv_vec4.frag",
            Kernel::CalibFma | Kernel::CalibFmaNarrow => "calib_fma.frag",
            Kernel::CalibCopy => "calib_copy.frag",
            Kernel::CalibStream => "calib_stream.frag",
            Kernel::CalibRead => "calib_read.frag",
        }
    }

    fn body(self) -> &'static str {
        match self {
            Kernel::AxpbyUnit => include_str!("../glsl/axpby_unit.frag"),
            Kernel::AxpbyStrided => include_str!("../glsl/axpby_strided.frag"),
            Kernel::AxpbyImage | Kernel::SwapImage => include_str!("../glsl/axpby_image.frag"),
            Kernel::DotMap | Kernel::DotMapUnit => include_str!("../glsl/dot_map.frag"),
            Kernel::AsumMap | Kernel::AsumMapUnit => include_str!("../glsl/asum_map.frag"),
            Kernel::AmaxMap | Kernel::AmaxMapUnit => include_str!("../glsl/amax_map.frag"),
            Kernel::SsqMap | Kernel::SsqMapUnit => include_str!("../glsl/ssq_map.frag"),
            Kernel::IamaxMap | Kernel::IamaxMapUnit => include_str!("../glsl/iamax_map.frag"),
            Kernel::SumReduce => include_str!("../glsl/sum_reduce.frag"),
            Kernel::MaxReduce => include_str!("../glsl/max_reduce.frag"),
            Kernel::IamaxReduce => include_str!("../glsl/iamax_reduce.frag"),
            Kernel::SumFinal => include_str!("../glsl/sum_final.frag"),
            Kernel::MaxFinal => include_str!("../glsl/max_final.frag"),
            Kernel::Nrm2Final => include_str!("../glsl/nrm2_final.frag"),
            Kernel::GemmGeneric => include_str!("../glsl/gemm_generic.frag"),
            Kernel::GemmPack => include_str!("../glsl/gemm_pack.frag"),
            Kernel::GemmVec4 => include_str!("../glsl/gemm_vec4.frag"),
            Kernel::GemmMerge => include_str!("../glsl/gemm_merge.frag"),
            Kernel::GemmMrt4 | Kernel::GemmMrt8 => include_str!("../glsl/gemm_mrt.frag"),
            Kernel::GemmMergeMrt4 | Kernel::GemmMergeMrt8 => {
                include_str!("../glsl/gemm_merge_mrt.frag")
            }
            Kernel::GemmPackStrip => include_str!("../glsl/gemm_pack_strip.frag"),
            Kernel::GemmStrip1 | Kernel::GemmStrip4 | Kernel::GemmStrip8 => {
                include_str!("../glsl/gemm_strip.frag")
            }
            Kernel::GemmMergeStrip => include_str!("../glsl/gemm_merge_strip.frag"),
            Kernel::Gemv => include_str!("../glsl/gemv.frag"),
            Kernel::GemvVec4 => include_str!("../glsl/gemv_vec4.frag"),
            Kernel::CalibFma | Kernel::CalibFmaNarrow => include_str!("../glsl/calib_fma.frag"),
            Kernel::CalibCopy => include_str!("../glsl/calib_copy.frag"),
            Kernel::CalibStream => include_str!("../glsl/calib_stream.frag"),
            Kernel::CalibRead => include_str!("../glsl/calib_read.frag"),
        }
    }

    /// The unit-stride variant of a map kernel (itself for any other kernel).
    pub(crate) fn unit_stride(self) -> Kernel {
        match self {
            Kernel::DotMap => Kernel::DotMapUnit,
            Kernel::AsumMap => Kernel::AsumMapUnit,
            Kernel::AmaxMap => Kernel::AmaxMapUnit,
            Kernel::SsqMap => Kernel::SsqMapUnit,
            Kernel::IamaxMap => Kernel::IamaxMapUnit,
            k => k,
        }
    }

    /// Render targets the kernel writes (a device with fewer draw buffers cannot link it).
    pub(crate) fn draw_buffers(self) -> u32 {
        match self {
            Kernel::GemmMrt8 | Kernel::GemmStrip1 | Kernel::GemmStrip4 | Kernel::GemmStrip8 => 8,
            Kernel::GemmMrt4 => 4,
            _ => 1,
        }
    }

    /// Uniform blocks of [`STRIP_BLOCK_BYTES`] the kernel reads in its fragment shader.
    pub(crate) fn uniform_blocks(self) -> u32 {
        match self {
            Kernel::GemmStrip1 => 1,
            Kernel::GemmStrip4 => 4,
            Kernel::GemmStrip8 => 8,
            _ => 0,
        }
    }

    /// Whether the kernel writes through image stores (and so needs GL 4.3 or GLES 3.1).
    pub(crate) fn stores_images(self) -> bool {
        matches!(self, Kernel::AxpbyImage | Kernel::SwapImage)
    }

    /// Whether a device with these limits can compile and run the kernel.
    pub(crate) fn runs_on(self, info: &crate::context::DeviceInfo) -> bool {
        let blocks = self.uniform_blocks();
        (info.image_stores || !self.stores_images())
            && self.draw_buffers() <= info.max_draw_buffers
            && (blocks == 0
                || (blocks <= info.max_fragment_uniform_blocks
                    && info.max_uniform_block_size as usize >= STRIP_BLOCK_BYTES
                    && info.float_blend))
    }

    /// Constants a kernel file is compiled with.
    fn constants(self) -> &'static str {
        match self {
            Kernel::DotMapUnit
            | Kernel::AsumMapUnit
            | Kernel::AmaxMapUnit
            | Kernel::SsqMapUnit
            | Kernel::IamaxMapUnit => "#define UNIT_STRIDE 1",
            Kernel::AxpbyImage => "#define PER 8\n#define SWAP 0",
            Kernel::SwapImage => "#define PER 8\n#define SWAP 1",
            Kernel::CalibFma => "#define CHAINS 8",
            Kernel::CalibFmaNarrow => "#define CHAINS 2",
            Kernel::GemmMrt4 | Kernel::GemmMergeMrt4 => "#define COLS 4",
            Kernel::GemmMrt8 | Kernel::GemmMergeMrt8 => "#define COLS 8",
            Kernel::GemmPackStrip | Kernel::GemmMergeStrip => "#define KC 2048\n#define BAND 8",
            Kernel::GemmStrip1 => "#define KC 2048\n#define BAND 8\n#define GROUP 1",
            Kernel::GemmStrip4 => "#define KC 2048\n#define BAND 8\n#define GROUP 4",
            Kernel::GemmStrip8 => "#define KC 2048\n#define BAND 8\n#define GROUP 8",
            _ => "",
        }
    }

    /// Vertex and fragment source for the given version prelude.
    pub(crate) fn sources(self, prelude: &str) -> (String, String) {
        (
            format!("{prelude}\n{VERTEX}"),
            format!("{prelude}\n{}\n{COMMON}\n{}", self.constants(), self.body()),
        )
    }
}

/// Texels each fragment of the image-store kernels updates (`PER` in their file).
pub(crate) const IMAGE_TEXELS_PER_FRAGMENT: u32 = 8;

/// k values per uniform block of the strip kernels (`KC` in their files).
pub(crate) const STRIP_KC: usize = 2048;

/// Rows of the targets each strip of the strip kernels occupies (`BAND` in their files).
pub(crate) const STRIP_BAND: usize = 8;

/// Bytes of one uniform block of the strip kernels: 8 rows x KC values of A.
pub(crate) const STRIP_BLOCK_BYTES: usize = 8 * STRIP_KC * 4;

/// Version prelude for desktop GL 3.3 core.
pub(crate) const PRELUDE_GL33: &str = "#version 330 core";

/// Version prelude for OpenGL ES 3.0: every kernel needs full 32-bit floats and ints.
pub(crate) const PRELUDE_GLES30: &str =
    "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;";

/// Version prelude of the image-store kernels on desktop GL.
pub(crate) const PRELUDE_GL43: &str = "#version 430 core";

/// Version prelude of the image-store kernels on OpenGL ES.
pub(crate) const PRELUDE_GLES31: &str = "#version 310 es\nprecision highp float;\n\
     precision highp int;\nprecision highp sampler2D;\nprecision highp image2D;";

/// Every kernel, for compiling ahead of use.
pub(crate) const ALL: &[Kernel] = &[
    Kernel::AxpbyUnit,
    Kernel::AxpbyStrided,
    Kernel::AxpbyImage,
    Kernel::SwapImage,
    Kernel::DotMap,
    Kernel::DotMapUnit,
    Kernel::AsumMap,
    Kernel::AsumMapUnit,
    Kernel::AmaxMap,
    Kernel::AmaxMapUnit,
    Kernel::SsqMap,
    Kernel::SsqMapUnit,
    Kernel::IamaxMap,
    Kernel::IamaxMapUnit,
    Kernel::SumReduce,
    Kernel::MaxReduce,
    Kernel::IamaxReduce,
    Kernel::SumFinal,
    Kernel::MaxFinal,
    Kernel::Nrm2Final,
    Kernel::GemmGeneric,
    Kernel::GemmPack,
    Kernel::GemmVec4,
    Kernel::GemmMerge,
    Kernel::GemmMrt4,
    Kernel::GemmMrt8,
    Kernel::GemmMergeMrt4,
    Kernel::GemmMergeMrt8,
    Kernel::GemmPackStrip,
    Kernel::GemmStrip1,
    Kernel::GemmStrip4,
    Kernel::GemmStrip8,
    Kernel::GemmMergeStrip,
    Kernel::Gemv,
    Kernel::GemvVec4,
    Kernel::CalibFma,
    Kernel::CalibFmaNarrow,
    Kernel::CalibCopy,
    Kernel::CalibStream,
    Kernel::CalibRead,
];
