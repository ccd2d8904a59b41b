//! GL buffer objects: pixel-unpack buffers that stage uploads, pixel-pack buffers that
//! receive asynchronous readbacks behind a fence, and buffers read as uniform blocks.

use glow::HasContext;

use super::{Gl, GlWork, Surface};
use crate::error::{Error, Result};

/// A GL buffer object: pixel readbacks are written into one, staged uploads read from one,
/// and the strip sgemm kernels read one as uniform blocks.
#[derive(Debug)]
pub(crate) struct GlBuffer {
    buffer: glow::Buffer,
    pub capacity: usize,
}

/// A pixel-pack buffer being filled by the GPU, and the fence that says when it is done.
#[derive(Debug)]
pub(crate) struct Readback {
    pb: GlBuffer,
    fence: glow::Fence,
    bytes: usize,
}

impl Gl {
    /// A pixel-unpack buffer of at least `bytes` bytes, for staged uploads (the same buffer
    /// type as a pack buffer, with a usage hint for host writes).
    pub(crate) fn create_unpack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::STREAM_DRAW)
    }

    /// Copies `data` into the start of `pb` through a mapping that discards the old
    /// contents, then zeros up to `padded_len` floats; the GPU then uploads from it with
    /// [`Gl::upload_from`].
    pub(crate) fn stage(&self, pb: &GlBuffer, data: &[f32], padded_len: usize) -> Result<()> {
        self.profile.time(GlWork::Transfers, || {
            self.stage_untimed(pb, data, padded_len)
        })
    }

    fn stage_untimed(&self, pb: &GlBuffer, data: &[f32], padded_len: usize) -> Result<()> {
        assert!(padded_len >= data.len() && padded_len * 4 <= pb.capacity);
        if padded_len == 0 {
            return Ok(());
        }
        // SAFETY: the mapping covers padded_len floats of the buffer (inside its capacity,
        // asserted; GL aligns mappings to at least 16 bytes), viewed as one slice that no
        // one else touches; it is written only while mapped, then unmapped and unbound. The
        // old contents are invalidated, so a pending upload from them is not disturbed.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(pb.buffer));
            let ptr = self.gl.map_buffer_range(
                glow::PIXEL_UNPACK_BUFFER,
                0,
                (padded_len * 4) as i32,
                glow::MAP_WRITE_BIT | glow::MAP_INVALIDATE_BUFFER_BIT,
            ) as *mut f32;
            if ptr.is_null() {
                self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
                return Err(Error::Gl {
                    operation: "mapping a pixel-unpack buffer",
                    code: self.gl.get_error(),
                });
            }
            let mapped = std::slice::from_raw_parts_mut(ptr, padded_len);
            let (head, pad) = mapped.split_at_mut(data.len());
            super::host_copy::copy(data, head);
            pad.fill(0.0);
            self.gl.unmap_buffer(glow::PIXEL_UNPACK_BUFFER);
            self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        }
        Ok(())
    }

    /// Uploads the `w` x `h` rectangle at (x, y) of `s` from `pb`, starting `offset` bytes
    /// into it (texels row after row, as [`Gl::stage`] wrote them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn upload_from(
        &self,
        pb: &GlBuffer,
        offset: usize,
        s: &Surface,
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    ) {
        assert!(
            x + w <= s.width && y + h <= s.height,
            "upload rectangle outside the texture"
        );
        assert!(
            offset + w as usize * h as usize * 16 <= pb.capacity,
            "upload past the buffer"
        );
        if w == 0 || h == 0 {
            return;
        }
        let pixels = glow::PixelUnpackData::BufferOffset(offset as u32);
        // SAFETY: `pb` is a live buffer of this context, bound as the unpack source; the
        // texels GL reads lie inside it and the rectangle inside the texture (both asserted);
        // it is unbound afterwards so that later client-memory uploads read client memory.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(pb.buffer));
            self.tex_sub_image(s, (x, y, w, h), pixels);
            self.gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        }
    }

    /// A pixel-pack buffer of at least `bytes` bytes, for asynchronous readbacks.
    pub(crate) fn create_pack_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::STREAM_READ)
    }

    fn create_pixel_buffer(&self, bytes: usize, usage: u32) -> Result<GlBuffer> {
        self.profile.time(GlWork::Allocations, || {
            self.create_pixel_buffer_untimed(bytes, usage)
        })
    }

    fn create_pixel_buffer_untimed(&self, bytes: usize, usage: u32) -> Result<GlBuffer> {
        let size = i32::try_from(bytes.max(16)).map_err(|_| {
            Error::Unsupported(format!("a GL buffer of {bytes} bytes exceeds 2 GiB"))
        })?;
        // SAFETY: current context; the buffer is allocated without host data and unbound.
        unsafe {
            let buffer = self.gl.create_buffer().map_err(Error::Context)?;
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(buffer));
            self.gl
                .buffer_data_size(glow::PIXEL_PACK_BUFFER, size, usage);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            Ok(GlBuffer {
                buffer,
                capacity: size as usize,
            })
        }
    }

    /// Frees a GL buffer.
    pub(crate) fn delete_buffer(&self, pb: GlBuffer) {
        // SAFETY: created by this context, deleted once (by value).
        unsafe { self.gl.delete_buffer(pb.buffer) }
    }

    /// Starts an asynchronous readback of the first `h` rows (of `s.width` texels) into
    /// `pb` and fences it; nothing waits here.
    pub(crate) fn start_readback(&self, s: &Surface, h: u32, pb: GlBuffer) -> Result<Readback> {
        assert!(h <= s.height, "readback rows outside the texture");
        let bytes = s.width as usize * h as usize * 16;
        assert!(bytes <= pb.capacity, "pack buffer too small");
        self.read_rows_into(s, h, pb.buffer, 0);
        // SAFETY: a fence on the current context, deleted with the readback (or here).
        unsafe {
            let fence = match self.gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0) {
                Ok(f) => f,
                Err(e) => {
                    self.delete_buffer(pb);
                    return Err(Error::Context(e));
                }
            };
            self.gl.flush();
            Ok(Readback { pb, fence, bytes })
        }
    }

    /// Whether the readback's fence has signalled; with `wait`, blocks until it has.
    pub(crate) fn readback_ready(&self, r: &Readback, wait: bool) -> bool {
        self.profile
            .time(GlWork::Waits, || self.readback_ready_untimed(r, wait))
    }

    fn readback_ready_untimed(&self, r: &Readback, wait: bool) -> bool {
        let timeout = if wait { i32::MAX } else { 0 };
        loop {
            // SAFETY: the fence belongs to this context and is deleted only with `r`.
            let status = unsafe {
                self.gl
                    .client_wait_sync(r.fence, glow::SYNC_FLUSH_COMMANDS_BIT, timeout)
            };
            match status {
                glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED => return true,
                glow::TIMEOUT_EXPIRED if wait => continue,
                glow::TIMEOUT_EXPIRED => return false,
                // WAIT_FAILED: say "ready"; mapping the buffer still waits for the GPU.
                _ => return true,
            }
        }
    }

    /// Copies the first `out.len()` floats of a finished readback into `out`.
    pub(crate) fn finish_readback(&self, r: &Readback, out: &mut [f32]) -> Result<()> {
        self.profile
            .time(GlWork::Transfers, || self.finish_readback_untimed(r, out))
    }

    fn finish_readback_untimed(&self, r: &Readback, out: &mut [f32]) -> Result<()> {
        assert!(out.len() * 4 <= r.bytes, "readback shorter than the output");
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: the buffer holds r.bytes bytes written by read_pixels (the fence has been
        // waited on by the caller); the mapping covers out.len() floats (16-byte aligned),
        // viewed as one slice that nothing writes, is read only while mapped, and is
        // unmapped before the buffer is unbound.
        unsafe {
            self.gl
                .bind_buffer(glow::PIXEL_PACK_BUFFER, Some(r.pb.buffer));
            let ptr = self.gl.map_buffer_range(
                glow::PIXEL_PACK_BUFFER,
                0,
                (out.len() * 4) as i32,
                glow::MAP_READ_BIT,
            );
            if ptr.is_null() {
                self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
                return Err(Error::Gl {
                    operation: "mapping a pixel buffer",
                    code: self.gl.get_error(),
                });
            }
            let mapped = std::slice::from_raw_parts(ptr as *const f32, out.len());
            super::host_copy::copy(mapped, out);
            self.gl.unmap_buffer(glow::PIXEL_PACK_BUFFER);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
        }
        Ok(())
    }

    /// Frees a readback's fence and hands its pack buffer back for reuse.
    pub(crate) fn end_readback(&self, r: Readback) -> GlBuffer {
        // SAFETY: the fence belongs to this context and is deleted once (by value).
        unsafe { self.gl.delete_sync(r.fence) };
        r.pb
    }

    /// A buffer object of `bytes` bytes for uniform blocks, filled on the GPU.
    pub(crate) fn create_block_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        self.create_pixel_buffer(bytes, glow::DYNAMIC_COPY)
    }

    /// A buffer object of `bytes` bytes, every byte 0, for storage blocks the GPU reads and
    /// writes (the product kernels' arrival counts).
    pub(crate) fn create_zeroed_buffer(&self, bytes: usize) -> Result<GlBuffer> {
        let b = self.create_pixel_buffer(bytes, glow::DYNAMIC_COPY)?;
        let zeros = vec![0u8; b.capacity];
        // SAFETY: `b` is a live buffer of this context with exactly `b.capacity` bytes; the
        // data covers all of them; it is unbound again afterwards.
        unsafe {
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(b.buffer));
            self.gl
                .buffer_sub_data_u8_slice(glow::PIXEL_PACK_BUFFER, 0, &zeros);
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
        }
        Ok(b)
    }

    /// Copies the whole of `s` into the start of `bb` on the GPU, row after row (texel
    /// (x, y) lands at byte 16 * (y * width + x)); nothing waits on the host.
    pub(crate) fn copy_to_block_buffer(&self, s: &Surface, bb: &GlBuffer) {
        self.copy_to_block_buffer_at(s, bb, 0);
    }

    /// [`Gl::copy_to_block_buffer`] from byte `offset` of `bb` on (a multiple of 16).
    pub(crate) fn copy_to_block_buffer_at(&self, s: &Surface, bb: &GlBuffer, offset: usize) {
        let bytes = s.width as usize * s.height as usize * 16;
        assert!(
            offset.is_multiple_of(16) && offset + bytes <= bb.capacity,
            "uniform-block buffer too small"
        );
        self.read_rows_into(s, s.height, bb.buffer, offset);
    }

    /// Copies the first `h` rows of `s` into `buffer` from byte `offset` on, on the GPU
    /// (`glReadPixels` into a bound pixel-pack buffer). Callers check that the buffer holds
    /// `offset + 16 * s.width * h` bytes.
    fn read_rows_into(&self, s: &Surface, h: u32, buffer: glow::Buffer, offset: usize) {
        // SAFETY: the buffer has room for the w*h RGBA float texels read_pixels writes into
        // it from `offset` (checked by the callers, PACK_ALIGNMENT 4); it is unbound from the
        // pack target afterwards so later client-memory readbacks are unaffected.
        self.bind_read_fbo(s.fbo);
        self.profile.time(GlWork::Transfers, || unsafe {
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(buffer));
            self.gl.read_pixels(
                0,
                0,
                s.width as i32,
                h as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::BufferOffset(offset as u32),
            );
            self.gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
        })
    }

    /// Points uniform-block binding `binding` at `size` bytes of `bb` from `offset`.
    pub(crate) fn bind_block_range(&self, binding: u32, bb: &GlBuffer, offset: usize, size: usize) {
        assert!(
            offset + size <= bb.capacity,
            "uniform block range outside its buffer"
        );
        // SAFETY: the range lies inside the buffer (asserted; capacity fits in i32); callers
        // keep offsets at multiples of UNIFORM_BUFFER_OFFSET_ALIGNMENT (a violation is a GL
        // error, reported by `check`, not undefined behaviour).
        unsafe {
            self.gl.bind_buffer_range(
                glow::UNIFORM_BUFFER,
                binding,
                Some(bb.buffer),
                offset as i32,
                size as i32,
            )
        }
    }

    /// Points shader-storage binding `binding` at the whole of `bb` (`None` unbinds it).
    /// Only for kernels whose device has fragment storage blocks.
    pub(crate) fn bind_storage_buffer(&self, binding: u32, bb: Option<&GlBuffer>) {
        // SAFETY: the buffer (if any) is a live buffer object of this context; binding a
        // whole buffer to an indexed target has no range to violate, and a binding index past
        // the device's limit is a GL error reported by `check`, not undefined behaviour.
        unsafe {
            self.gl
                .bind_buffer_base(glow::SHADER_STORAGE_BUFFER, binding, bb.map(|b| b.buffer))
        }
    }
}
