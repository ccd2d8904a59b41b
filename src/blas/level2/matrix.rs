//! What the level-2 routines share, as pure code (unit-tested below): the column-major form
//! of a matrix argument, its [`Storage`] (full with a leading dimension, band, or packed)
//! and [`Shape`] (general, symmetric, triangular), the storage it spans, which columns of a
//! row of op(A) can be non-zero, the argument rules they have in common, and the row-major
//! mapping as C CBLAS does it (a row-major matrix is the column-major transpose, so a
//! triangle flips and a transpose flips). The passes on the GPU are in `product.rs`.

use crate::blas::args::{check_span, matrix_span};
use crate::blas::types::{Diag, Layout, Transpose, Uplo};
use crate::device::buffer::Buffer;
use crate::error::{Error, Result};
use crate::gl::{Gl, Program};

/// How a level-2 matrix is stored, in column-major form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// Element (i, j) at `i + j*lda`.
    Full { lda: usize },
    /// Band storage: element (i, j) at `ku + i - j + j*lda`, for `-kl <= j - i... ` within
    /// `kl` sub- and `ku` super-diagonals (a symmetric or triangular band matrix of `k`
    /// diagonals stores `ku = k, kl = 0` for the upper triangle, `kl = k, ku = 0` for the
    /// lower).
    Band { kl: usize, ku: usize, lda: usize },
    /// Packed triangle: upper (i <= j) at `i + j(j+1)/2`, lower (i >= j) at
    /// `i + j(2n-j-1)/2`.
    Packed,
}

/// What a level-2 matrix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every element stored (within the band).
    General,
    /// Only the `Uplo` triangle is stored; the other mirrors it.
    Symmetric(Uplo),
    /// Zero outside the `Uplo` triangle; a `Unit` diagonal is 1 and not read.
    Triangular(Uplo, Diag),
}

impl Shape {
    /// Whether the stored triangle is the upper one (false for a general matrix).
    pub(crate) fn upper(self) -> bool {
        matches!(
            self,
            Shape::Symmetric(Uplo::Upper) | Shape::Triangular(Uplo::Upper, _)
        )
    }
}

/// A level-2 matrix argument in column-major form: `rows x cols` (square unless general).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Matrix {
    pub storage: Storage,
    pub shape: Shape,
    pub rows: usize,
    pub cols: usize,
}

impl Matrix {
    /// A square `n x n` matrix.
    pub(crate) fn square(storage: Storage, shape: Shape, n: usize) -> Self {
        Matrix {
            storage,
            shape,
            rows: n,
            cols: n,
        }
    }

    /// Elements the stored array spans: one past the last element a routine can read.
    pub(crate) fn span(&self) -> usize {
        let (m, n) = (self.rows, self.cols);
        if m == 0 || n == 0 {
            return 0;
        }
        match self.storage {
            Storage::Full { lda } => matrix_span(m, n, lda),
            Storage::Packed => n.saturating_mul(n + 1) / 2,
            Storage::Band { kl, ku, lda } => {
                // The last column with an element in the band: j - ku <= m - 1.
                let last = (n - 1).min((m - 1).saturating_add(ku));
                let bottom = (m - 1).min(last.saturating_add(kl));
                last.saturating_mul(lda)
                    .saturating_add(ku + bottom - last)
                    .saturating_add(1)
            }
        }
    }

    /// The columns of op(A)'s row i that can be non-zero are `i + lo ..= i + hi` (within
    /// the matrix): `(lo, hi)`, clamped to the matrix's size.
    pub(crate) fn row_offsets(&self, trans: bool) -> (i64, i64) {
        let big = self.rows.max(self.cols) as i64;
        // (lo, hi) for A itself: columns j of row i with j - i in [lo, hi].
        let (lo, hi) = match (self.shape, self.storage) {
            (Shape::General, Storage::Band { kl, ku, .. }) => (-(kl as i64), ku as i64),
            (Shape::General, _) => (-big, big),
            (Shape::Symmetric(_), Storage::Band { kl, ku, .. }) => {
                let k = kl.max(ku) as i64;
                (-k, k)
            }
            (Shape::Symmetric(_), _) => (-big, big),
            (Shape::Triangular(uplo, _), storage) => {
                let k = match storage {
                    Storage::Band { kl, ku, .. } => kl.max(ku) as i64,
                    _ => big,
                };
                match uplo {
                    Uplo::Upper => (0, k),
                    Uplo::Lower => (-k, 0),
                }
            }
        };
        let (lo, hi) = (lo.clamp(-big, big), hi.clamp(-big, big));
        // op(A)(i, j) = A(j, i): the offsets change sign.
        if trans {
            (-hi, -lo)
        } else {
            (lo, hi)
        }
    }

    /// Binds the matrix in `buf` for the helpers of `storage.glsl`: texture unit 0.
    pub(crate) fn bind(&self, gl: &Gl, p: &Program, buf: &Buffer) {
        buf.bind(gl, p, 0, "a", "a_width");
        let (storage, lda, kl, ku) = match self.storage {
            Storage::Full { lda } => (0, lda, 0, 0),
            Storage::Band { kl, ku, lda } => (1, lda, kl, ku),
            Storage::Packed => (2, 0, 0, 0),
        };
        let (shape, upper, unit) = match self.shape {
            Shape::General => (0, false, false),
            Shape::Symmetric(u) => (1, u == Uplo::Upper, false),
            Shape::Triangular(u, d) => (2, u == Uplo::Upper, d == Diag::Unit),
        };
        gl.set_i32(p, "storage", storage);
        gl.set_i32(p, "shape", shape);
        gl.set_i32(p, "upper", upper as i32);
        gl.set_i32(p, "unit_diag", unit as i32);
        gl.set_i32(p, "lda", lda as i32);
        gl.set_i32(p, "kl", kl as i32);
        gl.set_i32(p, "ku", ku as i32);
        gl.set_i32(p, "order", self.cols as i32);
    }
}

/// The column-major triangle and transpose of a triangular call in `layout`: a row-major
/// matrix is the column-major transpose, so the triangle flips and so does the transpose
/// (`ConjTrans` is `Trans`).
pub(crate) fn col_major_tri(layout: Layout, uplo: Uplo, trans: Transpose) -> (Uplo, bool) {
    match layout {
        Layout::ColMajor => (uplo, trans.is_trans()),
        Layout::RowMajor => (uplo.flip(), !trans.is_trans()),
    }
}

/// The column-major triangle of a symmetric matrix given in `layout`.
pub(crate) fn col_major_uplo(layout: Layout, uplo: Uplo) -> Uplo {
    match layout {
        Layout::ColMajor => uplo,
        Layout::RowMajor => uplo.flip(),
    }
}

/// Error unless the matrix buffer holds what the matrix spans.
pub(crate) fn check_matrix(
    r: &'static str,
    param: &'static str,
    m: &Matrix,
    len: usize,
) -> Result<()> {
    let needed = m.span();
    if needed > len {
        Err(Error::TooShort {
            routine: r,
            param,
            needed,
            len,
        })
    } else {
        Ok(())
    }
}

/// A matrix-vector call in column-major form: `op(A)` of `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MvCall {
    pub a: Matrix,
    pub trans: bool,
}

impl MvCall {
    /// Elements of x the product reads.
    pub(crate) fn len_x(&self) -> usize {
        if self.trans {
            self.a.rows
        } else {
            self.a.cols
        }
    }

    /// Elements of the result.
    pub(crate) fn len_y(&self) -> usize {
        if self.trans {
            self.a.cols
        } else {
            self.a.rows
        }
    }

    /// Reference's quick return of `y := alpha*op(A)*x + beta*y`: an empty matrix, or
    /// `alpha == 0` with `beta == 1`.
    pub(crate) fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.a.rows == 0 || self.a.cols == 0 || (alpha == 0.0 && beta == 1.0)
    }

    /// Checks that the matrix, x and y (their lengths) hold what `y := alpha*op(A)*x +
    /// beta*y` reads: A and x only when `alpha != 0`, y always. Call after the quick return.
    pub(crate) fn check_lengths(
        &self,
        r: &'static str,
        a_param: &'static str,
        alpha: f32,
        (a, x, y): (usize, usize, usize),
        incx: i32,
        incy: i32,
    ) -> Result<()> {
        if alpha != 0.0 {
            check_matrix(r, a_param, &self.a, a)?;
            check_span(r, "x", x, self.len_x() as i32, incx)?;
        }
        check_span(r, "y", y, self.len_y() as i32, incy)
    }
}

/// How many columns apart two columns of a matrix whose columns are `col` texels long (a
/// full-storage matrix with `lda = 4*col`, from texel 0 of its texture) start at the same
/// place of their texture rows (`width` texels a row): `width / gcd(width, col)`. Columns
/// that far apart lie in neighbouring rows of the texture (the same place of rows 1 or more
/// apart), and GPU textures keep neighbouring rows close in memory: a warp whose fragments
/// read or write such columns at one moment touches few blocks of the texture.
pub(crate) fn aligned_columns(width: usize, col: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let width = width.max(1);
    width / gcd(width, col.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_triangle_of_each_shape() {
        assert!(Shape::Symmetric(Uplo::Upper).upper());
        assert!(Shape::Triangular(Uplo::Upper, Diag::Unit).upper());
        assert!(!Shape::Symmetric(Uplo::Lower).upper());
        assert!(!Shape::Triangular(Uplo::Lower, Diag::NonUnit).upper());
        assert!(!Shape::General.upper());
    }

    #[test]
    fn columns_that_start_at_the_same_place_of_a_row() {
        assert_eq!(aligned_columns(8192, 1024), 8);
        assert_eq!(aligned_columns(8192, 4096), 2);
        assert_eq!(aligned_columns(8192, 16384), 1);
        assert_eq!(aligned_columns(8192, 1025), 8192);
        assert_eq!(aligned_columns(16, 126), 8);
        assert_eq!(aligned_columns(1, 7), 1);
    }

    /// Brute force: one past the largest index any stored element of `m` has.
    fn brute_span(m: &Matrix) -> usize {
        let mut end = 0;
        for j in 0..m.cols {
            for i in 0..m.rows {
                let idx = match (m.storage, m.shape) {
                    (Storage::Full { lda }, Shape::General) => Some(i + j * lda),
                    (Storage::Full { lda }, Shape::Symmetric(u) | Shape::Triangular(u, _)) => {
                        ((u == Uplo::Upper) == (i <= j) || i == j).then_some(i + j * lda)
                    }
                    (Storage::Band { kl, ku, lda }, _) => {
                        (i + ku >= j && j + kl >= i).then(|| ku + i + j * lda - j)
                    }
                    (Storage::Packed, Shape::Symmetric(u) | Shape::Triangular(u, _)) => match u {
                        Uplo::Upper => (i <= j).then(|| i + j * (j + 1) / 2),
                        Uplo::Lower => (i >= j).then(|| i + j * (2 * m.cols - j - 1) / 2),
                    },
                    (Storage::Packed, Shape::General) => None,
                };
                if let Some(e) = idx {
                    end = end.max(e + 1);
                }
            }
        }
        end
    }

    #[test]
    fn spans_reach_exactly_the_last_stored_element() {
        let tri = Shape::Triangular(Uplo::Upper, Diag::NonUnit);
        let low = Shape::Symmetric(Uplo::Lower);
        for (m, n) in [(1, 1), (3, 5), (5, 3), (7, 7), (1, 9), (9, 1)] {
            for (kl, ku) in [(0, 0), (1, 2), (3, 0), (0, 4), (10, 10)] {
                let lda = kl + ku + 1 + (m % 2);
                let a = Matrix {
                    storage: Storage::Band { kl, ku, lda },
                    shape: Shape::General,
                    rows: m,
                    cols: n,
                };
                assert_eq!(a.span(), brute_span(&a), "gbmv {m}x{n} kl={kl} ku={ku}");
            }
            if m == n {
                for shape in [tri, low] {
                    for storage in [Storage::Full { lda: n + 2 }, Storage::Packed] {
                        let a = Matrix::square(storage, shape, n);
                        assert_eq!(a.span(), brute_span(&a), "{storage:?} {shape:?} {n}");
                    }
                    for k in [0, 1, 3, 20] {
                        let (kl, ku) = match shape {
                            Shape::Triangular(Uplo::Upper, _) => (0, k),
                            _ => (k, 0),
                        };
                        let a = Matrix::square(Storage::Band { kl, ku, lda: k + 2 }, shape, n);
                        assert_eq!(a.span(), brute_span(&a), "band {shape:?} n={n} k={k}");
                    }
                }
            }
        }
        let empty = Matrix::square(Storage::Packed, low, 0);
        assert_eq!(empty.span(), 0);
    }

    #[test]
    fn row_offsets_bound_the_non_zero_columns() {
        let band = Matrix {
            storage: Storage::Band {
                kl: 2,
                ku: 1,
                lda: 4,
            },
            shape: Shape::General,
            rows: 9,
            cols: 9,
        };
        assert_eq!(band.row_offsets(false), (-2, 1));
        assert_eq!(band.row_offsets(true), (-1, 2));
        let up = Matrix::square(
            Storage::Full { lda: 9 },
            Shape::Triangular(Uplo::Upper, Diag::Unit),
            9,
        );
        assert_eq!(up.row_offsets(false), (0, 9));
        assert_eq!(up.row_offsets(true), (-9, 0));
        let sym = Matrix::square(
            Storage::Band {
                kl: 3,
                ku: 0,
                lda: 4,
            },
            Shape::Symmetric(Uplo::Lower),
            9,
        );
        assert_eq!(sym.row_offsets(false), (-3, 3));
    }

    #[test]
    fn row_major_flips_triangle_and_transpose() {
        use Transpose::*;
        assert_eq!(
            col_major_tri(Layout::ColMajor, Uplo::Upper, NoTrans),
            (Uplo::Upper, false)
        );
        assert_eq!(
            col_major_tri(Layout::RowMajor, Uplo::Upper, NoTrans),
            (Uplo::Lower, true)
        );
        assert_eq!(
            col_major_tri(Layout::RowMajor, Uplo::Lower, ConjTrans),
            (Uplo::Upper, false)
        );
        assert_eq!(col_major_uplo(Layout::RowMajor, Uplo::Lower), Uplo::Upper);
    }
}
