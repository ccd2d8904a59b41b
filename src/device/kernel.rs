//! What a fragment kernel is: one file under `glsl/`, the `#define` lines it is compiled
//! with, and what it needs of a device. A routine declares its kernels as statics beside
//! itself with [`kernel!`](crate::kernel); the context compiles each on first use and caches
//! the program. A program's source is the version prelude, the defines, the shared helpers
//! of `glsl/common/common.glsl` and the kernel file, in that order; nothing else is pasted
//! in.

use crate::device::info::DeviceInfo;
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
            draw_buffers: 1,
            uniform_blocks: 0,
            block_bytes: 0,
            blends: false,
            stores_images: false,
        }
    }

    /// The same kernel compiled with `defines` (`#define` lines).
    pub(crate) const fn defines(mut self, defines: &'static str) -> Self {
        self.defines = defines;
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

    /// The key of the kernel's program in a context's cache.
    pub(crate) fn key(&self) -> (&'static str, &'static str) {
        (self.name, self.defines)
    }

    /// Whether a device with these limits can compile and run the kernel.
    pub(crate) fn runs_on(&self, info: &DeviceInfo) -> bool {
        (info.image_stores || !self.stores_images)
            && self.draw_buffers <= info.max_draw_buffers
            && (!self.blends || info.float_blend)
            && (self.uniform_blocks == 0
                || (self.uniform_blocks <= info.max_fragment_uniform_blocks
                    && info.max_uniform_block_size as usize >= self.block_bytes))
    }

    /// Vertex and fragment source for a context of `api`.
    pub(crate) fn sources(&self, api: GlApi) -> (String, String) {
        let prelude = match (api, self.stores_images) {
            (GlApi::Gles, false) => PRELUDE_GLES30,
            (GlApi::Gles, true) => PRELUDE_GLES31,
            (_, false) => PRELUDE_GL33,
            (_, true) => PRELUDE_GL43,
        };
        (
            format!("{prelude}\n{VERTEX}"),
            format!("{prelude}\n{}\n{COMMON}\n{}", self.defines, self.body),
        )
    }
}

const VERTEX: &str = include_str!("../../glsl/common/fullscreen.vert");
const COMMON: &str = include_str!("../../glsl/common/common.glsl");

/// Version prelude for desktop GL 3.3 core.
const PRELUDE_GL33: &str = "#version 330 core";

/// Version prelude for OpenGL ES 3.0: every kernel needs full 32-bit floats and ints.
const PRELUDE_GLES30: &str =
    "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;";

/// Version prelude of the image-store kernels on desktop GL.
const PRELUDE_GL43: &str = "#version 430 core";

/// Version prelude of the image-store kernels on OpenGL ES.
const PRELUDE_GLES31: &str = "#version 310 es\nprecision highp float;\n\
     precision highp int;\nprecision highp sampler2D;\nprecision highp image2D;";

#[cfg(test)]
mod tests {
    use super::*;

    static PLAIN: Kernel = crate::kernel!("common/calib_copy.frag");

    #[test]
    fn sources_put_prelude_defines_helpers_and_body_in_order() {
        let k = Kernel::new("x.frag", "void main() {}").defines("#define A 1");
        let (vs, fs) = k.sources(GlApi::Gles);
        assert!(vs.starts_with("#version 300 es"));
        let (p, d, c, b) = (
            fs.find("#version").unwrap(),
            fs.find("#define A 1").unwrap(),
            fs.find("select4").unwrap(),
            fs.find("void main() {}").unwrap(),
        );
        assert!(p < d && d < c && c < b, "{fs}");
        let img = Kernel::new("y.frag", "").image_stores();
        assert!(img.sources(GlApi::DesktopGl).1.starts_with("#version 430"));
        assert!(img.sources(GlApi::Gles).1.starts_with("#version 310 es"));
        assert!(PLAIN.body.contains("void main"));
        assert_eq!(PLAIN.key(), ("common/calib_copy.frag", ""));
    }
}
