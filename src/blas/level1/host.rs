//! Reference BLAS's own loops, for the level-1 updates whose result depends on the order of
//! the elements: with a zero increment the same element is read or written `n` times in
//! sequence (saxpy and scopy with `incy == 0`; sswap, srot and srotm with either increment
//! zero), a dependency from each step to the next that a fragment pass cannot carry. These
//! calls run here, on the host, operation for operation as netlib's Fortran does, so they
//! match reference BLAS bit for bit. Pure code; callers check the slices' lengths first.

/// Storage positions of the `n` logical elements of a vector with increment `inc`, in
/// reference order (a negative increment starts from the end).
pub(crate) fn walk(n: i32, inc: i32) -> impl Iterator<Item = usize> {
    let n = n.max(0) as usize;
    let step = inc.unsigned_abs() as usize;
    (0..n).map(move |i| {
        if inc < 0 {
            (n - 1 - i) * step
        } else {
            i * step
        }
    })
}

/// Whether an update of `y` from `x` depends on order (see the module doc): `incy == 0` for
/// saxpy and scopy, which only write y.
pub(crate) fn y_sequential(incy: i32) -> bool {
    incy == 0
}

/// Whether an update of both `x` and `y` depends on order: either increment zero (sswap,
/// srot, srotm).
pub(crate) fn pair_sequential(incx: i32, incy: i32) -> bool {
    incx == 0 || incy == 0
}

/// `SY(IY) = SY(IY) + SA*SX(IX)`.
pub(crate) fn saxpy(n: i32, alpha: f32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
    for (ix, iy) in walk(n, incx).zip(walk(n, incy)) {
        y[iy] += alpha * x[ix];
    }
}

/// `SY(IY) = SX(IX)`.
pub(crate) fn scopy(n: i32, x: &[f32], incx: i32, y: &mut [f32], incy: i32) {
    for (ix, iy) in walk(n, incx).zip(walk(n, incy)) {
        y[iy] = x[ix];
    }
}

/// `STEMP = SX(IX); SX(IX) = SY(IY); SY(IY) = STEMP`.
pub(crate) fn sswap(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32) {
    for (ix, iy) in walk(n, incx).zip(walk(n, incy)) {
        std::mem::swap(&mut x[ix], &mut y[iy]);
    }
}

/// `STEMP = C*SX(IX) + S*SY(IY); SY(IY) = C*SY(IY) - S*SX(IX); SX(IX) = STEMP`.
pub(crate) fn srot(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32, c: f32, s: f32) {
    for (ix, iy) in walk(n, incx).zip(walk(n, incy)) {
        let temp = c * x[ix] + s * y[iy];
        y[iy] = c * y[iy] - s * x[ix];
        x[ix] = temp;
    }
}

/// SROTM's three forms of H by `param[0]` (the flag; -2 is the caller's quick return).
pub(crate) fn srotm(n: i32, x: &mut [f32], incx: i32, y: &mut [f32], incy: i32, p: &[f32; 5]) {
    let flag = p[0];
    for (ix, iy) in walk(n, incx).zip(walk(n, incy)) {
        let (w, z) = (x[ix], y[iy]);
        if flag < 0.0 {
            x[ix] = w * p[1] + z * p[3];
            y[iy] = w * p[2] + z * p[4];
        } else if flag == 0.0 {
            x[ix] = w + z * p[3];
            y[iy] = w * p[2] + z;
        } else {
            x[ix] = w * p[1] + z;
            y[iy] = -w + p[4] * z;
        }
    }
}

/// `DSDOT = DSDOT + DBLE(SX(KX))*DBLE(SY(KY))`: reference DSDOT's double accumulation.
pub(crate) fn dsdot(n: i32, x: &[f32], incx: i32, y: &[f32], incy: i32) -> f64 {
    walk(n, incx)
        .zip(walk(n, incy))
        .fold(0.0, |acc, (ix, iy)| acc + x[ix] as f64 * y[iy] as f64)
}

/// The matrix H that SROTM applies for `param` (flag, h11, h21, h12, h22), as
/// `[h11, h12, h21, h22]`: the implied entries of the flag 0 and 1 forms filled in. Each
/// form's arithmetic equals `x' = h11*x + h12*y`, `y' = h21*x + h22*y` exactly (a product by
/// 1 or -1 is exact), which is what the GPU kernels compute.
pub(crate) fn rotm_matrix(p: &[f32; 5]) -> [f32; 4] {
    let flag = p[0];
    if flag < 0.0 {
        [p[1], p[3], p[2], p[4]]
    } else if flag == 0.0 {
        [1.0, p[3], p[2], 1.0]
    } else {
        [p[1], 1.0, -1.0, p[4]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_follow_reference_order() {
        assert_eq!(walk(3, 2).collect::<Vec<_>>(), [0, 2, 4]);
        assert_eq!(walk(3, -2).collect::<Vec<_>>(), [4, 2, 0]);
        assert_eq!(walk(3, 0).collect::<Vec<_>>(), [0, 0, 0]);
        assert_eq!(walk(0, 1).count(), 0);
        assert_eq!(walk(-4, 1).count(), 0);
        assert_eq!(walk(1, i32::MIN).collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn zero_increments_repeat_one_element_in_order() {
        // saxpy into y[0]: y0 + a*x0 + a*x1 + a*x2, in that order.
        let mut y = [1.0f32, 9.0];
        saxpy(3, 2.0, &[1.0, 2.0, 3.0], 1, &mut y, 0);
        assert_eq!(y, [13.0, 9.0]);
        // scopy into y[0] leaves the last x in walk order.
        let mut y = [0.0f32];
        scopy(3, &[1.0, 2.0, 3.0], -1, &mut y, 0);
        assert_eq!(y, [1.0]);
        // sswap with x fixed rotates y through x[0].
        let (mut x, mut y) = ([10.0f32], [1.0f32, 2.0, 3.0]);
        sswap(3, &mut x, 0, &mut y, 1);
        assert_eq!((x, y), ([3.0], [10.0, 1.0, 2.0]));
        // Both zero: swapped n times.
        let (mut x, mut y) = ([1.0f32], [2.0f32]);
        sswap(3, &mut x, 0, &mut y, 0);
        assert_eq!((x, y), ([2.0], [1.0]));
    }

    #[test]
    fn dsdot_accumulates_in_double() {
        let x = [1.0e8f32, 1.0, -1.0e8];
        assert_eq!(dsdot(3, &x, 1, &[1.0; 3], 1), 1.0);
        // Reversed x: -1e8*1 + 1*2 + 1e8*3.
        assert_eq!(dsdot(3, &x, -1, &[1.0, 2.0, 3.0], 1), 2.0e8 + 2.0);
        assert_eq!(dsdot(2, &[0.5], 0, &[2.0, 4.0], 1), 3.0);
    }

    #[test]
    fn rotm_forms_equal_the_general_matrix() {
        let (x0, y0) = ([1.5f32, -2.25, 3.0], [0.5f32, 4.0, -1.0]);
        for p in [
            [-1.0f32, 0.5, -0.25, 2.0, 1.5],
            [0.0, 9.0, -0.25, 2.0, 9.0],
            [1.0, 0.5, 9.0, 9.0, 1.5],
        ] {
            let (mut x, mut y) = (x0, y0);
            srotm(3, &mut x, 1, &mut y, 1, &p);
            let h = rotm_matrix(&p);
            for i in 0..3 {
                assert_eq!(x[i], h[0] * x0[i] + h[1] * y0[i], "{p:?}");
                assert_eq!(y[i], h[2] * x0[i] + h[3] * y0[i], "{p:?}");
            }
        }
    }
}
