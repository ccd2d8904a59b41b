//! The enums of the BLAS interface, as CBLAS defines them: pure, used by every layer above.

/// Storage order of a matrix argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Rows are contiguous (C style).
    RowMajor,
    /// Columns are contiguous (Fortran and BLAS style).
    ColMajor,
}

/// Whether a matrix argument is used as is or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transpose {
    /// op(A) = A.
    NoTrans,
    /// op(A) = A^T.
    Trans,
    /// op(A) = A^H, the same as `Trans` for real matrices.
    ConjTrans,
}

impl Transpose {
    /// Whether the operand is transposed.
    pub fn is_trans(self) -> bool {
        self != Transpose::NoTrans
    }

    /// The other of `NoTrans` and `Trans` (`ConjTrans` counts as `Trans`).
    pub(crate) fn flip(self) -> Transpose {
        if self.is_trans() {
            Transpose::NoTrans
        } else {
            Transpose::Trans
        }
    }
}
