//! sgemm: C := alpha*op(A)*op(B) + beta*C, with a generic kernel and the vectorised 4x4
//! kernel that reads operands packed by a reorder pass.

use crate::blas::shape::{gemm_shape, GemmShape, Layout, Transpose};
use crate::buffer::Buffer;
use crate::context::{Context, Inner};
use crate::error::{Error, Result};
use crate::gl::{Gl, Program, Surface};
use crate::kernels::Kernel;

/// Which sgemm kernel runs. `Auto` is the default; the others exist so that tests and
/// benchmarks can reach each kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GemmKernel {
    /// The widest register-tiled kernel the device's draw buffers allow, wherever its packed
    /// textures fit the device, else generic.
    Auto,
    /// Scalar fetches straight from the user's buffers: any shape, no scratch textures.
    Generic,
    /// Reorder pass into packed textures, then 16 multiply-adds per 5 vec4 fetches.
    Vec4,
    /// Reorder pass, then a 4-row x 4-column register tile per fragment written to 4
    /// render targets: 64 multiply-adds per 8 vec4 fetches.
    Mrt4,
    /// As `Mrt4` with 8 columns and 8 render targets: 128 multiply-adds per 12 fetches.
    /// Needs a device with 8 draw buffers.
    Mrt8,
}

impl GemmKernel {
    /// Render targets the kernel writes at once.
    pub fn draw_buffers(self) -> u32 {
        match self {
            GemmKernel::Mrt8 => 8,
            GemmKernel::Mrt4 => 4,
            _ => 1,
        }
    }
}

/// Whether the packed textures of the vectorised path fit a device with textures of at most
/// `max` texels on a side.
pub(crate) fn vec4_fits(s: &GemmShape, max: u32) -> bool {
    let max = max as usize;
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    mb <= max && 4 * kb <= max && s.n <= max
}

/// Sets the uniforms every pass that writes C shares: C's window and the BLAS scalars.
fn set_update_uniforms(gl: &Gl, p: &Program, s: &GemmShape, alpha: f32, beta: f32) {
    gl.set_i32(p, "ldc", s.ldc as i32);
    gl.set_i32(p, "m", s.m as i32);
    gl.set_i32(p, "n", s.n as i32);
    gl.set_f32(p, "alpha", alpha);
    gl.set_f32(p, "beta", beta);
}

/// Generic kernel over C's texture; `k = 0` skips A and B.
#[allow(clippy::too_many_arguments)]
fn generic_pass(
    inner: &Inner,
    s: &GemmShape,
    k: usize,
    alpha: f32,
    a: &Buffer,
    b: &Buffer,
    beta: f32,
    c: &Buffer,
) -> Result<Surface> {
    let prog = inner.program(Kernel::GemmGeneric)?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    a.bind(gl, &prog, 0, "a", "a_width");
    b.bind(gl, &prog, 1, "b", "b_width");
    c.bind(gl, &prog, 2, "c", "c_width");
    gl.set_i32(&prog, "lda", s.a.ld as i32);
    gl.set_i32(&prog, "a_trans", s.a.trans as i32);
    gl.set_i32(&prog, "ldb", s.b.ld as i32);
    gl.set_i32(&prog, "b_trans", s.b.trans as i32);
    gl.set_i32(&prog, "k", k as i32);
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    Ok(out)
}

/// Reorder pass: packs op(M) (rows x cols, stored with `ld`, transposed if `trans`) into a
/// `ceil(rows/4)` x `height` texture, zero-padded.
#[allow(clippy::too_many_arguments)]
fn pack(
    inner: &Inner,
    src: &Buffer,
    ld: usize,
    trans: bool,
    rows: usize,
    cols: usize,
    height: usize,
) -> Result<Surface> {
    let prog = inner.program(Kernel::GemmPack)?;
    let w = rows.div_ceil(4).max(1) as u32;
    let h = height.max(1) as u32;
    let out = inner.take_surface(w, h)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    src.bind(gl, &prog, 0, "src", "src_width");
    gl.set_i32(&prog, "ld", ld as i32);
    gl.set_i32(&prog, "trans", trans as i32);
    gl.set_i32(&prog, "rows", rows as i32);
    gl.set_i32(&prog, "cols", cols as i32);
    gl.draw(&[&out], w, h);
    Ok(out)
}

/// Vectorised path: pack op(A) and op(B), multiply, merge into a new C texture.
#[allow(clippy::too_many_arguments)]
fn vec4_passes(
    inner: &Inner,
    s: &GemmShape,
    alpha: f32,
    a: &Buffer,
    b: &Buffer,
    beta: f32,
    c: &Buffer,
) -> Result<Surface> {
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    let ap = pack(inner, a, s.a.ld, s.a.trans, s.m, s.k, 4 * kb)?;
    let bp = pack(inner, b, s.b.ld, s.b.trans, s.k, s.n, s.n)?;
    let prod = inner.take_surface(mb as u32, s.n as u32)?;
    let prog = inner.program(Kernel::GemmVec4)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "ap", 0, &ap);
    gl.set_texture(&prog, "bp", 1, &bp);
    gl.set_i32(&prog, "k4", kb as i32);
    gl.draw(&[&prod], mb as u32, s.n as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    let prog = inner.program(Kernel::GemmMerge)?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "prod", 0, &prod);
    c.bind(gl, &prog, 1, "c", "c_width");
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    inner.give_surface(prod);
    Ok(out)
}

/// Register-tiled path: pack op(A) and op(B), multiply into `cols` targets, merge into C.
#[allow(clippy::too_many_arguments)]
fn mrt_passes(
    inner: &Inner,
    cols: usize,
    s: &GemmShape,
    alpha: f32,
    a: &Buffer,
    b: &Buffer,
    beta: f32,
    c: &Buffer,
) -> Result<Surface> {
    let (mul, merge) = if cols == 8 {
        (Kernel::GemmMrt8, Kernel::GemmMergeMrt8)
    } else {
        (Kernel::GemmMrt4, Kernel::GemmMergeMrt4)
    };
    let (mb, kb, nb) = (s.m.div_ceil(4), s.k.div_ceil(4), s.n.div_ceil(cols));
    let ap = pack(inner, a, s.a.ld, s.a.trans, s.m, s.k, 4 * kb)?;
    let bp = pack(inner, b, s.b.ld, s.b.trans, s.k, s.n, s.n)?;
    let mut prods = Vec::with_capacity(cols);
    for _ in 0..cols {
        prods.push(inner.take_surface(mb as u32, nb as u32)?);
    }
    let prog = inner.program(mul)?;
    let gl = inner.enter()?;
    gl.use_program(&prog);
    gl.set_texture(&prog, "ap", 0, &ap);
    gl.set_texture(&prog, "bp", 1, &bp);
    gl.set_i32(&prog, "k4", kb as i32);
    gl.set_i32(&prog, "n", s.n as i32);
    let targets: Vec<&Surface> = prods.iter().collect();
    gl.draw(&targets, mb as u32, nb as u32);
    inner.give_surface(ap);
    inner.give_surface(bp);

    const NAMES: [&str; 8] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    let prog = inner.program(merge)?;
    let cl = c.layout();
    let out = inner.take_surface(cl.width, cl.height)?;
    gl.use_program(&prog);
    for (i, p) in prods.iter().enumerate() {
        gl.set_texture(&prog, NAMES[i], i as u32, p);
    }
    c.bind(gl, &prog, cols as u32, "c", "c_width");
    set_update_uniforms(gl, &prog, s, alpha, beta);
    gl.draw(&[&out], cl.width, cl.height);
    for p in prods {
        inner.give_surface(p);
    }
    Ok(out)
}

impl Context {
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
        // In column-major form A and B are the user's B and A for a row-major call.
        let (ca, cb, a_name, b_name) = if s.swapped {
            (b, a, "b", "a")
        } else {
            (a, b, "a", "b")
        };
        for (buf, name, needed) in [
            (ca, a_name, s.a_span()),
            (cb, b_name, s.b_span()),
            (&*c, "c", s.c_span()),
        ] {
            if needed > buf.len() {
                return Err(Error::TooShort {
                    routine: R,
                    param: name,
                    needed,
                    len: buf.len(),
                });
            }
        }
        if s.m == 0 || s.n == 0 || ((alpha == 0.0 || s.k == 0) && beta == 1.0) {
            return Ok(());
        }
        let inner = &self.inner;
        let out = if alpha == 0.0 || s.k == 0 {
            generic_pass(inner, &s, 0, alpha, ca, cb, beta, c)?
        } else {
            let fits = vec4_fits(&s, inner.info_max_texture());
            let draw_buffers = self.info().max_draw_buffers;
            let kernel = match kernel {
                GemmKernel::Auto if !fits => GemmKernel::Generic,
                GemmKernel::Auto if draw_buffers >= 8 => GemmKernel::Mrt8,
                GemmKernel::Auto if draw_buffers >= 4 => GemmKernel::Mrt4,
                GemmKernel::Auto => GemmKernel::Vec4,
                k => k,
            };
            if kernel.draw_buffers() > draw_buffers {
                return Err(Error::Unsupported(format!(
                    "sgemm: kernel {kernel:?} needs {} draw buffers, the device has {draw_buffers}",
                    kernel.draw_buffers()
                )));
            }
            match kernel {
                GemmKernel::Generic | GemmKernel::Auto => {
                    generic_pass(inner, &s, s.k, alpha, ca, cb, beta, c)?
                }
                _ if !fits => {
                    return Err(Error::Unsupported(format!(
                        "sgemm: the vectorised kernel's packed textures for m={}, n={}, k={} \
                         exceed the max texture size {}; use GemmKernel::Auto or Generic",
                        s.m,
                        s.n,
                        s.k,
                        inner.info_max_texture()
                    )))
                }
                GemmKernel::Vec4 => vec4_passes(inner, &s, alpha, ca, cb, beta, c)?,
                GemmKernel::Mrt4 => mrt_passes(inner, 4, &s, alpha, ca, cb, beta, c)?,
                GemmKernel::Mrt8 => mrt_passes(inner, 8, &s, alpha, ca, cb, beta, c)?,
            }
        };
        let old = c.replace_surface(out);
        inner.give_surface(old);
        inner.enter()?.check(R)
    }
}
