//! sgemv: y := alpha*op(A)*x + beta*y.

use crate::blas::args::check_span;
use crate::blas::gemm::in_spans;
use crate::blas::level1::{update, Op};
use crate::blas::shape::GemvShape;
use crate::blas::shape::{gemv_shape, Layout, Transpose};
use crate::buffer::Buffer;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::kernels::Kernel;

/// Which sgemv kernel runs. `Auto` is the default; the others exist so that tests and
/// benchmarks can reach each kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemvKernel {
    /// `Vec4` where it applies, else `Generic`.
    Auto,
    /// Scalar fetches: any leading dimension and increments.
    Generic,
    /// vec4 reads of A and x into a scratch vector, then `y := alpha*t + beta*y` with y's
    /// increment. Needs `lda % 4 == 0` (in column-major form) and `incx == 1`.
    Vec4,
}

/// How the vectorised kernel splits the summed index (`summed` texels of 4 values) over
/// fragments: `(chunks, texels per chunk)`. Enough chunks that about 2^17 fragments run on
/// a hardware device (2^12 on a software one, which has a few cores), each chunk at least
/// 64 texels long, and the stacked bands (`chunks * band_rows` rows) within `max_texture`.
fn split_sum(
    out_texels: usize,
    summed: usize,
    band_rows: usize,
    max_texture: usize,
    software: bool,
) -> (usize, usize) {
    let want: usize = if software { 1 << 12 } else { 1 << 17 };
    let chunks = want
        .div_ceil(out_texels.max(1))
        .min(summed.div_ceil(64))
        .min(max_texture / band_rows.max(1))
        .max(1);
    let chunk = summed.div_ceil(chunks).max(1);
    // Round so that no chunk is empty.
    (summed.div_ceil(chunk).max(1), chunk)
}

/// Whether the vectorised kernel serves this call.
fn vec4_applies(s: &GemvShape, incx: i32) -> bool {
    s.lda.is_multiple_of(4) && incx == 1
}

impl Context {
    /// The vectorised path: op(A)*x into a pooled scratch vector, then the axpby merge.
    #[allow(clippy::too_many_arguments)]
    fn gemv_vec4(
        &self,
        s: &GemvShape,
        alpha: f32,
        a: &Buffer,
        x: &Buffer,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        let inner = &self.inner;
        let len_y = s.len_y();
        let l = inner.layout(len_y)?;
        let summed = if s.trans { s.rows } else { s.cols }.div_ceil(4);
        let (chunks, chunk) = split_sum(
            l.data_texels(),
            summed,
            l.height as usize,
            inner.info_max_texture() as usize,
            self.info().software,
        );
        let band_rows = l.height;
        let parts = inner.take_surface(l.width, chunks as u32 * band_rows)?;
        let prog = inner.program(Kernel::GemvVec4)?;
        let gl = inner.enter()?;
        gl.use_program(&prog);
        a.bind(gl, &prog, 0, "a", "a_width");
        gl.set_i32(&prog, "lda", s.lda as i32);
        gl.set_i32(&prog, "trans", s.trans as i32);
        gl.set_i32(&prog, "rows", s.rows as i32);
        gl.set_i32(&prog, "cols", s.cols as i32);
        x.bind(gl, &prog, 1, "x", "x_width");
        gl.set_i32(&prog, "out_width", l.width as i32);
        gl.set_i32(&prog, "out_texels", l.data_texels() as i32);
        gl.set_i32(&prog, "band_rows", band_rows as i32);
        gl.set_i32(&prog, "chunk", chunk as i32);
        gl.draw(&[&parts], l.width, chunks as u32 * band_rows);
        let tmp = if chunks == 1 {
            parts
        } else {
            // Add the chunks' bands: fragment (x, y) sums (x, y + c*band_rows), c < chunks.
            let sum = inner.take_surface(l.width, l.height)?;
            let prog = inner.program(Kernel::SumReduce)?;
            gl.use_program(&prog);
            gl.set_texture(&prog, "src", 0, &parts);
            gl.set_ivec2(
                &prog,
                "src_size",
                [l.width as i32, (chunks as u32 * band_rows) as i32],
            );
            gl.set_ivec2(&prog, "fold_step", [0, band_rows as i32]);
            gl.set_i32(&prog, "fan_in", chunks as i32);
            gl.draw(&[&sum], l.width, l.height);
            inner.give_surface(parts);
            sum
        };
        let t = Buffer::from_surface(self, tmp, len_y)?;
        let done = update(
            self,
            len_y as i32,
            Op::Axpby,
            alpha,
            beta,
            Some((&t, 1)),
            y,
            incy,
        );
        inner.give_surface(t.into_surface());
        done
    }

    /// `y := alpha * op(A) * x + beta * y` (CBLAS `sgemv` on device buffers); A is `m x n`
    /// in `layout` with leading dimension `lda`, x and y have any non-zero increments.
    ///
    /// As in reference BLAS: `m == 0`, `n == 0`, or `alpha == 0` with `beta == 1` returns
    /// at once; `beta == 0` means y is not read; `alpha == 0` means A and x are not read;
    /// elements of y the increment skips are never written.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemv(
        &self,
        layout: Layout,
        trans: Transpose,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        self.sgemv_with(
            GemvKernel::Auto,
            layout,
            trans,
            m,
            n,
            alpha,
            a,
            lda,
            x,
            incx,
            beta,
            y,
            incy,
        )
    }

    /// [`Context::sgemv`] with a chosen kernel; `GemvKernel::Vec4` on a call it does not
    /// serve is an error.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemv_with(
        &self,
        kernel: GemvKernel,
        layout: Layout,
        trans: Transpose,
        m: i32,
        n: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        x: &Buffer,
        incx: i32,
        beta: f32,
        y: &mut Buffer,
        incy: i32,
    ) -> Result<()> {
        const R: &str = "sgemv";
        a.check_owner(self, "a")?;
        x.check_owner(self, "x")?;
        y.check_owner(self, "y")?;
        let s = gemv_shape(layout, trans, m, n, lda, incx, incy)?;
        if s.a_span() > a.len() {
            return Err(Error::TooShort {
                routine: R,
                param: "a",
                needed: s.a_span(),
                len: a.len(),
            });
        }
        check_span(R, "x", x.len(), s.len_x() as i32, incx)?;
        check_span(R, "y", y.len(), s.len_y() as i32, incy)?;
        if s.rows == 0 || s.cols == 0 || (alpha == 0.0 && beta == 1.0) {
            return Ok(());
        }
        let fits = vec4_applies(&s, incx);
        if alpha != 0.0 {
            match kernel {
                GemvKernel::Vec4 if !fits => {
                    return Err(Error::Unsupported(format!(
                        "sgemv: the vectorised kernel needs a leading dimension that is a \
                         multiple of 4 and incx == 1 (lda {}, incx {incx})",
                        s.lda
                    )))
                }
                GemvKernel::Vec4 | GemvKernel::Auto if fits => {
                    self.gemv_vec4(&s, alpha, a, x, beta, y, incy)?;
                    return self.inner.enter()?.check(R);
                }
                _ => {}
            }
        }
        // The generic kernel in passes over the summed index (see gemm::in_spans): the first
        // computes alpha*part + beta*y, each further one adds to the last.
        let inner = &self.inner;
        let prog = inner.program(Kernel::Gemv)?;
        let yl = y.layout();
        let len_x = if alpha == 0.0 { 0 } else { s.len_x() };
        let y_ref: &Buffer = y;
        let out = in_spans(
            inner,
            len_x,
            (yl.width, yl.height),
            |gl, prev, l0, l1, out| {
                gl.use_program(&prog);
                a.bind(gl, &prog, 0, "a", "a_width");
                gl.set_i32(&prog, "lda", s.lda as i32);
                gl.set_i32(&prog, "trans", s.trans as i32);
                x.bind(gl, &prog, 1, "x", "x_width");
                gl.set_i32(&prog, "incx", incx);
                gl.set_i32(&prog, "len_x", len_x as i32);
                gl.set_i32(&prog, "l0", l0 as i32);
                gl.set_i32(&prog, "l1", l1 as i32);
                match prev {
                    None => y_ref.bind(gl, &prog, 2, "y", "y_width"),
                    Some(p) => {
                        gl.set_texture(&prog, "y", 2, p);
                        gl.set_i32(&prog, "y_width", yl.width as i32);
                    }
                }
                gl.set_i32(&prog, "incy", incy);
                gl.set_i32(&prog, "len_y", s.len_y() as i32);
                gl.set_f32(&prog, "alpha", alpha);
                gl.set_f32(&prog, "beta", if prev.is_some() { 1.0 } else { beta });
                gl.draw(&[out], yl.width, yl.height);
            },
        )?;
        let gl = inner.enter()?;
        let old = y.replace_surface(out);
        inner.give_surface(old);
        gl.check(R)
    }
}

#[cfg(test)]
mod tests {
    use super::split_sum;

    #[test]
    fn the_summed_index_splits_into_non_empty_chunks_that_cover_it() {
        for &(out, summed, band, max, sw) in &[
            (4096, 4096, 1, 32768, false),
            (1, 4096, 1, 32768, false),
            (1, 3, 1, 32768, false),
            (300_000, 4096, 37, 32768, false),
            (1024, 1024, 1, 16384, true),
            (10, 100_000, 16384, 16384, false),
        ] {
            let (chunks, chunk) = split_sum(out, summed, band, max, sw);
            assert!(chunks >= 1 && chunk >= 1);
            assert!(chunks * chunk >= summed, "cover {out} {summed}");
            assert!(
                (chunks - 1) * chunk < summed.max(1),
                "no empty chunk {out} {summed}"
            );
            assert!(chunks * band <= max.max(band), "fits {out} {summed}");
        }
        // 16384^2 on a GPU: 4096 outputs texels, 4096 summed texels: 32 chunks of 128.
        assert_eq!(split_sum(4096, 4096, 1, 32768, false), (32, 128));
        assert_eq!(split_sum(4096, 4096, 1, 32768, true), (1, 4096));
    }
}
