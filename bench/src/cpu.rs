//! The CPU BLAS the table compares with: the system's OpenBLAS (`libopenblas`, linked),
//! through its CBLAS interface, on every core.

#[link(name = "openblas")]
extern "C" {
    fn openblas_set_num_threads(n: i32);
    fn openblas_get_config() -> *const std::ffi::c_char;
}

/// Lets OpenBLAS use every core; returns how many that is.
pub fn all_cores() -> usize {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: plain OpenBLAS call setting its global thread count.
    unsafe { openblas_set_num_threads(threads as i32) };
    threads
}

/// OpenBLAS's own description of its build (version, kernel, threading).
pub fn config() -> String {
    // SAFETY: OpenBLAS returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(openblas_get_config()) }
        .to_string_lossy()
        .trim()
        .to_string()
}
