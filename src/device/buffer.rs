//! Device vectors of f32: one RGBA32F texture (with its framebuffer) per buffer, uploads
//! (staged or direct), downloads (blocking or asynchronous) and device copies.

use std::rc::Rc;

use crate::device::context::{Context, Inner};
use crate::error::{Error, Result};
use crate::gl::{Gl, Program, Readback, Surface};
use crate::layout::{TexLayout, FLOATS_PER_TEXEL};

impl Context {
    /// A zero-filled buffer of `len` floats.
    pub fn zeros(&self, len: usize) -> Result<Buffer> {
        Buffer::zeros(self, len)
    }

    /// A buffer holding a copy of `data`.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn upload(&self, data: &[f32]) -> Result<Buffer> {
        let layout = self.inner.layout(data.len())?;
        // A texture the data fills to its last texel needs no clearing first (a clear is a
        // draw into the texture: a pass of its own on the GPU).
        let mut b = Buffer::allocate(self, layout, layout.capacity() != data.len())?;
        b.write(data)?;
        Ok(b)
    }
}

/// A vector of `len` floats on the GPU of one [`Context`].
///
/// Copies to and from the host never touch memory past the caller's slice: rows the data
/// fills go straight from (or to) the slice, and only a trailing partial texel goes through
/// a four-float bounce buffer. When the buffer is dropped its texture is freed, or kept in
/// the context's pool for the next buffer of its shape if it is small
/// ([`POOLED_BUFFER_TEXELS`]; [`Context::trim`] frees the pool).
///
/// ```
/// let ctx = fragblas::Context::new()?;
/// let mut y = ctx.upload(&[1.0, 2.0, 3.0, 4.0, 5.0])?;
/// y.write(&[5.0, 4.0, 3.0, 2.0, 1.0])?;
/// let mut first = [0.0f32; 2];
/// y.read_into(&mut first)?; // a prefix
/// assert_eq!(first, [5.0, 4.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
pub struct Buffer {
    pub(crate) ctx: Rc<Inner>,
    surface: Option<Surface>,
    layout: TexLayout,
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("len", &self.layout.len)
            .field("width", &self.layout.width)
            .field("height", &self.layout.height)
            .finish()
    }
}

impl Buffer {
    /// A buffer of `layout`'s shape: a texture from the context's pool where one of that
    /// shape is free (dropped small buffers and scratch textures go there), else a new one;
    /// zero-cleared when `clear` says so.
    fn allocate(ctx: &Context, layout: TexLayout, clear: bool) -> Result<Self> {
        let surface = ctx.inner.take_surface(layout.width, layout.height)?;
        if clear {
            ctx.inner.enter()?.clear(&surface);
        }
        Ok(Buffer {
            ctx: ctx.inner.clone(),
            surface: Some(surface),
            layout,
        })
    }

    /// Wraps a surface (shaped for `len` floats in this context) as a buffer.
    pub(crate) fn from_surface(ctx: &Context, surface: Surface, len: usize) -> Result<Self> {
        let layout = ctx.inner.layout(len)?;
        assert!(surface.width == layout.width && surface.height == layout.height);
        Ok(Buffer {
            ctx: ctx.inner.clone(),
            surface: Some(surface),
            layout,
        })
    }

    /// Wraps a surface of `layout`'s shape, which need not be the shape this context gives
    /// `layout.len` floats (the blocked level-3 routines use pitched scratch matrices whose
    /// columns are rows of texels).
    pub(crate) fn with_layout(ctx: &Context, surface: Surface, layout: TexLayout) -> Self {
        assert!(surface.width == layout.width && surface.height == layout.height);
        assert!(layout.capacity() >= layout.len);
        Buffer {
            ctx: ctx.inner.clone(),
            surface: Some(surface),
            layout,
        }
    }

    /// Gives the texture back (to return it to the pool) instead of freeing it.
    pub(crate) fn into_surface(mut self) -> Surface {
        self.surface.take().expect("a live buffer has a surface")
    }

    pub(crate) fn zeros(ctx: &Context, len: usize) -> Result<Self> {
        let b = Self::allocate(ctx, ctx.inner.layout(len)?, true)?;
        b.ctx.enter()?.check("allocating a buffer")?;
        Ok(b)
    }

    /// Number of floats.
    pub fn len(&self) -> usize {
        self.layout.len
    }

    /// Whether the buffer holds no floats.
    pub fn is_empty(&self) -> bool {
        self.layout.len == 0
    }

    /// The texture shape behind the buffer.
    pub fn layout(&self) -> TexLayout {
        self.layout
    }

    /// The index of the buffer's last data texel (0 for an empty buffer): what kernels
    /// that read runs of elements clamp their texel indices to.
    pub(crate) fn last_texel(&self) -> i32 {
        self.layout.data_texels().max(1) as i32 - 1
    }

    pub(crate) fn surface(&self) -> &Surface {
        self.surface.as_ref().expect("a live buffer has a surface")
    }

    /// Binds the texture to texture unit `unit` as sampler uniform `sampler` and sets the
    /// uniform `width` to its texels per row: the sampler/width pair every kernel addresses
    /// a buffer with. The program must be current.
    pub(crate) fn bind(
        &self,
        gl: &Gl,
        p: &Program,
        unit: u32,
        sampler: &'static str,
        width: &'static str,
    ) {
        gl.set_texture(p, sampler, unit, self.surface());
        gl.set_i32(p, width, self.layout.width as i32);
    }

    /// Whether the vector of `n` elements with increment `inc` is this whole buffer at unit
    /// stride: a pass may then give the buffer a new texture of its shape (or lend its own
    /// one out) instead of copying, since the lanes past the end of the last texel are never
    /// read as data.
    pub(crate) fn is_vector(&self, n: usize, inc: i32) -> bool {
        inc == 1 && self.len() == n
    }

    /// Replaces the texture with `s` (same shape) and returns the old one. Kernels that
    /// cannot read and write one texture render into a scratch surface and swap it in.
    pub(crate) fn replace_surface(&mut self, s: Surface) -> Surface {
        let old = self
            .surface
            .replace(s)
            .expect("a live buffer has a surface");
        debug_assert!(old.width == self.layout.width && old.height == self.layout.height);
        old
    }

    /// Checks that this buffer belongs to `ctx`; `param` names it in the error.
    pub(crate) fn check_owner(&self, ctx: &Context, param: &'static str) -> Result<()> {
        if Rc::ptr_eq(&self.ctx, &ctx.inner) {
            Ok(())
        } else {
            Err(Error::ForeignBuffer { param })
        }
    }

    /// Overwrites the whole buffer with `data`, which must hold exactly `len()` floats:
    /// staged through a pixel-unpack buffer on hardware devices from
    /// [`STAGED_WRITE_FLOATS`] floats ([`Buffer::write_staged`]), straight from the slice on
    /// software devices and for smaller writes ([`Buffer::write_direct`]).
    pub fn write(&mut self, data: &[f32]) -> Result<()> {
        if self.ctx.is_software() || data.len() < STAGED_WRITE_FLOATS {
            self.write_direct(data)
        } else {
            self.write_staged(data)
        }
    }

    /// [`Buffer::write`] straight from the caller's slice with `glTexSubImage2D` (the driver
    /// copies it as it likes): the faster path on software devices, where there is no DMA
    /// and staging adds a copy.
    pub fn write_direct(&mut self, data: &[f32]) -> Result<()> {
        if data.len() != self.len() {
            return Err(Error::LengthMismatch {
                what: "Buffer::write",
                expected: self.len(),
                actual: data.len(),
            });
        }
        self.write_rows(data)
    }

    /// Overwrites the first `data.len()` floats (at most the buffer's length) and leaves the
    /// rest as it was.
    pub(crate) fn write_prefix(&mut self, data: &[f32]) -> Result<()> {
        if data.len() > self.len() {
            return Err(Error::LengthMismatch {
                what: "Buffer::write_prefix (at most the buffer's length)",
                expected: self.len(),
                actual: data.len(),
            });
        }
        self.write_rows(data)
    }

    /// Writes `data` over the start of the texture straight from the slice: whole rows,
    /// then whole texels of the last row, then a trailing partial texel through a bounce
    /// buffer that keeps the texel's other lanes (zero padding past the buffer's end, or
    /// elements past a shorter prefix, read back first).
    fn write_rows(&mut self, data: &[f32]) -> Result<()> {
        let gl = self.ctx.enter()?;
        let s = self.surface.as_ref().expect("live");
        let l = self.layout;
        let (rows, rest) = l.split_rows(data.len());
        // Whole rows straight from the caller's slice.
        gl.upload(
            s,
            0,
            0,
            l.width,
            rows as u32,
            &data[..rows * l.row_floats()],
        );
        // Whole texels of the last, partial row, still straight from the slice.
        let tail = &data[rows * l.row_floats()..];
        let whole = rest / FLOATS_PER_TEXEL;
        gl.upload(
            s,
            0,
            rows as u32,
            whole as u32,
            1.min(whole as u32),
            &tail[..whole * 4],
        );
        let part = &tail[whole * 4..];
        if !part.is_empty() {
            let mut bounce = [0.0f32; FLOATS_PER_TEXEL];
            if data.len() < l.len {
                gl.download(s, whole as u32, rows as u32, 1, 1, &mut bounce);
            }
            bounce[..part.len()].copy_from_slice(part);
            gl.upload(s, whole as u32, rows as u32, 1, 1, &bounce);
        }
        gl.check("uploading a buffer")
    }

    /// [`Buffer::write`] staged through a pixel-unpack buffer: the data is copied into a GL
    /// buffer object, at most [`STAGING_BYTES`] at a time, and the texture is filled from
    /// there, so the driver can copy by DMA. `write` takes this path on hardware devices,
    /// where it measured 2-3x faster (BENCHMARKS.md, "Transfers").
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let mut x = ctx.zeros(5)?;
    /// x.write_staged(&[1.0, 2.0, 3.0, 4.0, 5.0])?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn write_staged(&mut self, data: &[f32]) -> Result<()> {
        if data.len() != self.len() {
            return Err(Error::LengthMismatch {
                what: "Buffer::write_staged",
                expected: self.len(),
                actual: data.len(),
            });
        }
        let l = self.layout;
        let row = l.row_floats();
        let (rows, rest) = l.split_rows(data.len());
        let tail_texels = rest.div_ceil(FLOATS_PER_TEXEL);
        // Whole rows in batches of at most STAGING_BYTES (at least one row), then the
        // partial last row padded to whole texels.
        let batch = (STAGING_BYTES / (row * 4)).max(1);
        let mut pieces: Vec<(usize, u32, u32, u32)> = (0..rows)
            .step_by(batch)
            .map(|r| (r * row, r as u32, l.width, batch.min(rows - r) as u32))
            .collect();
        if tail_texels > 0 {
            pieces.push((rows * row, rows as u32, tail_texels as u32, 1));
        }
        let largest = pieces
            .iter()
            .map(|&(_, _, w, h)| w as usize * h as usize * FLOATS_PER_TEXEL)
            .max()
            .unwrap_or(0);
        let pb = self.ctx.take_unpack_buffer(largest * 4)?;
        let gl = self.ctx.enter()?;
        let s = self.surface.as_ref().expect("live");
        let mut staged = Ok(());
        for &(start, y, w, h) in &pieces {
            let floats = w as usize * h as usize * FLOATS_PER_TEXEL;
            let end = (start + floats).min(data.len());
            // Each stage discards the buffer's old contents, so the driver hands out fresh
            // memory while the previous piece's upload may still read the old.
            staged = gl.stage(&pb, &data[start..end], floats);
            if staged.is_err() {
                break;
            }
            gl.upload_from(&pb, 0, s, 0, y, w, h);
        }
        self.ctx.give_unpack_buffer(pb);
        staged?;
        gl.check("uploading a buffer through a pixel-unpack buffer")
    }

    /// Copies the first `out.len()` floats into `out` (a prefix, or the whole buffer). On
    /// hardware devices, reads of 2^22 floats and more go through a pixel-pack buffer.
    pub fn read_into(&self, out: &mut [f32]) -> Result<()> {
        if out.len() > self.len() {
            return Err(Error::LengthMismatch {
                what: "Buffer::read_into (at most the buffer's length)",
                expected: self.len(),
                actual: out.len(),
            });
        }
        if !self.ctx.is_software() && out.len() >= PACKED_READ_FLOATS {
            // Through a pixel-pack buffer: the GPU copies at bus speed and the host copies
            // out of the mapping on several threads (2x glReadPixels into the slice from
            // 2^22 floats on the H100, BENCHMARKS.md session 7).
            return self.start_read(out.len())?.wait_into(out);
        }
        let gl = self.ctx.enter()?;
        let s = self.surface();
        let l = self.layout;
        let row_floats = l.row_floats();
        let (rows, rest) = l.split_rows(out.len());
        let (head, tail) = out.split_at_mut(rows * row_floats);
        gl.download(s, 0, 0, l.width, rows as u32, head);
        let whole = rest / FLOATS_PER_TEXEL;
        let (mid, part) = tail.split_at_mut(whole * 4);
        gl.download(s, 0, rows as u32, whole as u32, 1.min(whole as u32), mid);
        if !part.is_empty() {
            let mut bounce = [0.0f32; FLOATS_PER_TEXEL];
            gl.download(s, whole as u32, rows as u32, 1, 1, &mut bounce);
            let k = part.len();
            part.copy_from_slice(&bounce[..k]);
        }
        gl.check("downloading a buffer")
    }

    /// Copies elements `[offset, offset + out.len())` into `out`, reading only the texels
    /// that hold them (at most three rectangles), so one element of a large result costs one
    /// texel, not a prefix.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&(0..100_000).map(|i| i as f32).collect::<Vec<_>>())?;
    /// let mut two = [0.0f32; 2];
    /// x.read_range_into(70_001, &mut two)?;
    /// assert_eq!(two, [70_001.0, 70_002.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn read_range_into(&self, offset: usize, out: &mut [f32]) -> Result<()> {
        let end = offset.checked_add(out.len());
        if end.is_none_or(|e| e > self.len()) {
            return Err(Error::LengthMismatch {
                what: "Buffer::read_range_into (offset + out.len() at most the buffer's length)",
                expected: self.len(),
                actual: end.unwrap_or(usize::MAX),
            });
        }
        let rects = self.layout.range_rects(offset, out.len());
        if rects.is_empty() {
            return Ok(());
        }
        let texels: usize = rects.iter().map(|r| r.2 as usize * r.3 as usize).sum();
        let mut bounce = vec![0.0f32; texels * FLOATS_PER_TEXEL];
        let gl = self.ctx.enter()?;
        let s = self.surface();
        let mut at = 0;
        for &(x, y, w, h) in &rects {
            let n = w as usize * h as usize * FLOATS_PER_TEXEL;
            gl.download(s, x, y, w, h, &mut bounce[at..at + n]);
            at += n;
        }
        let skip = offset % FLOATS_PER_TEXEL;
        out.copy_from_slice(&bounce[skip..skip + out.len()]);
        gl.check("downloading a range of a buffer")
    }

    /// Elements `[offset, offset + len)` as a new vector (see [`Buffer::read_range_into`]).
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0, 4.0, 5.0])?;
    /// assert_eq!(x.read_range(3, 2)?, vec![4.0, 5.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn read_range(&self, offset: usize, len: usize) -> Result<Vec<f32>> {
        let mut v = vec![0.0; len];
        self.read_range_into(offset, &mut v)?;
        Ok(v)
    }

    /// Starts copying the buffer to the host without waiting: the GPU writes it into a pixel
    /// buffer behind a fence, and the returned handle waits for it (or says whether it is
    /// done). Work queued before this call is what gets read.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// let pending = x.read_async()?;
    /// // ... queue more GPU work or do host work here ...
    /// assert_eq!(pending.wait()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn read_async(&self) -> Result<PendingRead> {
        self.start_read(self.len())
    }

    /// Starts reading the first `floats` floats (the whole rows that hold them) into a
    /// pixel-pack buffer behind a fence.
    fn start_read(&self, floats: usize) -> Result<PendingRead> {
        let rows = floats.div_ceil(self.layout.row_floats()) as u32;
        let pb = self
            .ctx
            .take_pack_buffer(self.layout.width as usize * rows as usize * 16)?;
        let gl = self.ctx.enter()?;
        let readback = gl.start_readback(self.surface(), rows, pb)?;
        gl.check("starting an asynchronous readback")?;
        Ok(PendingRead {
            ctx: self.ctx.clone(),
            readback: Some(readback),
            len: floats,
        })
    }

    /// The whole buffer as a new vector.
    pub fn to_vec(&self) -> Result<Vec<f32>> {
        let mut v = vec![0.0; self.len()];
        self.read_into(&mut v)?;
        Ok(v)
    }

    /// Device-to-device copy of `src` (same context, same length) into this buffer.
    pub fn copy_from(&mut self, src: &Buffer) -> Result<()> {
        if !Rc::ptr_eq(&self.ctx, &src.ctx) {
            return Err(Error::ForeignBuffer { param: "src" });
        }
        if src.len() != self.len() {
            return Err(Error::LengthMismatch {
                what: "Buffer::copy_from",
                expected: self.len(),
                actual: src.len(),
            });
        }
        if src.layout != self.layout {
            // Only the crate's own pitched scratch matrices have other shapes.
            return Err(Error::Unsupported(
                "Buffer::copy_from between textures of different shapes".into(),
            ));
        }
        let gl = self.ctx.enter()?;
        gl.blit(src.surface(), self.surface());
        gl.check("device-to-device copy")
    }

    /// A new buffer with the same contents, copied on the device.
    pub fn try_clone(&self) -> Result<Buffer> {
        let ctx = Context {
            inner: self.ctx.clone(),
        };
        let l = self.layout;
        let surface = ctx.inner.take_surface(l.width, l.height)?;
        let mut b = Buffer::with_layout(&ctx, surface, l);
        b.copy_from(self)?;
        Ok(b)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Some(s) = self.surface.take() {
            if s.width as usize * s.height as usize <= POOLED_BUFFER_TEXELS {
                // Small textures go back to the pool: the next buffer or scratch texture of
                // this shape takes it instead of allocating (and freeing) its own, which on
                // the H100 cost 60 us each way per call of the host API.
                self.ctx.give_surface(s);
            } else {
                self.ctx.free_surface(s);
            }
        }
    }
}

/// Textures of at most this many texels (1 MiB) go back to the context's pool when their
/// buffer is dropped; larger ones are freed at once.
pub const POOLED_BUFFER_TEXELS: usize = 1 << 16;

/// Writes of fewer floats than this go straight from the slice (`glTexSubImage2D`) on every
/// device: staging through a pixel-unpack buffer pays a mapping for speed that only large
/// copies use.
pub const STAGED_WRITE_FLOATS: usize = 1 << 18;

/// Reads of at least this many floats (16 MiB) go through a pixel-pack buffer on hardware
/// devices ([`Buffer::read_into`]); below it the plain `glReadPixels` into the slice was as
/// fast or faster.
pub const PACKED_READ_FLOATS: usize = 1 << 22;

/// Bytes a staged upload copies through its pixel-unpack buffer at a time (the buffer is
/// kept per context for the next upload).
pub const STAGING_BYTES: usize = 64 << 20;

/// A device-to-host copy in flight (see [`Buffer::read_async`]).
pub struct PendingRead {
    ctx: Rc<Inner>,
    readback: Option<Readback>,
    len: usize,
}

impl PendingRead {
    /// Whether the data has arrived (never blocks).
    pub fn is_ready(&self) -> Result<bool> {
        let gl = self.ctx.enter()?;
        Ok(gl.readback_ready(self.readback.as_ref().expect("live"), false))
    }

    /// Waits for the data and returns it in a new vector.
    pub fn wait(self) -> Result<Vec<f32>> {
        let mut out = vec![0.0; self.len];
        self.wait_into(&mut out)?;
        Ok(out)
    }

    /// Waits for the data and copies it into `out`, which must hold exactly the buffer's
    /// length. Reusing one host vector saves the page faults of a fresh allocation, which
    /// cost as much as the copy itself for large buffers.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
    /// let mut host = vec![0.0; 3];
    /// x.read_async()?.wait_into(&mut host)?;
    /// assert_eq!(host, [1.0, 2.0, 3.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn wait_into(mut self, out: &mut [f32]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::LengthMismatch {
                what: "PendingRead::wait_into",
                expected: self.len,
                actual: out.len(),
            });
        }
        let gl = self.ctx.enter()?;
        let r = self.readback.take().expect("live");
        gl.readback_ready(&r, true);
        let res = gl.finish_readback(&r, out);
        self.ctx.give_pack_buffer(gl.end_readback(r));
        res?;
        gl.check("finishing an asynchronous readback")
    }
}

impl Drop for PendingRead {
    fn drop(&mut self) {
        if let Some(r) = self.readback.take() {
            if let Ok(gl) = self.ctx.enter() {
                // The GPU may still be writing into the buffer: wait before reusing it.
                gl.readback_ready(&r, true);
                self.ctx.give_pack_buffer(gl.end_readback(r));
            }
        }
    }
}

impl std::fmt::Debug for PendingRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingRead")
            .field("len", &self.len)
            .finish()
    }
}
