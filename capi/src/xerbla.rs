//! Argument errors, reported as reference BLAS does: the Fortran symbols call `xerbla_`, the
//! CBLAS ones `cblas_xerbla`, each looked up in the process's global scope at the time of
//! the error, so that a handler the program defines wins over the defaults below.

use std::ffi::{c_char, c_int, CStr, CString};

/// Which symbol set a call came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `cblas_s*`: positions count the layout argument.
    Cblas,
    /// `s*_`: arguments by reference, column-major, no layout argument.
    Fortran,
}

type Xerbla = unsafe extern "C" fn(*const c_char, *const c_int, usize);
type CblasXerbla = unsafe extern "C" fn(c_int, *const c_char, *const c_char, ...);

/// Reports that argument `position` of `routine` (lower-case, no prefix) is invalid.
pub fn report(api: Api, routine: &str, position: u32, message: &str) {
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
        Api::Cblas => {
            let rout = CString::new(format!("cblas_{routine}")).unwrap_or_default();
            let form =
                CString::new(format!("{}\n", message.replace('%', "%%"))).unwrap_or_default();
            // SAFETY: as above.
            let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"cblas_xerbla".as_ptr()) };
            if f.is_null() {
                // SAFETY: our own handler with NUL-terminated strings.
                unsafe { cblas_xerbla(position as c_int, rout.as_ptr(), form.as_ptr()) };
                return;
            }
            // SAFETY: `cblas_xerbla` has this type in every CBLAS; the format has no
            // conversions, so no variadic arguments follow.
            unsafe {
                let f = std::mem::transmute::<*mut libc::c_void, CblasXerbla>(f);
                f(position as c_int, rout.as_ptr(), form.as_ptr())
            };
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
/// status -1 (255), as reference CBLAS does (a program's own `cblas_xerbla` replaces it).
/// The format string is printed as it is, without its variadic arguments.
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
    eprint!(
        "Parameter {info} to routine {} was incorrect\n{}",
        text(rout),
        text(form)
    );
    std::process::exit(-1)
}
