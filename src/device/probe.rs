//! Behaviour of a device that no GL query reports, measured once when a context is created:
//! whether the fragment pipeline flushes subnormal floats to zero (GLSL allows it; Mesa's
//! llvmpipe does it, so `sscal(2)` of `1e-40` gives 0 there).

use crate::device::kernel::{Kernel, Preludes};
use crate::error::Result;
use crate::gl::Gl;

static PROBE_SUBNORMAL: Kernel = crate::kernel!("common/probe_subnormal.frag");

/// The bits of the subnormal 2^-140 (a quarter of the way down the subnormal range).
const TINY_BITS: u32 = 0x0000_0200;

/// Whether the pipeline's arithmetic turns `2^-140 * 2` into 0.
pub(crate) fn flushes_subnormals(gl: &Gl, preludes: &Preludes) -> Result<bool> {
    let (vs, fs) = PROBE_SUBNORMAL.sources(preludes);
    let prog = gl.compile((PROBE_SUBNORMAL.name, PROBE_SUBNORMAL.label()), &vs, &fs)?;
    let target = match gl.create_surface(1, 1) {
        Ok(t) => t,
        Err(e) => {
            gl.delete_program(prog);
            return Err(e);
        }
    };
    gl.use_program(&prog);
    gl.set_i32(&prog, "bits", TINY_BITS as i32);
    gl.set_f32(&prog, "two", 2.0);
    gl.draw(&[&target], 1, 1);
    let mut v = [0.0f32; 4];
    gl.download(&target, 0, 0, 1, 1, &mut v);
    gl.delete_surface(target);
    gl.delete_program(prog);
    gl.check("probing subnormal arithmetic")?;
    Ok(v[0].to_bits() != 2 * TINY_BITS)
}
