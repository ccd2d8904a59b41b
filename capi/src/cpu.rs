//! The CPU BLAS: found and loaded with `dlopen` once, never this library itself, and the
//! thread-local flag that sends a CPU BLAS's own calls back into our symbols straight to it.
//!
//! A CPU BLAS loaded with `RTLD_LOCAL` still resolves its internal calls through the
//! process's global scope (reference CBLAS's `cblas_sgemm` calls `sgemm_` through the PLT),
//! and with this library preloaded that is our `sgemm_`. While a thread runs inside the CPU
//! BLAS on our behalf, [`FORWARDING`] is set and every entry point goes straight to the
//! CPU symbol, so no call is routed twice and none loops.

use std::cell::Cell;
use std::ffi::{c_void, CStr, CString};
use std::sync::OnceLock;

/// Where the CPU BLAS is looked for when `FRAGBLAS_CPU_BLAS` names none: the system's
/// BLAS first (Debian's alternatives link), then OpenBLAS, then the reference BLAS by path.
const CANDIDATES: &[&str] = &[
    "libblas.so.3",
    "libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
    "/usr/lib/aarch64-linux-gnu/blas/libblas.so.3",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libblas.so.3",
    "libblis.so.4",
];

/// The loaded CPU BLAS.
pub struct CpuBlas {
    handle: *mut c_void,
    /// The path or name it was loaded by.
    pub name: String,
}

// SAFETY: a dlopen handle is a process-wide token; dlsym on it is thread-safe.
unsafe impl Send for CpuBlas {}
// SAFETY: as above; the handle is never closed.
unsafe impl Sync for CpuBlas {}

static CPU: OnceLock<Result<CpuBlas, String>> = OnceLock::new();

thread_local! {
    /// Set while this thread runs inside the CPU BLAS for us.
    pub static FORWARDING: Cell<bool> = const { Cell::new(false) };
}

/// The CPU BLAS, loaded on first use; exits the process with a message if there is none
/// (a BLAS that cannot compute is worse than a clear stop).
pub fn cpu() -> &'static CpuBlas {
    match CPU.get_or_init(load) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fragblas: {e}");
            std::process::exit(1)
        }
    }
}

/// The CPU BLAS, or `None` (the reason is printed on first use by [`cpu`]).
pub fn try_cpu() -> Option<&'static CpuBlas> {
    CPU.get_or_init(load).as_ref().ok()
}

fn load() -> Result<CpuBlas, String> {
    let named = std::env::var("FRAGBLAS_CPU_BLAS")
        .ok()
        .filter(|s| !s.is_empty());
    let list: Vec<String> = match &named {
        Some(p) => vec![p.clone()],
        None => CANDIDATES.iter().map(|s| s.to_string()).collect(),
    };
    let mut tried = Vec::new();
    for name in list {
        let c = CString::new(name.clone()).map_err(|_| format!("bad path {name:?}"))?;
        // SAFETY: dlopen with a valid C string; the handle is kept for the process's life.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            tried.push(format!("{name} (not found)"));
            continue;
        }
        // SAFETY: dlsym on a live handle with a NUL-terminated name.
        let ours = unsafe { libc::dlsym(h, c"fragblas_capi_marker".as_ptr()) };
        // SAFETY: as above.
        let sgemm = unsafe { libc::dlsym(h, c"sgemm_".as_ptr()) };
        if !ours.is_null() || sgemm.is_null() {
            tried.push(format!(
                "{name} ({})",
                if ours.is_null() {
                    "no sgemm_"
                } else {
                    "is libfragblas itself"
                }
            ));
            continue;
        }
        return Ok(CpuBlas { handle: h, name });
    }
    Err(format!(
        "no CPU BLAS could be loaded (set FRAGBLAS_CPU_BLAS); tried: {}",
        tried.join(", ")
    ))
}

impl CpuBlas {
    /// The address of `name` in the CPU BLAS, or null.
    pub fn sym(&self, name: &CStr) -> *mut c_void {
        // SAFETY: dlsym on a live handle with a NUL-terminated name.
        unsafe { libc::dlsym(self.handle, name.as_ptr()) }
    }
}

/// Runs `f` (a call into the CPU BLAS) with [`FORWARDING`] set on this thread.
pub fn forwarding<R>(f: impl FnOnce() -> R) -> R {
    let was = FORWARDING.with(|c| c.replace(true));
    let r = f();
    FORWARDING.with(|c| c.set(was));
    r
}

/// Whether this thread is inside the CPU BLAS on our behalf.
pub fn is_forwarding() -> bool {
    FORWARDING.with(|c| c.get())
}

/// The CPU BLAS's `$name` as a function pointer of type `$ty` (cached per call site); a
/// missing symbol stops the process with a message naming it.
#[macro_export]
macro_rules! cpu_fn {
    ($name:expr, $ty:ty) => {{
        static F: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let p = *F.get_or_init(|| {
            let c = std::ffi::CString::new($name).expect("symbol names have no NUL");
            let p = $crate::cpu::cpu().sym(&c) as usize;
            if p == 0 {
                eprintln!(
                    "fragblas: the CPU BLAS {} has no {}",
                    $crate::cpu::cpu().name,
                    $name
                );
                std::process::exit(1);
            }
            p
        });
        // SAFETY: the symbol is the BLAS routine of that name, whose C type is `$ty`.
        unsafe { std::mem::transmute::<usize, $ty>(p) }
    }};
}
