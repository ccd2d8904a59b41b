//! Level 1, each as `cblas_*` and as the Fortran `*_` symbol. `srotg` and `srotmg` are
//! scalar routines computed on the host as reference BLAS does (on the CPU BLAS with
//! `FRAGBLAS_ROUTE=cpu`); `isamax` is 0-based through CBLAS and 1-based through Fortran.

use std::ffi::c_int;

use fragblas_core::cblas;

use crate::cpu::is_forwarding;
use crate::dispatch::no_enums;
use crate::route::{config, Mode, Work};
use crate::xerbla::Api;
use crate::{export, go};

/// Whether a scalar routine should run on the CPU BLAS rather than the crate's host code.
fn scalar_on_cpu() -> bool {
    is_forwarding() || config().mode == Mode::Cpu
}

/// Reads the five entries of `param`.
///
/// # Safety
/// `p` addresses five floats.
unsafe fn param5(p: *const f32) -> [f32; 5] {
    // SAFETY: as documented.
    unsafe { std::ptr::read_unaligned(p as *const [f32; 5]) }
}

export! {
    /// `y := alpha*x + y`.
    fn cblas_saxpy(n: c_int, alpha: f32, x: *const f32, incx: c_int, y: *mut f32, incy: c_int) => |cpu| {
        go!("saxpy", Api::Cblas, Work::level1(n, 2, 1), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::saxpy(ctx, n, alpha, s.r(0), incx, s.w(1), incy))
    }
}

export! {
    /// Fortran SAXPY.
    fn saxpy_(n: *const c_int, alpha: *const f32, x: *const f32, incx: *const c_int, y: *mut f32, incy: *const c_int) => |cpu| {
        let (n, alpha, incx, incy) = (*n, *alpha, *incx, *incy);
        go!("saxpy", Api::Fortran, Work::level1(n, 2, 1), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::saxpy(ctx, n, alpha, s.r(0), incx, s.w(1), incy))
    }
}

export! {
    /// `y := x`.
    fn cblas_scopy(n: c_int, x: *const f32, incx: c_int, y: *mut f32, incy: c_int) => |cpu| {
        go!("scopy", Api::Cblas, Work::level1(n, 1, 1), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::scopy(ctx, n, s.r(0), incx, s.w(1), incy))
    }
}

export! {
    /// Fortran SCOPY.
    fn scopy_(n: *const c_int, x: *const f32, incx: *const c_int, y: *mut f32, incy: *const c_int) => |cpu| {
        let (n, incx, incy) = (*n, *incx, *incy);
        go!("scopy", Api::Fortran, Work::level1(n, 1, 1), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::scopy(ctx, n, s.r(0), incx, s.w(1), incy))
    }
}

export! {
    /// Swaps x and y.
    fn cblas_sswap(n: c_int, x: *mut f32, incx: c_int, y: *mut f32, incy: c_int) => |cpu| {
        go!("sswap", Api::Cblas, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sswap(ctx, n, s.w(0), incx, s.w(1), incy))
    }
}

export! {
    /// Fortran SSWAP.
    fn sswap_(n: *const c_int, x: *mut f32, incx: *const c_int, y: *mut f32, incy: *const c_int) => |cpu| {
        let (n, incx, incy) = (*n, *incx, *incy);
        go!("sswap", Api::Fortran, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sswap(ctx, n, s.w(0), incx, s.w(1), incy))
    }
}

export! {
    /// Applies the plane rotation (c, s) to x and y.
    fn cblas_srot(n: c_int, x: *mut f32, incx: c_int, y: *mut f32, incy: c_int, c: f32, s: f32) => |cpu| {
        go!("srot", Api::Cblas, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, sl, _| cblas::srot(ctx, n, sl.w(0), incx, sl.w(1), incy, c, s))
    }
}

export! {
    /// Fortran SROT.
    fn srot_(n: *const c_int, x: *mut f32, incx: *const c_int, y: *mut f32, incy: *const c_int, c: *const f32, s: *const f32) => |cpu| {
        let (n, incx, incy, c, s) = (*n, *incx, *incy, *c, *s);
        go!("srot", Api::Fortran, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, sl, _| cblas::srot(ctx, n, sl.w(0), incx, sl.w(1), incy, c, s))
    }
}

export! {
    /// Applies the modified rotation `param` to x and y.
    fn cblas_srotm(n: c_int, x: *mut f32, incx: c_int, y: *mut f32, incy: c_int, param: *const f32) => |cpu| {
        let p = param5(param);
        go!("srotm", Api::Cblas, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::srotm(ctx, n, s.w(0), incx, s.w(1), incy, &p))
    }
}

export! {
    /// Fortran SROTM.
    fn srotm_(n: *const c_int, x: *mut f32, incx: *const c_int, y: *mut f32, incy: *const c_int, param: *const f32) => |cpu| {
        let (n, incx, incy, p) = (*n, *incx, *incy, param5(param));
        go!("srotm", Api::Fortran, Work::level1(n, 2, 2), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::srotm(ctx, n, s.w(0), incx, s.w(1), incy, &p))
    }
}

export! {
    /// `x := alpha*x`.
    fn cblas_sscal(n: c_int, alpha: f32, x: *mut f32, incx: c_int) => |cpu| {
        go!("sscal", Api::Cblas, Work::level1(n, 1, 1), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::sscal(ctx, n, alpha, s.w(0), incx))
    }
}

export! {
    /// Fortran SSCAL.
    fn sscal_(n: *const c_int, alpha: *const f32, x: *mut f32, incx: *const c_int) => |cpu| {
        let (n, alpha, incx) = (*n, *alpha, *incx);
        go!("sscal", Api::Fortran, Work::level1(n, 1, 1), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::sscal(ctx, n, alpha, s.w(0), incx))
    }
}

export! {
    /// `x . y`.
    fn cblas_sdot(n: c_int, x: *const f32, incx: c_int, y: *const f32, incy: c_int) -> f32 => |cpu| {
        go!("sdot", Api::Cblas, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sdot(ctx, n, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// Fortran SDOT (a REAL function).
    fn sdot_(n: *const c_int, x: *const f32, incx: *const c_int, y: *const f32, incy: *const c_int) -> f32 => |cpu| {
        let (n, incx, incy) = (*n, *incx, *incy);
        go!("sdot", Api::Fortran, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sdot(ctx, n, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// `sb + x . y` accumulated in double precision.
    fn cblas_sdsdot(n: c_int, sb: f32, x: *const f32, incx: c_int, y: *const f32, incy: c_int) -> f32 => |cpu| {
        go!("sdsdot", Api::Cblas, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sdsdot(ctx, n, sb, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// Fortran SDSDOT.
    fn sdsdot_(n: *const c_int, sb: *const f32, x: *const f32, incx: *const c_int, y: *const f32, incy: *const c_int) -> f32 => |cpu| {
        let (n, sb, incx, incy) = (*n, *sb, *incx, *incy);
        go!("sdsdot", Api::Fortran, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::sdsdot(ctx, n, sb, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// `x . y` accumulated and returned in double precision.
    fn cblas_dsdot(n: c_int, x: *const f32, incx: c_int, y: *const f32, incy: c_int) -> f64 => |cpu| {
        go!("dsdot", Api::Cblas, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::dsdot(ctx, n, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// Fortran DSDOT (a DOUBLE PRECISION function).
    fn dsdot_(n: *const c_int, x: *const f32, incx: *const c_int, y: *const f32, incy: *const c_int) -> f64 => |cpu| {
        let (n, incx, incy) = (*n, *incx, *incy);
        go!("dsdot", Api::Fortran, Work::level1(n, 2, 0), cpu, no_enums, ["x", "y"], [x, y],
            move |ctx, s, _| cblas::dsdot(ctx, n, s.r(0), incx, s.r(1), incy))
    }
}

export! {
    /// `sum |x_i|`.
    fn cblas_sasum(n: c_int, x: *const f32, incx: c_int) -> f32 => |cpu| {
        go!("sasum", Api::Cblas, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::sasum(ctx, n, s.r(0), incx))
    }
}

export! {
    /// Fortran SASUM.
    fn sasum_(n: *const c_int, x: *const f32, incx: *const c_int) -> f32 => |cpu| {
        let (n, incx) = (*n, *incx);
        go!("sasum", Api::Fortran, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::sasum(ctx, n, s.r(0), incx))
    }
}

export! {
    /// The Euclidean norm of x.
    fn cblas_snrm2(n: c_int, x: *const f32, incx: c_int) -> f32 => |cpu| {
        go!("snrm2", Api::Cblas, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::snrm2(ctx, n, s.r(0), incx))
    }
}

export! {
    /// Fortran SNRM2.
    fn snrm2_(n: *const c_int, x: *const f32, incx: *const c_int) -> f32 => |cpu| {
        let (n, incx) = (*n, *incx);
        go!("snrm2", Api::Fortran, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::snrm2(ctx, n, s.r(0), incx))
    }
}

export! {
    /// The 0-based index of the first largest `|x_i|` (0 when there is none).
    fn cblas_isamax(n: c_int, x: *const f32, incx: c_int) -> usize => |cpu| {
        go!("isamax", Api::Cblas, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| cblas::isamax(ctx, n, s.r(0), incx))
    }
}

export! {
    /// Fortran ISAMAX: the 1-based index (0 when `n < 1` or `incx <= 0`).
    fn isamax_(n: *const c_int, x: *const f32, incx: *const c_int) -> c_int => |cpu| {
        let (n, incx) = (*n, *incx);
        go!("isamax", Api::Fortran, Work::level1(n, 1, 0), cpu, no_enums, ["x"], [x],
            move |ctx, s, _| {
                let i = cblas::isamax(ctx, n, s.r(0), incx)?;
                Ok(if n < 1 || incx <= 0 { 0 } else { i as c_int + 1 })
            })
    }
}

export! {
    /// Constructs a Givens rotation: a becomes r, b becomes z.
    fn cblas_srotg(a: *mut f32, b: *mut f32, c: *mut f32, s: *mut f32) => |cpu| {
        if scalar_on_cpu() {
            return crate::cpu::forwarding(cpu);
        }
        cblas::srotg(&mut *a, &mut *b, &mut *c, &mut *s)
    }
}

export! {
    /// Fortran SROTG.
    fn srotg_(a: *mut f32, b: *mut f32, c: *mut f32, s: *mut f32) => |cpu| {
        if scalar_on_cpu() {
            return crate::cpu::forwarding(cpu);
        }
        cblas::srotg(&mut *a, &mut *b, &mut *c, &mut *s)
    }
}

/// SROTMG through the crate: `param` written only where its flag defines entries.
///
/// # Safety
/// The pointers address one float each, `param` five.
unsafe fn rotmg(d1: *mut f32, d2: *mut f32, x1: *mut f32, y1: f32, param: *mut f32) {
    // SAFETY: as documented; the five entries are read first so that those the flag leaves
    // alone are written back unchanged.
    unsafe {
        let mut p = std::ptr::read_unaligned(param as *const [f32; 5]);
        cblas::srotmg(&mut *d1, &mut *d2, &mut *x1, y1, &mut p);
        std::ptr::write_unaligned(param as *mut [f32; 5], p);
    }
}

export! {
    /// Constructs a modified Givens rotation.
    fn cblas_srotmg(d1: *mut f32, d2: *mut f32, x1: *mut f32, y1: f32, param: *mut f32) => |cpu| {
        if scalar_on_cpu() {
            return crate::cpu::forwarding(cpu);
        }
        rotmg(d1, d2, x1, y1, param)
    }
}

export! {
    /// Fortran SROTMG.
    fn srotmg_(d1: *mut f32, d2: *mut f32, x1: *mut f32, y1: *const f32, param: *mut f32) => |cpu| {
        if scalar_on_cpu() {
            return crate::cpu::forwarding(cpu);
        }
        rotmg(d1, d2, x1, *y1, param)
    }
}
