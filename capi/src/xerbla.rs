//! Argument errors, reported as reference BLAS does: the Fortran symbols call `xerbla_`, the
//! CBLAS ones `cblas_xerbla`, each looked up in the process's global scope at the time of
//! the error, so that a handler the program defines wins over the defaults below.
//!
//! A row-major CBLAS call is, in reference CBLAS, a column-major call with M and N (and KL
//! and KU, lda and ldb, incx and incy where the routine has both) exchanged; its argument
//! errors reach `cblas_xerbla` with the position in that column-major call, while the
//! global `RowMajorStrg` is 1, and reference's default `cblas_xerbla` (like the handlers of
//! netlib's CBLAS testers) exchanges the position back before printing it. This file does
//! the same, exporting the globals `RowMajorStrg` and `CBLAS_CallFromC` that such handlers
//! read.

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::atomic::{AtomicI32, Ordering};

/// Which symbol set a call came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `cblas_s*`: positions count the layout argument.
    Cblas,
    /// `cblas_s*` called with `CblasRowMajor`: positions count the layout argument, and
    /// are reported as reference CBLAS's column-major call would report them.
    CblasRowMajor,
    /// `s*_`: arguments by reference, column-major, no layout argument.
    Fortran,
}

/// Which layer of reference CBLAS would have found an argument error: its C layer checks
/// the enumerations itself and reports them under the routine's C name with a message;
/// everything else its Fortran layer finds, and reports under the Fortran name (six
/// characters, blank-padded: `cblas_sgemm `) with an empty message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// An enumeration, checked by the CBLAS wrapper.
    C,
    /// A size, leading dimension or increment, checked by the Fortran routine.
    Fortran,
}

/// netlib `cblas.h`'s `CblasRowMajor`.
const ROW_MAJOR: c_int = 101;

impl Api {
    /// The API of a CBLAS call with this layout argument (an invalid one is reported at
    /// position 1 with `RowMajorStrg` 0, as reference does).
    pub fn cblas(layout: c_int) -> Api {
        if layout == ROW_MAJOR {
            Api::CblasRowMajor
        } else {
            Api::Cblas
        }
    }
}

/// Reference CBLAS's global: 1 while a row-major call reports an error (reference sets it
/// for the whole of a row-major call; handlers read it to map positions back).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static RowMajorStrg: AtomicI32 = AtomicI32::new(0);

/// Reference CBLAS's global: 1 while an error of a CBLAS call is being reported (reference
/// sets it for the whole of a CBLAS call; its Fortran `xerbla_` reads it).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static CBLAS_CallFromC: AtomicI32 = AtomicI32::new(0);

/// The process's instance of reference CBLAS's global `name`: the first in global scope (a
/// program that defines its own, or a copy the linker made in the executable, wins over
/// ours, as it does for the program's own reads of it).
fn global(name: &CStr, ours: &'static AtomicI32) -> &'static AtomicI32 {
    // SAFETY: RTLD_DEFAULT lookup of a NUL-terminated name.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as *const AtomicI32;
    if p.is_null() {
        ours
    } else {
        // SAFETY: the symbol is reference CBLAS's `int` global (ours, or the program's own
        // definition of the same name), which lives as long as the process; AtomicI32 has
        // the layout of an int.
        unsafe { &*p }
    }
}

/// Reference CBLAS's exchange of positions between a row-major call and the column-major
/// call it makes, for `rout` (`cblas_` and the routine's name); the same table maps both
/// ways. Positions of other routines, and others of these, are the same in both.
pub fn row_major_position(rout: &str, info: c_int) -> c_int {
    let swap = |pairs: &[(c_int, c_int)]| {
        pairs
            .iter()
            .find_map(|&(a, b)| (info == a).then_some(b).or((info == b).then_some(a)))
            .unwrap_or(info)
    };
    if rout.contains("gemm") {
        swap(&[(4, 5), (9, 11)])
    } else if rout.contains("symm") || rout.contains("hemm") {
        swap(&[(4, 5)])
    } else if rout.contains("trmm") || rout.contains("trsm") {
        swap(&[(6, 7)])
    } else if rout.contains("gemv") {
        swap(&[(3, 4)])
    } else if rout.contains("gbmv") {
        swap(&[(3, 4), (5, 6)])
    } else if rout.contains("ger") {
        swap(&[(2, 3), (6, 8)])
    } else if (rout.contains("her2") || rout.contains("hpr2")) && !rout.contains("her2k") {
        swap(&[(6, 8)])
    } else {
        info
    }
}

type Xerbla = unsafe extern "C" fn(*const c_char, *const c_int, usize);
type CblasXerbla = unsafe extern "C" fn(c_int, *const c_char, *const c_char, ...);

/// Reports that argument `position` of `routine` (lower-case, no prefix) is invalid, as
/// `layer` of reference BLAS would.
pub fn report(api: Api, routine: &str, position: u32, message: &str, layer: Layer) {
    match api {
        Api::Fortran => {
            // Reference routines pass their name upper-case, padded to six characters.
            let name = format!("{:<6}", routine.to_uppercase());
            let info = position as c_int;
            // SAFETY: RTLD_DEFAULT lookup of a NUL-terminated name.
            let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"xerbla_".as_ptr()) };
            let f: Xerbla = if f.is_null() {
                xerbla_
            } else {
                // SAFETY: `xerbla_` has this type in every BLAS.
                unsafe { std::mem::transmute::<*mut libc::c_void, Xerbla>(f) }
            };
            // SAFETY: the name's bytes live through the call; its length is passed as the
            // hidden Fortran length.
            unsafe { f(name.as_ptr() as *const c_char, &info, name.len()) };
        }
        Api::Cblas | Api::CblasRowMajor => {
            let (name, form) = match layer {
                Layer::C => (
                    format!("cblas_{routine}"),
                    format!("{}\n", message.replace('%', "%%")),
                ),
                Layer::Fortran => (format!("cblas_{routine:<6}"), String::new()),
            };
            let row_major = api == Api::CblasRowMajor;
            let info = if row_major {
                row_major_position(&name, position as c_int)
            } else {
                position as c_int
            };
            let rout = CString::new(name).unwrap_or_default();
            let form = CString::new(form).unwrap_or_default();
            let (row_strg, from_c) = (
                global(c"RowMajorStrg", &RowMajorStrg),
                global(c"CBLAS_CallFromC", &CBLAS_CallFromC),
            );
            row_strg.store(row_major as i32, Ordering::SeqCst);
            from_c.store(1, Ordering::SeqCst);
            // SAFETY: as above.
            let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"cblas_xerbla".as_ptr()) };
            if f.is_null() {
                // SAFETY: our own handler with NUL-terminated strings.
                unsafe { cblas_xerbla(info, rout.as_ptr(), form.as_ptr()) };
            } else {
                // SAFETY: `cblas_xerbla` has this type in every CBLAS; the format has no
                // conversions, so no variadic arguments follow.
                unsafe {
                    let f = std::mem::transmute::<*mut libc::c_void, CblasXerbla>(f);
                    f(info, rout.as_ptr(), form.as_ptr())
                };
            }
            // Reference clears both when the call returns.
            row_strg.store(0, Ordering::SeqCst);
            from_c.store(0, Ordering::SeqCst);
        }
    }
}

/// The default Fortran error handler: prints reference XERBLA's message and stops the
/// program, as reference BLAS does (a program's own `xerbla_` replaces it). Called from
/// inside the CPU BLAS on our behalf, it is that BLAS's own `xerbla_` that runs: reference
/// CBLAS's, for one, turns the Fortran position into the CBLAS one and calls
/// `cblas_xerbla`.
///
/// # Safety
/// `srname` addresses `len` bytes and `info` one integer.
#[no_mangle]
pub unsafe extern "C" fn xerbla_(srname: *const c_char, info: *const c_int, len: usize) {
    if crate::cpu::is_forwarding() {
        if let Some(cpu) = crate::cpu::try_cpu() {
            let f = cpu.sym(c"xerbla_");
            if !f.is_null() {
                // SAFETY: the CPU BLAS's `xerbla_`, on the caller's own arguments.
                unsafe { std::mem::transmute::<*mut libc::c_void, Xerbla>(f)(srname, info, len) };
                return;
            }
        }
    }
    // SAFETY: the caller passes a name of `len` bytes and an integer.
    let (name, info) = unsafe {
        (
            String::from_utf8_lossy(std::slice::from_raw_parts(srname as *const u8, len))
                .trim_end()
                .to_string(),
            *info,
        )
    };
    eprintln!(" ** On entry to {name} parameter number {info:2} had an illegal value");
    std::process::exit(0)
}

/// The default CBLAS error handler: prints reference `cblas_xerbla`'s message and exits with
/// status -1 (255), as reference CBLAS does (a program's own `cblas_xerbla` replaces it):
/// while `RowMajorStrg` is set, the position of the column-major call is mapped back to the
/// row-major caller's first. The format string is printed as it is, without its variadic
/// arguments.
///
/// # Safety
/// `rout` and `form` are NUL-terminated strings (or null).
#[no_mangle]
pub unsafe extern "C" fn cblas_xerbla(info: c_int, rout: *const c_char, form: *const c_char) {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the caller passes NUL-terminated strings.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let rout = text(rout);
    let info = if global(c"RowMajorStrg", &RowMajorStrg).load(Ordering::SeqCst) != 0 {
        row_major_position(&rout, info)
    } else {
        info
    };
    if info != 0 {
        eprintln!("Parameter {info} to routine {rout} was incorrect");
    }
    eprint!("{}", text(form));
    std::process::exit(-1)
}

#[cfg(test)]
mod tests {
    use super::row_major_position as p;

    #[test]
    fn row_major_positions_map_as_reference_cblas_maps_them_both_ways() {
        // sgemm: M <-> N, lda <-> ldb; ldc and the rest stay.
        assert_eq!((p("cblas_sgemm", 4), p("cblas_sgemm", 5)), (5, 4));
        assert_eq!((p("cblas_sgemm", 9), p("cblas_sgemm", 11)), (11, 9));
        assert_eq!((p("cblas_sgemm", 14), p("cblas_sgemm", 2)), (14, 2));
        assert_eq!(p("cblas_ssymm", 4), 5);
        assert_eq!((p("cblas_strmm", 6), p("cblas_strsm", 7)), (7, 6));
        assert_eq!((p("cblas_sgemv", 3), p("cblas_sgemv", 9)), (4, 9));
        assert_eq!((p("cblas_sgbmv", 5), p("cblas_sgbmv", 4)), (6, 3));
        assert_eq!(
            (p("cblas_sger", 2), p("cblas_sger", 6), p("cblas_sger", 10)),
            (3, 8, 10)
        );
        // Routines whose row-major call keeps its argument order.
        assert_eq!(
            (
                p("cblas_ssymv", 3),
                p("cblas_ssyr2k", 4),
                p("cblas_ssyr2", 6)
            ),
            (3, 4, 6)
        );
    }
}
