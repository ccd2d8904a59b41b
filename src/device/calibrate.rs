//! The fragment pipeline's own ceilings on the current device: multiply-add throughput and
//! texel bandwidth, measured with a wall clock around `glFinish` (GL timer queries are
//! not reliable on every driver, llvmpipe among them).

use std::time::Duration;

use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::device::timing::best_time;
use crate::error::Result;

/// Pure multiply-add throughput: 1, 2, 4, 8 or 16 independent vec4 chains, 32 or 128 vec4
/// multiply-adds a round (see `calib_fma.frag`), with the multiply-adds per round; the
/// calibration keeps the best. Long rounds make the loop's overhead negligible on GPUs (the
/// H100: 1928 GFLOP/s with 32 a round, more with 128); short ones suit llvmpipe, whose
/// compiled code grows with the round (140 against 122 GFLOP/s).
pub(crate) static CALIB_FMA: [(Kernel, u32); 10] = [
    (fma("#define CHAINS 1\n#define REPEAT X32"), 32),
    (fma("#define CHAINS 2\n#define REPEAT X16"), 32),
    (fma("#define CHAINS 4\n#define REPEAT X8"), 32),
    (fma("#define CHAINS 8\n#define REPEAT X4"), 32),
    (fma("#define CHAINS 16\n#define REPEAT X2"), 32),
    (fma("#define CHAINS 1\n#define REPEAT X128"), 128),
    (fma("#define CHAINS 2\n#define REPEAT X64"), 128),
    (fma("#define CHAINS 4\n#define REPEAT X32"), 128),
    (fma("#define CHAINS 8\n#define REPEAT X16"), 128),
    (fma("#define CHAINS 16\n#define REPEAT X8"), 128),
];
const fn fma(defines: &'static str) -> Kernel {
    crate::kernel!("common/calib_fma.frag").defines(defines)
}
/// Texel copy bandwidth (one texel per fragment, through the render target).
pub(crate) static CALIB_COPY: Kernel = crate::kernel!("common/calib_copy.frag");
/// Four-input streaming bandwidth.
pub(crate) static CALIB_STREAM: Kernel = crate::kernel!("common/calib_stream.frag");
/// Read bandwidth, 8, 16 or 32 texels read per texel written.
pub(crate) static CALIB_READ: [(Kernel, u32); 3] = [
    (
        crate::kernel!("common/calib_read.frag").defines("#define TEXELS 8"),
        8,
    ),
    (
        crate::kernel!("common/calib_read.frag").defines("#define TEXELS 16"),
        16,
    ),
    (
        crate::kernel!("common/calib_read.frag").defines("#define TEXELS 32"),
        32,
    ),
];
/// Copy bandwidth through image stores, 4, 8 or 16 texels per fragment.
pub(crate) static CALIB_IMAGE_COPY: [(Kernel, u32); 3] = [
    (image_copy("#define PER 4"), 4),
    (image_copy("#define PER 8"), 8),
    (image_copy("#define PER 16"), 16),
];
const fn image_copy(defines: &'static str) -> Kernel {
    crate::kernel!("common/calib_image_copy.frag")
        .defines(defines)
        .image_stores()
}
/// The SM of each fragment (`GL_NV_shader_thread_group`).
pub(crate) static PROBE_SM: Kernel = crate::kernel!("common/probe_sm.frag")
    .defines("#extension GL_NV_shader_thread_group : require");
/// The extension [`PROBE_SM`] needs.
const THREAD_GROUP_EXT: &str = "GL_NV_shader_thread_group";

/// The calibration kernels every device may compile (the SM probe only where its extension
/// is, and is compiled on use).
pub(crate) const KERNELS: [&Kernel; 18] = [
    &CALIB_FMA[0].0,
    &CALIB_FMA[1].0,
    &CALIB_FMA[2].0,
    &CALIB_FMA[3].0,
    &CALIB_FMA[4].0,
    &CALIB_FMA[5].0,
    &CALIB_FMA[6].0,
    &CALIB_FMA[7].0,
    &CALIB_FMA[8].0,
    &CALIB_FMA[9].0,
    &CALIB_COPY,
    &CALIB_STREAM,
    &CALIB_READ[0].0,
    &CALIB_READ[1].0,
    &CALIB_READ[2].0,
    &CALIB_IMAGE_COPY[0].0,
    &CALIB_IMAGE_COPY[1].0,
    &CALIB_IMAGE_COPY[2].0,
];

/// What the fragment pipeline of a device can do at best; the yardstick for every routine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceilings {
    /// Multiply-add throughput of fragment shaders, GFLOP/s (2 flops per multiply-add): the
    /// best of 1, 2, 4, 8 and 16 independent vec4 chains per fragment.
    pub fma_gflops: f64,
    /// Texel bandwidth of a fragment copy (bytes read + written), GB/s.
    pub copy_gbps: f64,
    /// Texel bandwidth of a fragment reading four textures and writing one, GB/s.
    pub stream_gbps: f64,
    /// Texel bandwidth of a fragment reading 8, 16 or 32 texels of one texture and writing
    /// one (the best), GB/s: what the texture path delivers when the fragment rate is not
    /// the limit.
    pub read_gbps: f64,
    /// Copy bandwidth (bytes read + written) through image stores, 4, 8 or 16 texels per
    /// fragment (the best), GB/s; 0 where the device has no image stores.
    pub image_copy_gbps: f64,
    /// How many SMs run fragment shaders, counted with `GL_NV_shader_thread_group` where the
    /// device has it (NVIDIA, desktop GL).
    pub fragment_sms: Option<u32>,
}

impl Ceilings {
    /// The bandwidth ceiling: the best of the copy, the four-input stream, the read and the
    /// image-store copy.
    pub fn bandwidth_gbps(&self) -> f64 {
        self.copy_gbps
            .max(self.stream_gbps)
            .max(self.read_gbps)
            .max(self.image_copy_gbps)
    }

    /// Fragments per second (billions) that write one RGBA32F texel each, from the copy
    /// (32 bytes per fragment). A kernel writing one output texel per fragment, like
    /// saxpy, moves at most this many texels per second whatever its bandwidth.
    pub fn fragments_per_ns(&self) -> f64 {
        self.copy_gbps / 32.0
    }
}

impl std::fmt::Display for Ceilings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fragment FMA {:.1} GFLOP/s, fragment copy {:.1} GB/s, 4-input stream {:.1} GB/s, \
             read {:.1} GB/s, image-store copy {:.1} GB/s, fragment rate {:.2} G/s",
            self.fma_gflops,
            self.copy_gbps,
            self.stream_gbps,
            self.read_gbps,
            self.image_copy_gbps,
            self.fragments_per_ns()
        )?;
        if let Some(n) = self.fragment_sms {
            write!(f, ", {n} SMs shade fragments")?;
        }
        Ok(())
    }
}

impl Context {
    /// Measures the fragment pipeline's ceilings on this context's device. Takes about a
    /// second (more on a slow software device).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let c = ctx.calibrate()?;
    /// assert!(c.fma_gflops > 0.0 && c.copy_gbps > 0.0);
    /// println!("{c}");
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn calibrate(&self) -> Result<Ceilings> {
        let inner = &self.inner;
        let software = self.info().software;
        let max = inner.info_max_texture();

        // Arithmetic: the better of two shapes of multiply-add chains (see calib_fma.frag).
        let side = if software { 256 } else { 2048u32.min(max) };
        let target = inner.take_surface(side, side)?;
        let mut fma_gflops = 0.0f64;
        for (kernel, fmas) in &CALIB_FMA {
            let prog = inner.program(kernel)?;
            // Grow the loop until one draw takes long enough to time well.
            let mut iters = 2i32;
            let time = loop {
                let t = best_time(self, 3, true, || {
                    let gl = inner.enter()?;
                    gl.use_program(&prog);
                    gl.set_i32(&prog, "iters", iters);
                    gl.set_f32(&prog, "seed", 0.5);
                    gl.draw(&[&target], side, side);
                    Ok(())
                })?;
                if t >= Duration::from_millis(20) || iters >= 1 << 12 {
                    break t;
                }
                iters *= 2;
            };
            let flops = side as f64 * side as f64 * iters as f64 * *fmas as f64 * 8.0;
            let rate = flops / time.as_secs_f64() / 1e9;
            log::info!(
                "calibration: FMA, {}: {rate:.1} GFLOP/s",
                kernel.defines.replace('\n', ", ")
            );
            fma_gflops = fma_gflops.max(rate);
        }
        inner.give_surface(target);

        // Bandwidth: copy a large texture into another.
        let side = if software { 1024 } else { 4096u32.min(max) };
        let src = inner.take_surface(side, side)?;
        let dst = inner.take_surface(side, side)?;
        let prog = inner.program(&CALIB_COPY)?;
        let copy_time = best_time(self, 5, true, || {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            gl.set_texture(&prog, "src", 0, &src);
            gl.draw(&[&dst], side, side);
            Ok(())
        })?;
        let prog = inner.program(&CALIB_STREAM)?;
        let extra = [
            inner.take_surface(side, side)?,
            inner.take_surface(side, side)?,
            inner.take_surface(side, side)?,
        ];
        let stream_time = best_time(self, 5, true, || {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            gl.set_texture(&prog, "src0", 0, &src);
            gl.set_texture(&prog, "src1", 1, &extra[0]);
            gl.set_texture(&prog, "src2", 2, &extra[1]);
            gl.set_texture(&prog, "src3", 3, &extra[2]);
            gl.draw(&[&dst], side, side);
            Ok(())
        })?;
        let mut read_gbps = 0.0f64;
        for (kernel, texels) in &CALIB_READ {
            let prog = inner.program(kernel)?;
            let rows = side / texels;
            const READ_DRAWS: u32 = 4;
            let t = best_time(self, 5, true, || {
                let gl = inner.enter()?;
                gl.use_program(&prog);
                gl.set_texture(&prog, "src", 0, &src);
                gl.set_i32(&prog, "rows", rows as i32);
                for _ in 0..READ_DRAWS {
                    gl.draw(&[&dst], side, rows);
                }
                Ok(())
            })?;
            // `texels` read and 1 written per fragment, side * rows fragments per draw.
            let bytes = READ_DRAWS as f64 * side as f64 * rows as f64 * (texels + 1) as f64 * 16.0;
            let rate = bytes / t.as_secs_f64() / 1e9;
            log::info!("calibration: read, {texels} texels per fragment: {rate:.1} GB/s");
            read_gbps = read_gbps.max(rate);
        }
        let mut image_copy_gbps = 0.0f64;
        for (kernel, per) in CALIB_IMAGE_COPY
            .iter()
            .filter(|(k, _)| k.runs_on(self.info()))
        {
            let prog = inner.program(kernel)?;
            let grid = side.div_ceil(*per);
            let t = best_time(self, 5, true, || {
                let gl = inner.enter()?;
                gl.use_program(&prog);
                gl.set_texture(&prog, "src", 0, &src);
                gl.set_i32(&prog, "width", side as i32);
                gl.set_i32(&prog, "grid_width", grid as i32);
                gl.draw_image_stores(&[&dst], grid, side);
                Ok(())
            })?;
            let bytes = side as f64 * side as f64 * 32.0;
            let rate = bytes / t.as_secs_f64() / 1e9;
            log::info!("calibration: image-store copy, {per} texels per fragment: {rate:.1} GB/s");
            image_copy_gbps = image_copy_gbps.max(rate);
        }
        inner.give_surface(src);
        inner.give_surface(dst);
        for s in extra {
            inner.give_surface(s);
        }
        // Scratch textures this large are not worth keeping around.
        self.trim()?;
        let bytes = side as f64 * side as f64 * 32.0;
        let copy_gbps = bytes / copy_time.as_secs_f64() / 1e9;
        let stream_gbps = bytes * 2.5 / stream_time.as_secs_f64() / 1e9;
        inner.enter()?.check("calibrate")?;
        Ok(Ceilings {
            fma_gflops,
            copy_gbps,
            stream_gbps,
            read_gbps,
            image_copy_gbps,
            fragment_sms: self.fragment_sms()?,
        })
    }

    /// The number of distinct SMs that shade a 1024 x 1024 draw, where the device has
    /// `GL_NV_shader_thread_group` on desktop GL.
    fn fragment_sms(&self) -> Result<Option<u32>> {
        let info = self.info();
        if info.api != crate::GlApi::DesktopGl
            || !info.extensions.iter().any(|e| e == THREAD_GROUP_EXT)
        {
            return Ok(None);
        }
        let inner = &self.inner;
        let prog = match inner.program(&PROBE_SM) {
            Ok(p) => p,
            Err(e) => {
                log::warn!("{THREAD_GROUP_EXT} listed but its probe did not compile: {e}");
                return Ok(None);
            }
        };
        let side = 1024u32;
        let target = inner.take_surface(side, side)?;
        let mut texels = vec![0.0f32; (side * side * 4) as usize];
        {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            gl.draw(&[&target], side, side);
            gl.download(&target, 0, 0, side, side, &mut texels);
        }
        inner.give_surface(target);
        let sms: std::collections::BTreeSet<u32> = texels.chunks(4).map(|t| t[0] as u32).collect();
        log::info!("fragments ran on SMs {sms:?}");
        Ok(Some(sms.len() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::Ceilings;

    #[test]
    fn bandwidth_is_the_best_of_four_and_the_fragment_rate_comes_from_the_copy() {
        let c = Ceilings {
            fma_gflops: 1700.0,
            copy_gbps: 112.0,
            stream_gbps: 280.0,
            read_gbps: 410.0,
            image_copy_gbps: 0.0,
            fragment_sms: None,
        };
        assert_eq!(c.bandwidth_gbps(), 410.0);
        assert_eq!(
            Ceilings {
                read_gbps: 1.0,
                ..c
            }
            .bandwidth_gbps(),
            280.0
        );
        assert_eq!(
            Ceilings {
                image_copy_gbps: 500.0,
                ..c
            }
            .bandwidth_gbps(),
            500.0
        );
        assert_eq!(c.fragments_per_ns(), 3.5);
        assert!(c.to_string().contains("fragment rate 3.50 G/s"), "{c}");
    }
}
