// ssymv's product and update, y := alpha*A*x + beta*y, on warps: each stored texel of A's
// triangle is read once and gives both of its terms, A(i, j) x_j to y_i and A(i, j) x_i to
// y_j (product_vec4.frag reads the triangle twice, by columns and by rows). Full storage
// with lda a multiple of 4 (texel (r, j) of A is rows 4r..4r+3 of column j, at linear texel
// r + j*lda/4), or with PACKED sspmv's packed storage where it lies (see a_texel); x has
// increment 1, its texels in a storage buffer; y has increment 1 and is sums_out's own
// texture, read through `y` (each texel read and written by one invocation).
//
// Tiles. The triangle is cut into tiles of 128 x 128 (32 row texels by 128 columns),
// numbered in the order of the upper triangle of blocks (a lower triangle takes the
// transpose), in two draws: PLAIN 1 (defined before this file) takes the tiles off the
// diagonal between whole blocks (no masks), PLAIN 0 the diagonal tiles, each as four warps
// of a quarter of its columns (its masked loop is a chain of latencies), and those of a
// last, partial block column (masked). On the H200 a loop compiled into a kernel slows its
// other loops (one kernel with both loops: 285 us at 4096 against 214 with the plain loop
// alone), so each draw has only its own.
//
// Work. A warp takes the next tile of its draw from counts[2*(1 - PLAIN) + parity] (one
// atomic add by its leader). parity is the number of calls before this one that used the
// counts, mod 2; the draw zeroes its other count, which its next call takes. So the host
// writes nothing between draws (a host write of the count after a draw was not ordered
// after the draw's own atomics on the H200: calls back to back went wrong), and the two
// draws of a call, which may run side by side, keep apart counts.
//   A plain tile on a full warp of 32 with subgroup shuffles: plain_tile (an 8 x 4 block
//     of A's texture a fetch, shuffles for the sums across lanes; PACKED: the same block
//     of the packed columns, each lane's misaligned texels completed from its neighbour's).
//   Any other tile, or a plain one on a warp of another size: the lanes share the tile's 32
//     row texels by rank (a warp of 32 takes one each, fewer take several in rounds, lanes
//     past 32 idle); for each column j a lane fetches its row texel of column j once, adds
//     A(rows, j) x_j to its rows' sums and dot(A(rows, j), x_rows) into the warp's sum for
//     column j (warp_sum), which the leader stores.
// On a diagonal tile only the stored triangle counts (upper: rows i <= j for the rows'
// sums, i < j for the columns', so that the diagonal counts once; lower: i >= j, i > j); an
// element outside it never meets x (a masked product, not a multiplication by 0, so an Inf
// of x cannot make a NaN), and lanes past n are masked likewise (the gap up to lda may hold
// anything).
//
// Sums. Each tile's sums go to slots of `part` (slot s: texels s*stride .. + stride, stride
// = blocks*32; texel t of a slot for y's texel t): the rows' sums of tile (I, J) to slot J
// (of a diagonal tile's quarter k > 0: slot 2*blocks + k), the columns' sums to slot
// blocks + I (a diagonal tile's: slot 2*blocks). Then the leader counts the tile in
// counts[4 + I] and counts[4 + J] (a diagonal quarter twice in its block), and the warp
// whose count completes a block (need()) adds the block's slots in one order (rows' sums by
// J, columns' by I, the diagonal's, its quarters'), stores y := alpha*sums + beta*y
// (blas_update: beta == 0 reads no y; lanes past n keep y's) and sets the count back to 0.
// The sums' order is fixed for a fixed set of lanes a warp.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int n;
uniform int upper;
uniform int blocks;
uniform int tiles;
uniform sampler2D y;
uniform int sums_width;
uniform float alpha;
uniform float beta;
uniform int parity;
uniform int full;      // blocks of 128 rows wholly inside the matrix
uniform int a_last;    // PACKED: the last texel of A's buffer (reads clamp to it)

layout(std430, binding = 0) readonly restrict buffer XTexels {
    vec4 x_texels[];
};
layout(std430, binding = 1) coherent restrict buffer Partials {
    vec4 part[];
};
layout(std430, binding = 2) coherent restrict buffer Counts {
    uint counts[];
};
layout(binding = 0, rgba32f) writeonly uniform highp image2D sums_out;

// Row texels of a block (128 rows), and columns of a block.
#define BLOCK_TEXELS 32
#define BLOCK 128

#ifndef PLAIN
#define PLAIN 0
#endif

// PACKED (defined before this file, or 0): A in packed storage (sspmv), element (i, j) at
// col_base(j) + i, col_base(j) = j(j+1)/2 (upper) or j(2n-j-1)/2 (lower): rows 4t..4t+3 of
// column j are four consecutive elements, which straddle two texels unless col_base(j) is
// a multiple of 4. Rows outside the stored triangle read other columns' elements (or, past
// the array, its last texel), which the diagonal tiles' masks leave out as they leave out
// full storage's other triangle.
#ifndef PACKED
#define PACKED 0
#endif

#if PACKED
int col_base(int j) {
    uint u = uint(j);
    return int(upper != 0 ? tri(u) : half_product(u, 2u * uint(n) - u - 1u));
}

// A's texel of row texel t, column j, from the two texels that hold it (full storage's
// kernels step their positions instead).
vec4 a_texel(int t, int j) {
    return load_run(a, a_width, a_last, col_base(j) + 4 * t);
}
#endif

// TERMS (defined before this file, or 0): 0 both terms of each texel (ssymv, sspmv); 1 its
// rows' terms only, A(i, j) x_j to y_i (strmv / stpmv, x := A x: the terms of an x_j of 0
// skipped, as reference skips them, so that an Inf or NaN of A's column j does not reach
// y); 2 its columns' terms only, A(i, j) x_i to y_j (x := A^T x). With TERMS 1 or 2 the
// triangle's diagonal counts in the one sum there is, unless `unit` (then the fold adds
// x_i instead, the diagonal taken as ones and never read), and alpha and beta are 1 and 0.
#ifndef TERMS
#define TERMS 0
#endif
#define ROWS (TERMS != 2)
#define COLS (TERMS != 1)
uniform int unit;

// A(rows, j) times x_j as the rows' sums take it.
vec4 row_term(vec4 av, float xj) {
#if TERMS == 1
    return xj != 0.0 ? av * xj : vec4(0.0);
#else
    return av * xj;
#endif
}

// Warps a diagonal tile takes (a quarter of its columns each): its masked loop is a chain
// of latencies that one warp would run alone while the plain tiles' draw is long done.
#define DIAG_PARTS 4

// One column of a masked tile: A's texel av of column j for rows i4, times x_j (xj) into
// acc where the rows' rule keeps it; returns the warp's sum of the column's terms that the
// columns' rule keeps.
float masked_column(vec4 av, float xj, vec4 xi, ivec4 i4, int j, bvec4 live, bool diag,
                    inout vec4 acc) {
    bvec4 rk = live;
    bvec4 ck = live;
    if (diag) {
        // The diagonal counts once: in the rows' sums of a symmetric product, in the one
        // sum of a triangular one unless its diagonal is unit.
        ivec4 jj = ivec4(j);
        bvec4 lt = upper != 0 ? lessThan(i4, jj) : greaterThan(i4, jj);
        bvec4 le = upper != 0 ? lessThanEqual(i4, jj) : greaterThanEqual(i4, jj);
        bool with_diag = TERMS == 0 || unit == 0;
        rk = both(live, with_diag ? le : lt);
        ck = both(live, TERMS == 2 && unit == 0 ? le : lt);
    }
#if ROWS
    acc += select4(vec4(0.0), row_term(av, xj), rk);
#endif
#if COLS
    return warp_sum(dot(select4(vec4(0.0), av * xi, ck), vec4(1.0)));
#else
    return 0.0;
#endif
}

// Adds block b's slots into y (the warp whose count completed it; see above).
void fold(int b, int rank, int count, int stride, int nt) {
    memoryBarrierBuffer();
    for (int u = rank; u < BLOCK_TEXELS; u += count) {
        int t = BLOCK_TEXELS * b + u;
        if (t >= nt) {
            break;
        }
        vec4 s = vec4(0.0);
#if ROWS
        int lo = upper != 0 ? b : 0;
        int hi = upper != 0 ? blocks : b + 1;
        for (int k = lo; k < hi; ++k) {
            s += part[k * stride + t];
        }
#endif
#if COLS
        int clo = upper != 0 ? 0 : b + 1;
        int chi = upper != 0 ? b : blocks;
        for (int k = clo; k < chi; ++k) {
            s += part[(blocks + k) * stride + t];
        }
        s += part[2 * blocks * stride + t];
#endif
#if ROWS
        for (int k = 1; k < DIAG_PARTS; ++k) {
            s += part[(2 * blocks + k) * stride + t];
        }
#endif
#if TERMS != 0
        if (unit != 0) {
            s += x_texels[t];
        }
#endif
        ivec2 p = texel_pos(t, sums_width);
        vec4 yv = texelFetch(y, p, 0);
        vec4 w = vec4(blas_update(alpha, s.x, beta, yv.x), blas_update(alpha, s.y, beta, yv.y),
                      blas_update(alpha, s.z, beta, yv.z), blas_update(alpha, s.w, beta, yv.w));
        imageStore(sums_out, p, select4(yv, w, live_lanes(t, n)));
    }
    if (warp_leader()) {
        counts[4 + b] = 0u;
    }
}

// Tile g of this draw: its block row and block column (I, J) of A.
// How many counts complete block b: two for each part of its diagonal tile (its rows'
// and its columns' sums), one for each other tile with rows or columns in it (the whole
// blocks' plain tiles: full - 1 if b is whole; a partial last block column's tiles: one
// for each block above the last, blocks - 1 for the last).
uint need(int b) {
    int m = 2 * DIAG_PARTS + (b < full ? full - 1 : 0);
    if (full < blocks) {
        m += b < blocks - 1 ? 1 : blocks - 1;
    }
    return uint(m);
}

ivec2 tile_of(uint g) {
    int r;
    int c;
#if PLAIN
    // The strictly upper triangle of the whole blocks.
    int c1 = int(packed_column(g));
    r = int(g - tri(uint(c1)));
    c = c1 + 1;
#else
    // The diagonal tiles, four warps each (one a quarter of its columns: see main), then
    // the last (partial) block column's others.
    if (int(g) < DIAG_PARTS * blocks) {
        r = int(g) / DIAG_PARTS;
        c = r;
    } else {
        r = int(g) - DIAG_PARTS * blocks;
        c = blocks - 1;
    }
#endif
    return upper != 0 ? ivec2(r, c) : ivec2(c, r);
}

#if PLAIN && defined(WARP_SUBGROUP)
// The texels of row texels t, t + 8, t + 16, t + 24 of column j (t = BLOCK_TEXELS*bi + a,
// a < 8 the lane's place in its group of 8).
void column4(int j, int t, ivec2 r8, out vec4 v0, out vec4 v1, out vec4 v2, out vec4 v3) {
#if PACKED
    // The group's 8 lanes read neighbouring texels of the packed column (its elements
    // start at element r of texel q0 + a of each row of 8), a fifth fetch the texel after
    // the last (texel q0 + 32: one address for all eight, read only where r > 0, so that
    // it exists then), and each lane takes the texel after its own from the next lane
    // (lane 7 from lane 0's next row) by one shuffle.
    int cb = col_base(j);
    int r = cb & 3;
    int q = (cb >> 2) + t;
    int a8 = t & 7;
    ivec2 p0 = texel_pos(q, a_width);
    ivec2 p1 = advance(p0, r8, a_width);
    ivec2 p2 = advance(p1, r8, a_width);
    ivec2 p3 = advance(p2, r8, a_width);
    ivec2 p4 = q - a8 + 32 <= a_last ? advance(p3, ivec2(8 - a8, 0), a_width) : p3;
    vec4 w0 = texelFetch(a, p0, 0);
    vec4 w1 = texelFetch(a, p1, 0);
    vec4 w2 = texelFetch(a, p2, 0);
    vec4 w3 = texelFetch(a, p3, 0);
    vec4 w4 = texelFetch(a, p4, 0);
    uint k = gl_SubgroupInvocationID;
    uint from = (k & ~7u) | ((k + 1u) & 7u);
    bool head = a8 == 0;
    // The next texel's first three elements (shift4 reads no more of it).
    vec3 n0 = subgroupShuffle(head ? w1.xyz : w0.xyz, from);
    vec3 n1 = subgroupShuffle(head ? w2.xyz : w1.xyz, from);
    vec3 n2 = subgroupShuffle(head ? w3.xyz : w2.xyz, from);
    vec3 n3 = subgroupShuffle(head ? w4.xyz : w3.xyz, from);
    v0 = shift4(w0, vec4(n0, 0.0), r);
    v1 = shift4(w1, vec4(n1, 0.0), r);
    v2 = shift4(w2, vec4(n2, 0.0), r);
    v3 = shift4(w3, vec4(n3, 0.0), r);
#else
    ivec2 p = texel_pos(t + j * (lda >> 2), a_width);
    ivec2 p1 = advance(p, r8, a_width);
    ivec2 p2 = advance(p1, r8, a_width);
    ivec2 p3 = advance(p2, r8, a_width);
    v0 = texelFetch(a, p, 0);
    v1 = texelFetch(a, p1, 0);
    v2 = texelFetch(a, p2, 0);
    v3 = texelFetch(a, p3, 0);
#endif
}

// A plain tile on a full warp of 32 (lane k = a + 8b): each fetch of the warp reads row
// texel 8g + a (a = 0..7) of column c + 8b (b = 0..3), an 8 x 4 block of A's texture where
// columns 8 apart lie in neighbouring rows of it (lda/4 * 8 texels: order 4096 in the
// default rows of 8192; the products' fastest layout, BENCHMARKS.md session 13); a turn
// fetches g = 0..3 of four columns (sixteen texels) before any arithmetic. A lane
// keeps its four row texels' sums; a column's terms are added over g in the lane, then
// over the 8 lanes of its b (three shuffles), and lane (0, b) stores the column's sum. At
// the end the row texels' sums are added over b (two shuffles) and lane (a, b) stores row
// texel 8b + a.
void plain_tile(int bi, int bj, int cslot, int rslot) {
    int k = int(gl_SubgroupInvocationID);
    int la = k & 7;
    int lb = k >> 3;
    int t0 = BLOCK_TEXELS * bi + la;
    vec4 x0 = x_texels[t0];
    vec4 x1 = x_texels[t0 + 8];
    vec4 x2 = x_texels[t0 + 16];
    vec4 x3 = x_texels[t0 + 24];
    vec4 s0 = vec4(0.0);
    vec4 s1 = vec4(0.0);
    vec4 s2 = vec4(0.0);
    vec4 s3 = vec4(0.0);
    ivec2 r8 = texel_pos(8, a_width);
    for (int c = lb * 8; c < BLOCK; c += 32) {
        for (int c0 = 0; c0 < 8; c0 += 4) {
            // Four columns a turn (one texel of x), their sixteen texels fetched before any
            // arithmetic.
            int j = BLOCK * bj + c + c0;
            vec4 a0, a1, a2, a3, b0, b1, b2, b3, c0v, c1v, c2v, c3v, d0, d1, d2, d3;
            column4(j, t0, r8, a0, a1, a2, a3);
            column4(j + 1, t0, r8, b0, b1, b2, b3);
            column4(j + 2, t0, r8, c0v, c1v, c2v, c3v);
            column4(j + 3, t0, r8, d0, d1, d2, d3);
#if ROWS
            vec4 xv = x_texels[j >> 2];
            s0 += row_term(a0, xv.x) + row_term(b0, xv.y) + row_term(c0v, xv.z)
                + row_term(d0, xv.w);
            s1 += row_term(a1, xv.x) + row_term(b1, xv.y) + row_term(c1v, xv.z)
                + row_term(d1, xv.w);
            s2 += row_term(a2, xv.x) + row_term(b2, xv.y) + row_term(c2v, xv.z)
                + row_term(d2, xv.w);
            s3 += row_term(a3, xv.x) + row_term(b3, xv.y) + row_term(c3v, xv.z)
                + row_term(d3, xv.w);
#endif
#if COLS
            vec4 cs = vec4(dot(a0, x0) + dot(a1, x1) + dot(a2, x2) + dot(a3, x3),
                           dot(b0, x0) + dot(b1, x1) + dot(b2, x2) + dot(b3, x3),
                           dot(c0v, x0) + dot(c1v, x1) + dot(c2v, x2) + dot(c3v, x3),
                           dot(d0, x0) + dot(d1, x1) + dot(d2, x2) + dot(d3, x3));
            cs += subgroupShuffleXor(cs, 1u);
            cs += subgroupShuffleXor(cs, 2u);
            cs += subgroupShuffleXor(cs, 4u);
            if (la == 0) {
                part[cslot + (j >> 2)] = cs;
            }
#endif
        }
    }
#if ROWS
    s0 += subgroupShuffleXor(s0, 8u);
    s0 += subgroupShuffleXor(s0, 16u);
    s1 += subgroupShuffleXor(s1, 8u);
    s1 += subgroupShuffleXor(s1, 16u);
    s2 += subgroupShuffleXor(s2, 8u);
    s2 += subgroupShuffleXor(s2, 16u);
    s3 += subgroupShuffleXor(s3, 8u);
    s3 += subgroupShuffleXor(s3, 16u);
    vec4 mine = lb == 0 ? s0 : (lb == 1 ? s1 : (lb == 2 ? s2 : s3));
    part[rslot + BLOCK_TEXELS * bi + 8 * lb + la] = mine;
#endif
}
#endif

void main() {
    int count = int(warp_count());
    int rank = int(warp_rank());
    uint g = 0u;
    if (warp_leader()) {
        counts[2 * (1 - PLAIN) + 1 - parity] = 0u;
        g = atomicAdd(counts[2 * (1 - PLAIN) + parity], 1u);
    }
    g = warp_from_leader(g);
    if (g >= uint(tiles)) {
        return;
    }
    ivec2 ij = tile_of(g);
    int bi = ij.x;
    int bj = ij.y;
    bool diag = bi == bj;
    int nt = (n + 3) >> 2;
    int stride = blocks * BLOCK_TEXELS;
    int ld4 = lda >> 2;
    int j0 = BLOCK * bj;
    int cols = min(BLOCK, n - j0);
    int cslot = (blocks + (diag ? blocks : bi)) * stride;
    int rslot = bj * stride;
#if !PLAIN
    if (diag) {
        // Part k of a diagonal tile: its columns 32k .. 32k + 31 (none past n: its rows'
        // sums are then zeros), its rows' sums in slot bj for k = 0, else in slot
        // 2*blocks + k.
        int k = int(g) % DIAG_PARTS;
        j0 += k * (BLOCK / DIAG_PARTS);
        cols = clamp(n - j0, 0, BLOCK / DIAG_PARTS);
        if (k > 0) {
            rslot = (2 * blocks + k) * stride;
        }
    }
#endif
    ivec2 col = texel_pos(ld4, a_width);
#if PLAIN && defined(WARP_SUBGROUP)
    if (count == 32 && gl_SubgroupSize == 32u) {
        plain_tile(bi, bj, cslot, rslot);
    } else
#endif
    {
        int q = 0;
        for (int u = rank; u < BLOCK_TEXELS; u += count) {
            int t = BLOCK_TEXELS * bi + u;
            // A lane past the matrix reads its last texel, all of it masked.
            int tr = min(t, nt - 1);
            ivec4 i4 = ivec4(4 * t) + ivec4(0, 1, 2, 3);
            bvec4 live = lessThan(i4, ivec4(n));
            vec4 xi = select4(vec4(0.0), x_texels[tr], live);
            vec4 acc = vec4(0.0);
            ivec2 ap = texel_pos(tr + j0 * ld4, a_width);
            for (int jt = 0; jt < cols; jt += 4) {
                vec4 xv = x_texels[(j0 + jt) >> 2];
                vec4 tot = vec4(0.0);
                int j = j0 + jt;
#if PACKED
#define NEXT_TEXEL(k) a_texel(tr, j + k)
#define STEP_COLUMN
#else
#define NEXT_TEXEL(k) texelFetch(a, ap, 0)
#define STEP_COLUMN ap = advance(ap, col, a_width)
#endif
#if PLAIN
                vec4 a0 = NEXT_TEXEL(0);
                STEP_COLUMN;
                vec4 a1 = NEXT_TEXEL(1);
                STEP_COLUMN;
                vec4 a2 = NEXT_TEXEL(2);
                STEP_COLUMN;
                vec4 a3 = NEXT_TEXEL(3);
                STEP_COLUMN;
#if ROWS
                acc += row_term(a0, xv.x) + row_term(a1, xv.y) + row_term(a2, xv.z)
                     + row_term(a3, xv.w);
#endif
#if COLS
                tot = vec4(warp_sum(dot(a0, xi)), warp_sum(dot(a1, xi)), warp_sum(dot(a2, xi)),
                           warp_sum(dot(a3, xi)));
#endif
#else
                tot.x = masked_column(NEXT_TEXEL(0), xv.x, xi, i4, j, live, diag, acc);
                STEP_COLUMN;
                if (jt + 1 < cols) {
                    tot.y = masked_column(NEXT_TEXEL(1), xv.y, xi, i4, j + 1, live, diag, acc);
                    STEP_COLUMN;
                }
                if (jt + 2 < cols) {
                    tot.z = masked_column(NEXT_TEXEL(2), xv.z, xi, i4, j + 2, live, diag, acc);
                    STEP_COLUMN;
                }
                if (jt + 3 < cols) {
                    tot.w = masked_column(NEXT_TEXEL(3), xv.w, xi, i4, j + 3, live, diag, acc);
                    STEP_COLUMN;
                }
#endif
#if COLS
                if (warp_leader()) {
                    int p = cslot + ((j0 + jt) >> 2);
                    if (q > 0) {
                        tot += part[p];
                    }
                    part[p] = tot;
                }
#endif
            }
#if ROWS
            if (t < nt) {
                part[rslot + t] = acc;
            }
#endif
            ++q;
        }
    }
    warp_publish();
    uint got_row = 0u;
    uint got_col = 0u;
    if (warp_leader()) {
        uint add = diag ? 2u : 1u;
        got_row = atomicAdd(counts[4 + bi], add) + add;
        if (!diag) {
            got_col = atomicAdd(counts[4 + bj], 1u) + 1u;
        }
    }
    got_row = warp_from_leader(got_row);
    got_col = warp_from_leader(got_col);
    if (got_row == need(bi)) {
        fold(bi, rank, count, stride, nt);
    }
    if (got_col == need(bj)) {
        fold(bj, rank, count, stride, nt);
    }
}
