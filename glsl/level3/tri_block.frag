// A block product of the triangular routines (blas/level3/tri): for the rows r of
// [r0, r1), out(r, j) = beta*c(r, j) + alpha*(sum of T(r, l)*W(l, j) over the l of
// [l0, l1) that `part` keeps: all (0), l >= r (1: a diagonal block of an upper T), l <= r (2:
// of a lower one)). beta == 0 does not read c. A diagonal block reads only the stored
// triangle, never the zeros of the other one. T is read from its transpose Ts and W and c
// are pitched (texel (x, y) holds rows 4x..4x+3 of column y): texel (l/4, r) of Ts is
// T(r, l..l+3). skip_w leaves out the terms whose W(l, j) is 0 and skip_t those whose
// off-diagonal T(r, l) is 0, as reference's loops do. A lane is a texel of the output: rows
// 4x..4x+3 of column y; its rows outside [r0, r1) keep c's values (0 when beta == 0).
//
// With `grid` > 0 (a multiple of 4) one draw covers many blocks, each lane finding its own
// from its rows: with part 1 or 2, every diagonal block of `grid` rows (of the `order` rows
// of T); with part 0, one level of the product's halving, the pairs of blocks of `grid`
// rows from row 0: the second block of a pair (`lower_t`; the first otherwise) gets T's
// block between the two times W's rows of the other block.
//
// COLS (defined before this file) 1: a fragment renders one lane. COLS > 1 (GPUs with image
// stores): fragment (g.x, g.y) computes the lanes of texel column x0 + g.x for the COLS
// columns from g.y*COLS and writes them through image stores: four texels of T and COLS of
// W for 16*COLS multiply-adds, where one lane takes five for sixteen (the texture unit's
// texel rate binds these passes). There c need not be pitched: texel x of its column y is
// texel c_off4 + y*ldc4 + x of its texture (c_width wide; pitched: 0, c_width, c_width),
// and with in_place the stores go into c's own texture (bound as out_image) and leave
// every element outside the block as it was, so that c can be the caller's matrix.
uniform sampler2D w;
uniform sampler2D ts;
uniform sampler2D c;
uniform int r0;
uniform int r1;
uniform int l0;
uniform int l1;
uniform int part;
uniform float alpha;
uniform float beta;
uniform int skip_w;
uniform int skip_t;
uniform int grid;
uniform int lower_t;
uniform int order;

// The rows [b.x, b.y) of the block the rows from i0 lie in, and its summed rows [b.z, b.w).
ivec4 block_of(int i0) {
    if (grid == 0) {
        return ivec4(r0, r1, l0, l1);
    }
    if (part != 0) {
        int d = i0 / grid * grid;
        int e = min(d + grid, order);
        return ivec4(d, e, d, e);
    }
    int first = i0 / (2 * grid) * (2 * grid);
    int second = first + grid;
    int end = min(first + 2 * grid, order);
    return lower_t != 0 ? ivec4(second, end, first, second) : ivec4(first, second, second, end);
}

// Row r's terms T(r, l)*W(l, j) for the four l of l4 (tv = T(r, l4), wv = W(l4, j)) that
// `mw` (the summed rows, W's zero test) and the part keep, and T's zero test passes.
float term(vec4 tv, vec4 wv, bvec4 mw, ivec4 l4, int r) {
    bvec4 m = mw;
    if (part == 1) {
        m = both(m, greaterThanEqual(l4, ivec4(r)));
    } else if (part == 2) {
        m = both(m, lessThanEqual(l4, ivec4(r)));
    }
    if (skip_t != 0) {
        m = both(m, not(both(notEqual(l4, ivec4(r)), equal(tv, vec4(0.0)))));
    }
    return dot(select4(vec4(0.0), tv, m), select4(vec4(0.0), wv, m));
}

#if COLS == 1

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int i0 = 4 * p.x;
    ivec4 blk = block_of(i0);
    if (i0 + 4 <= blk.x || i0 >= blk.y) {
        // None of the lane's rows is in the block.
        result = beta != 0.0 ? texelFetch(c, p, 0) : vec4(0.0);
        return;
    }
    // The summed rows any of this lane's rows can use.
    int lo = part == 1 ? max(blk.z, i0) : blk.z;
    int hi = part == 2 ? min(blk.w, i0 + 4) : blk.w;
    vec4 acc = vec4(0.0);
    ivec4 lanes = ivec4(0, 1, 2, 3);
    // Rows past the block (past T) read the block's last row; their sums are not used.
    int last = blk.y - 1;
    for (int lt = lo >> 2; 4 * lt < hi; ++lt) {
        vec4 wv = texelFetch(w, ivec2(lt, p.y), 0);
        ivec4 l4 = ivec4(4 * lt) + lanes;
        bvec4 mw = both(greaterThanEqual(l4, ivec4(lo)), lessThan(l4, ivec4(hi)));
        if (skip_w != 0) {
            mw = both(mw, notEqual(wv, vec4(0.0)));
        }
        vec4 t0 = texelFetch(ts, ivec2(lt, i0), 0);
        vec4 t1 = texelFetch(ts, ivec2(lt, min(i0 + 1, last)), 0);
        vec4 t2 = texelFetch(ts, ivec2(lt, min(i0 + 2, last)), 0);
        vec4 t3 = texelFetch(ts, ivec2(lt, min(i0 + 3, last)), 0);
        acc += vec4(term(t0, wv, mw, l4, i0), term(t1, wv, mw, l4, i0 + 1),
                    term(t2, wv, mw, l4, i0 + 2), term(t3, wv, mw, l4, i0 + 3));
    }
    vec4 old = beta != 0.0 ? texelFetch(c, p, 0) : vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        int r = i0 + k;
        if (r >= blk.x && r < blk.y) {
            result[k] = blas_update(alpha, acc[k], beta, old[k]);
        } else {
            result[k] = old[k];
        }
    }
}

#else

uniform int x0;
uniform int cols;
uniform int c_off4;
uniform int ldc4;
uniform int c_width;
uniform int in_place;

// Where texel x (rows 4x..4x+3) of column y of c lies.
ivec2 c_at(int x, int y) {
    return texel_pos(c_off4 + y * ldc4 + x, c_width);
}

layout(binding = 0, rgba32f) writeonly uniform highp image2D out_image;

// Which of row r's terms T(r, l)*W(l, j) for the four l of l4 (tv = T(r, l4)) the summed
// rows (`range`), the part and T's zero test keep; W's zero test is the caller's.
bvec4 row_mask(vec4 tv, bvec4 range, ivec4 l4, int r) {
    bvec4 m = range;
    if (part == 1) {
        m = both(m, greaterThanEqual(l4, ivec4(r)));
    } else if (part == 2) {
        m = both(m, lessThanEqual(l4, ivec4(r)));
    }
    if (skip_t != 0) {
        m = both(m, not(both(notEqual(l4, ivec4(r)), equal(tv, vec4(0.0)))));
    }
    return m;
}

// The term sum of one row over a texel of summed rows, the terms outside m left out.
float masked_dot(vec4 tv, vec4 wv, bvec4 m) {
    return dot(select4(vec4(0.0), tv, m), select4(vec4(0.0), wv, m));
}

// Texel lt of T's rows i0 .. i0+3 (T(r, 4lt .. 4lt+3)); rows past `last` read the last.
void t_rows(int lt, int i0, int last, out vec4 t0, out vec4 t1, out vec4 t2, out vec4 t3) {
    t0 = texelFetch(ts, ivec2(lt, i0), 0);
    t1 = texelFetch(ts, ivec2(lt, min(i0 + 1, last)), 0);
    t2 = texelFetch(ts, ivec2(lt, min(i0 + 2, last)), 0);
    t3 = texelFetch(ts, ivec2(lt, min(i0 + 3, last)), 0);
}

// Adds T's four rows t0..t3 times W's texel lt of each column from y0 to acc, the terms
// outside the rows' masks m0..m3 (all of them kept where all_kept) and those W's zero test
// leaves out not formed: plain dot products where nothing is left out.
void add_columns(int lt, vec4 t0, vec4 t1, vec4 t2, vec4 t3, bvec4 m0, bvec4 m1, bvec4 m2,
                 bvec4 m3, bool all_kept, int y0, int last_col, inout vec4 acc[COLS]) {
    for (int col = 0; col < COLS; ++col) {
        vec4 wv = texelFetch(w, ivec2(lt, min(y0 + col, last_col)), 0);
        if (all_kept && (skip_w == 0 || !any(equal(wv, vec4(0.0))))) {
            acc[col] += vec4(dot(t0, wv), dot(t1, wv), dot(t2, wv), dot(t3, wv));
        } else {
            bvec4 nz = skip_w != 0 ? notEqual(wv, vec4(0.0)) : bvec4(true);
            acc[col] += vec4(masked_dot(t0, wv, both(m0, nz)), masked_dot(t1, wv, both(m1, nz)),
                           masked_dot(t2, wv, both(m2, nz)), masked_dot(t3, wv, both(m3, nz)));
        }
    }
}

// Adds the terms of texel lt of the summed rows (rows i0.. of T, W's columns from y0) to acc.
void add_texel(int lt, int i0, int lo, int hi, int last, int y0, int last_col,
               inout vec4 acc[COLS]) {
    vec4 t0, t1, t2, t3;
    t_rows(lt, i0, last, t0, t1, t2, t3);
    ivec4 l4 = ivec4(4 * lt) + ivec4(0, 1, 2, 3);
    bvec4 range = both(greaterThanEqual(l4, ivec4(lo)), lessThan(l4, ivec4(hi)));
    bvec4 m0 = row_mask(t0, range, l4, i0);
    bvec4 m1 = row_mask(t1, range, l4, i0 + 1);
    bvec4 m2 = row_mask(t2, range, l4, i0 + 2);
    bvec4 m3 = row_mask(t3, range, l4, i0 + 3);
    // Every term of the texel kept (away from the block's ends and its diagonal, T
    // without zeros): plain dot products unless W's zero test leaves a term out.
    bool all_kept = all(m0) && all(m1) && all(m2) && all(m3);
    add_columns(lt, t0, t1, t2, t3, m0, m1, m2, m3, all_kept, y0, last_col, acc);
}

// add_texel for a texel of summed rows that the part, the summed range and T's zero test
// (skip_t == 0) keep whole: no masks to form, only W's zero test can leave terms out.
void add_plain(int lt, int i0, int last, int y0, int last_col, inout vec4 acc[COLS]) {
    vec4 t0, t1, t2, t3;
    t_rows(lt, i0, last, t0, t1, t2, t3);
    bvec4 all4 = bvec4(true);
    add_columns(lt, t0, t1, t2, t3, all4, all4, all4, all4, true, y0, last_col, acc);
}

// One step of a row texel's run off the diagonal texel (which the part masks): add_texel,
// or add_plain where it keeps every term (the summed range's ends only cut texels at T's
// last row).
void add_step(int lt, int i0, int lo, int hi, int last, int y0, int last_col,
              inout vec4 acc[COLS]) {
    if (skip_t == 0 && 4 * lt >= lo && 4 * lt + 4 <= hi) {
        add_plain(lt, i0, last, y0, last_col, acc);
    } else {
        add_texel(lt, i0, lo, hi, last, y0, last_col, acc);
    }
}

// Writes the lanes of texel x of the COLS columns from y0 (ncol of them): alpha*acc +
// beta*c for the rows in the block's [rb.x, rb.y), c's values for the others (0 when
// beta == 0 and not in place).
void store_lanes(int x, int y0, int ncol, ivec2 rb, vec4 acc[COLS]) {
    int i0 = 4 * x;
    // The texel's rows outside the block keep c's values in place (the gap below the
    // last row, where c is the caller's matrix).
    bool keep = in_place != 0 && (i0 < rb.x || i0 + 4 > rb.y);
    for (int col = 0; col < ncol; ++col) {
        ivec2 q = c_at(x, y0 + col);
        vec4 old = beta != 0.0 || keep ? texelFetch(c, q, 0) : vec4(0.0);
        vec4 r;
        for (int k = 0; k < 4; ++k) {
            int row = i0 + k;
            r[k] = row >= rb.x && row < rb.y ? blas_update(alpha, acc[col][k], beta, old[k])
                                             : old[k];
        }
        imageStore(out_image, q, r);
    }
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int x = x0 + g.x;
    int y0 = g.y * COLS;
    int i0 = 4 * x;
    int ncol = min(COLS, cols - y0);
    ivec4 blk = block_of(i0);
    if (i0 + 4 <= blk.x || i0 >= blk.y) {
        // None of the lanes' rows is in the block.
        if (in_place != 0) {
            return;
        }
        for (int col = 0; col < ncol; ++col) {
            ivec2 q = c_at(x, y0 + col);
            imageStore(out_image, q, beta != 0.0 ? texelFetch(c, q, 0) : vec4(0.0));
        }
        return;
    }
    int lo = part == 1 ? max(blk.z, i0) : blk.z;
    int hi = part == 2 ? min(blk.w, i0 + 4) : blk.w;
    vec4 acc[COLS];
    for (int col = 0; col < COLS; ++col) {
        acc[col] = vec4(0.0);
    }
    int last = blk.y - 1;
    int last_col = cols - 1;
    // The texel of summed rows on the diagonal (part 1 or 2) is the only one whose terms
    // the part masks: it is taken last, after the loop, where the fragments of a warp
    // (whose rows differ) all run its masked form together. The loop runs from the block's
    // far end (part 1: descending from the block's last texel; part 2: ascending from its
    // first), so that at each step the fragments of a block fetch the same texel of
    // summed rows: W's texels are shared, not spread along a diagonal.
    int first = lo >> 2;
    int end = (hi + 3) >> 2;
    if (part == 1) {
        for (int lt = end - 1; lt > first; --lt) {
            add_step(lt, i0, lo, hi, last, y0, last_col, acc);
        }
        add_texel(first, i0, lo, hi, last, y0, last_col, acc);
    } else if (part == 2) {
        for (int lt = first; lt < end - 1; ++lt) {
            add_step(lt, i0, lo, hi, last, y0, last_col, acc);
        }
        add_texel(end - 1, i0, lo, hi, last, y0, last_col, acc);
    } else {
        for (int lt = first; lt < end; ++lt) {
            add_step(lt, i0, lo, hi, last, y0, last_col, acc);
        }
    }
    store_lanes(x, y0, ncol, blk.xy, acc);
}

#endif
