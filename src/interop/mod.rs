//! Bridges to the Rust ecosystem, each behind a feature: the `cblas` crate's enums
//! (feature `cblas`) and `ndarray` arrays (feature `ndarray`, module [`crate::nd`]). An API
//! layer: uses the crate's public routines only.

#[cfg(feature = "cblas")]
mod cblas_enums;
#[cfg(feature = "ndarray")]
pub mod nd;
