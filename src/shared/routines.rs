//! Every routine of the device API and of the host API on the shared handle, one line per
//! routine: `device!` writes a [`SharedContext`] method that sends the call to the GL thread
//! with the buffers its handles name; `host!` writes a [`SharedCblas`] method that sends
//! copies of the host slices and copies the outputs back. A parameter is `name: &Buf` (a
//! buffer read), `name: &mut Buf` (a buffer written), `name: &Host` (a slice read),
//! `name: &mut Host` (a slice written) or `name: Type` (a value). A routine added to the
//! crate needs one line here.

use super::{SharedBuffer, SharedContext};
use crate::blas::types::{Diag, Layout, Side, Transpose, Uplo};
use crate::error::Result;
use crate::{GemmKernel, GemvKernel};

/// The host API through a [`SharedContext`] (see [`SharedContext::cblas`]).
#[derive(Clone, Copy)]
pub struct SharedCblas<'a> {
    pub(super) ctx: &'a SharedContext,
}

/// Writes device-API methods: see the module's notes.
macro_rules! device {
    ($( fn $name:ident ( $($params:tt)* ) -> $ret:ty ; )*) => {
        impl SharedContext {
            $( device!(@munch $name $ret [] [] [] [] $($params)* ,); )*
        }
    };
    // [signature] [buffers read] [buffers written] [call arguments]
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($r:ident)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : &mut Buf , $($rest:tt)*) => {
        device!(@munch $name $ret [$($sig)* $p: &mut SharedBuffer,] [$($r)*] [$($w)* $p]
            [$($arg)* (&mut *$p)] $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($r:ident)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : &Buf , $($rest:tt)*) => {
        device!(@munch $name $ret [$($sig)* $p: &SharedBuffer,] [$($r)* $p] [$($w)*]
            [$($arg)* (&*$p)] $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($r:ident)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : $t:ty , $($rest:tt)*) => {
        device!(@munch $name $ret [$($sig)* $p: $t,] [$($r)*] [$($w)*] [$($arg)* ($p)]
            $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($r:ident)*] [$($w:ident)*]
        [$(($($arg:tt)*))*] $(,)?) => {
        #[doc = concat!("[`Context::", stringify!($name), "`](crate::Context::",
            stringify!($name), ") on the GL thread, with the buffers the handles name.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(&self, $($sig)*) -> Result<$ret> {
            $( self.check_owner($r, stringify!($r))?; let $r = $r.id; )*
            $( self.check_owner($w, stringify!($w))?; let $w = $w.id; )*
            self.call(move |st| {
                $( let $r = st.buf($r)?; )*
                $( let mut $w = st.buf_mut($w)?; )*
                st.ctx.$name($($($arg)*),*)
            })
        }
    };
}

/// Writes host-API methods: see the module's notes.
macro_rules! host {
    ($( fn $name:ident ( $($params:tt)* ) -> $ret:ty ; )*) => {
        impl SharedCblas<'_> {
            $( host!(@munch $name $ret [] [] [] $($params)* ,); )*
        }
    };
    // [signature] [slices written] [call arguments]
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : &mut Host , $($rest:tt)*) => {
        host!(@munch $name $ret [$($sig)* $p: &mut [f32],] [$($w)* $p] [$($arg)* (&mut $p)]
            $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : &Host , $($rest:tt)*) => {
        host!(@munch $name $ret [$($sig)* $p: &[f32],] [$($w)*] [$($arg)* (&$p)] $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($sig:tt)*] [$($w:ident)*] [$($arg:tt)*]
        $p:ident : $t:ty , $($rest:tt)*) => {
        host!(@munch $name $ret [$($sig)* $p: $t,] [$($w)*] [$($arg)* ($p)] $($rest)*);
    };
    (@munch $name:ident $ret:ty [$($p:ident : $t:ty,)*] [$($w:ident)*] [$(($($arg:tt)*))*]
        $(,)?) => {
        #[doc = concat!("[`cblas::", stringify!($name), "`](crate::cblas::", stringify!($name),
            ") on the GL thread: the slices are copied there and the outputs back.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(&self, $($p: $t),*) -> Result<$ret> {
            // Each written slice becomes (the caller's slice, an owned copy); the copies
            // travel, the slices wait for them.
            $( let $w = { let v = $w.to_vec(); ($w, v) }; )*
            let back: Vec<&mut [f32]> = vec![$($w.0),*];
            $( let $w = $w.1; )*
            host!(@own $($p)*);
            let (r, outs) = self.ctx.call(move |st| {
                $( let mut $w = $w; )*
                let r = crate::cblas::$name(&st.ctx, $($($arg)*),*)?;
                let outs: Vec<Vec<f32>> = vec![$($w),*];
                Ok((r, outs))
            })?;
            for (dst, src) in back.into_iter().zip(outs) {
                dst.copy_from_slice(&src);
            }
            Ok(r)
        }
    };
    // Turns every slice read into an owned copy (values and outputs are owned already).
    (@own $($p:ident)*) => { $( let $p = $crate::shared::routines::Own::own($p); )* };
}

/// What a host-API parameter becomes to travel to the GL thread: slices an owned vector,
/// everything else itself.
pub(crate) trait Own {
    /// The owned form.
    type Owned: Send + 'static;
    /// Converts.
    fn own(self) -> Self::Owned;
}

impl Own for &[f32] {
    type Owned = Vec<f32>;
    fn own(self) -> Vec<f32> {
        self.to_vec()
    }
}

/// Values (and the outputs' owned copies) travel as they are.
macro_rules! own_as_is {
    ($($t:ty),*) => { $( impl Own for $t { type Owned = $t; fn own(self) -> $t { self } } )* };
}
own_as_is!(i32, f32, Layout, Transpose, Uplo, Diag, Side, Vec<f32>);

device! {
    fn sscal(n: i32, alpha: f32, x: &mut Buf, incx: i32) -> ();
    fn scopy(n: i32, x: &Buf, incx: i32, y: &mut Buf, incy: i32) -> ();
    fn sswap(n: i32, x: &mut Buf, incx: i32, y: &mut Buf, incy: i32) -> ();
    fn saxpy(n: i32, alpha: f32, x: &Buf, incx: i32, y: &mut Buf, incy: i32) -> ();
    fn srot(n: i32, x: &mut Buf, incx: i32, y: &mut Buf, incy: i32, c: f32, s: f32) -> ();
    fn sdot(n: i32, x: &Buf, incx: i32, y: &Buf, incy: i32) -> f32;
    fn sdsdot(n: i32, sb: f32, x: &Buf, incx: i32, y: &Buf, incy: i32) -> f32;
    fn dsdot(n: i32, x: &Buf, incx: i32, y: &Buf, incy: i32) -> f64;
    fn sasum(n: i32, x: &Buf, incx: i32) -> f32;
    fn snrm2(n: i32, x: &Buf, incx: i32) -> f32;
    fn isamax(n: i32, x: &Buf, incx: i32) -> Option<usize>;
    fn sgemv(layout: Layout, trans: Transpose, m: i32, n: i32, alpha: f32, a: &Buf, lda: i32, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn sgemv_with(kernel: GemvKernel, layout: Layout, trans: Transpose, m: i32, n: i32, alpha: f32, a: &Buf, lda: i32, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn sgbmv(layout: Layout, trans: Transpose, m: i32, n: i32, kl: i32, ku: i32, alpha: f32, a: &Buf, lda: i32, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn ssymv(layout: Layout, uplo: Uplo, n: i32, alpha: f32, a: &Buf, lda: i32, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn ssbmv(layout: Layout, uplo: Uplo, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn sspmv(layout: Layout, uplo: Uplo, n: i32, alpha: f32, ap: &Buf, x: &Buf, incx: i32, beta: f32, y: &mut Buf, incy: i32) -> ();
    fn strmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, a: &Buf, lda: i32, x: &mut Buf, incx: i32) -> ();
    fn stbmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, k: i32, a: &Buf, lda: i32, x: &mut Buf, incx: i32) -> ();
    fn stpmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, ap: &Buf, x: &mut Buf, incx: i32) -> ();
    fn strsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, a: &Buf, lda: i32, x: &mut Buf, incx: i32) -> ();
    fn stbsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, k: i32, a: &Buf, lda: i32, x: &mut Buf, incx: i32) -> ();
    fn stpsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, ap: &Buf, x: &mut Buf, incx: i32) -> ();
    fn sger(layout: Layout, m: i32, n: i32, alpha: f32, x: &Buf, incx: i32, y: &Buf, incy: i32, a: &mut Buf, lda: i32) -> ();
    fn ssyr(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Buf, incx: i32, a: &mut Buf, lda: i32) -> ();
    fn sspr(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Buf, incx: i32, ap: &mut Buf) -> ();
    fn ssyr2(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Buf, incx: i32, y: &Buf, incy: i32, a: &mut Buf, lda: i32) -> ();
    fn sspr2(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Buf, incx: i32, y: &Buf, incy: i32, ap: &mut Buf) -> ();
    fn sgemm(layout: Layout, transa: Transpose, transb: Transpose, m: i32, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, b: &Buf, ldb: i32, beta: f32, c: &mut Buf, ldc: i32) -> ();
    fn sgemm_with(kernel: GemmKernel, layout: Layout, transa: Transpose, transb: Transpose, m: i32, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, b: &Buf, ldb: i32, beta: f32, c: &mut Buf, ldc: i32) -> ();
    fn ssymm(layout: Layout, side: Side, uplo: Uplo, m: i32, n: i32, alpha: f32, a: &Buf, lda: i32, b: &Buf, ldb: i32, beta: f32, c: &mut Buf, ldc: i32) -> ();
    fn ssyrk(layout: Layout, uplo: Uplo, trans: Transpose, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, beta: f32, c: &mut Buf, ldc: i32) -> ();
    fn ssyr2k(layout: Layout, uplo: Uplo, trans: Transpose, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, b: &Buf, ldb: i32, beta: f32, c: &mut Buf, ldc: i32) -> ();
    fn strmm(layout: Layout, side: Side, uplo: Uplo, transa: Transpose, diag: Diag, m: i32, n: i32, alpha: f32, a: &Buf, lda: i32, b: &mut Buf, ldb: i32) -> ();
    fn strsm(layout: Layout, side: Side, uplo: Uplo, transa: Transpose, diag: Diag, m: i32, n: i32, alpha: f32, a: &Buf, lda: i32, b: &mut Buf, ldb: i32) -> ();
    fn sgemm_batched_strided(layout: Layout, transa: Transpose, transb: Transpose, m: i32, n: i32, k: i32, alpha: f32, a: &Buf, lda: i32, stride_a: i64, b: &Buf, ldb: i32, stride_b: i64, beta: f32, c: &mut Buf, ldc: i32, stride_c: i64, batch_count: i32) -> ();
}

host! {
    fn sscal(n: i32, alpha: f32, x: &mut Host, incx: i32) -> ();
    fn scopy(n: i32, x: &Host, incx: i32, y: &mut Host, incy: i32) -> ();
    fn sswap(n: i32, x: &mut Host, incx: i32, y: &mut Host, incy: i32) -> ();
    fn saxpy(n: i32, alpha: f32, x: &Host, incx: i32, y: &mut Host, incy: i32) -> ();
    fn srot(n: i32, x: &mut Host, incx: i32, y: &mut Host, incy: i32, c: f32, s: f32) -> ();
    fn sdot(n: i32, x: &Host, incx: i32, y: &Host, incy: i32) -> f32;
    fn sdsdot(n: i32, sb: f32, x: &Host, incx: i32, y: &Host, incy: i32) -> f32;
    fn dsdot(n: i32, x: &Host, incx: i32, y: &Host, incy: i32) -> f64;
    fn sasum(n: i32, x: &Host, incx: i32) -> f32;
    fn snrm2(n: i32, x: &Host, incx: i32) -> f32;
    fn isamax(n: i32, x: &Host, incx: i32) -> usize;
    fn sgemv(layout: Layout, trans: Transpose, m: i32, n: i32, alpha: f32, a: &Host, lda: i32, x: &Host, incx: i32, beta: f32, y: &mut Host, incy: i32) -> ();
    fn sgbmv(layout: Layout, trans: Transpose, m: i32, n: i32, kl: i32, ku: i32, alpha: f32, a: &Host, lda: i32, x: &Host, incx: i32, beta: f32, y: &mut Host, incy: i32) -> ();
    fn ssymv(layout: Layout, uplo: Uplo, n: i32, alpha: f32, a: &Host, lda: i32, x: &Host, incx: i32, beta: f32, y: &mut Host, incy: i32) -> ();
    fn ssbmv(layout: Layout, uplo: Uplo, n: i32, k: i32, alpha: f32, a: &Host, lda: i32, x: &Host, incx: i32, beta: f32, y: &mut Host, incy: i32) -> ();
    fn sspmv(layout: Layout, uplo: Uplo, n: i32, alpha: f32, ap: &Host, x: &Host, incx: i32, beta: f32, y: &mut Host, incy: i32) -> ();
    fn strmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, a: &Host, lda: i32, x: &mut Host, incx: i32) -> ();
    fn stbmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, k: i32, a: &Host, lda: i32, x: &mut Host, incx: i32) -> ();
    fn stpmv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, ap: &Host, x: &mut Host, incx: i32) -> ();
    fn strsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, a: &Host, lda: i32, x: &mut Host, incx: i32) -> ();
    fn stbsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, k: i32, a: &Host, lda: i32, x: &mut Host, incx: i32) -> ();
    fn stpsv(layout: Layout, uplo: Uplo, trans: Transpose, diag: Diag, n: i32, ap: &Host, x: &mut Host, incx: i32) -> ();
    fn sger(layout: Layout, m: i32, n: i32, alpha: f32, x: &Host, incx: i32, y: &Host, incy: i32, a: &mut Host, lda: i32) -> ();
    fn ssyr(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Host, incx: i32, a: &mut Host, lda: i32) -> ();
    fn sspr(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Host, incx: i32, ap: &mut Host) -> ();
    fn ssyr2(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Host, incx: i32, y: &Host, incy: i32, a: &mut Host, lda: i32) -> ();
    fn sspr2(layout: Layout, uplo: Uplo, n: i32, alpha: f32, x: &Host, incx: i32, y: &Host, incy: i32, ap: &mut Host) -> ();
    fn sgemm(layout: Layout, transa: Transpose, transb: Transpose, m: i32, n: i32, k: i32, alpha: f32, a: &Host, lda: i32, b: &Host, ldb: i32, beta: f32, c: &mut Host, ldc: i32) -> ();
    fn ssymm(layout: Layout, side: Side, uplo: Uplo, m: i32, n: i32, alpha: f32, a: &Host, lda: i32, b: &Host, ldb: i32, beta: f32, c: &mut Host, ldc: i32) -> ();
    fn ssyrk(layout: Layout, uplo: Uplo, trans: Transpose, n: i32, k: i32, alpha: f32, a: &Host, lda: i32, beta: f32, c: &mut Host, ldc: i32) -> ();
    fn ssyr2k(layout: Layout, uplo: Uplo, trans: Transpose, n: i32, k: i32, alpha: f32, a: &Host, lda: i32, b: &Host, ldb: i32, beta: f32, c: &mut Host, ldc: i32) -> ();
    fn strmm(layout: Layout, side: Side, uplo: Uplo, transa: Transpose, diag: Diag, m: i32, n: i32, alpha: f32, a: &Host, lda: i32, b: &mut Host, ldb: i32) -> ();
    fn strsm(layout: Layout, side: Side, uplo: Uplo, transa: Transpose, diag: Diag, m: i32, n: i32, alpha: f32, a: &Host, lda: i32, b: &mut Host, ldb: i32) -> ();
}

/// The routines whose arguments the macros do not cover: results that are buffers, slices
/// of buffers, an array parameter, and the host-only rotations.
impl SharedContext {
    /// [`Context::srotm`](crate::Context::srotm) on the GL thread.
    #[allow(clippy::too_many_arguments)]
    pub fn srotm(
        &self,
        n: i32,
        x: &mut SharedBuffer,
        incx: i32,
        y: &mut SharedBuffer,
        incy: i32,
        param: &[f32; 5],
    ) -> Result<()> {
        self.check_owner(x, "x")?;
        self.check_owner(y, "y")?;
        let (x, y, param) = (x.id, y.id, *param);
        self.call(move |st| {
            let (mut x, mut y) = (st.buf_mut(x)?, st.buf_mut(y)?);
            st.ctx.srotm(n, &mut x, incx, &mut y, incy, &param)
        })
    }

    /// [`Context::sdot_device`](crate::Context::sdot_device): the result stays on the GPU,
    /// in a new one-element buffer.
    pub fn sdot_device(
        &self,
        n: i32,
        x: &SharedBuffer,
        incx: i32,
        y: &SharedBuffer,
        incy: i32,
    ) -> Result<SharedBuffer> {
        self.check_owner(x, "x")?;
        self.check_owner(y, "y")?;
        let (x, y) = (x.id, y.id);
        self.new_buffer(move |st| {
            st.ctx
                .sdot_device(n, &*st.buf(x)?, incx, &*st.buf(y)?, incy)
        })
    }

    /// [`Context::sasum_device`](crate::Context::sasum_device) into a new buffer.
    pub fn sasum_device(&self, n: i32, x: &SharedBuffer, incx: i32) -> Result<SharedBuffer> {
        self.check_owner(x, "x")?;
        let x = x.id;
        self.new_buffer(move |st| st.ctx.sasum_device(n, &*st.buf(x)?, incx))
    }

    /// [`Context::snrm2_device`](crate::Context::snrm2_device) into a new buffer.
    pub fn snrm2_device(&self, n: i32, x: &SharedBuffer, incx: i32) -> Result<SharedBuffer> {
        self.check_owner(x, "x")?;
        let x = x.id;
        self.new_buffer(move |st| st.ctx.snrm2_device(n, &*st.buf(x)?, incx))
    }

    /// [`Context::sgemm_batched`](crate::Context::sgemm_batched) on the GL thread.
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
        a: &[&SharedBuffer],
        lda: i32,
        b: &[&SharedBuffer],
        ldb: i32,
        beta: f32,
        c: &mut [&mut SharedBuffer],
        ldc: i32,
    ) -> Result<()> {
        let ids = |xs: &[&SharedBuffer], param| -> Result<Vec<u64>> {
            xs.iter()
                .map(|x| self.check_owner(x, param).map(|_| x.id))
                .collect()
        };
        let (a, b) = (ids(a, "a")?, ids(b, "b")?);
        let c: Vec<u64> = c
            .iter()
            .map(|x| self.check_owner(x, "c").map(|_| x.id))
            .collect::<Result<_>>()?;
        self.call(move |st| {
            let ra = a.iter().map(|id| st.buf(*id)).collect::<Result<Vec<_>>>()?;
            let rb = b.iter().map(|id| st.buf(*id)).collect::<Result<Vec<_>>>()?;
            let mut rc = c
                .iter()
                .map(|id| st.buf_mut(*id))
                .collect::<Result<Vec<_>>>()?;
            let ga: Vec<&crate::Buffer> = ra.iter().map(|r| &**r).collect();
            let gb: Vec<&crate::Buffer> = rb.iter().map(|r| &**r).collect();
            let mut gc: Vec<&mut crate::Buffer> = rc.iter_mut().map(|r| &mut **r).collect();
            st.ctx.sgemm_batched(
                layout, transa, transb, m, n, k, alpha, &ga, lda, &gb, ldb, beta, &mut gc, ldc,
            )
        })
    }

    /// [`Context::srotg`](crate::Context::srotg): on the host, no GPU work.
    pub fn srotg(&self, a: &mut f32, b: &mut f32) -> (f32, f32) {
        let (mut c, mut s) = (0.0, 0.0);
        crate::cblas::srotg(a, b, &mut c, &mut s);
        (c, s)
    }

    /// [`Context::srotmg`](crate::Context::srotmg): on the host, no GPU work.
    pub fn srotmg(&self, d1: &mut f32, d2: &mut f32, x1: &mut f32, y1: f32, param: &mut [f32; 5]) {
        crate::cblas::srotmg(d1, d2, x1, y1, param);
    }
}

impl SharedCblas<'_> {
    /// [`cblas::srotm`](crate::cblas::srotm) on the GL thread.
    #[allow(clippy::too_many_arguments)]
    pub fn srotm(
        &self,
        n: i32,
        x: &mut [f32],
        incx: i32,
        y: &mut [f32],
        incy: i32,
        param: &[f32; 5],
    ) -> Result<()> {
        let (mut ox, mut oy, param) = (x.to_vec(), y.to_vec(), *param);
        let (ox2, oy2) = self.ctx.call(move |st| {
            crate::cblas::srotm(&st.ctx, n, &mut ox, incx, &mut oy, incy, &param)?;
            Ok((ox, oy))
        })?;
        x.copy_from_slice(&ox2);
        y.copy_from_slice(&oy2);
        Ok(())
    }
}
