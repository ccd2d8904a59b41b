//! The one path every exported routine takes: straight to the CPU BLAS when called from
//! inside it, else a route by the cost model or `FRAGBLAS_ROUTE`; on the GPU route the
//! enumerations are converted (an invalid one is an argument error at its position), the
//! crate's host routine runs, argument errors go to the program's `xerbla`, and any other
//! failure runs the call on the CPU BLAS instead.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use fragblas_core::{Context, Diag, Error, Layout, Side, Transpose, Uplo};

use crate::cpu::{forwarding, is_forwarding};
use crate::gpu::{call, gpu, Failure, Slices};
use crate::route::{config, record, Mode, Route, Work, AUTO_FLOOR_FLOPS};
use crate::xerbla::{report, Api, Layer};

/// An invalid enumeration: its position in the API's argument list and what it was.
pub type Bad = (u32, String);

/// Decides where a call of `routine` with `work` runs, and says why.
fn decide(work: &Work) -> (Route, String) {
    match config().mode {
        Mode::Cpu => (Route::Cpu, "FRAGBLAS_ROUTE=cpu".into()),
        Mode::Gpu => match gpu() {
            Some(_) => (Route::Gpu, "FRAGBLAS_ROUTE=gpu".into()),
            None => (Route::Cpu, "no GL device".into()),
        },
        Mode::Auto => {
            if work.level < 3 || work.flops < AUTO_FLOOR_FLOPS {
                // Level 1 and 2 move every operand over the bus for ~1 flop per element: the
                // CPU BLAS reads them from memory faster than they can be uploaded.
                let why = if work.level < 3 {
                    "memory-bound, the upload alone costs more than the CPU call"
                } else {
                    "below the GPU floor"
                };
                return (Route::Cpu, why.into());
            }
            let Some(g) = gpu() else {
                return (Route::Cpu, "no GL device".into());
            };
            if g.software {
                return (Route::Cpu, "software renderer".into());
            }
            let Some(m) = g.model() else {
                return (Route::Cpu, "no cost model".into());
            };
            let (tg, tc) = (m.gpu_time(work), m.cpu_time(work));
            let route = if tg < tc { Route::Gpu } else { Route::Cpu };
            (
                route,
                format!("model gpu {:.3} ms vs cpu {:.3} ms", tg * 1e3, tc * 1e3),
            )
        }
    }
}

/// Everything one exported routine call needs: its name, API, cost, how to run it on the
/// CPU BLAS, how to read its enumerations, its operands and how to run it on the GPU.
pub struct Call<E, C, V, G> {
    /// Routine name without prefix, lower-case (`"sgemm"`).
    pub routine: &'static str,
    /// The symbol set it came through.
    pub api: Api,
    /// Its cost.
    pub work: Work,
    /// The same call on the CPU BLAS (the same symbol there).
    pub cpu: C,
    /// Converts the enumerations (or reports the first invalid one).
    pub enums: V,
    /// The names the crate gives the pointer operands, in `ptrs` order.
    pub names: &'static [&'static str],
    /// The pointer operands (0 for none).
    pub ptrs: [usize; 4],
    /// The crate's host routine on those operands.
    pub gpu: G,
    /// Marks `E`.
    pub marker: std::marker::PhantomData<E>,
}

/// Runs `c`, returning its result or, after an argument error, `T::default()`.
pub fn run<T, E, C, V, G>(c: Call<E, C, V, G>) -> T
where
    T: Default + Send + 'static,
    E: Send + 'static,
    C: Fn() -> T,
    V: FnOnce() -> Result<E, Bad>,
    G: Fn(&Context, &Slices, &E) -> Result<T, Error> + Send + 'static,
{
    if is_forwarding() {
        return (c.cpu)();
    }
    let cpu = &c.cpu;
    let on_cpu = || forwarding(cpu);
    let (route, why) = decide(&c.work);
    if route == Route::Cpu {
        record(c.routine, &c.work, Route::Cpu, || why);
        return on_cpu();
    }
    let (routine, api, work) = (c.routine, c.api, c.work);
    let attempt = catch_unwind(AssertUnwindSafe(|| {
        let e = match (c.enums)() {
            Ok(e) => e,
            Err((pos, msg)) => return Err(Failure::InvalidEnum(pos, msg)),
        };
        let g = c.gpu;
        // Level 2 and 3 Fortran symbols have no layout argument: positions shift by one.
        let shift = u32::from(api == Api::Fortran && work.level > 1);
        call(c.names, c.ptrs, move |ctx, s| g(ctx, s, &e)).map_err(|f| match f {
            Failure::Invalid(p, m) => Failure::Invalid(p - shift, m),
            other => other,
        })
    }));
    match attempt {
        Ok(Ok(t)) => {
            record(routine, &work, Route::Gpu, || why);
            t
        }
        Ok(Err(Failure::Invalid(pos, msg))) => {
            report(api, routine, pos, &msg, Layer::Fortran);
            T::default()
        }
        Ok(Err(Failure::InvalidEnum(pos, msg))) => {
            report(api, routine, pos, &msg, Layer::C);
            T::default()
        }
        Ok(Err(Failure::Other(msg))) => {
            record(routine, &work, Route::Cpu, || {
                format!("the GPU call failed ({msg})")
            });
            on_cpu()
        }
        Err(_) => {
            record(routine, &work, Route::Cpu, || {
                "the GPU call panicked".into()
            });
            on_cpu()
        }
    }
}

/// Gives a GPU closure its signature (closures in struct fields get none from the bounds of
/// the function they are later passed to).
pub fn gpu_fn<T, E, G: Fn(&Context, &Slices, &E) -> Result<T, Error>>(g: G) -> G {
    g
}

/// The enumerations of a routine that has none (level 1, Fortran `sger_`).
pub fn no_enums() -> Result<(), Bad> {
    Ok(())
}

/// An invalid enumeration, with reference CBLAS's message for it (`Illegal ... setting`).
fn bad(pos: u32, what: &str, v: impl std::fmt::Display) -> Bad {
    (pos, format!("Illegal {what} setting, {v}"))
}

/// CBLAS `CBLAS_LAYOUT` (101 row-major, 102 column-major).
pub fn c_layout(v: c_int, pos: u32) -> Result<Layout, Bad> {
    match v {
        101 => Ok(Layout::RowMajor),
        102 => Ok(Layout::ColMajor),
        _ => Err(bad(pos, "layout", v)),
    }
}

/// CBLAS `CBLAS_TRANSPOSE` (111, 112, 113; conjugate transpose is transpose for reals).
pub fn c_trans(v: c_int, pos: u32) -> Result<Transpose, Bad> {
    match v {
        111 => Ok(Transpose::NoTrans),
        112 | 113 => Ok(Transpose::Trans),
        _ => Err(bad(pos, "trans", v)),
    }
}

/// CBLAS `CBLAS_UPLO` (121 upper, 122 lower).
pub fn c_uplo(v: c_int, pos: u32) -> Result<Uplo, Bad> {
    match v {
        121 => Ok(Uplo::Upper),
        122 => Ok(Uplo::Lower),
        _ => Err(bad(pos, "uplo", v)),
    }
}

/// CBLAS `CBLAS_DIAG` (131 non-unit, 132 unit).
pub fn c_diag(v: c_int, pos: u32) -> Result<Diag, Bad> {
    match v {
        131 => Ok(Diag::NonUnit),
        132 => Ok(Diag::Unit),
        _ => Err(bad(pos, "diag", v)),
    }
}

/// CBLAS `CBLAS_SIDE` (141 left, 142 right).
pub fn c_side(v: c_int, pos: u32) -> Result<Side, Bad> {
    match v {
        141 => Ok(Side::Left),
        142 => Ok(Side::Right),
        _ => Err(bad(pos, "side", v)),
    }
}

/// The first character of a Fortran character argument, upper-cased.
///
/// # Safety
/// `p` points to at least one byte.
unsafe fn ch(p: *const std::ffi::c_char) -> u8 {
    // SAFETY: the caller passes a character argument.
    unsafe { *p as u8 }.to_ascii_uppercase()
}

/// Fortran `TRANS` ('N', 'T' or 'C').
///
/// # Safety
/// `p` points to a character.
pub unsafe fn ftrans(p: *const std::ffi::c_char, pos: u32) -> Result<Transpose, Bad> {
    // SAFETY: as documented.
    match unsafe { ch(p) } {
        b'N' => Ok(Transpose::NoTrans),
        b'T' | b'C' => Ok(Transpose::Trans),
        c => Err(bad(pos, "trans", c as char)),
    }
}

/// Fortran `UPLO` ('U' or 'L').
///
/// # Safety
/// `p` points to a character.
pub unsafe fn fuplo(p: *const std::ffi::c_char, pos: u32) -> Result<Uplo, Bad> {
    // SAFETY: as documented.
    match unsafe { ch(p) } {
        b'U' => Ok(Uplo::Upper),
        b'L' => Ok(Uplo::Lower),
        c => Err(bad(pos, "uplo", c as char)),
    }
}

/// Fortran `DIAG` ('N' or 'U').
///
/// # Safety
/// `p` points to a character.
pub unsafe fn fdiag(p: *const std::ffi::c_char, pos: u32) -> Result<Diag, Bad> {
    // SAFETY: as documented.
    match unsafe { ch(p) } {
        b'N' => Ok(Diag::NonUnit),
        b'U' => Ok(Diag::Unit),
        c => Err(bad(pos, "diag", c as char)),
    }
}

/// Fortran `SIDE` ('L' or 'R').
///
/// # Safety
/// `p` points to a character.
pub unsafe fn fside(p: *const std::ffi::c_char, pos: u32) -> Result<Side, Bad> {
    // SAFETY: as documented.
    match unsafe { ch(p) } {
        b'L' => Ok(Side::Left),
        b'R' => Ok(Side::Right),
        c => Err(bad(pos, "side", c as char)),
    }
}

/// Builds a [`Call`] and runs it: `go!(routine, api, work, cpu, enums, [names], [ptrs], gpu)`.
#[macro_export]
macro_rules! go {
    ($routine:expr, $api:expr, $work:expr, $cpu:expr, $enums:expr, [$($name:literal),*], [$($ptr:expr),*], $gpu:expr) => {{
        let mut ptrs = [0usize; 4];
        for (slot, p) in ptrs.iter_mut().zip([$($ptr as usize),*]) {
            *slot = p;
        }
        $crate::dispatch::run($crate::dispatch::Call {
            routine: $routine,
            api: $api,
            work: $work,
            cpu: $cpu,
            enums: $enums,
            names: &[$($name),*],
            ptrs,
            gpu: $crate::dispatch::gpu_fn($gpu),
            marker: std::marker::PhantomData,
        })
    }};
}
