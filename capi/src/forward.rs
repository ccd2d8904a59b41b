//! Every BLAS symbol this library does not compute (double, complex, helpers such as
//! `lsame_`) is forwarded unchanged to the CPU BLAS, so that the library can stand in for
//! `libblas.so.3` as a whole. Each forwarded symbol is a few-instruction trampoline that
//! counts the call and jumps through its slot; the slots are filled with the CPU BLAS's addresses by a
//! constructor when the library is loaded. Arguments, return values and the stack are
//! untouched, so one trampoline serves every signature, variadic ones included.
//!
//! The list is netlib BLAS 3.11's exported functions (Fortran and CBLAS), less the
//! single-precision routines this library implements and the two error handlers.

use std::ffi::CString;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Called through a slot that is still empty: no CPU BLAS was found when the library was
/// loaded.
extern "C" fn unresolved() -> ! {
    eprintln!("fragblas: a BLAS routine this library forwards was called, but no CPU BLAS is loaded (set FRAGBLAS_CPU_BLAS)");
    std::process::abort()
}

macro_rules! forward {
    ($($name:ident),* $(,)?) => {
        $(
            #[allow(non_snake_case, non_upper_case_globals, missing_docs)]
            mod $name {
                /// The CPU BLAS's address of this symbol, or 0.
                pub static SLOT: super::AtomicUsize = super::AtomicUsize::new(0);
                /// Calls made through this symbol.
                pub static COUNT: super::AtomicUsize = super::AtomicUsize::new(0);

                /// Jumps to the CPU BLAS's routine of the same name.
                #[cfg(target_arch = "x86_64")]
                #[unsafe(naked)]
                #[no_mangle]
                pub unsafe extern "C" fn $name() {
                    core::arch::naked_asm!(
                        "lock inc qword ptr [rip + {count}]",
                        "mov r11, qword ptr [rip + {slot}]",
                        "test r11, r11",
                        "jz {missing}",
                        "jmp r11",
                        count = sym COUNT,
                        slot = sym SLOT,
                        missing = sym super::unresolved,
                    )
                }

                /// Jumps to the CPU BLAS's routine of the same name.
                #[cfg(target_arch = "aarch64")]
                #[unsafe(naked)]
                #[no_mangle]
                pub unsafe extern "C" fn $name() {
                    core::arch::naked_asm!(
                        "adrp x16, {count}",
                        "add x16, x16, :lo12:{count}",
                        "2:",
                        "ldxr x17, [x16]",
                        "add x17, x17, #1",
                        "stxr w15, x17, [x16]",
                        "cbnz w15, 2b",
                        "adrp x16, {slot}",
                        "ldr x16, [x16, :lo12:{slot}]",
                        "cbz x16, {missing}",
                        "br x16",
                        count = sym COUNT,
                        slot = sym SLOT,
                        missing = sym super::unresolved,
                    )
                }
            }
        )*

        /// Every forwarded symbol's name, slot and call count.
        static TABLE: &[(&str, &AtomicUsize, &AtomicUsize)] =
            &[$((stringify!($name), &$name::SLOT, &$name::COUNT)),*];
    };
}

forward! {
    caxpy_, cblas_caxpy, cblas_ccopy, cblas_cdotc_sub, cblas_cdotu_sub, cblas_cgbmv,
    cblas_cgemm, cblas_cgemv, cblas_cgerc, cblas_cgeru, cblas_chbmv, cblas_chemm, cblas_chemv,
    cblas_cher, cblas_cher2, cblas_cher2k, cblas_cherk, cblas_chpmv, cblas_chpr, cblas_chpr2,
    cblas_crotg, cblas_cscal, cblas_csrot, cblas_csscal, cblas_cswap, cblas_csymm,
    cblas_csyr2k, cblas_csyrk, cblas_ctbmv, cblas_ctbsv, cblas_ctpmv, cblas_ctpsv, cblas_ctrmm,
    cblas_ctrmv, cblas_ctrsm, cblas_ctrsv, cblas_dasum, cblas_daxpy, cblas_dcabs1, cblas_dcopy,
    cblas_ddot, cblas_dgbmv, cblas_dgemm, cblas_dgemv, cblas_dger, cblas_dnrm2, cblas_drot,
    cblas_drotg, cblas_drotm, cblas_drotmg, cblas_dsbmv, cblas_dscal, cblas_dspmv, cblas_dspr,
    cblas_dspr2, cblas_dswap, cblas_dsymm, cblas_dsymv, cblas_dsyr, cblas_dsyr2, cblas_dsyr2k,
    cblas_dsyrk, cblas_dtbmv, cblas_dtbsv, cblas_dtpmv, cblas_dtpsv, cblas_dtrmm, cblas_dtrmv,
    cblas_dtrsm, cblas_dtrsv, cblas_dzasum, cblas_dznrm2, cblas_icamax, cblas_idamax,
    cblas_izamax, cblas_scabs1, cblas_scasum, cblas_scnrm2, cblas_zaxpy, cblas_zcopy,
    cblas_zdotc_sub, cblas_zdotu_sub, cblas_zdrot, cblas_zdscal, cblas_zgbmv, cblas_zgemm,
    cblas_zgemv, cblas_zgerc, cblas_zgeru, cblas_zhbmv, cblas_zhemm, cblas_zhemv, cblas_zher,
    cblas_zher2, cblas_zher2k, cblas_zherk, cblas_zhpmv, cblas_zhpr, cblas_zhpr2, cblas_zrotg,
    cblas_zscal, cblas_zswap, cblas_zsymm, cblas_zsyr2k, cblas_zsyrk, cblas_ztbmv, cblas_ztbsv,
    cblas_ztpmv, cblas_ztpsv, cblas_ztrmm, cblas_ztrmv, cblas_ztrsm, cblas_ztrsv, ccopy_,
    cdotc_, cdotcsub_, cdotu_, cdotusub_, cgbmv_, cgemm_, cgemv_, cgerc_, cgeru_, chbmv_,
    chemm_, chemv_, cher2_, cher2k_, cher_, cherk_, chpmv_, chpr2_, chpr_, crotg_, cscal_,
    csrot_, csscal_, cswap_, csymm_, csyr2k_, csyrk_, ctbmv_, ctbsv_, ctpmv_, ctpsv_, ctrmm_,
    ctrmv_, ctrsm_, ctrsv_, dasum_, dasumsub_, daxpy_, dcabs1_, dcabs1sub_, dcopy_, ddot_,
    ddotsub_, dgbmv_, dgemm_, dgemv_, dger_, dnrm2_, dnrm2sub_, drot_, drotg_, drotm_, drotmg_,
    dsbmv_, dscal_, dsdotsub_, dspmv_, dspr2_, dspr_, dswap_, dsymm_, dsymv_, dsyr2_, dsyr2k_,
    dsyr_, dsyrk_, dtbmv_, dtbsv_, dtpmv_, dtpsv_, dtrmm_, dtrmv_, dtrsm_, dtrsv_, dzasum_,
    dzasumsub_, dznrm2_, dznrm2sub_, icamax_, icamaxsub_, idamax_, idamaxsub_, isamaxsub_,
    izamax_, izamaxsub_, lsame_, sasumsub_, scabs1_, scabs1sub_, scasum_, scasumsub_, scnrm2_,
    scnrm2sub_, sdotsub_, sdsdotsub_, snrm2sub_, xerbla_array_, zaxpy_, zcopy_, zdotc_,
    zdotcsub_, zdotu_, zdotusub_, zdrot_, zdscal_, zgbmv_, zgemm_, zgemv_, zgerc_, zgeru_,
    zhbmv_, zhemm_, zhemv_, zher2_, zher2k_, zher_, zherk_, zhpmv_, zhpr2_, zhpr_, zrotg_,
    zscal_, zswap_, zsymm_, zsyr2k_, zsyrk_, ztbmv_, ztbsv_, ztpmv_, ztpsv_, ztrmm_, ztrmv_,
    ztrsm_, ztrsv_,
}

/// Fills every slot from the CPU BLAS (those it lacks stay empty); returns how many were
/// found and the names of those that were not.
pub fn resolve(cpu: &crate::cpu::CpuBlas) -> (usize, Vec<&'static str>) {
    let mut missing = Vec::new();
    let mut found = 0;
    for (name, slot, _) in TABLE {
        let c = CString::new(*name).expect("symbol names have no NUL");
        let p = cpu.sym(&c) as usize;
        if p == 0 {
            missing.push(*name);
        } else {
            slot.store(p, Ordering::Release);
            found += 1;
        }
    }
    (found, missing)
}

/// The number of forwarded symbols.
pub fn count() -> usize {
    TABLE.len()
}

/// The forwarded symbols called so far, with their call counts.
pub fn calls() -> Vec<(&'static str, usize)> {
    TABLE
        .iter()
        .map(|(name, _, count)| (*name, count.load(Ordering::Relaxed)))
        .filter(|(_, c)| *c > 0)
        .collect()
}
