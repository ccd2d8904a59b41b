//! sgemm: C := alpha*op(A)*op(B) + beta*C. This file is the entry (argument checks, quick
//! returns, the kernel choice); `shape` holds the argument rules, `plan` the sizes of the
//! packed paths, `kernel` the kernels and which can run, `passes` the GPU passes, `tune`
//! the per-class choice. Kernels are in `glsl/level3/gemm_*`.

pub(crate) mod kernel;
pub(crate) mod passes;
pub(crate) mod plan;
pub(crate) mod shape;
pub(crate) mod tune;

use crate::blas::level3::gemm::kernel::{candidates, default_kernel, GemmKernel};
use crate::blas::level3::gemm::passes::{
    generic_pass, multiply, strip_multiply, strip_multiply_part, strip_pair_packs, GemmCall,
    PackedStrips, StripA, StripB,
};
use crate::blas::level3::gemm::shape::{gemm_shape, GemmShape};
use crate::blas::level3::gemm::tune::{remembered, should_time};
use crate::blas::passes::install;
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::{Error, Result};
use crate::gl::Surface;

impl Context {
    /// The kernel for `GemmKernel::Auto`: the tuner's choice for the shape's class (timing
    /// the candidates on these operands first if the mode asks for it), else the default.
    pub(crate) fn auto_kernel(
        &self,
        s: &GemmShape,
        a: &Buffer,
        b: &Buffer,
        c: &Buffer,
    ) -> Result<GemmKernel> {
        let info = self.info();
        if let Some(k) = remembered(self, s) {
            return Ok(k);
        }
        if should_time(self, s) && candidates(info, s).len() > 1 {
            let mut scratch = c.try_clone()?;
            return Ok(self.tune_shape(s, a, b, &mut scratch)?.chosen);
        }
        Ok(default_kernel(info, s))
    }

    /// `C := alpha * op(A) * op(B) + beta * C` (CBLAS `sgemm` on device buffers), with the
    /// kernel chosen automatically. See [`Context::sgemm_with`].
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans};
    /// let ctx = Context::new()?;
    /// let a = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?; // 2x2, column-major
    /// let b = ctx.upload(&[1.0, 0.0, 0.0, 1.0])?; // identity
    /// let mut c = ctx.zeros(4)?;
    /// ctx.sgemm(Layout::ColMajor, NoTrans, NoTrans, 2, 2, 2, 1.0, &a, 2, &b, 2, 0.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(
        &self,
        layout: Layout,
        transa: Transpose,
        transb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        self.sgemm_with(
            GemmKernel::Auto,
            layout,
            transa,
            transb,
            m,
            n,
            k,
            alpha,
            a,
            lda,
            b,
            ldb,
            beta,
            c,
            ldc,
        )
    }

    /// [`Context::sgemm`] with a chosen kernel.
    ///
    /// Semantics follow reference BLAS: arguments are checked first (each leading dimension
    /// on its own; errors name the parameter and its CBLAS position); `m == 0` or `n == 0`
    /// returns at once; `k == 0` or `alpha == 0` gives `C := beta*C` without reading A or B;
    /// `beta == 0` means C is not read (a NaN in C does not reach the result); elements of
    /// the buffer outside the `m x n` window (when `ldc > m`) are never written.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// use fragblas::{GemmKernel, Layout, Transpose::{NoTrans, Trans}};
    /// let a = ctx.upload(&[1.0, 2.0, 3.0, 4.0])?; // 2 x 2, row-major
    /// let mut c = ctx.upload(&[1.0; 4])?;
    /// ctx.sgemm_with(GemmKernel::Generic, Layout::RowMajor, NoTrans, Trans, 2, 2, 2, 1.0, &a, 2, &a, 2, 1.0, &mut c, 2)?;
    /// assert_eq!(c.to_vec()?, vec![6.0, 12.0, 12.0, 26.0]); // A A^T + C
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm_with(
        &self,
        kernel: GemmKernel,
        layout: Layout,
        transa: Transpose,
        transb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &Buffer,
        lda: i32,
        b: &Buffer,
        ldb: i32,
        beta: f32,
        c: &mut Buffer,
        ldc: i32,
    ) -> Result<()> {
        const R: &str = "sgemm";
        a.check_owner(self, "a")?;
        b.check_owner(self, "b")?;
        c.check_owner(self, "c")?;
        let s = gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc)?;
        if s.quick_return(alpha, beta) {
            return Ok(());
        }
        s.check_lengths(alpha, a.len(), b.len(), c.len())?;
        // In column-major form A and B are the user's B and A for a row-major call.
        let (ca, cb) = if s.swapped { (b, a) } else { (a, b) };
        self.gemm_shape_with(kernel, &s, alpha, Src::Buf(ca), Src::Buf(cb), beta, c)?;
        self.inner.enter()?.check(R)
    }

    /// `C := alpha*op(A)*op(B) + beta*C` on a column-major shape (offsets and a part of the
    /// window included), after the checks: the machinery every level-3 routine runs on.
    /// `k == 0` or `alpha == 0` give `C := beta*C` without reading A or B. A or B may be
    /// C itself ([`Src::C`]) where the window does not overlap what they read.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_shape_with(
        &self,
        kernel: GemmKernel,
        s: &GemmShape,
        alpha: f32,
        a: Src,
        b: Src,
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let inner = &self.inner;
        let cr: &Buffer = c;
        let (a, b) = (a.or(cr), b.or(cr));
        let call = GemmCall {
            s,
            alpha,
            a,
            b,
            beta,
            c: cr,
        };
        let rect = call.rect();
        let out = if alpha == 0.0 || s.k == 0 {
            // C := beta*C without A or B, and without alpha: reference skips the product
            // altogether, so a NaN or Inf alpha does not reach C when k == 0.
            Some(generic_pass(inner, &GemmCall { alpha: 0.0, ..call }, 0)?)
        } else {
            let info = self.info();
            let kernel = match kernel {
                GemmKernel::Auto => self.auto_kernel(s, a, b, cr)?,
                k if k.runs(info, s) => k,
                k => {
                    return Err(Error::Unsupported(format!(
                        "sgemm: kernel {k:?} cannot run m={}, n={}, k={} on this device \
                         ({} draw buffers, max texture {}, uniform blocks of {} bytes); use \
                         GemmKernel::Auto or Generic",
                        s.m,
                        s.n,
                        s.k,
                        info.max_draw_buffers,
                        info.max_texture_size,
                        info.max_uniform_block_size
                    )))
                }
            };
            multiply(inner, kernel, &call)?
        };
        match out {
            Some(out) => install(inner, c, out, rect),
            None => Ok(()),
        }
    }
}

impl Context {
    /// `C := alpha*op(X)*op(Y) + beta*C`, then `C := alpha*op(Y')*op(X') + C`, where the
    /// second product reads the first's operands transposed (`second`'s op(A) is
    /// `first`'s op(B)^T and the other way round): ssyr2k's two products. Where the strip
    /// kernels run both with image stores, X and Y are each packed once for both products
    /// ([`strip_pair_packs`]); elsewhere these are two sgemms. `alpha != 0` and `k > 0`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_pair(
        &self,
        first: &GemmShape,
        second: &GemmShape,
        alpha: f32,
        (x, y): (&Buffer, &Buffer),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let kernel = self.auto_kernel(first, x, y, c)?;
        let packs = {
            let call = |s, a, b, beta, c| GemmCall {
                s,
                alpha,
                a,
                b,
                beta,
                c,
            };
            let cr: &Buffer = c;
            let (c1, c2) = (call(first, x, y, beta, cr), call(second, y, x, 1.0, cr));
            strip_pair_packs(&self.inner, kernel, &c1, &c2)?
        };
        let Some([p1, p2]) = packs else {
            let (x, y) = (Src::Buf(x), Src::Buf(y));
            self.gemm_shape_with(GemmKernel::Auto, first, alpha, x, y, beta, c)?;
            return self.gemm_shape_with(GemmKernel::Auto, second, alpha, y, x, 1.0, c);
        };
        for (s, (a, b), beta, (blocks, bt)) in
            [(first, (x, y), beta, p1), (second, (y, x), 1.0, p2)]
        {
            let cr: &Buffer = c;
            let call = GemmCall {
                s,
                alpha,
                a,
                b,
                beta,
                c: cr,
            };
            let rect = call.rect();
            let blocks = StripA::Own(blocks);
            if let Some(out) = strip_multiply(&self.inner, kernel, &call, blocks, StripB::Own(bt))?
            {
                install(&self.inner, c, out, rect)?;
            }
        }
        Ok(())
    }
}

/// An op(A) of which several products each take a block (strsm's updates: blocks of T):
/// packed once for the strip kernels, by the first of those products that runs one
/// ([`Context::gemm_block`]).
pub(crate) struct SharedA<'a> {
    /// The whole op(A): `whole.a` read from `a`, `whole.m x whole.k` (`n` and C unused).
    whole: GemmShape,
    a: &'a Buffer,
    packed: Option<PackedStrips>,
}

impl<'a> SharedA<'a> {
    /// The op(A) of `whole`, read from `a`; nothing packed yet.
    pub(crate) fn new(whole: GemmShape, a: &'a Buffer) -> Self {
        SharedA {
            whole,
            a,
            packed: None,
        }
    }

    /// The pack, if one was made, back to the pool.
    pub(crate) fn release(self, ctx: &Context) {
        if let Some(p) = self.packed {
            p.release(&ctx.inner);
        }
    }
}

impl Context {
    /// [`Context::gemm_shape_with`] with the kernel `Auto` chooses, for a product whose
    /// op(A) (`s.a`, read from `shared`'s buffer) is the block of `shared`'s op(A) from row
    /// `at.0` and term `at.1`. Where that kernel is a strip kernel on a device with image
    /// stores, the product reads the block from the one pack of the whole op(A) (made now
    /// if this is the first such product) instead of packing it. Where the block does not
    /// lie in the pack's blocks in place ([`PackedStrips::window`]), or on other kernels,
    /// it is an sgemm as any other.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_block(
        &self,
        s: &GemmShape,
        shared: &mut SharedA,
        at: (usize, usize),
        alpha: f32,
        b: Src,
        beta: f32,
        c: &mut Buffer,
    ) -> Result<()> {
        let kernel = self.block_kernel(s, shared, b, alpha, c)?;
        if let Some(k) = kernel.filter(|k| k.is_strip()) {
            if self.gemm_block_on_strips(k, s, shared, at, alpha, (b, None), beta, c)? {
                return Ok(());
            }
        }
        let a = Src::Buf(shared.a);
        let kernel = kernel.unwrap_or(GemmKernel::Auto);
        self.gemm_shape_with(kernel, s, alpha, a, b, beta, c)
    }

    /// [`Context::gemm_block`] whose op(B) is already packed: rows from `k_off` of `quads`,
    /// the strip kernels' quads of a larger op(B) (`passes::StripB::Rows`; `b` is the buffer
    /// they were packed from, for the kernel's choice). `Ok(false)`, with nothing drawn,
    /// where the product would not run on the strip kernels with the shared op(A)'s pack:
    /// the caller then makes it another way.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_block_packed_b(
        &self,
        s: &GemmShape,
        shared: &mut SharedA,
        at: (usize, usize),
        alpha: f32,
        (b, quads, k_off): (Src, &Surface, usize),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<bool> {
        match self.block_kernel(s, shared, b, alpha, c)? {
            Some(k) if k.is_strip() => {
                let b = (b, Some((quads, k_off)));
                self.gemm_block_on_strips(k, s, shared, at, alpha, b, beta, c)
            }
            _ => Ok(false),
        }
    }

    /// The kernel `Auto` chooses for a block product of [`Context::gemm_block`], or `None`
    /// where the product is no strip-kernel candidate (nothing to multiply, or no image
    /// stores), which `Auto` then makes.
    fn block_kernel(
        &self,
        s: &GemmShape,
        shared: &SharedA,
        b: Src,
        alpha: f32,
        c: &Buffer,
    ) -> Result<Option<GemmKernel>> {
        if alpha == 0.0 || s.k == 0 || !self.inner.image_store_paths {
            return Ok(None);
        }
        self.auto_kernel(s, shared.a, b.or(c), c).map(Some)
    }

    /// The strip-kernel form of [`Context::gemm_block`] under strip kernel `kernel` (op(B)
    /// packed now, or rows of `quads`), reading op(A) from the shared pack (made now if this
    /// is its first product); `Ok(false)`, with nothing drawn, where the block does not lie
    /// in the pack's blocks in place.
    #[allow(clippy::too_many_arguments)]
    fn gemm_block_on_strips(
        &self,
        kernel: GemmKernel,
        s: &GemmShape,
        shared: &mut SharedA,
        at: (usize, usize),
        alpha: f32,
        (b, quads): (Src, Option<(&Surface, usize)>),
        beta: f32,
        c: &mut Buffer,
    ) -> Result<bool> {
        if shared.packed.is_none() {
            shared.packed = PackedStrips::new(&self.inner, &shared.whole, shared.a, false)?;
        }
        let Some((packed, window)) = shared
            .packed
            .as_ref()
            .and_then(|p| p.window(s, at).map(|w| (p, w)))
        else {
            return Ok(false);
        };
        let cr: &Buffer = c;
        let call = GemmCall {
            s,
            alpha,
            a: shared.a,
            b: b.or(cr),
            beta,
            c: cr,
        };
        let rect = call.rect();
        if let Some(out) = strip_multiply_part(&self.inner, kernel, &call, packed, window, quads)? {
            install(&self.inner, c, out, rect)?;
        }
        Ok(true)
    }
}

/// Where a level-3 operand comes from: a buffer, or the C of the same call.
#[derive(Clone, Copy)]
pub(crate) enum Src<'a> {
    /// This buffer.
    Buf(&'a Buffer),
    /// The buffer the call writes (its window must not overlap what is read).
    C,
}

impl<'a> Src<'a> {
    /// The buffer, with `c` standing for C.
    fn or(self, c: &'a Buffer) -> &'a Buffer {
        match self {
            Src::Buf(b) => b,
            Src::C => c,
        }
    }
}
