//! What a device can do, read once when a context is created: the strings and limits GL
//! reports, and the capabilities the kernels depend on, each a separate flag.

use crate::error::{Error, Result};
use crate::gl::egl::{DeviceDesc, GlApi};
use crate::gl::GlStrings;

/// Extension GLES 3.0 needs to render into RGBA32F textures.
const COLOR_BUFFER_FLOAT: &str = "GL_EXT_color_buffer_float";

/// What a user may want to know about the device behind a context.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// `GL_RENDERER`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub renderer: String,
    /// `GL_VENDOR`.
    pub vendor: String,
    /// `GL_VERSION`.
    pub version: String,
    /// `GL_SHADING_LANGUAGE_VERSION`.
    pub glsl_version: String,
    /// `GL_MAX_TEXTURE_SIZE`.
    pub max_texture_size: u32,
    /// `GL_MAX_DRAW_BUFFERS`.
    pub max_draw_buffers: u32,
    /// `GL_MAX_UNIFORM_BLOCK_SIZE`, bytes.
    pub max_uniform_block_size: u32,
    /// `GL_MAX_FRAGMENT_UNIFORM_BLOCKS`.
    pub max_fragment_uniform_blocks: u32,
    /// `GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT`, bytes.
    pub uniform_buffer_offset_alignment: u32,
    /// Whether fragment shaders can write textures through image stores (GL 4.3 or GLES 3.1
    /// with two or more fragment image uniforms).
    pub image_stores: bool,
    /// `GL_MAX_FRAGMENT_SHADER_STORAGE_BLOCKS`: storage buffers a fragment shader may read
    /// (0 before GL 4.3 / GLES 3.1; GLES 3.1 allows 0).
    pub max_fragment_storage_blocks: u32,
    /// `GL_MAX_SHADER_STORAGE_BLOCK_SIZE`, bytes (0 before GL 4.3 / GLES 3.1).
    pub max_storage_block_size: u64,
    /// Whether shaders can mark arithmetic `precise` (GLSL 4.00 and later, GLSL ES 3.20, or
    /// a `gpu_shader5` extension), which keeps the compiler from rewriting it as real
    /// arithmetic. The float-float accumulation of sdsdot and dsdot needs it; without it
    /// they run on the host.
    pub precise_qualifier: bool,
    /// Whether RGBA32F targets can blend (always on desktop GL; `EXT_float_blend` on GLES).
    pub float_blend: bool,
    /// Whether EGL marks the device as a software rasteriser.
    pub software: bool,
    /// Whether the fragment pipeline's arithmetic flushes subnormal floats (magnitudes below
    /// `f32::MIN_POSITIVE`, about 1.18e-38) to zero, which GLSL allows: measured when the
    /// context is created. Where it does (Mesa's llvmpipe), a routine whose inputs or
    /// results are subnormal gives 0 for them: `sscal` by 2 of `1e-40` gives 0, and so does
    /// `snrm2` of a vector of `1e-40`s. Uploads and downloads keep subnormals bit for bit.
    pub flushes_subnormals: bool,
    /// Index of the device in [`crate::list_devices`].
    pub device_index: usize,
    /// GL extensions, sorted.
    pub extensions: Vec<String>,
    /// The API of the context: [`GlApi::DesktopGl`] or [`GlApi::Gles`].
    pub api: GlApi,
    /// Which operations across a warp (the invocations a GPU runs together, a subgroup)
    /// fragment shaders can use, if any: what the kernels that give each warp its own work
    /// need (ssymv's read-once product).
    pub warp_ops: Option<WarpOps>,
    /// Whether fragment shaders have `GL_KHR_shader_subgroup`'s quad operations (sums
    /// across the four fragments of a 2 x 2 quad, no memory between them): what the
    /// triangular solves' quad-split block steps need
    /// ([`ContextOptions::quad_steps`](crate::ContextOptions::quad_steps)).
    pub quad_ops: bool,
}

/// Operations across a warp that a device's fragment shaders have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpOps {
    /// `GL_KHR_shader_subgroup` in fragment shaders with its basic, ballot, arithmetic and
    /// shuffle features (sums across a warp by the driver's own reduction, or by shuffles).
    Subgroup,
    /// `GL_ARB_shader_ballot` with `GL_ARB_gpu_shader_int64` (desktop GL): ballots and
    /// reads of one invocation, from which a sum across a warp is built (Mesa's llvmpipe).
    Ballot,
}

/// `GL_FRAGMENT_SHADER_BIT` among `GL_SUBGROUP_SUPPORTED_STAGES_KHR`.
const FRAGMENT_STAGE: u32 = 0x2;
/// The subgroup features the warp kernels use: basic (0x1), arithmetic (0x4), ballot (0x8),
/// shuffle (0x10).
const WARP_FEATURES: u32 = 0x1 | 0x4 | 0x8 | 0x10;
/// The subgroup features the quad kernels use: basic (0x1) and quad (0x80).
const QUAD_FEATURES: u32 = 0x1 | 0x80;

/// Whether a context of this API and version, with the stages and features
/// `GL_KHR_shader_subgroup` reports (if it is there), has quad operations in fragment
/// shaders. Only from GL 4.3 / GLES 3.1: the quad kernels also store images.
pub(crate) fn quad_ops(
    gles: bool,
    version: (u32, u32),
    stages_features: Option<(u32, u32)>,
) -> bool {
    version >= if gles { (3, 1) } else { (4, 3) }
        && stages_features.is_some_and(|(stages, features)| {
            stages & FRAGMENT_STAGE != 0 && features & QUAD_FEATURES == QUAD_FEATURES
        })
}

/// The warp operations of a context of this API, version and extensions, with the stages and
/// features `GL_KHR_shader_subgroup` reports (if it is there). Only from GL 4.3 / GLES 3.1
/// (the warp kernels also store images and read storage blocks); the subgroup extension is
/// preferred.
pub(crate) fn warp_ops(
    gles: bool,
    version: (u32, u32),
    extensions: &[String],
    stages_features: Option<(u32, u32)>,
) -> Option<WarpOps> {
    let has = |e: &str| extensions.iter().any(|x| x == e);
    if version < if gles { (3, 1) } else { (4, 3) } {
        return None;
    }
    match stages_features {
        Some((stages, features))
            if stages & FRAGMENT_STAGE != 0 && features & WARP_FEATURES == WARP_FEATURES =>
        {
            Some(WarpOps::Subgroup)
        }
        _ if !gles && has("GL_ARB_shader_ballot") && has("GL_ARB_gpu_shader_int64") => {
            Some(WarpOps::Ballot)
        }
        _ => None,
    }
}

impl GlStrings {
    /// The warp operations of a context of `api` with these strings ([`warp_ops`]): what
    /// both the warp kernels' prelude and [`DeviceInfo::warp_ops`] take.
    pub(crate) fn warp_ops(&self, api: GlApi) -> Option<WarpOps> {
        warp_ops(
            api == GlApi::Gles,
            self.version_number,
            &self.extensions,
            self.subgroup_stages_features,
        )
    }

    /// Whether a context of `api` with these strings has quad operations ([`quad_ops`]).
    pub(crate) fn quad_ops(&self, api: GlApi) -> bool {
        quad_ops(
            api == GlApi::Gles,
            self.version_number,
            self.subgroup_stages_features,
        )
    }
}

impl DeviceInfo {
    /// The info of a context of `api` on device `desc`, from the strings GL reported, the
    /// probe of subnormal arithmetic and the warp and quad operations read off the strings
    /// ([`GlStrings::warp_ops`], [`GlStrings::quad_ops`]); an error if the device cannot
    /// render into RGBA32F textures.
    pub(crate) fn new(
        s: GlStrings,
        desc: &DeviceDesc,
        api: GlApi,
        flushes_subnormals: bool,
        (warp_ops, quad_ops): (Option<WarpOps>, bool),
    ) -> Result<Self> {
        let precise_qualifier =
            precise_extension(api == GlApi::Gles, s.version_number, &s.extensions).is_some();
        let info = DeviceInfo {
            precise_qualifier,
            renderer: s.renderer,
            vendor: s.vendor,
            version: s.version,
            glsl_version: s.glsl_version,
            max_texture_size: s.max_texture_size,
            max_draw_buffers: s.max_draw_buffers,
            max_uniform_block_size: s.max_uniform_block_size,
            max_fragment_uniform_blocks: s.max_fragment_uniform_blocks,
            uniform_buffer_offset_alignment: s.uniform_buffer_offset_alignment,
            image_stores: s.image_stores,
            max_fragment_storage_blocks: s.max_fragment_storage_blocks,
            max_storage_block_size: s.max_storage_block_size,
            float_blend: api != GlApi::Gles
                || s.extensions.iter().any(|e| e == "GL_EXT_float_blend"),
            software: desc.software,
            flushes_subnormals,
            device_index: desc.index,
            warp_ops,
            quad_ops,
            extensions: s.extensions,
            api,
        };
        if api == GlApi::Gles && !info.has_extension(COLOR_BUFFER_FLOAT) {
            return Err(Error::Unsupported(format!(
                "this GLES device ({}) lacks {COLOR_BUFFER_FLOAT}, so it cannot render into \
                 RGBA32F textures; fragblas does not fall back to lower precision",
                info.renderer
            )));
        }
        Ok(info)
    }

    /// Whether the context lists GL extension `name`.
    pub(crate) fn has_extension(&self, name: &str) -> bool {
        self.extensions.iter().any(|e| e == name)
    }
}

/// The version line and extension that give `precise` in a context of this API, version
/// and extensions, if any does.
pub(crate) fn precise_extension(
    gles: bool,
    (major, minor): (u32, u32),
    extensions: &[String],
) -> Option<(&'static str, Option<&'static str>)> {
    let has = |e: &str| extensions.iter().any(|x| x == e);
    if gles {
        if (major, minor) >= (3, 2) {
            Some(("#version 320 es", None))
        } else if (major, minor) >= (3, 1) {
            ["GL_OES_gpu_shader5", "GL_EXT_gpu_shader5"]
                .into_iter()
                .find(|e| has(e))
                .map(|e| ("#version 310 es", Some(e)))
        } else {
            None
        }
    } else if (major, minor) >= (4, 3) {
        Some(("#version 430 core", None))
    } else if (major, minor) >= (4, 0) {
        Some(("#version 400 core", None))
    } else {
        has("GL_ARB_gpu_shader5").then_some(("#version 330 core", Some("GL_ARB_gpu_shader5")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exts(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn warp_ops_need_the_image_versions_and_fragment_subgroups() {
        let ballot = exts(&["GL_ARB_gpu_shader_int64", "GL_ARB_shader_ballot"]);
        let khr = exts(&["GL_KHR_shader_subgroup"]);
        let all = Some((0x2 | 0x10, 0xff));
        assert_eq!(warp_ops(false, (4, 5), &khr, all), Some(WarpOps::Subgroup));
        assert_eq!(warp_ops(true, (3, 2), &khr, all), Some(WarpOps::Subgroup));
        // Before GL 4.3 / GLES 3.1: none.
        assert_eq!(warp_ops(false, (4, 2), &khr, all), None);
        assert_eq!(warp_ops(true, (3, 0), &khr, all), None);
        // Subgroups without the fragment stage or without arithmetic: not these.
        assert_eq!(warp_ops(false, (4, 6), &khr, Some((0x20, 0xff))), None);
        assert_eq!(warp_ops(false, (4, 6), &khr, Some((0x2, 0x1 | 0x8))), None);
        assert_eq!(warp_ops(false, (4, 6), &khr, Some((0x2, 0xf))), None);
        // Ballots on desktop GL only, with 64-bit integers.
        assert_eq!(
            warp_ops(false, (4, 5), &ballot, None),
            Some(WarpOps::Ballot)
        );
        assert_eq!(warp_ops(true, (3, 2), &ballot, None), None);
        assert_eq!(
            warp_ops(false, (4, 5), &exts(&["GL_ARB_shader_ballot"]), None),
            None
        );
        // Subgroups preferred where both are.
        let both = [ballot, khr].concat();
        assert_eq!(warp_ops(false, (4, 6), &both, all), Some(WarpOps::Subgroup));
    }

    #[test]
    fn quad_ops_need_the_image_versions_and_fragment_quads() {
        // The H200's driver: every stage, features 0x1ff.
        let h200 = Some((0xff, 0x1ff));
        assert!(quad_ops(false, (4, 6), h200));
        assert!(quad_ops(true, (3, 2), h200));
        assert!(!quad_ops(false, (4, 2), h200));
        assert!(!quad_ops(true, (3, 0), h200));
        // No subgroup extension, no fragment stage, no quad or no basic feature: none.
        assert!(!quad_ops(false, (4, 6), None));
        assert!(!quad_ops(false, (4, 6), Some((0xfd, 0x1ff))));
        assert!(!quad_ops(false, (4, 6), Some((0x2, 0x7f))));
        assert!(!quad_ops(false, (4, 6), Some((0x2, 0x80))));
        assert!(quad_ops(false, (4, 6), Some((0x2, 0x81))));
    }
}
