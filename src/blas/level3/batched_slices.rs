//! The form of batched sgemm over slices of buffers (cuBLAS's `cublasSgemmBatched`): each
//! slice's buffers are stacked into one texture with a copy per buffer (no draw), the strided
//! product runs on the stacks, and the C's are copied back.

use crate::blas::level3::batched::{renamed, Batch, SLICES};
use crate::blas::level3::gemm::shape::{gemm_shape, GemmShape};
use crate::blas::types::{Layout, Transpose};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::{Error, Result};
use crate::layout::TexLayout;

/// One slice of buffers stacked into one texture: item p at rows `p*rows..` (so at
/// element `p*stride`).
struct Stack {
    buf: Buffer,
    stride: usize,
    rows: u32,
}

impl Stack {
    /// Copies the buffers `xs` (textures of one width) into a new stack.
    fn gather(ctx: &Context, xs: &[&Buffer], rows: u32) -> Result<Stack> {
        let width = xs[0].layout().width;
        let height = rows * xs.len() as u32;
        let inner = &ctx.inner;
        let surface = inner.take_surface(width, height)?;
        let gl = inner.enter()?;
        for (p, x) in xs.iter().enumerate() {
            let l = x.layout();
            gl.blit_to(
                x.surface(),
                (0, 0, l.width, l.height),
                &surface,
                (0, p as u32 * rows),
            );
        }
        let len = width as usize * height as usize * 4;
        let layout = TexLayout { len, width, height };
        Ok(Stack {
            buf: Buffer::with_layout(ctx, surface, layout),
            stride: width as usize * rows as usize * 4,
            rows,
        })
    }

    /// Copies item p of the stack back into each buffer of `xs`.
    fn scatter(&self, ctx: &Context, xs: &mut [&mut Buffer]) -> Result<()> {
        let gl = ctx.inner.enter()?;
        for (p, x) in xs.iter_mut().enumerate() {
            let l = x.layout();
            let rect = (0, p as u32 * self.rows, l.width, l.height);
            gl.blit_to(self.buf.surface(), rect, x.surface(), (0, 0));
        }
        Ok(())
    }
}

impl Context {
    /// sgemm_batched by stacks, after the checks: chunks of as many products as fit one
    /// texture's height.
    fn stacked(
        &self,
        s: &GemmShape,
        product: bool,
        (alpha, beta): (f32, f32),
        a: &[&Buffer],
        b: &[&Buffer],
        c: &mut [&mut Buffer],
    ) -> Result<()> {
        // In column-major form A and B are the user's B and A for a row-major call.
        let (ca, cb) = if s.swapped { (b, a) } else { (a, b) };
        let rows = |xs: &mut dyn Iterator<Item = u32>| xs.max().unwrap_or(1);
        let ra = rows(&mut ca.iter().map(|x| x.layout().height));
        let rb = rows(&mut cb.iter().map(|x| x.layout().height));
        let rc = rows(&mut c.iter().map(|x| x.layout().height));
        let tallest = if product { ra.max(rb).max(rc) } else { rc };
        let per = (self.info().max_texture_size / tallest).max(1) as usize;
        let count = c.len();
        for p0 in (0..count).step_by(per) {
            let p1 = (p0 + per).min(count);
            let cs: Vec<&Buffer> = c[p0..p1].iter().map(|x| &**x).collect();
            let mut sc = Stack::gather(self, &cs, rc)?;
            let operands = if product {
                let sa = Stack::gather(self, &ca[p0..p1], ra)?;
                Some((sa, Stack::gather(self, &cb[p0..p1], rb)?))
            } else {
                None
            };
            let bt = Batch {
                s: *s,
                stride_a: operands.as_ref().map_or(0, |(x, _)| x.stride),
                stride_b: operands.as_ref().map_or(0, |(_, y)| y.stride),
                stride_c: sc.stride,
                count: p1 - p0,
            };
            match &operands {
                Some((x, y)) => self.batched(&bt, alpha, &x.buf, &y.buf, beta, &mut sc.buf)?,
                None => {
                    // No product: A and B are not read.
                    let none = Buffer::zeros(self, 1)?;
                    self.batched(&bt, 0.0, &none, &none, beta, &mut sc.buf)?;
                }
            }
            sc.scatter(self, &mut c[p0..p1])?;
            let stacks = std::iter::once(sc).chain(operands.into_iter().flat_map(|(x, y)| [x, y]));
            for st in stacks {
                self.inner.give_surface(st.buf.into_surface());
            }
        }
        Ok(())
    }

    /// `C[p] := alpha*op(A[p])*op(B[p]) + beta*C[p]` for every `p` (cuBLAS's
    /// `cublasSgemmBatched`: one buffer per matrix). The slices must be equally long (an
    /// error names `b` or `c`). The buffers of each slice are stacked into one texture
    /// (one copy per buffer, no draw) and the products run as one strided batch, so many
    /// small products cost a few draws; buffers of a slice whose textures differ in width
    /// (lengths below one texture row that differ) run one sgemm each instead.
    ///
    /// Each product has sgemm's semantics and sgemm's argument positions.
    ///
    /// ```
    /// use fragblas::{Context, Layout, Transpose::NoTrans};
    /// let ctx = Context::new()?;
    /// let (a0, a1) = (ctx.upload(&[2.0])?, ctx.upload(&[4.0])?);
    /// let (b0, b1) = (ctx.upload(&[3.0])?, ctx.upload(&[5.0])?);
    /// let (mut c0, mut c1) = (ctx.zeros(1)?, ctx.zeros(1)?);
    /// ctx.sgemm_batched(Layout::ColMajor, NoTrans, NoTrans, 1, 1, 1, 1.0, &[&a0, &a1], 1, &[&b0, &b1], 1, 0.0, &mut [&mut c0, &mut c1], 1)?;
    /// assert_eq!((c0.to_vec()?, c1.to_vec()?), (vec![6.0], vec![20.0]));
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm_batched(
        &self,
        layout: Layout,
        transa: Transpose,
        transb: Transpose,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: &[&Buffer],
        lda: i32,
        b: &[&Buffer],
        ldb: i32,
        beta: f32,
        c: &mut [&mut Buffer],
        ldc: i32,
    ) -> Result<()> {
        let s = gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc)
            .map_err(|e| renamed(e, SLICES, &[]))?;
        let count = a.len();
        for (param, pos, len) in [("b", 10, b.len()), ("c", 13, c.len())] {
            if len != count {
                return Err(crate::blas::args::invalid(
                    SLICES,
                    param,
                    pos,
                    format!("holds {len} buffers where a holds {count}"),
                ));
            }
        }
        for x in a {
            x.check_owner(self, "a")?;
        }
        for x in b {
            x.check_owner(self, "b")?;
        }
        for x in c.iter() {
            x.check_owner(self, "c")?;
        }
        if count == 0 || s.quick_return(alpha, beta) {
            return Ok(());
        }
        for p in 0..count {
            s.check_lengths(alpha, a[p].len(), b[p].len(), c[p].len())
                .map_err(|e| match e {
                    Error::TooShort {
                        param, needed, len, ..
                    } => Error::TooShort {
                        routine: SLICES,
                        param,
                        needed,
                        len,
                    },
                    e => e,
                })?;
        }
        let product = alpha != 0.0 && s.k > 0;
        let same_width = |xs: &mut dyn Iterator<Item = TexLayout>| {
            let v: Vec<TexLayout> = xs.collect();
            v.windows(2).all(|w| w[0].width == w[1].width)
        };
        let stackable = same_width(&mut a.iter().map(|x| x.layout()))
            && same_width(&mut b.iter().map(|x| x.layout()))
            && same_width(&mut c.iter().map(|x| x.layout()));
        if !stackable {
            for p in 0..count {
                self.sgemm(
                    layout, transa, transb, m, n, k, alpha, a[p], lda, b[p], ldb, beta, c[p], ldc,
                )?;
            }
            return Ok(());
        }
        self.stacked(&s, product, (alpha, beta), a, b, c)?;
        self.inner.enter()?.check(SLICES)
    }
}
