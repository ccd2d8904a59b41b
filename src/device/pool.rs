//! GL objects a context keeps for reuse between calls, so that no routine allocates its
//! temporaries per call: scratch textures by shape within a byte budget, the pixel-pack
//! buffers of finished readbacks, and one buffer each for uniform blocks and staged uploads.
//! Every method takes the context's [`Gl`], current on the calling thread.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::error::Result;
use crate::gl::{Gl, GlBuffer, Surface};

/// Scratch textures kept for reuse beyond this many bytes are freed (all but the newest).
const POOL_BUDGET_BYTES: usize = 512 << 20;

/// Scratch textures kept for reuse per shape: more are freed when given back (buffers
/// dropped by the user return their small textures to the pool, and a program that drops
/// many of one shape should not keep them all).
const KEPT_PER_SHAPE: usize = 16;

/// Pack buffers kept for reuse: allocating one (pinned host memory on some drivers) costs
/// more than the readback itself.
const KEPT_PACK_BUFFERS: usize = 2;

/// Everything a context keeps for reuse.
#[derive(Default)]
pub(crate) struct Resources {
    surfaces: RefCell<SurfacePool>,
    pack_buffers: RefCell<Vec<GlBuffer>>,
    block_buffer: RefCell<Option<GlBuffer>>,
    unpack_buffer: RefCell<Option<GlBuffer>>,
    partials_buffer: RefCell<Option<GlBuffer>>,
    arrivals_buffer: RefCell<Option<GlBuffer>>,
    /// The warp kernels' counts and the number of calls that have used them.
    warp_counts: RefCell<Option<(GlBuffer, u32)>>,
}

impl Resources {
    /// A scratch surface of exactly `width` x `height`, from the pool or new.
    pub(crate) fn take_surface(&self, gl: &Gl, width: u32, height: u32) -> Result<Surface> {
        if let Some(s) = self.surfaces.borrow_mut().take(width, height) {
            return Ok(s);
        }
        log_cost(
            || format!("new scratch surface {width}x{height}"),
            || gl.create_surface(width, height),
        )
    }

    /// Returns a surface to the pool (or frees it when the pool is full).
    pub(crate) fn give_surface(&self, gl: &Gl, s: Surface) {
        self.surfaces.borrow_mut().give(gl, s);
    }

    /// A pixel-pack buffer of at least `bytes` bytes: a kept one if it is large enough.
    pub(crate) fn take_pack_buffer(&self, gl: &Gl, bytes: usize) -> Result<GlBuffer> {
        let mut kept = self.pack_buffers.borrow_mut();
        if let Some(i) = kept.iter().position(|pb| pb.capacity >= bytes) {
            return Ok(kept.swap_remove(i));
        }
        log_cost(
            || format!("new pack buffer of {bytes} bytes"),
            || gl.create_pack_buffer(bytes),
        )
    }

    /// Keeps a pack buffer for reuse: the most recent [`KEPT_PACK_BUFFERS`].
    pub(crate) fn give_pack_buffer(&self, gl: &Gl, pb: GlBuffer) {
        let mut kept = self.pack_buffers.borrow_mut();
        kept.push(pb);
        while kept.len() > KEPT_PACK_BUFFERS {
            gl.delete_buffer(kept.remove(0));
        }
    }

    /// A uniform-block buffer of at least `bytes` bytes.
    pub(crate) fn take_block_buffer(&self, gl: &Gl, bytes: usize) -> Result<GlBuffer> {
        take_kept(gl, &self.block_buffer, bytes, Gl::create_block_buffer)
    }

    /// Keeps a uniform-block buffer for the next use.
    pub(crate) fn give_block_buffer(&self, gl: &Gl, b: GlBuffer) {
        keep(gl, &self.block_buffer, b);
    }

    /// A storage buffer of at least `bytes` bytes for the partial sums of a product that
    /// adds its chunks in its own draw.
    pub(crate) fn take_partials_buffer(&self, gl: &Gl, bytes: usize) -> Result<GlBuffer> {
        take_kept(gl, &self.partials_buffer, bytes, Gl::create_block_buffer)
    }

    /// Keeps the partial sums' buffer for the next use.
    pub(crate) fn give_partials_buffer(&self, gl: &Gl, b: GlBuffer) {
        keep(gl, &self.partials_buffer, b);
    }

    /// A storage buffer of at least `bytes` bytes of arrival counts, every one 0: a new
    /// one is zeroed; a kept one is 0 because each draw that counts in it sets its counts
    /// back to 0 before it ends.
    pub(crate) fn take_arrivals_buffer(&self, gl: &Gl, bytes: usize) -> Result<GlBuffer> {
        take_kept(gl, &self.arrivals_buffer, bytes, Gl::create_zeroed_buffer)
    }

    /// Keeps the arrival counts (all 0 again) for the next use.
    pub(crate) fn give_arrivals_buffer(&self, gl: &Gl, b: GlBuffer) {
        keep(gl, &self.arrivals_buffer, b);
    }

    /// The warp kernels' counts, at least `bytes` bytes, with the number of calls that have
    /// used them (its parity says which count of each kernel's pair the next call takes:
    /// each draw zeroes the other, which the call before it left as it was). A new one is
    /// all 0, its number 0.
    pub(crate) fn take_warp_counts(&self, gl: &Gl, bytes: usize) -> Result<(GlBuffer, u32)> {
        match self.warp_counts.borrow_mut().take() {
            Some((b, used)) if b.capacity >= bytes => Ok((b, used)),
            old => {
                if let Some((b, _)) = old {
                    gl.delete_buffer(b);
                }
                log_cost(
                    || format!("new warp counts of {bytes} bytes"),
                    || gl.create_zeroed_buffer(bytes),
                )
                .map(|b| (b, 0))
            }
        }
    }

    /// Keeps the warp kernels' counts, used by `used` calls, for the next call.
    pub(crate) fn give_warp_counts(&self, gl: &Gl, b: GlBuffer, used: u32) {
        if let Some((old, _)) = self.warp_counts.borrow_mut().replace((b, used)) {
            gl.delete_buffer(old);
        }
    }

    /// A pixel-unpack buffer of at least `bytes` bytes.
    pub(crate) fn take_unpack_buffer(&self, gl: &Gl, bytes: usize) -> Result<GlBuffer> {
        take_kept(gl, &self.unpack_buffer, bytes, Gl::create_unpack_buffer)
    }

    /// Keeps a pixel-unpack buffer for the next staged upload.
    pub(crate) fn give_unpack_buffer(&self, gl: &Gl, b: GlBuffer) {
        keep(gl, &self.unpack_buffer, b);
    }

    /// Frees everything kept.
    pub(crate) fn clear(&self, gl: &Gl) {
        self.surfaces.borrow_mut().clear(gl);
        for pb in self.pack_buffers.borrow_mut().drain(..) {
            gl.delete_buffer(pb);
        }
        for slot in [
            &self.block_buffer,
            &self.unpack_buffer,
            &self.partials_buffer,
            &self.arrivals_buffer,
        ] {
            if let Some(b) = slot.borrow_mut().take() {
                gl.delete_buffer(b);
            }
        }
        if let Some((b, _)) = self.warp_counts.borrow_mut().take() {
            gl.delete_buffer(b);
        }
    }
}

/// A GL buffer of at least `bytes` bytes from a one-buffer `slot`: the kept one if it is
/// large enough, else a new one from `create`.
fn take_kept(
    gl: &Gl,
    slot: &RefCell<Option<GlBuffer>>,
    bytes: usize,
    create: fn(&Gl, usize) -> Result<GlBuffer>,
) -> Result<GlBuffer> {
    match slot.borrow_mut().take() {
        Some(b) if b.capacity >= bytes => Ok(b),
        old => {
            if let Some(b) = old {
                gl.delete_buffer(b);
            }
            log_cost(
                || format!("new kept buffer of {bytes} bytes"),
                || create(gl, bytes),
            )
        }
    }
}

/// Keeps `b` in a one-buffer `slot` for the next use, freeing what was there.
fn keep(gl: &Gl, slot: &RefCell<Option<GlBuffer>>, b: GlBuffer) {
    if let Some(old) = slot.borrow_mut().replace(b) {
        gl.delete_buffer(old);
    }
}

/// Scratch surfaces kept for reuse, keyed by shape, within a byte budget.
#[derive(Default)]
struct SurfacePool {
    free: HashMap<(u32, u32), Vec<Surface>>,
    bytes: usize,
}

fn surface_bytes(s: &Surface) -> usize {
    s.width as usize * s.height as usize * 16
}

impl SurfacePool {
    fn take(&mut self, width: u32, height: u32) -> Option<Surface> {
        let s = self.free.get_mut(&(width, height))?.pop()?;
        self.bytes -= surface_bytes(&s);
        Some(s)
    }

    /// Keeps `s` for reuse, up to [`KEPT_PER_SHAPE`] of its shape (beyond that it is freed).
    /// When the budget would be exceeded the older surfaces go first;
    /// the newest is always kept, even one larger than the budget, so that a routine called
    /// again and again on a huge buffer reuses its scratch texture instead of allocating a
    /// new one each time (`Context::trim` frees it).
    fn give(&mut self, gl: &Gl, s: Surface) {
        if self
            .free
            .get(&(s.width, s.height))
            .is_some_and(|l| l.len() >= KEPT_PER_SHAPE)
        {
            gl.delete_surface(s);
            return;
        }
        let b = surface_bytes(&s);
        if self.bytes + b > POOL_BUDGET_BYTES {
            self.clear(gl);
        }
        self.bytes += b;
        self.free.entry((s.width, s.height)).or_default().push(s);
    }

    fn clear(&mut self, gl: &Gl) {
        for (_, v) in self.free.drain() {
            for s in v {
                gl.delete_surface(s);
            }
        }
        self.bytes = 0;
    }
}

/// Runs `work` and logs `what` it did with the milliseconds it took, at debug level: the
/// first-use costs (context creation, compiles, new textures and buffers) that
/// `RUST_LOG=fragblas=debug` shows.
pub(crate) fn log_cost<T>(
    what: impl FnOnce() -> String,
    work: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let started = std::time::Instant::now();
    let r = work()?;
    log::debug!(
        "{} in {:.2} ms",
        what(),
        started.elapsed().as_secs_f64() * 1e3
    );
    Ok(r)
}
