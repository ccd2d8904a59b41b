//! Pure texture-shape math: how a vector of floats is laid out in an RGBA32F texture.
//!
//! Element `e` of a buffer lives in texel `e / 4`, channel `e % 4`; texel `t` lives at
//! `(t % width, t / width)`. The width is the texel count capped at the width cap; the
//! height is the number of rows needed. The last row may hold padding texels and the last
//! data texel may hold padding channels: both are zero after an upload and never read as data.
//! Pure arithmetic; uses nothing of the crate but [`crate::error`].

use crate::error::{texture_capacity, Error, Result};

/// Floats per texel (RGBA).
pub const FLOATS_PER_TEXEL: usize = 4;

/// The largest element index a shader can address with 32-bit signed integers.
pub const MAX_ELEMENTS: usize = i32::MAX as usize;

/// Shape of the texture that holds a vector of `len` floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexLayout {
    /// Number of floats the buffer holds.
    pub len: usize,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// Largest number of floats one texture can hold with this width cap and texture size limit.
pub fn max_floats(width_cap: u32, max_texture_size: u32) -> usize {
    texture_capacity(width_cap, max_texture_size)
}

impl TexLayout {
    /// Layout for `len` floats with rows of at most `width_cap` texels, in a device whose
    /// textures are at most `max_texture_size` on a side. An empty buffer gets one texel.
    ///
    /// ```
    /// use fragblas::layout::TexLayout;
    /// let l = TexLayout::new(10, 2, 16384).unwrap();
    /// assert_eq!((l.width, l.height), (2, 2)); // 3 texels, two per row
    /// ```
    pub fn new(len: usize, width_cap: u32, max_texture_size: u32) -> Result<Self> {
        let too_large = || Error::BufferTooLarge {
            n: len,
            width_cap,
            max_texture_size,
        };
        if width_cap == 0 || max_texture_size == 0 {
            return Err(too_large());
        }
        if len > max_floats(width_cap, max_texture_size) {
            return Err(too_large());
        }
        let cap = width_cap.min(max_texture_size) as usize;
        let texels = texels_for(len).max(1);
        let width = texels.min(cap);
        let height = texels.div_ceil(width);
        Ok(TexLayout {
            len,
            width: width as u32,
            height: height as u32,
        })
    }

    /// Texels that hold data (`ceil(len / 4)`).
    pub fn data_texels(&self) -> usize {
        texels_for(self.len)
    }

    /// Floats the whole texture holds, padding included.
    pub fn capacity(&self) -> usize {
        self.width as usize * self.height as usize * FLOATS_PER_TEXEL
    }

    /// Floats in one full row.
    pub fn row_floats(&self) -> usize {
        self.width as usize * FLOATS_PER_TEXEL
    }

    /// Whether the texture holds more floats than the buffer (so a copy straight from or to
    /// the user's slice would run past its end).
    pub fn is_padded(&self) -> bool {
        self.capacity() != self.len
    }

    /// How a copy of the first `count` floats splits into rows: the number of rows wholly
    /// covered, and the floats left over for one partial row (which needs a bounce buffer).
    pub fn split_rows(&self, count: usize) -> (usize, usize) {
        let row = self.row_floats();
        (count / row, count % row)
    }

    /// The smallest rectangle of texels `(x, y, width, height)` that holds every element
    /// `off + i + j*ld` (`i < m`, `j < n`, both at least 1) of a column-major window: one
    /// run of texels in a single row, a column of runs when each column of the window is one
    /// row of texels (`ld` is the texture's row of floats), else whole rows.
    pub fn window_rect(
        &self,
        off: usize,
        (m, n): (usize, usize),
        ld: usize,
    ) -> (u32, u32, u32, u32) {
        let w = self.width as usize;
        let first = off / FLOATS_PER_TEXEL;
        let last = (off + (n - 1) * ld + m - 1) / FLOATS_PER_TEXEL;
        let (y0, y1) = (first / w, last / w);
        let rect = |x0: usize, y0: usize, x1: usize, y1: usize| {
            (
                x0 as u32,
                y0 as u32,
                (x1 - x0 + 1) as u32,
                (y1 - y0 + 1) as u32,
            )
        };
        let i0 = off % ld.max(1);
        if y0 == y1 {
            rect(first % w, y0, last % w, y0)
        } else if ld == self.row_floats() && i0 + m <= ld {
            rect(
                i0 / FLOATS_PER_TEXEL,
                y0,
                (i0 + m - 1) / FLOATS_PER_TEXEL,
                y1,
            )
        } else {
            rect(0, y0, w - 1, y1)
        }
    }

    /// The texels a pass that updates the window of [`TexLayout::window_rect`] draws: that
    /// rectangle when it is at most half of the texture (the pass then draws it into a
    /// scratch texture and copies it back), else the whole texture (drawn into a new texture
    /// that replaces the old one, the texels outside the window copied by the pass).
    pub fn update_rect(&self, off: usize, mn: (usize, usize), ld: usize) -> (u32, u32, u32, u32) {
        let r = self.window_rect(off, mn, ld);
        let area = r.2 as usize * r.3 as usize;
        if 2 * area <= self.width as usize * self.height as usize {
            r
        } else {
            (0, 0, self.width, self.height)
        }
    }

    /// The texel rectangles `(x, y, width, height)` that hold elements `[offset, offset +
    /// len)`, in texel order and each following the last: a run in the first row, the whole
    /// rows between, a run in the last row (fewer when the range is shorter). Their texels
    /// start at element `4 * (offset / 4)`. Nothing for an empty range.
    ///
    /// ```
    /// use fragblas::layout::TexLayout;
    /// let l = TexLayout::new(100, 4, 16384).unwrap(); // 25 texels, rows of 4
    /// assert_eq!(l.range_rects(9, 2), vec![(2, 0, 1, 1)]); // texel 2
    /// assert_eq!(l.range_rects(14, 40), vec![(3, 0, 1, 1), (0, 1, 4, 2), (0, 3, 2, 1)]);
    /// ```
    pub fn range_rects(&self, offset: usize, len: usize) -> Vec<(u32, u32, u32, u32)> {
        if len == 0 {
            return Vec::new();
        }
        let w = self.width as usize;
        let (first, end) = (offset / FLOATS_PER_TEXEL, texels_for(offset + len));
        let mut rects = Vec::with_capacity(3);
        let mut t = first;
        while t < end {
            let (x, y) = (t % w, t / w);
            let r = if x == 0 && end - t >= w {
                let rows = (end - t) / w;
                (0, y, w, rows)
            } else {
                (x, y, (w - x).min(end - t), 1)
            };
            rects.push((r.0 as u32, r.1 as u32, r.2 as u32, r.3 as u32));
            t += r.2 * r.3;
        }
        rects
    }

    /// Texture coordinate of texel `t`.
    pub fn coord(&self, texel: usize) -> (u32, u32) {
        let w = self.width as usize;
        ((texel % w) as u32, (texel / w) as u32)
    }
}

/// Texels needed for `len` floats.
pub fn texels_for(len: usize) -> usize {
    len.div_ceil(FLOATS_PER_TEXEL)
}

/// Rectangle of `texels` texels laid out with at most `width_cap` per row:
/// `(width, height)`, at least 1x1.
pub fn texel_rect(texels: usize, width_cap: u32) -> (u32, u32) {
    let texels = texels.max(1);
    let w = texels.min(width_cap.max(1) as usize);
    (w as u32, texels.div_ceil(w) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_lengths_fit_one_row() {
        for len in 0..=65usize {
            let l = TexLayout::new(len, 1024, 16384).unwrap();
            let texels = len.div_ceil(4).max(1);
            assert_eq!(l.width as usize, texels, "len {len}");
            assert_eq!(l.height, 1, "len {len}");
            assert!(l.capacity() >= len);
            assert_eq!(l.is_padded(), len % 4 != 0 || len == 0, "len {len}");
            assert_eq!(l.data_texels(), len.div_ceil(4));
        }
    }

    #[test]
    fn lengths_around_the_width_cap() {
        for cap in [1u32, 2, 3, 7, 16] {
            let row = 4 * cap as usize;
            for len in 0..=(3 * row + 5) {
                let l = TexLayout::new(len, cap, 16384).unwrap();
                let texels = len.div_ceil(4).max(1);
                assert_eq!(
                    l.width as usize,
                    texels.min(cap as usize),
                    "cap {cap} len {len}"
                );
                assert_eq!(
                    l.height as usize,
                    texels.div_ceil(l.width as usize),
                    "cap {cap} len {len}"
                );
                // Smallest rectangle: one row fewer would not hold the data.
                assert!(l.capacity() >= len);
                assert!((l.height as usize - 1) * l.row_floats() < len.max(1));
                let (full, rest) = l.split_rows(len);
                assert_eq!(full * l.row_floats() + rest, len);
                assert!(rest < l.row_floats());
            }
        }
    }

    #[test]
    fn exact_rows_are_not_padded() {
        let l = TexLayout::new(4 * 16 * 3, 16, 16384).unwrap();
        assert_eq!((l.width, l.height), (16, 3));
        assert!(!l.is_padded());
        let l = TexLayout::new(4 * 16 * 3 + 1, 16, 16384).unwrap();
        assert_eq!((l.width, l.height), (16, 4));
        assert!(l.is_padded());
        let l = TexLayout::new(4 * 16 * 3 - 1, 16, 16384).unwrap();
        assert_eq!((l.width, l.height), (16, 3));
        assert!(l.is_padded());
    }

    #[test]
    fn width_cap_above_max_texture_is_clamped() {
        let l = TexLayout::new(4 * 100, 1000, 64).unwrap();
        assert_eq!((l.width, l.height), (64, 2));
    }

    #[test]
    fn oversize_is_an_error_naming_the_limits() {
        let max = max_floats(8, 8);
        assert_eq!(max, 256);
        assert!(TexLayout::new(max, 8, 8).is_ok());
        let err = TexLayout::new(max + 1, 8, 8).unwrap_err();
        assert_eq!(
            err,
            Error::BufferTooLarge {
                n: 257,
                width_cap: 8,
                max_texture_size: 8
            }
        );
        let text = err.to_string();
        assert!(text.contains("257") && text.contains("256"), "{text}");
        assert!(TexLayout::new(1, 0, 8).is_err());
    }

    /// Every element of the window lies in the rectangle, checked element by element.
    fn covers(l: &TexLayout, off: usize, (m, n): (usize, usize), ld: usize) {
        let (x, y, w, h) = l.window_rect(off, (m, n), ld);
        assert!(x + w <= l.width && y + h <= l.height);
        for j in 0..n {
            for i in 0..m {
                let (tx, ty) = l.coord((off + i + j * ld) / 4);
                assert!(tx >= x && tx < x + w && ty >= y && ty < y + h, "{i},{j}");
            }
        }
    }

    #[test]
    fn window_rectangles_hold_their_windows() {
        // A pitched texture: each column one row of texels, so a block of rows is a
        // column of runs.
        let l = TexLayout::new(16 * 10, 4, 100).unwrap();
        assert_eq!(l.window_rect(4 + 3 * 16, (8, 5), 16), (1, 3, 2, 5));
        assert_eq!(l.window_rect(5, (6, 2), 16), (1, 0, 2, 2));
        covers(&l, 5, (6, 2), 16);
        // One row of texels.
        let l = TexLayout::new(1000, 1000, 1000).unwrap();
        assert_eq!(l.window_rect(9, (3, 2), 5), (2, 0, 3, 1));
        // Whole rows otherwise.
        let l = TexLayout::new(4000, 10, 1000).unwrap();
        assert_eq!(l.window_rect(100, (7, 3), 50), (0, 2, 10, 4));
        for (off, m, n, ld) in [(0, 1, 1, 1), (3, 5, 7, 9), (41, 2, 30, 33), (0, 40, 25, 40)] {
            covers(&l, off, (m, n), ld);
        }
        // Half the texture or less is drawn alone; more is the whole texture.
        let l = TexLayout::new(16 * 10, 4, 100).unwrap();
        assert_eq!(l.update_rect(0, (16, 5), 16), (0, 0, 4, 5));
        assert_eq!(l.update_rect(0, (16, 6), 16), (0, 0, 4, 10));
    }

    #[test]
    fn coordinates_walk_rows() {
        let l = TexLayout::new(40, 3, 100).unwrap();
        assert_eq!(l.coord(0), (0, 0));
        assert_eq!(l.coord(2), (2, 0));
        assert_eq!(l.coord(3), (0, 1));
        assert_eq!(l.coord(9), (0, 3));
    }

    #[test]
    fn texel_rects() {
        assert_eq!(texel_rect(0, 8), (1, 1));
        assert_eq!(texel_rect(8, 8), (8, 1));
        assert_eq!(texel_rect(9, 8), (8, 2));
        assert_eq!(texel_rect(5, 0), (1, 5));
    }
}
