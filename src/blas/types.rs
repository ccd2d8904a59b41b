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

/// Which triangle of a symmetric or triangular matrix is stored and referenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Uplo {
    /// The upper triangle (CBLAS `CblasUpper`, 121).
    Upper,
    /// The lower triangle (CBLAS `CblasLower`, 122).
    Lower,
}

impl Uplo {
    /// The other triangle: a row-major triangle is the other triangle of the column-major
    /// transpose.
    pub(crate) fn flip(self) -> Uplo {
        match self {
            Uplo::Upper => Uplo::Lower,
            Uplo::Lower => Uplo::Upper,
        }
    }
}

/// Whether a triangular matrix has an implicit unit diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Diag {
    /// The diagonal is stored and used (CBLAS `CblasNonUnit`, 131).
    NonUnit,
    /// The diagonal is taken as all ones and not read (CBLAS `CblasUnit`, 132).
    Unit,
}

/// On which side of B a matrix multiplies (level 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// op(A) B (CBLAS `CblasLeft`, 141).
    Left,
    /// B op(A) (CBLAS `CblasRight`, 142).
    Right,
}
