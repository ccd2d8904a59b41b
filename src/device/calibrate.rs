//! The fragment pipeline's own ceilings on the current device: multiply-add throughput and
//! texel bandwidth, measured with a wall clock around `glFinish` (GL timer queries are
//! not reliable on every driver, llvmpipe among them).

use std::time::Duration;

use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::device::timing::best_time;
use crate::error::Result;

/// Pure multiply-add throughput, 8 independent vec4 chains per fragment.
pub(crate) static CALIB_FMA: Kernel =
    crate::kernel!("common/calib_fma.frag").defines("#define CHAINS 8");
/// The same with 2 chains, each advanced four times per round (fewer registers).
pub(crate) static CALIB_FMA_NARROW: Kernel =
    crate::kernel!("common/calib_fma.frag").defines("#define CHAINS 2");
/// Texel copy bandwidth.
pub(crate) static CALIB_COPY: Kernel = crate::kernel!("common/calib_copy.frag");
/// Four-input streaming bandwidth.
pub(crate) static CALIB_STREAM: Kernel = crate::kernel!("common/calib_stream.frag");
/// Read bandwidth, 16 texels read per texel written.
pub(crate) static CALIB_READ: Kernel = crate::kernel!("common/calib_read.frag");

/// The calibration kernels.
pub(crate) const KERNELS: [&Kernel; 5] = [
    &CALIB_FMA,
    &CALIB_FMA_NARROW,
    &CALIB_COPY,
    &CALIB_STREAM,
    &CALIB_READ,
];

/// What the fragment pipeline of a device can do at best; the yardstick for every routine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceilings {
    /// Multiply-add throughput of fragment shaders, GFLOP/s (2 flops per multiply-add): the
    /// better of 8 and 2 independent vec4 chains per fragment.
    pub fma_gflops: f64,
    /// Texel bandwidth of a fragment copy (bytes read + written), GB/s.
    pub copy_gbps: f64,
    /// Texel bandwidth of a fragment reading four textures and writing one, GB/s.
    pub stream_gbps: f64,
    /// Texel bandwidth of a fragment reading 16 texels of one texture and writing one, GB/s:
    /// what the texture path delivers when the fragment rate is not the limit.
    pub read_gbps: f64,
}

impl Ceilings {
    /// The bandwidth ceiling: the best of the copy, the four-input stream and the read.
    pub fn bandwidth_gbps(&self) -> f64 {
        self.copy_gbps.max(self.stream_gbps).max(self.read_gbps)
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
             16-texel read {:.1} GB/s, fragment rate {:.2} G/s",
            self.fma_gflops,
            self.copy_gbps,
            self.stream_gbps,
            self.read_gbps,
            self.fragments_per_ns()
        )
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
        for kernel in [&CALIB_FMA, &CALIB_FMA_NARROW] {
            let prog = inner.program(kernel)?;
            // Grow the loop until one draw takes long enough to time well.
            let mut iters = 16i32;
            let time = loop {
                let t = best_time(self, 3, true, || {
                    let gl = inner.enter()?;
                    gl.use_program(&prog);
                    gl.set_i32(&prog, "iters", iters);
                    gl.set_f32(&prog, "seed", 0.5);
                    gl.draw(&[&target], side, side);
                    Ok(())
                })?;
                if t >= Duration::from_millis(20) || iters >= 1 << 16 {
                    break t;
                }
                iters *= 2;
            };
            let flops = side as f64 * side as f64 * iters as f64 * 64.0;
            fma_gflops = fma_gflops.max(flops / time.as_secs_f64() / 1e9);
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
        let prog = inner.program(&CALIB_READ)?;
        let rows = side / 16;
        const READ_DRAWS: u32 = 4;
        let read_time = best_time(self, 5, true, || {
            let gl = inner.enter()?;
            gl.use_program(&prog);
            gl.set_texture(&prog, "src", 0, &src);
            gl.set_i32(&prog, "rows", rows as i32);
            for _ in 0..READ_DRAWS {
                gl.draw(&[&dst], side, rows);
            }
            Ok(())
        })?;
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
        // 16 texels read and 1 written per fragment, side * rows fragments per draw.
        let read_bytes = READ_DRAWS as f64 * side as f64 * rows as f64 * 17.0 * 16.0;
        let read_gbps = read_bytes / read_time.as_secs_f64() / 1e9;
        inner.enter()?.check("calibrate")?;
        Ok(Ceilings {
            fma_gflops,
            copy_gbps,
            stream_gbps,
            read_gbps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Ceilings;

    #[test]
    fn bandwidth_is_the_best_of_three_and_the_fragment_rate_comes_from_the_copy() {
        let c = Ceilings {
            fma_gflops: 1700.0,
            copy_gbps: 112.0,
            stream_gbps: 280.0,
            read_gbps: 410.0,
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
        assert_eq!(c.fragments_per_ns(), 3.5);
        assert!(c.to_string().contains("fragment rate 3.50 G/s"), "{c}");
    }
}
