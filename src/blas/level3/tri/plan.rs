//! The pure part of strmm and strsm: their argument rules, the column-major "left" form every
//! call is turned into, and the recursive plan of diagonal blocks and sgemm updates. No GL.
//!
//! Every call becomes a product with, or a solve against, a triangular `T` from the left on
//! a working matrix `W` of `order` rows: `op(A)*B` and `op(A)^-1*B` have `T = op(A)` and
//! `W = B`; `B*op(A)` and `B*op(A)^-1` are the same with `T = op(A)^T` and `W = B^T`.
//! A solve's plan halves the rows of T until a diagonal block is at most `base` rows (one
//! pass of a small kernel), and joins the halves with the off-diagonal block of T, an sgemm:
//! most of the work is in a few large sgemms. A product needs no order: its diagonal blocks
//! and the levels of the same halving, each level's updates independent of each other.

use crate::blas::args::{ld_at_least, matrix_span, non_negative};
use crate::blas::level3::symm::flip_side;
use crate::blas::types::{Diag, Layout, Side, Transpose, Uplo};
use crate::error::{Error, Result};

/// A strmm or strsm call in column-major form, after the argument rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TriCall {
    pub side: Side,
    pub uplo: Uplo,
    pub trans: bool,
    pub diag: Diag,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub ldb: usize,
}

/// The argument rules of strmm and strsm (`r`) in reference order, and the column-major form
/// of the call: a row-major call is the column-major one with the other side and the other
/// triangle, m and n exchanged, the transpose kept (C CBLAS's mapping); errors name the
/// user's parameters (m at CBLAS position 6, n 7, lda 10, ldb 12).
#[allow(clippy::too_many_arguments)]
pub(crate) fn tri_call(
    r: &'static str,
    layout: Layout,
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    m: i32,
    n: i32,
    lda: i32,
    ldb: i32,
) -> Result<TriCall> {
    let row = layout == Layout::RowMajor;
    let (side, uplo) = if row {
        (flip_side(side), uplo.flip())
    } else {
        (side, uplo)
    };
    let ((cm, m_name), (cn, n_name)) = if row {
        ((n, ("n", 7)), (m, ("m", 6)))
    } else {
        ((m, ("m", 6)), (n, ("n", 7)))
    };
    non_negative(r, m_name.0, m_name.1, cm)?;
    non_negative(r, n_name.0, n_name.1, cn)?;
    let ka = if side == Side::Left { cm } else { cn };
    ld_at_least(r, "lda", 10, lda, ka as i64)?;
    ld_at_least(r, "ldb", 12, ldb, cm as i64)?;
    Ok(TriCall {
        side,
        uplo,
        trans: trans.is_trans(),
        diag,
        m: cm as usize,
        n: cn as usize,
        lda: lda as usize,
        ldb: ldb as usize,
    })
}

impl TriCall {
    /// The order of A.
    pub(crate) fn ka(&self) -> usize {
        if self.side == Side::Left {
            self.m
        } else {
            self.n
        }
    }

    /// Reference's quick return: `m == 0` or `n == 0` (nothing read or written).
    pub(crate) fn quick_return(&self) -> bool {
        self.m == 0 || self.n == 0
    }

    /// Elements of A the call reads (none when `alpha == 0`) and of B it spans.
    pub(crate) fn spans(&self, alpha: f32) -> (usize, usize) {
        let a = if alpha == 0.0 {
            0
        } else {
            matrix_span(self.ka(), self.ka(), self.lda)
        };
        (a, matrix_span(self.m, self.n, self.ldb))
    }

    /// Checks the lengths of A and B (call after the quick return).
    pub(crate) fn check_lengths(
        &self,
        r: &'static str,
        alpha: f32,
        a: usize,
        b: usize,
    ) -> Result<()> {
        let (sa, sb) = self.spans(alpha);
        for (param, needed, len) in [("a", sa, a), ("b", sb, b)] {
            if needed > len {
                return Err(Error::TooShort {
                    routine: r,
                    param,
                    needed,
                    len,
                });
            }
        }
        Ok(())
    }

    /// The left form of the call (see the module's notes).
    pub(crate) fn left_form(&self) -> LeftForm {
        let left = self.side == Side::Left;
        let stored_lower = self.uplo == Uplo::Lower;
        LeftForm {
            order: self.ka(),
            rhs: if left { self.n } else { self.m },
            // T = op(A) is lower when A is lower and not transposed, or upper and transposed;
            // T = op(A)^T the other way round.
            lower: if left {
                stored_lower != self.trans
            } else {
                stored_lower == self.trans
            },
            // The expansion of A writes T^T (rows of T are columns of the texture).
            expand_trans: if left { !self.trans } else { self.trans },
            w_trans: !left,
            // Reference's zero tests: the column-oriented left forms (op(A) = A) leave out
            // the rows of B that are 0; the right forms leave out the zeros of A off its
            // diagonal. The right forms multiply by the reciprocal of a diagonal element.
            skip_w: left && !self.trans,
            skip_t: !left,
            recip: !left,
        }
    }
}

/// A call in left form: T (`order x order`, lower or upper) times, or solved against, W
/// (`order x rhs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LeftForm {
    pub order: usize,
    pub rhs: usize,
    pub lower: bool,
    /// Expand op(A) transposed (the expansion writes T^T).
    pub expand_trans: bool,
    /// W is B^T (a right-side call).
    pub w_trans: bool,
    /// Terms whose element of W (B) is 0 are left out, and such an element is not divided.
    pub skip_w: bool,
    /// Terms whose off-diagonal element of T is 0 are left out.
    pub skip_t: bool,
    /// Divide by multiplying by the reciprocal.
    pub recip: bool,
}

/// One step of a plan over the rows of T and W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The diagonal block of rows `[r0, r1)`: its own small kernel.
    Base(usize, usize),
    /// Rows `out` of the result get T(out, from) * W(from) (an sgemm).
    Update {
        out: (usize, usize),
        from: (usize, usize),
    },
}

/// Where rows `[r0, r1)` split: after a multiple of `base` rows, near the middle.
fn split(r0: usize, r1: usize, base: usize) -> usize {
    r0 + (r1 - r0).div_ceil(2).next_multiple_of(base)
}

/// The levels of a triangular product `T*W` (into a new matrix) after its diagonal blocks
/// of `base` rows on the grid from row 0: `h = base, 2*base, 4*base, ...` below `order`.
pub(crate) fn product_levels(order: usize, base: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(base.max(1)), |h| Some(2 * h)).take_while(move |&h| h < order)
}

/// The updates of level `h` of a product: the pairs of neighbouring blocks of `h` rows from
/// row 0, where the second block (of a lower T; the first of an upper one) gets T's block
/// between the two times W's rows of the other. The updates of a level are independent
/// (one pass of `tri_block.frag` in grid mode can run them all); with the diagonal blocks
/// and the other levels they form every term of the triangle once.
pub(crate) fn level_updates(order: usize, h: usize, lower: bool) -> Vec<Step> {
    (0..order)
        .step_by(2 * h)
        .filter(|&first| first + h < order)
        .map(|first| {
            let (a, b) = ((first, first + h), (first + h, (first + 2 * h).min(order)));
            if lower {
                Step::Update { out: b, from: a }
            } else {
                Step::Update { out: a, from: b }
            }
        })
        .collect()
}

/// The steps of a triangular solve `T^-1*W` in place over rows `[0, order)`: forward for a
/// lower T, backward for an upper one; each update subtracts solved rows from the rows
/// still to solve.
pub(crate) fn solve_plan(order: usize, base: usize, lower: bool) -> Vec<Step> {
    let mut steps = Vec::new();
    plan(&mut steps, 0, order, base, lower, true);
    steps
}

fn plan(steps: &mut Vec<Step>, r0: usize, r1: usize, base: usize, lower: bool, solve: bool) {
    if r1 <= r0 {
        return;
    }
    if r1 - r0 <= base {
        steps.push(Step::Base(r0, r1));
        return;
    }
    let mid = split(r0, r1, base);
    let (first, second) = if lower {
        ((r0, mid), (mid, r1))
    } else {
        ((mid, r1), (r0, mid))
    };
    let update = Step::Update {
        out: second,
        from: first,
    };
    plan(steps, first.0, first.1, base, lower, solve);
    if solve {
        steps.push(update);
        plan(steps, second.0, second.1, base, lower, solve);
    } else {
        plan(steps, second.0, second.1, base, lower, solve);
        steps.push(update);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;
    use Side::*;
    use Uplo::*;

    fn pos(r: Result<TriCall>) -> (&'static str, u32) {
        match r.unwrap_err() {
            Error::InvalidArgument {
                param, position, ..
            } => (param, position),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn rules_in_reference_order() {
        use Transpose::*;
        let t = |l, s, m, n, lda, ldb| {
            tri_call("strsm", l, s, Upper, NoTrans, Diag::Unit, m, n, lda, ldb)
        };
        assert_eq!(pos(t(ColMajor, Left, -1, -1, 0, 0)), ("m", 6));
        assert_eq!(pos(t(ColMajor, Left, 3, -1, 0, 0)), ("n", 7));
        assert_eq!(pos(t(ColMajor, Left, 3, 4, 2, 3)), ("lda", 10));
        assert_eq!(pos(t(ColMajor, Right, 5, 4, 3, 5)), ("lda", 10));
        assert_eq!(pos(t(ColMajor, Left, 3, 4, 3, 2)), ("ldb", 12));
        assert_eq!(pos(t(ColMajor, Left, 0, 0, 0, 1)), ("lda", 10));
        // Row-major: n checked first; A is m x m for the left side, B has rows of n.
        assert_eq!(pos(t(RowMajor, Left, -1, -1, 1, 1)), ("n", 7));
        assert_eq!(pos(t(RowMajor, Left, -1, 4, 1, 4)), ("m", 6));
        assert_eq!(pos(t(RowMajor, Left, 3, 4, 2, 4)), ("lda", 10));
        assert_eq!(pos(t(RowMajor, Left, 3, 4, 3, 3)), ("ldb", 12));
        let c = t(RowMajor, Left, 3, 4, 3, 4).unwrap();
        assert_eq!((c.side, c.uplo, c.m, c.n, c.ka()), (Right, Lower, 4, 3, 3));
        assert!(c.check_lengths("strsm", 1.0, 9, 12).is_ok());
        assert!(c.check_lengths("strsm", 1.0, 8, 12).is_err());
        assert!(c.check_lengths("strsm", 0.0, 0, 12).is_ok());
        assert!(c.check_lengths("strsm", 0.0, 0, 11).is_err());
    }

    #[test]
    fn left_forms() {
        let c = |side, uplo, trans| TriCall {
            side,
            uplo,
            trans,
            diag: Diag::NonUnit,
            m: 3,
            n: 5,
            lda: 5,
            ldb: 3,
        };
        let f = c(Left, Lower, false).left_form();
        assert_eq!(
            (f.order, f.rhs, f.lower, f.expand_trans, f.w_trans),
            (3, 5, true, true, false)
        );
        assert!(f.skip_w && !f.skip_t && !f.recip);
        let f = c(Left, Upper, true).left_form();
        assert!(f.lower && !f.expand_trans && !f.skip_w);
        // Right side: T = op(A)^T, W = B^T.
        let f = c(Right, Upper, false).left_form();
        assert_eq!(
            (f.order, f.rhs, f.lower, f.expand_trans, f.w_trans),
            (5, 3, true, false, true)
        );
        assert!(!f.skip_w && f.skip_t && f.recip);
        let f = c(Right, Upper, true).left_form();
        assert!(!f.lower && f.expand_trans);
    }

    /// Rows are split at multiples of `base`, blocks are at most `base`, and each update
    /// joins two neighbouring ranges.
    fn blocks(steps: &[Step], order: usize, base: usize) -> Vec<(usize, usize)> {
        let mut b: Vec<_> = steps
            .iter()
            .filter_map(|s| match *s {
                Step::Base(r0, r1) => Some((r0, r1)),
                _ => None,
            })
            .collect();
        b.sort();
        assert_eq!(b.first().map(|x| x.0), Some(0));
        assert_eq!(b.last().map(|x| x.1), Some(order));
        for w in b.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(r0, r1) in &b {
            assert!(r1 - r0 <= base && r0 % base == 0);
        }
        b
    }

    #[test]
    fn products_cover_each_term_of_the_triangle_once() {
        for order in [1, 2, 3, 4, 5, 31, 32, 33, 64, 65, 100, 129, 1000] {
            for base in [4, 32] {
                for lower in [false, true] {
                    let mut seen = vec![0u8; order * order];
                    // The diagonal blocks on the grid of `base`.
                    for r in 0..order {
                        let d = r / base * base;
                        for l in d..(d + base).min(order) {
                            if (lower && l <= r) || (!lower && l >= r) {
                                seen[r * order + l] += 1;
                            }
                        }
                    }
                    for h in product_levels(order, base) {
                        for s in level_updates(order, h, lower) {
                            let Step::Update { out, from } = s else {
                                panic!("a level holds updates")
                            };
                            assert_eq!(out.0 % h, 0);
                            assert!(out.1 - out.0 <= h && from.1 - from.0 <= h);
                            for r in out.0..out.1 {
                                for l in from.0..from.1 {
                                    seen[r * order + l] += 1;
                                }
                            }
                        }
                    }
                    for r in 0..order {
                        for l in 0..order {
                            let want = u8::from(if lower { l <= r } else { l >= r });
                            assert_eq!(seen[r * order + l], want, "order {order} ({r}, {l})");
                        }
                    }
                }
            }
        }
        assert_eq!(
            product_levels(1000, 64).collect::<Vec<_>>(),
            [64, 128, 256, 512]
        );
        assert_eq!(product_levels(64, 64).count(), 0);
    }

    #[test]
    fn solves_use_each_row_only_once_solved() {
        for order in [1, 3, 4, 5, 33, 64, 65, 129, 1000] {
            for lower in [false, true] {
                let steps = solve_plan(order, 32, lower);
                blocks(&steps, order, 32);
                // Pending terms of row r: the solved rows it still has to subtract.
                let mut pending: Vec<usize> = (0..order)
                    .map(|r| if lower { r } else { order - 1 - r })
                    .collect();
                let mut solved = vec![false; order];
                for s in &steps {
                    match *s {
                        Step::Base(r0, r1) => {
                            for r in r0..r1 {
                                // Within the block the kernel subtracts the block's own
                                // earlier rows; everything before the block is done.
                                let inside = if lower { r - r0 } else { r1 - 1 - r };
                                assert_eq!(pending[r], inside, "order {order} row {r}");
                                solved[r] = true;
                            }
                        }
                        Step::Update { out, from } => {
                            for r in out.0..out.1 {
                                assert!(!solved[r]);
                                assert!(solved[from.0..from.1].iter().all(|&s| s));
                                pending[r] -= from.1 - from.0;
                            }
                        }
                    }
                }
                assert!(solved.iter().all(|&s| s));
            }
        }
    }
}
