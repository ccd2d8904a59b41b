//! `libfragblas.so`: a C BLAS whose single-precision routines run on the GPU through
//! OpenGL fragment shaders when the GPU is expected to be faster end to end, and on a CPU
//! BLAS otherwise; every other BLAS symbol is forwarded to that CPU BLAS, so the library can
//! be preloaded into, or installed as the `libblas.so.3` of, an unmodified program.
//!
//! Layers, each using only those below it: [`cpu`] (the CPU BLAS, loaded with dlopen),
//! [`forward`] (trampolines for the symbols this library does not compute), [`route`] (the
//! settings, the cost model and the log), [`gpu`] (the shared GL context and the pointer
//! to slice calls), [`xerbla`] (argument errors), [`dispatch`] (the path of every call), and
//! on top the exported routines of [`level1`], [`level2`] and [`level3`], each in its CBLAS
//! and its Fortran form. `include/fragblas.h` declares them.
//!
//! Safety contract of every exported function: the pointers address what BLAS says the
//! arguments address (the Fortran symbols' scalar arguments are pointers to one value
//! each), as for any BLAS; a routine never reads or writes outside that.

#![deny(missing_docs)]

pub mod cpu;
pub mod dispatch;
pub mod forward;
pub mod gpu;
pub mod level1;
pub mod level2;
pub mod level3;
pub mod route;
pub mod xerbla;

/// Present so that the CPU BLAS search can tell this library from a real CPU BLAS (when it
/// is installed as `libblas.so.3`, `dlopen("libblas.so.3")` finds it).
#[no_mangle]
pub static fragblas_capi_marker: u8 = 1;

/// Declares an exported routine and, from the same parameter list, `cpu`: the same call on
/// the CPU BLAS's symbol of the same name.
#[macro_export]
macro_rules! export {
    ($(#[$m:meta])* fn $name:ident($($p:ident: $t:ty),* $(,)?) $(-> $r:ty)? => |$cpu:ident| $body:block) => {
        $(#[$m])*
        ///
        /// # Safety
        /// The pointers address what BLAS says the arguments address.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name($($p: $t),*) $(-> $r)? {
            #[allow(clippy::macro_metavars_in_unsafe)]
            let $cpu = move || {
                let f = $crate::cpu_fn!(stringify!($name), unsafe extern "C" fn($($t),*) $(-> $r)?);
                // SAFETY: the CPU BLAS's routine of the same name and type, on the caller's
                // own arguments.
                unsafe { f($($p),*) }
            };
            $body
        }
    };
}

/// Loads the CPU BLAS, fills the forwarding table, and registers the exit summary: run by
/// the dynamic loader when the library is loaded.
extern "C" fn init() {
    let cfg = route::config();
    match cpu::try_cpu() {
        Some(c) => {
            let (found, missing) = forward::resolve(c);
            route::say(|| {
                format!(
                    "CPU BLAS {}: {found} of {} forwarded symbols{}",
                    c.name,
                    forward::count(),
                    if missing.is_empty() {
                        String::new()
                    } else {
                        format!(" (missing: {})", missing.join(" "))
                    }
                )
            });
        }
        None => eprintln!("fragblas: no CPU BLAS found (set FRAGBLAS_CPU_BLAS); only the routines fragblas implements can run"),
    }
    if cfg.verbose {
        // SAFETY: registering a plain extern "C" function with no arguments.
        unsafe { libc::atexit(route::summary) };
    }
}

#[used]
#[link_section = ".init_array"]
static INIT: extern "C" fn() = init;
