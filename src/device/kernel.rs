//! What a fragment kernel is: one file under `glsl/`, the `#define` lines it is compiled
//! with, and what it needs of a device. A routine declares its kernels as statics beside
//! itself with [`kernel!`](crate::kernel); the context compiles each on first use and caches
//! the program. A program's source is the version prelude, the defines, the shared helpers
//! of `glsl/common/common.glsl` (and for a warp kernel `glsl/common/warp.glsl`), the
//! family's helpers and the kernel file, in that order; nothing else is pasted in.

use crate::device::info::{precise_extension, DeviceInfo, WarpOps};
use crate::gl::egl::GlApi;

/// One fragment kernel and its requirements.
#[derive(Debug)]
pub(crate) struct Kernel {
    /// Path of the kernel file under `glsl/`, e.g. `level1/axpby_unit.frag`.
    pub name: &'static str,
    /// The text of the file.
    pub body: &'static str,
    /// `#define` lines compiled in ahead of the file (one file can make several kernels).
    pub defines: &'static str,
    /// Helpers a family of kernels shares (a file of its own, e.g.
    /// `glsl/level2/storage.glsl`), compiled after the common ones and before the body.
    pub header: &'static str,
    /// Render targets the kernel writes (a device with fewer draw buffers cannot link it).
    pub draw_buffers: u32,
    /// Uniform blocks the kernel reads, each of `block_bytes` bytes.
    pub uniform_blocks: u32,
    /// Bytes of each uniform block.
    pub block_bytes: usize,
    /// Whether its draws add into their targets by blending (RGBA32F blending).
    pub blends: bool,
    /// Whether it writes through image stores (GL 4.3 or GLES 3.1).
    pub stores_images: bool,
    /// Shader storage blocks it reads (GL 4.3 or GLES 3.1 with fragment storage blocks).
    pub storage_blocks: u32,
    /// Whether it marks arithmetic `PRECISE` (a macro: `precise` where the dialect has it).
    pub precise: bool,
    /// Whether it works across warps (`glsl/common/warp.glsl`, compiled in after the common
    /// helpers; [`DeviceInfo::warp_ops`]).
    pub warps: bool,
    /// Whether it sums across a fragment quad (`GL_KHR_shader_subgroup_quad`;
    /// [`DeviceInfo::quad_ops`]).
    pub quads: bool,
}

/// Declares a [`Kernel`] for a file under `glsl/`: `kernel!("level1/axpby_unit.frag")`.
#[macro_export]
#[doc(hidden)]
macro_rules! kernel {
    ($path:literal) => {
        $crate::device::kernel::Kernel::new(
            $path,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/glsl/", $path)),
        )
    };
}

impl Kernel {
    /// A kernel of one render target, no uniform blocks, no blending, no image stores.
    pub(crate) const fn new(name: &'static str, body: &'static str) -> Self {
        Kernel {
            name,
            body,
            defines: "",
            header: "",
            draw_buffers: 1,
            uniform_blocks: 0,
            block_bytes: 0,
            blends: false,
            stores_images: false,
            storage_blocks: 0,
            precise: false,
            warps: false,
            quads: false,
        }
    }

    /// Sums across the four fragments of a quad (and stores images: the quad prelude is the
    /// image one's with the quad extensions).
    pub(crate) const fn quads(mut self) -> Self {
        self.quads = true;
        self.stores_images = true;
        self
    }

    /// Works across warps (and stores images: the warp prelude is the image one's).
    pub(crate) const fn warps(mut self) -> Self {
        self.warps = true;
        self.stores_images = true;
        self
    }

    /// Marks arithmetic `PRECISE` and needs the `precise` qualifier.
    pub(crate) const fn precise(mut self) -> Self {
        self.precise = true;
        self
    }

    /// The kernel's file and its defines, e.g. `level2/trsv.frag PASS=3 NB=64 VEC4=1`: how
    /// profiles name it.
    pub(crate) fn label(&self) -> String {
        let defines = self
            .defines
            .lines()
            .filter_map(|l| l.strip_prefix("#define "))
            .map(|d| d.trim().replacen(' ', "=", 1));
        std::iter::once(self.name.to_string())
            .chain(defines)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The same kernel compiled with `defines` (`#define` lines).
    pub(crate) const fn defines(mut self, defines: &'static str) -> Self {
        self.defines = defines;
        self
    }

    /// Compiles the family helpers `header` in before the body.
    pub(crate) const fn header(mut self, header: &'static str) -> Self {
        self.header = header;
        self
    }

    /// Writes `n` render targets.
    pub(crate) const fn targets(mut self, n: u32) -> Self {
        self.draw_buffers = n;
        self
    }

    /// Reads `n` uniform blocks of `bytes` bytes each.
    pub(crate) const fn blocks(mut self, n: u32, bytes: usize) -> Self {
        self.uniform_blocks = n;
        self.block_bytes = bytes;
        self
    }

    /// Adds into its targets by blending.
    pub(crate) const fn blending(mut self) -> Self {
        self.blends = true;
        self
    }

    /// Writes through image stores.
    pub(crate) const fn image_stores(mut self) -> Self {
        self.stores_images = true;
        self
    }

    /// Reads `n` shader storage blocks.
    pub(crate) const fn storage(mut self, n: u32) -> Self {
        self.storage_blocks = n;
        self
    }

    /// The key of the kernel's program in a context's cache.
    pub(crate) fn key(&self) -> (&'static str, &'static str) {
        (self.name, self.defines)
    }

    /// Whether a device with these limits can compile and run the kernel.
    pub(crate) fn runs_on(&self, info: &DeviceInfo) -> bool {
        (info.image_stores || !self.stores_images)
            && (info.warp_ops.is_some() || !self.warps)
            && (info.quad_ops || !self.quads)
            && self.storage_blocks <= info.max_fragment_storage_blocks
            && (info.precise_qualifier || !self.precise)
            && self.draw_buffers <= info.max_draw_buffers
            && (!self.blends || info.float_blend)
            && (self.uniform_blocks == 0
                || (self.uniform_blocks <= info.max_fragment_uniform_blocks
                    && info.max_uniform_block_size as usize >= self.block_bytes))
    }

    /// Vertex and fragment source in the dialects of `preludes`.
    pub(crate) fn sources(&self, preludes: &Preludes) -> (String, String) {
        let prelude = if self.warps {
            preludes.warps.as_deref().unwrap_or(&preludes.images)
        } else if self.quads {
            preludes.quads.as_deref().unwrap_or(&preludes.images)
        } else if self.stores_images || self.storage_blocks > 0 {
            &preludes.images
        } else if self.precise {
            preludes.precise.as_deref().unwrap_or(&preludes.plain)
        } else {
            &preludes.plain
        };
        let precise = if self.precise && preludes.precise.is_some() {
            "#define PRECISE precise"
        } else {
            "#define PRECISE"
        };
        (
            format!("{prelude}\n{VERTEX}"),
            format!(
                "{prelude}\n{precise}\n{}\n{COMMON}\n{}\n{}\n{}",
                self.defines,
                if self.warps { WARP } else { "" },
                self.header,
                self.body
            ),
        )
    }
}

/// The version lines a context compiles its kernels with: the oldest dialect each kind of
/// kernel needs, so that one kernel file serves GL 3.3 to 4.6 and GLES 3.0 to 3.2.
#[derive(Debug, Clone)]
pub(crate) struct Preludes {
    /// Every kernel: GLSL 3.30 or GLSL ES 3.00.
    plain: String,
    /// Image-store kernels: GLSL 4.30 or GLSL ES 3.10 (only where the device has them).
    images: String,
    /// Kernels that need `precise`, where the context has it.
    precise: Option<String>,
    /// Warp kernels: the image prelude with the extensions of the device's warp operations
    /// and `WARP_SUBGROUP` or `WARP_BALLOT` defined (only where it has them).
    warps: Option<String>,
    /// Quad kernels: the image prelude with the quad extensions (only where the device has
    /// them).
    quads: Option<String>,
}

impl Preludes {
    /// The preludes of a context of `api`, version and extensions.
    pub(crate) fn new(
        api: GlApi,
        version: (u32, u32),
        extensions: &[String],
        warp_ops: Option<WarpOps>,
        quad_ops: bool,
    ) -> Self {
        let gles = api == GlApi::Gles;
        const ES_PRECISION: &str =
            "precision highp float;\nprecision highp int;\nprecision highp sampler2D;";
        let dialect = |line: &str, ext: Option<&str>| {
            let ext = ext
                .map(|e| format!("\n#extension {e} : require"))
                .unwrap_or_default();
            if gles {
                format!("{line}{ext}\n{ES_PRECISION}")
            } else {
                format!("{line}{ext}")
            }
        };
        let images = if gles {
            format!(
                "{}\nprecision highp image2D;",
                dialect("#version 310 es", None)
            )
        } else {
            dialect("#version 430 core", None)
        };
        // The extension lines `exts` right after the image prelude's version line.
        let with_extensions = |exts: &[&str]| {
            let (first, rest) = images.split_once('\n').unwrap_or((&images, ""));
            let lines: String = exts
                .iter()
                .map(|e| format!("\n#extension {e} : require"))
                .collect();
            format!("{first}{lines}\n{rest}")
        };
        let quads = quad_ops.then(|| {
            with_extensions(&[
                "GL_KHR_shader_subgroup_basic",
                "GL_KHR_shader_subgroup_quad",
            ])
        });
        let warps = warp_ops.map(|w| {
            let (exts, define): (&[&str], &str) = match w {
                WarpOps::Subgroup => (
                    &[
                        "GL_KHR_shader_subgroup_basic",
                        "GL_KHR_shader_subgroup_ballot",
                        "GL_KHR_shader_subgroup_arithmetic",
                        "GL_KHR_shader_subgroup_shuffle",
                    ],
                    "WARP_SUBGROUP",
                ),
                WarpOps::Ballot => (
                    &["GL_ARB_shader_ballot", "GL_ARB_gpu_shader_int64"],
                    "WARP_BALLOT",
                ),
            };
            format!("{}\n#define {define} 1", with_extensions(exts))
        });
        Preludes {
            warps,
            quads,
            plain: dialect(
                if gles {
                    "#version 300 es"
                } else {
                    "#version 330 core"
                },
                None,
            ),
            images,
            precise: precise_extension(gles, version, extensions).map(|(l, e)| dialect(l, e)),
        }
    }
}

const VERTEX: &str = include_str!("../../glsl/common/fullscreen.vert");
const COMMON: &str = include_str!("../../glsl/common/common.glsl");
const WARP: &str = include_str!("../../glsl/common/warp.glsl");

#[cfg(test)]
mod tests {
    use super::*;

    static PLAIN: Kernel = crate::kernel!("common/calib_copy.frag");

    #[test]
    fn labels_name_the_file_and_defines() {
        assert_eq!(PLAIN.label(), "common/calib_copy.frag");
        let k = crate::kernel!("common/calib_copy.frag").defines("#define A 1\n#define B x y");
        assert_eq!(k.label(), "common/calib_copy.frag A=1 B=x y");
    }

    #[test]
    fn sources_put_prelude_defines_helpers_and_body_in_order() {
        let es = Preludes::new(GlApi::Gles, (3, 2), &[], None, false);
        let k = Kernel::new("x.frag", "void main() {}").defines("#define A 1");
        let (vs, fs) = k.sources(&es);
        assert!(vs.starts_with("#version 300 es"));
        let (p, d, c, b) = (
            fs.find("#version").unwrap(),
            fs.find("#define A 1").unwrap(),
            fs.find("select4").unwrap(),
            fs.find("void main() {}").unwrap(),
        );
        assert!(p < d && d < c && c < b, "{fs}");
        let gl = Preludes::new(GlApi::DesktopGl, (4, 5), &[], None, false);
        let img = Kernel::new("y.frag", "").image_stores();
        assert!(img.sources(&gl).1.starts_with("#version 430"));
        assert!(img.sources(&es).1.starts_with("#version 310 es"));
        assert!(img.sources(&es).1.contains("precision highp image2D;"));
        assert!(PLAIN.body.contains("void main"));
        // A warp kernel: the extensions right after the version line, its define, the warp
        // helpers after the common ones; where the device has no warp operations, none.
        let w = Kernel::new("w.frag", "void main() {}").warps();
        let khr = Preludes::new(GlApi::Gles, (3, 2), &[], Some(WarpOps::Subgroup), false);
        let fs = w.sources(&khr).1;
        assert!(fs.starts_with("#version 310 es\n#extension GL_KHR_shader_subgroup_basic"));
        assert!(fs.contains("#extension GL_KHR_shader_subgroup_shuffle : require"));
        assert!(fs.contains("#define WARP_SUBGROUP 1"));
        assert!(fs.find("select4").unwrap() < fs.find("uint warp_count()").unwrap());
        let ballot = Preludes::new(GlApi::DesktopGl, (4, 5), &[], Some(WarpOps::Ballot), false);
        let fs = w.sources(&ballot).1;
        assert!(fs.starts_with("#version 430 core\n#extension GL_ARB_shader_ballot : require"));
        assert!(fs.contains("#define WARP_BALLOT 1"));
        assert!(!PLAIN.sources(&ballot).1.contains("warp_count"));
        assert_eq!(PLAIN.key(), ("common/calib_copy.frag", ""));
        // A quad kernel: the quad extensions after the version line, where the device has
        // them; the image prelude where it has not (such a device does not run it).
        let q = Kernel::new("q.frag", "void main() {}").quads();
        assert!(q.stores_images);
        let quads = Preludes::new(GlApi::DesktopGl, (4, 6), &[], None, true);
        let fs = q.sources(&quads).1;
        assert!(fs.starts_with(
            "#version 430 core\n#extension GL_KHR_shader_subgroup_basic : require\n\
             #extension GL_KHR_shader_subgroup_quad : require"
        ));
        assert!(!PLAIN.sources(&quads).1.contains("subgroup"));
        assert!(!q.sources(&gl).1.contains("subgroup"));
    }

    #[test]
    fn precise_comes_from_the_version_or_an_extension() {
        let ext = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            precise_extension(false, (4, 3), &[]),
            Some(("#version 430 core", None))
        );
        assert_eq!(precise_extension(false, (3, 3), &[]), None);
        assert_eq!(
            precise_extension(false, (3, 3), &ext(&["GL_ARB_gpu_shader5"])),
            Some(("#version 330 core", Some("GL_ARB_gpu_shader5")))
        );
        assert_eq!(
            precise_extension(true, (3, 2), &[]),
            Some(("#version 320 es", None))
        );
        assert_eq!(
            precise_extension(true, (3, 0), &ext(&["GL_EXT_gpu_shader5"])),
            None
        );
        assert_eq!(
            precise_extension(true, (3, 1), &ext(&["GL_EXT_gpu_shader5"])),
            Some(("#version 310 es", Some("GL_EXT_gpu_shader5")))
        );
        let p = Kernel::new("z.frag", "").precise();
        let gl = Preludes::new(GlApi::DesktopGl, (4, 3), &[], None, false);
        let fs = p.sources(&gl).1;
        assert!(fs.starts_with("#version 430 core") && fs.contains("#define PRECISE precise"));
        let old = Preludes::new(GlApi::DesktopGl, (3, 3), &[], None, false);
        assert!(p.sources(&old).1.contains("#define PRECISE\n"));
    }
}
