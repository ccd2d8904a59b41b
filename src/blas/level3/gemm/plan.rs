//! The sizes of the packed sgemm paths: pure arithmetic on a [`GemmShape`], no GL.

use crate::blas::level3::gemm::shape::{GemmShape, Window};

/// k values per uniform block of the strip kernels (`KC` in their defines).
pub(crate) const STRIP_KC: usize = 2048;

/// Rows of the targets each strip of the strip kernels occupies (`BAND` in their defines).
pub(crate) const STRIP_BAND: usize = 8;

/// Bytes of one uniform block of the strip kernels: 8 rows x KC values of A.
pub(crate) const STRIP_BLOCK_BYTES: usize = 8 * STRIP_KC * 4;

/// The sizes of a strip-kernel sgemm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StripPlan {
    /// Strips of 8 rows of C.
    pub strips: usize,
    /// Chunks of STRIP_KC values of k.
    pub chunks: usize,
    /// 2x2 blocks of op(B)'s texels of 4 columns per value of k: ceil(ceil(n / 4) / 4), one
    /// per quad of fragments.
    pub quads: usize,
    /// Width of a strip's band in the targets: even, with STRIP_BAND / 2 rows of quads
    /// enough for `quads` quads.
    pub band_width: usize,
    /// Strips per draw.
    pub group: usize,
    /// Bytes from one packed block of A to the next: the k values a block holds (all
    /// STRIP_KC when k spans several chunks, else k rounded up to 4) at 32 bytes each,
    /// rounded up to the uniform-buffer offset alignment, at most STRIP_BLOCK_BYTES. A
    /// shorter k packs and copies only what the kernel reads.
    pub block_bytes: usize,
}

impl StripPlan {
    /// The plan for shape `s`, `group` strips per draw, on a device whose uniform-buffer
    /// offsets are multiples of `align` bytes.
    pub(crate) fn new(s: &GemmShape, group: usize, align: usize) -> Self {
        let quads = s.n.div_ceil(4).max(1).div_ceil(4);
        let chunks = s.k.div_ceil(STRIP_KC).max(1);
        let used = if chunks > 1 {
            STRIP_KC
        } else {
            s.k.max(1).next_multiple_of(4)
        };
        StripPlan {
            strips: s.m.div_ceil(8).max(1),
            chunks,
            quads,
            band_width: 2 * quads.div_ceil(STRIP_BAND / 2),
            group,
            block_bytes: (32 * used)
                .next_multiple_of(align.max(16))
                .min(STRIP_BLOCK_BYTES),
        }
    }

    /// Texels per row of the packed texture of A: one row is one block.
    pub(crate) fn block_texels(&self) -> usize {
        self.block_bytes / 16
    }

    /// Bytes of the buffer of packed A: every block, and room after the last for a whole
    /// STRIP_BLOCK_BYTES binding (the kernels declare blocks of that size).
    pub(crate) fn buffer_bytes(&self) -> usize {
        self.blocks() * self.block_bytes + (STRIP_BLOCK_BYTES - self.block_bytes)
    }

    /// Uniform blocks of packed A: one per strip and chunk.
    pub(crate) fn blocks(&self) -> usize {
        self.strips * self.chunks
    }

    /// Draws per chunk.
    pub(crate) fn groups(&self) -> usize {
        self.strips.div_ceil(self.group)
    }

    /// The texel columns `[x0, x1)` of the bands of draw `group` (strips `group * self.group`
    /// on) that hold a tile `window` writes: a quad column `c` holds C's columns
    /// `64c .. 64c + 63`, so a lower triangle's bands end, an upper one's begin, where the
    /// triangle does. The draw covers only these; the kernel skips the tiles left inside
    /// them. Never empty.
    pub(crate) fn live_columns(&self, group: usize, window: Window) -> (usize, usize) {
        const COLUMNS: i64 = (16 * STRIP_BAND / 2) as i64;
        let first = (group * self.group * 8) as i64;
        let last = (((group + 1) * self.group).min(self.strips) * 8) as i64 - 1;
        let width = self.band_width as i64;
        let (x0, x1) = match window {
            Window::Full => (0, width),
            Window::Lower(d) => (0, (2 * ((last + d).max(0) / COLUMNS + 1)).min(width)),
            Window::Upper(d) => ((2 * ((first + d).max(0) / COLUMNS)).min(width - 2), width),
        };
        (x0 as usize, x1 as usize)
    }

    /// The terms `[lo, hi)` of chunk `chunk` of `s`'s sum over k that the strips of draw
    /// `group` take (all of the chunk unless `s.terms` leaves some out); none when
    /// `lo >= hi`. One range serves every strip of the draw: a blocked triangular product's
    /// blocks hold whole draws (`GemmKernel::bounds_terms`), so the kernel's loop bounds are
    /// uniforms.
    pub(crate) fn group_terms(&self, group: usize, chunk: usize, s: &GemmShape) -> (usize, usize) {
        let k = (chunk * STRIP_KC, ((chunk + 1) * STRIP_KC).min(s.k));
        s.terms.range(group * self.group * STRIP_BAND, k)
    }

    /// The draws of a multiply pass for `s`, in order, chunk by chunk: `(chunk, group, add,
    /// terms)`. Each group of strips is drawn in every chunk of k where it takes terms
    /// (`terms`, [`StripPlan::group_terms`]), and at least once; its first draw sets the
    /// targets, the later ones (`add`) add to them by blending.
    pub(crate) fn draws(&self, s: &GemmShape) -> Vec<StripDraw> {
        let groups = self.groups();
        let terms = |g, c| self.group_terms(g, c, s);
        let takes = |(lo, hi): (usize, usize)| lo < hi;
        let first: Vec<Option<usize>> = (0..groups)
            .map(|g| (0..self.chunks).find(|&c| takes(terms(g, c))))
            .collect();
        (0..self.chunks)
            .flat_map(|chunk| (0..groups).map(move |group| (chunk, group)))
            .filter_map(|(chunk, group)| {
                let terms = terms(group, chunk);
                let add = match first[group] {
                    None if chunk == 0 => false,
                    Some(f) if chunk >= f && takes(terms) => chunk > f,
                    _ => return None,
                };
                Some(StripDraw {
                    chunk,
                    group,
                    add,
                    terms,
                })
            })
            .collect()
    }

    /// [`StripPlan::draws`] split for an in-place multiply over several chunks: every draw
    /// but the last of each group (into the targets, in order), then the last draw of each
    /// group, with whether the group was drawn before it (the in-place kernel then adds
    /// what the targets hold).
    pub(crate) fn last_draws(draws: &[StripDraw]) -> (Vec<StripDraw>, Vec<(StripDraw, bool)>) {
        let last = |i: usize| draws[i + 1..].iter().all(|d| d.group != draws[i].group);
        let earlier = |i: usize| draws[..i].iter().any(|d| d.group == draws[i].group);
        let partial = (0..draws.len())
            .filter(|&i| !last(i))
            .map(|i| draws[i])
            .collect();
        let lasts = (0..draws.len())
            .filter(|&i| last(i))
            .map(|i| (draws[i], earlier(i)))
            .collect();
        (partial, lasts)
    }

    /// Rows of each target: every group's bands, the last group padded.
    pub(crate) fn target_height(&self) -> usize {
        self.groups() * self.group * STRIP_BAND
    }

    /// Byte offset of the uniform block of strip `strip` and chunk `chunk`.
    pub(crate) fn block_offset(&self, strip: usize, chunk: usize) -> usize {
        (strip * self.chunks + chunk) * self.block_bytes
    }
}

/// Where a product reads its op(A) from the uniform blocks of a larger op(A) packed once
/// ([`StripPlan::window`]): strsm's updates, each a block of T, read one pack of all of T.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StripWindow {
    /// The whole's strip that holds the product's first row.
    pub strip0: usize,
    /// The whole's chunk of k that holds every term of the product.
    pub chunk: usize,
    /// The product's first term in that chunk.
    pub shift: usize,
}

impl StripPlan {
    /// The part of this plan's packed op(A) (the plan of `whole`, `rows x k`) that a
    /// product whose op(A) is the `part` (`rows x k`) of it from row `row0`, term `k0`
    /// reads in place, or `None` where it cannot: `row0` must start a strip and `k0` a
    /// texel of terms, the part must lie in the whole and its terms in one chunk, and the
    /// terms its loop reads past the part (up to a multiple of 4) must be the pack's zeros
    /// or the whole's own terms of the next texel, which the product's op(B) multiplies by
    /// its zeros.
    pub(crate) fn window(
        &self,
        whole: (usize, usize),
        part: (usize, usize),
        (row0, k0): (usize, usize),
    ) -> Option<StripWindow> {
        let end = k0 + part.1;
        let fits = part.0 > 0
            && part.1 > 0
            && row0.is_multiple_of(8)
            && row0 + part.0 <= whole.0
            && k0.is_multiple_of(4)
            && end <= whole.1
            && (end.is_multiple_of(4) || end == whole.1)
            && k0 / STRIP_KC == (end - 1) / STRIP_KC;
        fits.then_some(StripWindow {
            strip0: row0 / 8,
            chunk: k0 / STRIP_KC,
            shift: k0 % STRIP_KC,
        })
    }
}

/// One draw of a strip kernel's multiply pass ([`StripPlan::draws`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StripDraw {
    /// The chunk of k.
    pub chunk: usize,
    /// The group of strips.
    pub group: usize,
    /// Whether it adds to the targets (blending) rather than setting them.
    pub add: bool,
    /// The terms `[lo, hi)` of k its strips sum (none when `lo >= hi`).
    pub terms: (usize, usize),
}

/// The sizes of a tile-kernel sgemm: fragments of `rows` x 8 tiles of C, op(A) in a
/// storage buffer, op(B) in a texture of 4-column texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TilePlan {
    /// Rows of C per fragment (8 or 16; `ROWS` in the kernel's defines).
    pub rows: usize,
    /// vec4 of packed op(A) per value of k: `rows / 4` per tile row, every tile row whole.
    pub a_width: usize,
    /// Texels of packed op(B) per value of k: two per fragment column.
    pub b_width: usize,
    /// The grid of fragments: (columns of 8, rows of `rows`).
    pub grid: (usize, usize),
    /// Values of k (rows of both packed operands; at least 1).
    pub k: usize,
}

impl TilePlan {
    /// The plan for shape `s` with tiles of `rows` rows.
    pub(crate) fn new(s: &GemmShape, rows: usize) -> Self {
        let (gx, gy) = (s.n.div_ceil(8).max(1), s.m.div_ceil(rows).max(1));
        TilePlan {
            rows,
            a_width: rows / 4 * gy,
            b_width: 2 * gx,
            grid: (gx, gy),
            k: s.k.max(1),
        }
    }

    /// Bytes of the storage buffer of packed op(A).
    pub(crate) fn a_bytes(&self) -> usize {
        16 * self.a_width * self.k
    }

    /// Whether the packed operands, the grid and the product fit a device whose textures
    /// are at most `max` texels on a side and whose storage blocks hold `max_block` bytes.
    pub(crate) fn fits(&self, s: &GemmShape, max: usize, max_block: u64) -> bool {
        self.a_width <= max
            && self.b_width <= max
            && self.k <= max
            && self.grid.0 <= max
            && self.grid.1 <= max
            && s.m.div_ceil(4) <= max
            && s.n <= max
            && self.a_bytes() as u64 <= max_block
            && self.a_bytes() <= i32::MAX as usize
    }
}

/// Whether the packed textures of the vectorised path fit a device with textures of at most
/// `max` texels on a side.
pub(crate) fn vec4_fits(s: &GemmShape, max: u32) -> bool {
    let max = max as usize;
    let (mb, kb) = (s.m.div_ceil(4), s.k.div_ceil(4));
    mb <= max && 4 * kb <= max && s.n <= max
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blas::level3::gemm::shape::Terms;

    #[test]
    fn windows_of_a_packed_op_a() {
        let whole = |m, k| StripPlan::new(&GemmShape::plain(m, 16, k), 4, 256);
        let p = whole(1024, 1024);
        let w = p.window((1024, 1024), (512, 512), (512, 0));
        assert_eq!(
            w,
            Some(StripWindow {
                strip0: 64,
                chunk: 0,
                shift: 0
            })
        );
        assert_eq!(
            p.window((1024, 1024), (64, 64), (960, 896)).unwrap().shift,
            896
        );
        // Rows off a strip, terms off a texel, past the whole, empty.
        assert_eq!(p.window((1024, 1024), (64, 64), (964, 0)), None);
        assert_eq!(p.window((1024, 1024), (64, 64), (0, 2)), None);
        assert_eq!(p.window((1024, 1024), (64, 64), (968, 0)), None);
        assert_eq!(p.window((1024, 1024), (64, 64), (0, 964)), None);
        assert_eq!(p.window((1024, 1024), (0, 64), (0, 0)), None);
        // A part ending off a texel: only at the whole's end (the pack's zeros follow).
        let p = whole(1001, 1001);
        assert!(p.window((1001, 1001), (64, 61), (0, 940)).is_some());
        assert_eq!(p.window((1001, 1001), (64, 61), (0, 900)), None);
        // Several chunks: the part's terms in one of them.
        let p = whole(4096, 4096);
        let w = p.window((4096, 4096), (1024, 1024), (3072, 2048)).unwrap();
        assert_eq!((w.chunk, w.shift), (1, 0));
        let w = p.window((4096, 4096), (64, 64), (0, 3008)).unwrap();
        assert_eq!((w.chunk, w.shift), (1, 960));
        assert_eq!(p.window((4096, 4096), (64, 128), (0, 1984)), None);
        assert!(p.window((4096, 4096), (64, 2048), (0, 0)).is_some());
    }

    #[test]
    fn a_triangles_draws_cover_its_tiles() {
        // Every tile (8 rows, 4 columns: fragment j = 4q + r of strip s, q in quad column
        // q / 4 at texels 2*(q / 4) ..) the window writes lies inside its draw's columns.
        for (m, n, group) in [
            (100, 100, 4),
            (1024, 1024, 4),
            (4096, 4096, 4),
            (130, 70, 1),
        ] {
            let p = StripPlan::new(&GemmShape::plain(m, n, 8), group, 256);
            for window in [
                Window::Lower(0),
                Window::Upper(0),
                Window::Lower(-40),
                Window::Upper(33),
            ] {
                let mut drawn = 0;
                for g in 0..p.groups() {
                    let (x0, x1) = p.live_columns(g, window);
                    assert!(x0 < x1 && x1 <= p.band_width, "{window:?} group {g}");
                    assert!(x0 % 2 == 0 && x1 % 2 == 0);
                    drawn += x1 - x0;
                    for s in g * group..((g + 1) * group).min(p.strips) {
                        for f in 0..n.div_ceil(4) {
                            let x = 2 * (f / 16);
                            let (i0, i1, j0, j1) = (
                                8 * s as i64,
                                8 * s as i64 + 7,
                                4 * f as i64,
                                4 * f as i64 + 3,
                            );
                            let written = match window {
                                Window::Full => true,
                                Window::Lower(d) => i1 + d >= j0,
                                Window::Upper(d) => i0 + d <= j1,
                            };
                            if written {
                                assert!(x0 <= x && x < x1, "{window:?} strip {s} tile {f}");
                            }
                        }
                    }
                }
                if window == Window::Lower(0) && n >= 1024 {
                    // About half of the bands' columns are drawn.
                    assert!(
                        2 * drawn < p.groups() * p.band_width * 11 / 10,
                        "{m} {drawn}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_blocked_triangular_products_draws_skip_only_chunks_without_terms() {
        // 4200 rows and terms (3 chunks of k), 4 strips a draw, blocks of 64: a strip of a
        // lower T takes chunk c when its block starts past the chunk's start, an upper T's
        // when its block ends before the chunk's end.
        let (m, k) = (4200, 4200);
        for terms in [Terms::Before(64), Terms::After(64), Terms::All] {
            let s = GemmShape {
                terms,
                ..GemmShape::plain(m, 100, k)
            };
            let p = StripPlan::new(&s, 4, 256);
            assert_eq!(p.chunks, 3);
            let draws = p.draws(&s);
            assert!(
                draws.windows(2).all(|d| d[0].chunk <= d[1].chunk),
                "chunk by chunk"
            );
            for g in 0..p.groups() {
                let mine: Vec<_> = draws.iter().filter(|d| d.group == g).collect();
                assert!(!mine.is_empty(), "{terms:?} group {g} never drawn");
                assert!(
                    !mine[0].add && mine[1..].iter().all(|d| d.add),
                    "{terms:?} {g}"
                );
                for chunk in 0..p.chunks {
                    let (c0, c1) = (chunk * STRIP_KC, ((chunk + 1) * STRIP_KC).min(k));
                    // Every strip of the group, row by row: the terms its rows take.
                    for i in g * 4 * 8..((g + 1) * 4 * 8).min(m) {
                        let want: Vec<usize> = (c0..c1)
                            .filter(|&l| match terms {
                                Terms::All => true,
                                Terms::Before(b) => l < i / b * b,
                                Terms::After(b) => l >= (i / b + 1) * b,
                            })
                            .collect();
                        let drawn = mine.iter().find(|d| d.chunk == chunk);
                        let got: Vec<usize> =
                            drawn.map_or(vec![], |d| (d.terms.0..d.terms.1).collect());
                        assert_eq!(got, want, "{terms:?} group {g} chunk {chunk} row {i}");
                    }
                }
            }
            // The in-place split: each group's last draw once, after all the others, which
            // keep their order.
            let (partial, lasts) = StripPlan::last_draws(&draws);
            assert_eq!(lasts.len(), p.groups());
            assert_eq!(partial.len() + lasts.len(), draws.len());
            for g in 0..p.groups() {
                let mine: Vec<_> = draws.iter().filter(|d| d.group == g).copied().collect();
                let fin: Vec<_> = lasts.iter().filter(|(d, _)| d.group == g).collect();
                assert_eq!(fin, vec![&(*mine.last().unwrap(), mine.len() > 1)], "{g}");
                let part: Vec<_> = partial.iter().filter(|d| d.group == g).copied().collect();
                assert_eq!(part, mine[..mine.len() - 1], "{terms:?} {g}");
            }
            // A triangle leaves out draws (a lower one about half, an upper one a sixth
            // here: every row of it takes some terms of the last chunk).
            let all = 3 * p.groups();
            match terms {
                Terms::All => assert_eq!(draws.len(), all),
                _ => assert!(
                    draws.len() < all - p.groups() / 3,
                    "{terms:?} {}",
                    draws.len()
                ),
            }
        }
    }

    #[test]
    fn tile_plans_cover_every_row_and_column_with_whole_tiles() {
        for (m, n, k, rows) in [
            (1, 1, 0, 16),
            (17, 9, 3, 16),
            (16, 8, 5, 8),
            (100, 37, 7, 8),
        ] {
            let p = TilePlan::new(&GemmShape::plain(m, n, k), rows);
            assert!(p.grid.1 * rows >= m && (p.grid.1 - 1) * rows < m.max(1));
            assert!(p.grid.0 * 8 >= n && (p.grid.0 - 1) * 8 < n.max(1));
            // Every vec4 of A a fragment row reads, and both texels of B a column reads.
            assert_eq!(p.a_width, rows / 4 * p.grid.1);
            assert_eq!(p.b_width, 2 * p.grid.0);
            assert!(4 * p.a_width >= m && 4 * p.b_width >= n);
            assert_eq!(p.a_bytes(), 16 * p.a_width * k.max(1));
            assert!(p.fits(&GemmShape::plain(m, n, k), 1 << 14, 1 << 30));
        }
        let big = GemmShape::plain(8192, 8192, 8192);
        let p = TilePlan::new(&big, 16);
        assert_eq!(p.a_bytes(), 8192 * 8192 * 4);
        assert!(p.fits(&big, 32768, 1 << 31));
        assert!(!p.fits(&big, 32768, 1 << 27), "storage block too small");
        assert!(!p.fits(&big, 4096, 1 << 31), "k taller than a texture");
    }

    #[test]
    fn packed_blocks_hold_the_k_values_the_kernel_reads_at_aligned_offsets() {
        for (k, align, want) in [
            (1024, 256, 32 * 1024),
            (1024, 16, 32 * 1024),
            (5, 256, 256),
            (5, 16, 256),
            (1, 1, 128),
            (1001, 256, 32 * 1008),
            (STRIP_KC, 256, STRIP_BLOCK_BYTES),
            (STRIP_KC + 1, 256, STRIP_BLOCK_BYTES),
            (3 * STRIP_KC, 16, STRIP_BLOCK_BYTES),
        ] {
            let p = StripPlan::new(&GemmShape::plain(100, 37, k), 4, align);
            assert_eq!(p.block_bytes, want, "k={k} align={align}");
            assert!(p.block_bytes.is_multiple_of(align) && p.block_bytes.is_multiple_of(16));
            // Every k value of a chunk fits its block: 32 bytes per value.
            let per_chunk = k.min(STRIP_KC).next_multiple_of(4);
            assert!(32 * per_chunk <= p.block_bytes, "k={k}");
            assert_eq!(p.block_offset(1, 0), p.chunks * p.block_bytes);
            // A whole declared block binds at the last offset.
            let last = p.block_offset(p.strips - 1, p.chunks - 1);
            assert_eq!(last + STRIP_BLOCK_BYTES, p.buffer_bytes(), "k={k}");
        }
    }
}
