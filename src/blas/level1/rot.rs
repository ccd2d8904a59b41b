//! Plane rotations: srotg and srotmg construct them (scalars, computed on the host exactly as
//! reference BLAS 3.12 does, scaling included), srot and srotm apply them to two vectors on
//! the GPU through the shared two-vector update (`update.rs`: in place where the device
//! allows, reference order on the host where a zero increment makes it sequential).

use crate::blas::args::two_vectors;
use crate::blas::level1::host;
use crate::blas::level1::update::{check_owners, pair_on_host, update_pair, Pair};
use crate::device::buffer::Buffer;
use crate::device::context::Context;
use crate::error::Result;

/// The Givens rotation of reference SROTG (3.10 and later, `srotg.f90`): returns
/// `(r, z, c, s)` for `(a, b)`, where `[c s; -s c] [a; b] = [r; 0]` and `z` encodes the
/// rotation (`s` if `|a| > |b|`, else `1/c`, or 1 when `c == 0`). The scaling by
/// `min(safmax, max(safmin, |a|, |b|))` keeps the squares from overflowing or underflowing.
pub(crate) fn rotg(a: f32, b: f32) -> (f32, f32, f32, f32) {
    // safmin = 2^max(minexponent-1, 1-maxexponent), safmax = 2^max(1-minexponent,
    // maxexponent-1) for f32: 2^-126 and 2^127.
    let safmin = f32::MIN_POSITIVE;
    let safmax = f32::from_bits(0x7f00_0000);
    let (anorm, bnorm) = (a.abs(), b.abs());
    if bnorm == 0.0 {
        (a, 0.0, 1.0, 0.0)
    } else if anorm == 0.0 {
        (b, 1.0, 0.0, 1.0)
    } else {
        // Fortran's MAX/MIN on these (finite or Inf, never compared NaN-first here).
        let scl = safmax.min(safmin.max(anorm).max(bnorm));
        let sigma = if anorm > bnorm {
            1.0f32.copysign(a)
        } else {
            1.0f32.copysign(b)
        };
        let (sa, sb) = (a / scl, b / scl);
        let r = sigma * (scl * (sa * sa + sb * sb).sqrt());
        let c = a / r;
        let s = b / r;
        let z = if anorm > bnorm {
            s
        } else if c != 0.0 {
            1.0 / c
        } else {
            1.0
        };
        (r, z, c, s)
    }
}

/// Reference SROTMG (3.12): the modified Givens rotation. Updates `d1`, `d2`, `x1` and the
/// entries of `param` its flag defines (flag -2 writes only `param[0]`, flag 0 also
/// `param[2]`, `param[3]`, flag 1 `param[1]`, `param[4]`, flag -1 all five); the others keep
/// their values, as in reference BLAS.
///
/// Reference's rescaling loops run until `d1` and `d2` lie in `[gam^-2, gam^2]`; on finite
/// inputs that takes a bounded number of steps, but an infinite `d1` or `d2` never gets
/// there (reference loops forever). Here the loops stop after 64 steps, far more than any
/// finite input needs (the f32 exponent range is 277 binary orders, 24 per step).
pub(crate) fn rotmg(d1: &mut f32, d2: &mut f32, x1: &mut f32, y1: f32, param: &mut [f32; 5]) {
    const GAM: f32 = 4096.0;
    const GAMSQ: f32 = 1.67772e7;
    const RGAMSQ: f32 = 5.96046e-8;
    const MAX_STEPS: u32 = 64;
    let (mut h11, mut h12, mut h21, mut h22) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let flag: f32;
    if *d1 < 0.0 {
        flag = -1.0;
        (*d1, *d2, *x1) = (0.0, 0.0, 0.0);
    } else {
        let p2 = *d2 * y1;
        if p2 == 0.0 {
            param[0] = -2.0;
            return;
        }
        let p1 = *d1 * *x1;
        let q2 = p2 * y1;
        let q1 = p1 * *x1;
        let mut f;
        if q1.abs() > q2.abs() {
            h21 = -y1 / *x1;
            h12 = p2 / p1;
            let u = 1.0 - h12 * h21;
            if u > 0.0 {
                f = 0.0;
                *d1 /= u;
                *d2 /= u;
                *x1 *= u;
            } else {
                f = -1.0;
                (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
                (*d1, *d2, *x1) = (0.0, 0.0, 0.0);
            }
        } else if q2 < 0.0 {
            f = -1.0;
            (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
            (*d1, *d2, *x1) = (0.0, 0.0, 0.0);
        } else {
            f = 1.0;
            h11 = p1 / p2;
            h22 = *x1 / y1;
            let u = 1.0 + h11 * h22;
            let temp = *d2 / u;
            *d2 = *d1 / u;
            *d1 = temp;
            *x1 = y1 * u;
        }
        if *d1 != 0.0 {
            let mut steps = 0;
            while (*d1 <= RGAMSQ || *d1 >= GAMSQ) && steps < MAX_STEPS {
                steps += 1;
                to_full(&mut f, &mut h11, &mut h12, &mut h21, &mut h22);
                if *d1 <= RGAMSQ {
                    *d1 *= GAM * GAM;
                    *x1 /= GAM;
                    h11 /= GAM;
                    h12 /= GAM;
                } else {
                    *d1 /= GAM * GAM;
                    *x1 *= GAM;
                    h11 *= GAM;
                    h12 *= GAM;
                }
            }
        }
        if *d2 != 0.0 {
            let mut steps = 0;
            while (d2.abs() <= RGAMSQ || d2.abs() >= GAMSQ) && steps < MAX_STEPS {
                steps += 1;
                to_full(&mut f, &mut h11, &mut h12, &mut h21, &mut h22);
                if d2.abs() <= RGAMSQ {
                    *d2 *= GAM * GAM;
                    h21 /= GAM;
                    h22 /= GAM;
                } else {
                    *d2 /= GAM * GAM;
                    h21 *= GAM;
                    h22 *= GAM;
                }
            }
        }
        flag = f;
    }
    if flag < 0.0 {
        param[1] = h11;
        param[2] = h21;
        param[3] = h12;
        param[4] = h22;
    } else if flag == 0.0 {
        param[2] = h21;
        param[3] = h12;
    } else {
        param[1] = h11;
        param[4] = h22;
    }
    param[0] = flag;
}

/// Reference 3.12's step of the scale check: a flag of 0 becomes -1 with `h11 = h22 = 1`;
/// any other flag becomes -1 with `h21 = -1, h12 = 1`. (So a second step of a loop resets
/// the scaled `h12`: reference 3.12 does, and so does every earlier release since 3.8; the
/// netlib repository fixed it in 2026, after the 3.12 release this crate follows.)
fn to_full(f: &mut f32, h11: &mut f32, h12: &mut f32, h21: &mut f32, h22: &mut f32) {
    if *f == 0.0 {
        *h11 = 1.0;
        *h22 = 1.0;
    } else {
        *h21 = -1.0;
        *h12 = 1.0;
    }
    *f = -1.0;
}

impl Context {
    /// Constructs a Givens plane rotation (reference SROTG): on return `a` holds `r`, `b`
    /// holds `z`, and `(c, s)` is the rotation with `[c s; -s c] [a; b] = [r; 0]`. Computed
    /// on the host; no GPU work.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let (mut a, mut b) = (3.0f32, 4.0f32);
    /// let (c, s) = ctx.srotg(&mut a, &mut b);
    /// assert_eq!((a, c, s), (5.0, 0.6, 0.8));
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn srotg(&self, a: &mut f32, b: &mut f32) -> (f32, f32) {
        let (r, z, c, s) = rotg(*a, *b);
        (*a, *b) = (r, z);
        (c, s)
    }

    /// Constructs a modified Givens rotation (reference SROTMG): updates `d1`, `d2`, `x1`
    /// and `param` (`[flag, h11, h21, h12, h22]`; only the entries the flag defines are
    /// written). Computed on the host; no GPU work.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let (mut d1, mut d2, mut x1) = (1.0f32, 1.0f32, 1.0f32);
    /// let mut param = [0.0f32; 5];
    /// ctx.srotmg(&mut d1, &mut d2, &mut x1, 0.0, &mut param);
    /// assert_eq!(param[0], -2.0); // y1 == 0: H is the identity
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn srotmg(&self, d1: &mut f32, d2: &mut f32, x1: &mut f32, y1: f32, param: &mut [f32; 5]) {
        rotmg(d1, d2, x1, y1, param);
    }

    /// Applies the plane rotation `(c, s)` to `n` pairs of `x` and `y` (reference SROT):
    /// `x_i := c*x_i + s*y_i`, `y_i := c*y_i - s*x_i`. Any increments; a zero one makes the
    /// steps sequential, as in reference BLAS's loop.
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let mut x = ctx.upload(&[1.0, 2.0])?;
    /// let mut y = ctx.upload(&[3.0, 4.0])?;
    /// ctx.srot(2, &mut x, 1, &mut y, 1, 0.0, 1.0)?; // x := y, y := -x
    /// assert_eq!((x.to_vec()?, y.to_vec()?), (vec![3.0, 4.0], vec![-1.0, -2.0]));
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn srot(
        &self,
        n: i32,
        x: &mut Buffer,
        incx: i32,
        y: &mut Buffer,
        incy: i32,
        c: f32,
        s: f32,
    ) -> Result<()> {
        const R: &str = "srot";
        check_owners(self, x, y)?;
        if !two_vectors(R, n, false, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if host::pair_sequential(incx, incy) {
            return pair_on_host(n, (x, incx), (y, incy), |x, y| {
                host::srot(n, x, incx, y, incy, c, s)
            });
        }
        update_pair(self, n, Pair::Rotate([c, s, -s, c]), x, incx, y, incy)?;
        self.inner.enter()?.check(R)
    }

    /// Applies the modified Givens rotation `param` = `[flag, h11, h21, h12, h22]` to `n`
    /// pairs of `x` and `y` (reference SROTM): flag -1 uses all four entries, 0 takes
    /// `h11 = h22 = 1`, 1 takes `h12 = 1, h21 = -1`, and -2 (H the identity) returns at
    /// once. Any increments, as [`Context::srot`].
    ///
    /// ```
    /// let ctx = fragblas::Context::new()?;
    /// let mut x = ctx.upload(&[1.0, 2.0])?;
    /// let mut y = ctx.upload(&[3.0, 4.0])?;
    /// ctx.srotm(2, &mut x, 1, &mut y, 1, &[0.0, 0.0, 2.0, 0.5, 0.0])?;
    /// assert_eq!(x.to_vec()?, vec![2.5, 4.0]); // x + 0.5 y
    /// assert_eq!(y.to_vec()?, vec![5.0, 8.0]); // 2 x + y
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn srotm(
        &self,
        n: i32,
        x: &mut Buffer,
        incx: i32,
        y: &mut Buffer,
        incy: i32,
        param: &[f32; 5],
    ) -> Result<()> {
        const R: &str = "srotm";
        check_owners(self, x, y)?;
        let identity = param[0] + 2.0 == 0.0;
        if !two_vectors(R, n, identity, (x.len(), incx), (y.len(), incy))? {
            return Ok(());
        }
        if host::pair_sequential(incx, incy) {
            return pair_on_host(n, (x, incx), (y, incy), |x, y| {
                host::srotm(n, x, incx, y, incy, param)
            });
        }
        let h = host::rotm_matrix(param);
        update_pair(self, n, Pair::Rotate(h), x, incx, y, incy)?;
        self.inner.enter()?.check(R)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotg_matches_the_reference_on_simple_cases() {
        assert_eq!(rotg(3.0, 4.0), (5.0, 1.0 / 0.6, 0.6, 0.8));
        assert_eq!(rotg(4.0, 3.0), (5.0, 0.6, 0.8, 0.6));
        assert_eq!(rotg(-4.0, 3.0), (-5.0, -0.6, 0.8, -0.6));
        assert_eq!(rotg(2.0, 0.0), (2.0, 0.0, 1.0, 0.0));
        assert_eq!(rotg(0.0, -2.0), (-2.0, 1.0, 0.0, 1.0));
        // Near overflow: no Inf from squaring.
        let (r, _, c, s) = rotg(2.0e38, 2.0e38);
        assert!(r.is_finite() && (r - 2.828_427e38).abs() < 1e32, "{r}");
        assert!((c - s).abs() < 1e-7);
    }

    #[test]
    fn rotmg_writes_only_the_entries_its_flag_defines() {
        let mut p = [9.0f32; 5];
        let (mut d1, mut d2, mut x1) = (1.0f32, 1.0, 1.0);
        rotmg(&mut d1, &mut d2, &mut x1, 0.0, &mut p);
        assert_eq!(p, [-2.0, 9.0, 9.0, 9.0, 9.0]);
        let mut p = [9.0f32; 5];
        let (mut d1, mut d2, mut x1) = (2.0f32, 1.0, 3.0);
        rotmg(&mut d1, &mut d2, &mut x1, 1.0, &mut p);
        assert_eq!(p[0], 0.0);
        assert_eq!((p[1], p[4]), (9.0, 9.0));
        // Infinite d1 does not hang.
        let (mut d1, mut d2, mut x1) = (f32::INFINITY, 1.0f32, 1.0);
        rotmg(&mut d1, &mut d2, &mut x1, 1.0, &mut [0.0; 5]);
    }
}
