//! `From` conversions both ways between the `cblas` crate's enums and this crate's, so that
//! code written against `cblas` ports with `.into()`:
//!
//! | `cblas` | `fragblas` |
//! |---|---|
//! | `Layout::{RowMajor, ColumnMajor}` | [`Layout`]`::{RowMajor, ColMajor}` |
//! | `Transpose::{None, Ordinary, Conjugate}` | [`Transpose`]`::{NoTrans, Trans, ConjTrans}` |
//! | `Part::{Upper, Lower}` | [`Uplo`]`::{Upper, Lower}` |
//! | `Diagonal::{Generic, Unit}` | [`Diag`]`::{NonUnit, Unit}` |
//! | `Side::{Left, Right}` | [`Side`]`::{Left, Right}` |
//!
//! ```
//! # use cblas_crate as cblas; // a user's `cblas` dependency (renamed inside this crate)
//! use fragblas::{Transpose, Uplo};
//! let t: Transpose = cblas::Transpose::Ordinary.into();
//! assert_eq!(t, Transpose::Trans);
//! let p: cblas::Part = Uplo::Lower.into();
//! assert!(matches!(p, cblas::Part::Lower));
//! ```

use crate::blas::types::{Diag, Layout, Side, Transpose, Uplo};
use cblas_crate as c;

/// One `From` each way for a pair of enums whose variants correspond one to one.
macro_rules! both_ways {
    ($ours:ident, $theirs:ident, $($o:ident <=> $t:ident),+ $(,)?) => {
        impl From<c::$theirs> for $ours {
            fn from(v: c::$theirs) -> Self {
                match v {
                    $(c::$theirs::$t => $ours::$o,)+
                }
            }
        }

        impl From<$ours> for c::$theirs {
            fn from(v: $ours) -> Self {
                match v {
                    $($ours::$o => c::$theirs::$t,)+
                }
            }
        }
    };
}

both_ways!(Layout, Layout, RowMajor <=> RowMajor, ColMajor <=> ColumnMajor);
both_ways!(
    Transpose,
    Transpose,
    NoTrans <=> None,
    Trans <=> Ordinary,
    ConjTrans <=> Conjugate,
);
both_ways!(Uplo, Part, Upper <=> Upper, Lower <=> Lower);
both_ways!(Diag, Diagonal, NonUnit <=> Generic, Unit <=> Unit);
both_ways!(Side, Side, Left <=> Left, Right <=> Right);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant maps to the variant with the same CBLAS code and back.
    #[test]
    fn codes_agree_and_round_trip() {
        for (ours, code) in [(Layout::RowMajor, 101), (Layout::ColMajor, 102)] {
            let t: c::Layout = ours.into();
            assert_eq!(t as i32, code);
            assert_eq!(Layout::from(t), ours);
        }
        for (ours, code) in [
            (Transpose::NoTrans, 111),
            (Transpose::Trans, 112),
            (Transpose::ConjTrans, 113),
        ] {
            let t: c::Transpose = ours.into();
            assert_eq!(t as i32, code);
            assert_eq!(Transpose::from(t), ours);
        }
        for (ours, code) in [(Uplo::Upper, 121), (Uplo::Lower, 122)] {
            let t: c::Part = ours.into();
            assert_eq!(t as i32, code);
            assert_eq!(Uplo::from(t), ours);
        }
        for (ours, code) in [(Diag::NonUnit, 131), (Diag::Unit, 132)] {
            let t: c::Diagonal = ours.into();
            assert_eq!(t as i32, code);
            assert_eq!(Diag::from(t), ours);
        }
        for (ours, code) in [(Side::Left, 141), (Side::Right, 142)] {
            let t: c::Side = ours.into();
            assert_eq!(t as i32, code);
            assert_eq!(Side::from(t), ours);
        }
    }
}
