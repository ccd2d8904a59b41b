//! The routines: BLAS on device buffers, as methods of [`Context`]. One folder per level,
//! one file (or folder) per routine family; each file holds the routine's entry (argument
//! checks in reference order, quick returns), its kernels (`static`s naming files under
//! `glsl/`), and its pure rules, unit-tested beside it. Shared pieces: `types` (the CBLAS
//! enums), `args` (argument rules), `passes` (passes several families run). A routine may
//! use the levels below its own (level 2 reuses level 1's update pass), the device layer and
//! `gl`; nothing here is used by the device layer.

pub(crate) mod args;
pub(crate) mod level1;
pub(crate) mod level2;
pub(crate) mod level3;
pub(crate) mod passes;
pub(crate) mod types;

use crate::device::context::Context;
use crate::device::kernel::Kernel;
use crate::error::Result;

impl Context {
    /// Compiles every kernel this device can run now (otherwise each compiles on first use).
    /// Useful before timing.
    pub fn warm_up(&self) -> Result<()> {
        let shared: [&[&Kernel]; 2] = [&[&passes::SUM_REDUCE], &crate::device::calibrate::KERNELS];
        let families = [level1::KERNELS, level2::KERNELS, level3::KERNELS, &shared];
        for k in families.into_iter().flatten().copied().flatten() {
            if k.runs_on(self.info()) {
                self.inner.program(k)?;
            }
        }
        Ok(())
    }
}
