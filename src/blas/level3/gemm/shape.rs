//! sgemm's argument rules and shape: pure functions, no GL.
//!
//! A row-major call is turned into the column-major call it equals (C^T = op(B)^T op(A)^T),
//! and arguments are then checked in the order reference BLAS checks them. Errors name the
//! user's own parameter and its position in the CBLAS call, as reference CBLAS's `xerbla`
//! reports it.

use crate::blas::args::{invalid, matrix_span};
use crate::blas::types::{Layout, Transpose};
use crate::error::{Error, Result};

/// A column-major matrix operand: element (r, c) of the stored matrix is at
/// `off + r + c * ld`; with `trans`, the operand is the transpose of what is stored.
/// (`off` is 0 for a user's call; the blocked level-3 routines point at sub-blocks.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Operand {
    pub trans: bool,
    pub ld: usize,
    pub off: usize,
}

impl Operand {
    /// The `spread` of the image-store pack (`gemm_pack_image.frag`) reading this operand
    /// from a texture `width` texels wide: how many stored columns apart a warp's four rows
    /// of fragments read. Columns of `ld` floats, `4 width / ld` to a texture row, start on
    /// neighbouring texture rows that many apart, where a warp's reads touch fewer of the
    /// texture's blocks than side by side across one row (as sgemv's spread order, session
    /// 13; on the H100 sgemm 1024's op(A) pack went from 77 to 63 us, session 25). 1 (in
    /// order) where a column fills a texture row or more, and for a transposed operand
    /// (whose fragments read four neighbouring columns each: spread, it was slower).
    pub fn pack_spread(&self, width: u32) -> u32 {
        if self.trans {
            return 1;
        }
        let spread = (4 * width as usize).checked_div(self.ld).unwrap_or(0);
        spread.clamp(1, u16::MAX as usize) as u32
    }
}

/// Which part of C's window a product writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    /// All of it.
    Full,
    /// Only the elements (i, j) with `i + diag <= j`: the upper triangle of a diagonal
    /// block whose rows start `diag` after its columns.
    Upper(i64),
    /// Only those with `i + diag >= j`.
    Lower(i64),
}

/// Which terms of the sum over k each row of C takes. A blocked triangular product
/// (strmm) runs its off-diagonal blocks as one product over all of a triangular op(A),
/// without its diagonal blocks of `b` rows: row `i` of the window (block `i / b`) sums
/// only the `l` of op(A)'s blocks before (or after) its own. Only the kernels whose tiles
/// (or draws) lie inside one block of `b` rows read it (`GemmKernel::bounds_terms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Terms {
    /// Every `l < k`.
    All,
    /// `l < (i / b) * b`: a lower op(A) left of its diagonal blocks.
    Before(usize),
    /// `l >= (i / b + 1) * b`: an upper op(A) right of its diagonal blocks.
    After(usize),
}

impl Terms {
    /// The terms `[lo, hi)` of `[k0, k1)` that rows `i0 ..` (inside one block) take; empty
    /// when `lo >= hi`. `gemm_window.glsl`'s `term_range` is the same.
    pub(crate) fn range(self, i0: usize, (k0, k1): (usize, usize)) -> (usize, usize) {
        match self {
            Terms::All => (k0, k1),
            Terms::Before(b) => (k0, k1.min(i0 / b * b)),
            Terms::After(b) => (k0.max((i0 / b + 1) * b), k1),
        }
    }
}

/// A sgemm call in column-major form: C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta C.
/// `swapped` says that A and B here are the user's B and A (a row-major call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Operand,
    pub b: Operand,
    pub ldc: usize,
    /// Element offset of C's window (0 for a user's call).
    pub c_off: usize,
    /// The part of the window written.
    pub window: Window,
    /// The terms of the sum each row takes.
    pub terms: Terms,
    pub swapped: bool,
}

impl Operand {
    /// A stored matrix from element `off` with leading dimension `ld`, transposed if
    /// `trans`.
    pub(crate) fn at(off: usize, ld: usize, trans: bool) -> Self {
        Operand { trans, ld, off }
    }
}

impl GemmShape {
    /// A column-major product with no transposes and tight leading dimensions.
    pub fn plain(m: usize, n: usize, k: usize) -> Self {
        GemmShape {
            m,
            n,
            k,
            a: Operand {
                trans: false,
                ld: m.max(1),
                off: 0,
            },
            b: Operand {
                trans: false,
                ld: k.max(1),
                off: 0,
            },
            ldc: m.max(1),
            c_off: 0,
            window: Window::Full,
            terms: Terms::All,
            swapped: false,
        }
    }

    /// A product on sub-blocks, for the blocked level-3 routines: C's `m x n` window from
    /// element `c_off` (leading dimension `ldc`, the part `window` written) gets op(A)
    /// (`m x k`) times op(B) (`k x n`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn block(
        (m, n, k): (usize, usize, usize),
        a: Operand,
        b: Operand,
        ldc: usize,
        c_off: usize,
        window: Window,
    ) -> Self {
        GemmShape {
            m,
            n,
            k,
            a,
            b,
            ldc,
            c_off,
            window,
            terms: Terms::All,
            swapped: false,
        }
    }

    /// Elements the stored A spans (rows x cols with its ld).
    pub fn a_span(&self) -> usize {
        let (r, c) = if self.a.trans {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        };
        self.a.off + matrix_span(r, c, self.a.ld)
    }
    /// Elements the stored B spans.
    pub fn b_span(&self) -> usize {
        let (r, c) = if self.b.trans {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        };
        self.b.off + matrix_span(r, c, self.b.ld)
    }
    /// Elements C spans.
    pub fn c_span(&self) -> usize {
        self.c_off + matrix_span(self.m, self.n, self.ldc)
    }

    /// Reference SGEMM's quick return: `m == 0`, `n == 0`, or `(alpha == 0 or k == 0)` with
    /// `beta == 1`. Nothing is read or written.
    pub fn quick_return(&self, alpha: f32, beta: f32) -> bool {
        self.m == 0 || self.n == 0 || ((alpha == 0.0 || self.k == 0) && beta == 1.0)
    }

    /// Checks that the user's A, B and C (lengths in the user's order) hold what the call
    /// reads: A and B only when the product is formed (`alpha != 0` and `k > 0`), C always.
    /// Call after [`GemmShape::quick_return`].
    pub fn check_lengths(&self, alpha: f32, a: usize, b: usize, c: usize) -> Result<()> {
        // In column-major form A and B are the user's B and A for a row-major call.
        let (ua, ub) = if self.swapped {
            (self.b_span(), self.a_span())
        } else {
            (self.a_span(), self.b_span())
        };
        let product = alpha != 0.0 && self.k > 0;
        let operands = [
            ("a", ua, a, product),
            ("b", ub, b, product),
            ("c", self.c_span(), c, true),
        ];
        for (param, needed, len, read) in operands {
            if read && needed > len {
                return Err(Error::TooShort {
                    routine: "sgemm",
                    param,
                    needed,
                    len,
                });
            }
        }
        Ok(())
    }
}

/// Validates sgemm arguments and returns the column-major form of the call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_shape(
    layout: Layout,
    transa: Transpose,
    transb: Transpose,
    m: i32,
    n: i32,
    k: i32,
    lda: i32,
    ldb: i32,
    ldc: i32,
) -> Result<GemmShape> {
    const R: &str = "sgemm";
    // Column-major form: (ta, tb, m, n, lda, ldb) and the user's names for each slot.
    let swapped = layout == Layout::RowMajor;
    let (ta, tb, cm, cn, clda, cldb) = if swapped {
        (transb, transa, n, m, ldb, lda)
    } else {
        (transa, transb, m, n, lda, ldb)
    };
    let (m_name, n_name, lda_name, ldb_name) = if swapped {
        (("n", 5), ("m", 4), ("ldb", 11), ("lda", 9))
    } else {
        (("m", 4), ("n", 5), ("lda", 9), ("ldb", 11))
    };
    let nrowa = if ta.is_trans() { k } else { cm };
    let nrowb = if tb.is_trans() { cn } else { k };
    if cm < 0 {
        return Err(invalid(R, m_name.0, m_name.1, format!("{cm} is negative")));
    }
    if cn < 0 {
        return Err(invalid(R, n_name.0, n_name.1, format!("{cn} is negative")));
    }
    if k < 0 {
        return Err(invalid(R, "k", 6, format!("{k} is negative")));
    }
    if clda < nrowa.max(1) {
        return Err(invalid(
            R,
            lda_name.0,
            lda_name.1,
            format!("{clda} is less than max(1, {})", nrowa),
        ));
    }
    if cldb < nrowb.max(1) {
        return Err(invalid(
            R,
            ldb_name.0,
            ldb_name.1,
            format!("{cldb} is less than max(1, {})", nrowb),
        ));
    }
    if ldc < cm.max(1) {
        return Err(invalid(
            R,
            "ldc",
            14,
            format!("{ldc} is less than max(1, {})", cm),
        ));
    }
    Ok(GemmShape {
        m: cm as usize,
        n: cn as usize,
        k: k as usize,
        a: Operand {
            trans: ta.is_trans(),
            ld: clda as usize,
            off: 0,
        },
        b: Operand {
            trans: tb.is_trans(),
            ld: cldb as usize,
            off: 0,
        },
        ldc: ldc as usize,
        c_off: 0,
        window: Window::Full,
        terms: Terms::All,
        swapped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Transpose::*;

    #[test]
    fn pack_spread_is_the_columns_a_texture_row_holds() {
        let op = |trans, ld| Operand { trans, ld, off: 0 };
        // 1024-float columns in rows of 8192 texels: 32 a row, 8 groups of four.
        assert_eq!(op(false, 1024).pack_spread(8192), 32);
        assert_eq!(op(true, 1024).pack_spread(8192), 1);
        // Columns of a row or more, and a degenerate ld, keep the order.
        assert_eq!(op(false, 32768).pack_spread(8192), 1);
        assert_eq!(op(false, 65536).pack_spread(8192), 1);
        assert_eq!(op(true, 16384).pack_spread(8192), 1);
        assert_eq!(op(false, 0).pack_spread(8192), 1);
        // An ld that does not divide a row: its floor.
        assert_eq!(op(false, 1000).pack_spread(8192), 32);
        assert_eq!(op(false, 1).pack_spread(u32::MAX), u16::MAX as u32);
    }

    fn pos(e: Error) -> (&'static str, u32) {
        match e {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn term_ranges_leave_out_the_diagonal_blocks() {
        assert_eq!(Terms::All.range(40, (0, 100)), (0, 100));
        // Rows 64..127 (block 1 of 64) take l < 64 (lower) or l >= 128 (upper).
        assert_eq!(Terms::Before(64).range(64, (0, 200)), (0, 64));
        assert_eq!(Terms::Before(64).range(112, (32, 200)), (32, 64));
        assert_eq!(Terms::After(64).range(64, (0, 200)), (128, 200));
        // Block 0 of a lower T and the last block of an upper one take nothing.
        let (lo, hi) = Terms::Before(64).range(8, (0, 200));
        assert!(lo >= hi);
        let (lo, hi) = Terms::After(64).range(192, (0, 200));
        assert!(lo >= hi);
    }

    #[test]
    fn gemm_col_major_rules() {
        let s = gemm_shape(ColMajor, NoTrans, Trans, 3, 4, 5, 3, 4, 3).unwrap();
        assert_eq!((s.m, s.n, s.k, s.ldc), (3, 4, 5, 3));
        assert_eq!(
            s.a,
            Operand {
                trans: false,
                ld: 3,
                off: 0
            }
        );
        assert_eq!(
            s.b,
            Operand {
                trans: true,
                ld: 4,
                off: 0
            }
        );
        assert_eq!((s.a_span(), s.b_span(), s.c_span()), (15, 20, 12));
        let e = |r: Result<GemmShape>| pos(r.unwrap_err());
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, -1, 4, 5, 3, 5, 3)),
            ("m", 4)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 3, -1, 5, 3, 5, 3)),
            ("n", 5)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 3, 4, -1, 3, 5, 3)),
            ("k", 6)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 3, 4, 5, 2, 5, 3)),
            ("lda", 9)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, Trans, NoTrans, 3, 4, 5, 4, 5, 3)),
            ("lda", 9)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 3, 4, 5, 3, 4, 3)),
            ("ldb", 11)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, Trans, 3, 4, 5, 3, 3, 3)),
            ("ldb", 11)
        );
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 3, 4, 5, 3, 5, 2)),
            ("ldc", 14)
        );
        // Each leading dimension is checked on its own (glBLAS joined them with ||).
        assert!(gemm_shape(ColMajor, NoTrans, NoTrans, 3, 4, 5, 3, 5, 3).is_ok());
        // Zero sizes need leading dimensions of at least 1.
        assert!(gemm_shape(ColMajor, NoTrans, NoTrans, 0, 0, 0, 1, 1, 1).is_ok());
        assert_eq!(
            e(gemm_shape(ColMajor, NoTrans, NoTrans, 0, 0, 0, 0, 1, 1)),
            ("lda", 9)
        );
    }

    #[test]
    fn gemm_row_major_is_the_swapped_column_major_call() {
        // Row-major C (3x4) = A (3x5) B (5x4): lda >= 5, ldb >= 4, ldc >= 4.
        let s = gemm_shape(RowMajor, NoTrans, NoTrans, 3, 4, 5, 5, 4, 4).unwrap();
        assert!(s.swapped);
        assert_eq!((s.m, s.n, s.k, s.ldc), (4, 3, 5, 4));
        assert_eq!(
            s.a,
            Operand {
                trans: false,
                ld: 4,
                off: 0
            }
        ); // the user's B
        assert_eq!(
            s.b,
            Operand {
                trans: false,
                ld: 5,
                off: 0
            }
        ); // the user's A
        let e = |r: Result<GemmShape>| pos(r.unwrap_err());
        assert_eq!(
            e(gemm_shape(RowMajor, NoTrans, NoTrans, 3, 4, 5, 4, 4, 4)),
            ("lda", 9)
        );
        assert_eq!(
            e(gemm_shape(RowMajor, NoTrans, NoTrans, 3, 4, 5, 5, 3, 4)),
            ("ldb", 11)
        );
        assert_eq!(
            e(gemm_shape(RowMajor, NoTrans, NoTrans, 3, 4, 5, 5, 4, 3)),
            ("ldc", 14)
        );
        assert_eq!(
            e(gemm_shape(RowMajor, Trans, NoTrans, 3, 4, 5, 2, 4, 4)),
            ("lda", 9)
        );
        assert_eq!(
            e(gemm_shape(RowMajor, NoTrans, NoTrans, -1, 4, 5, 5, 4, 4)),
            ("m", 4)
        );
        // As in reference CBLAS, a row-major call checks N before M.
        assert_eq!(
            e(gemm_shape(RowMajor, NoTrans, NoTrans, -1, -1, 5, 5, 4, 4)),
            ("n", 5)
        );
    }
}
