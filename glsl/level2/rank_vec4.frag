// Rank-1 and rank-2 updates (kinds as in rank.frag) of a matrix in full column-major
// storage whose leading dimension is a multiple of 4, read and written as vec4 texels:
// texel (r, j) of A is rows 4r..4r+3 of column j, at linear texel r + j*lda/4. Per texel
// one fetch of x (and of y for kind 2) gives the four rows' factors, and column j's factor
// is fetched once. As in reference BLAS a column whose factor is 0 is left as it is (so a
// NaN or Inf of x does not reach it); lanes past rows (the gap up to lda) and, for kinds 1
// and 2, outside the stored triangle keep their bits.
//
// With IMAGE (and TRIANGLE: 1 for kinds 1 and 2, 0 for kind 0; COLS: 1, 2 or 4) fragment f
// (row-major in a grid grid_width wide) updates the `per` texels r = f % per_col + k*per_col
// of the COLS columns from (f / per_col)*COLS in place through image stores; rendered, a
// fragment writes one texel of a new texture (every texel of A's, the ones outside the
// matrix copied). With IMAGE and BLOCKS the texels of x (and, for kind 2, of y from texel
// y_base on) come from a storage buffer (x and y of increment 1), so that the texture unit
// fetches only A's.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int rows;
uniform int cols;
uniform int triangle;    // 1: only the stored triangle is updated (kinds 1 and 2)
uniform int upper;
// KIND (defined when the program is built, or not): the kind a constant of ssyr's and
// ssyr2's in-place programs, so that each holds only its own update (on the H200, session
// 42, in the benchmark table: ssyr2 4096 284-294 -> 252 us, 1024 46-50 -> 43 us; ssyr 4096
// the same, 1024 41-45 -> 37 us); sger's (kind 0) and the rendered form take it as a
// uniform (sger 4096 ran 400-405 us without, 414-428 with).
#ifdef KIND
const int kind = KIND;
#else
uniform int kind;
#endif
uniform float alpha;
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;

// Texel (r, j) of A, old value v, with every lane updated; xv (and yv) are x's (y's)
// elements of rows 4r..4r+3, `xj`/`yj` column j's (those the kind reads). Reference's
// order: v + x_i*(alpha*y_j) [+ y_i*(alpha*x_j)].
vec4 all_updated(vec4 v, vec4 xv, vec4 yv, float xj, float yj) {
    if (kind == 0) {
        return v + xv * (alpha * yj);
    } else if (kind == 1) {
        return v + xv * (alpha * xj);
    }
    return v + xv * (alpha * yj) + yv * (alpha * xj);
}

// all_updated with only the lanes in the matrix (and its stored triangle) changed.
vec4 updated(vec4 v, int r, int j, vec4 xv, vec4 yv, float xj, float yj) {
    vec4 w = all_updated(v, xv, yv, xj, yj);
    bvec4 live = live_lanes(r, rows);
    if (triangle != 0) {
        ivec4 i4 = ivec4(4 * r) + ivec4(0, 1, 2, 3);
        live = both(live, upper != 0 ? lessThanEqual(i4, ivec4(j)) : greaterThanEqual(i4, ivec4(j)));
    }
    return select4(v, w, live);
}

float x_at(int j) {
    return load_elem_near(x, x_width, elem_pos(j, rows, incx));
}

float y_at(int j) {
    return load_elem_near(y, y_width, elem_pos(j, kind == 0 ? cols : rows, incy));
}

// Whether column j changes at all, with its factors.
bool column_factors(int j, out float xj, out float yj) {
    xj = 0.0;
    yj = 0.0;
    if (kind == 0) {
        yj = y_at(j);
        return yj != 0.0;
    }
    xj = x_at(j);
    if (kind == 1) {
        return xj != 0.0;
    }
    yj = y_at(j);
    return xj != 0.0 || yj != 0.0;
}

// The row texels of column j the update can touch: [lo, hi).
void row_texels(int j, out int lo, out int hi) {
    lo = 0;
    hi = (rows + 3) >> 2;
    if (triangle != 0) {
        if (upper != 0) {
            hi = min(hi, j / 4 + 1);
        } else {
            lo = j / 4;
        }
    }
}

#if IMAGE

layout(binding = 0, rgba32f) writeonly uniform highp image2D a_out;
#ifndef BLOCKS
#define BLOCKS 0
#endif
#if BLOCKS
layout(std430, binding = 0) readonly restrict buffer Vectors {
    vec4 vectors[];
};
uniform int y_base;
#endif
uniform int per;         // texels of a column per fragment
uniform int per_col;     // fragments per group of COLS columns: ceil(ceil(rows / 4) / per)
uniform int grid_width;
// per_col texels further on in A's, x's and y's textures, and the next column of A (lda/4
// texels on), as (% width, / width).
uniform ivec2 step_a;
uniform ivec2 step_x;
uniform ivec2 step_y;
uniform ivec2 step_col;

void main() {
    // Fragment q of the group of COLS columns g*COLS.. updates texels r = q + k*per_col,
    // k < per, of each of them: at each step neighbouring fragments touch neighbouring
    // texels (stores coalesce; runs of `per` texels a fragment measured 9% of the read
    // ceiling on the H100), and the texel of x (and y) of rows 4r..4r+3 is fetched once for
    // the group's columns. COLS divides 4, so the group's columns j have the same j / 4:
    // the same rows of a triangle, the same texel on its diagonal.
    int f = frag_texel(grid_width);
    int g = f / per_col;
    int q = f - g * per_col;
    int j0 = g * COLS;
    if (j0 >= cols) {
        return;
    }
    int lo;
    int hi;
    row_texels(j0, lo, hi);
    float xj[COLS];
    float yj[COLS];
    bool live[COLS];
    bool any = false;
    for (int c = 0; c < COLS; ++c) {
        live[c] = j0 + c < cols && column_factors(j0 + c, xj[c], yj[c]);
        any = any || live[c];
    }
    if (q + (per - 1) * per_col < lo || q >= hi || !any) {
        return;
    }
    // Only the steps k whose texel r = q + k*per_col lies in [lo, hi) run (a triangle's
    // column starts or ends part of the way down): [k0, k1), each bound divided out only
    // where the run starts or ends inside the column (a division costs the fragment about
    // as much as several of its texels). Positions step by per_col texels without
    // division; x (and y) are read whole texels when their increment is 1, which is when
    // the positions apply.
    int k0 = lo > q ? (lo - q + per_col - 1) / per_col : 0;
    int k1 = q + (per - 1) * per_col < hi ? per : (hi - q + per_col - 1) / per_col;
    int r = q + k0 * per_col;
    int ld4 = lda >> 2;
    ivec2 c0 = texel_pos(r + j0 * ld4, a_width);
    ivec2 xc = texel_pos_near(r, x_width);
    ivec2 yc = texel_pos_near(r, y_width);
    bool unit_x = incx == 1;
    bool unit_y = incy == 1;
    for (int k = k0; k < k1; ++k) {
#if BLOCKS
        vec4 xv = vectors[r];
        vec4 yv = kind != 2 ? vec4(0.0) : vectors[y_base + r];
#else
        vec4 xv = unit_x ? texelFetch(x, xc, 0) : load_logical(x, x_width, incx, rows, r);
        vec4 yv = kind != 2 ? vec4(0.0)
                : unit_y ? texelFetch(y, yc, 0) : load_logical(y, y_width, incy, rows, r);
#endif
#if TRIANGLE
        // In a triangle's column only the texel that holds the diagonal and the one past
        // the last row can have lanes outside: the others skip the masks (ssyr 4096 on the
        // H100: 55 -> 58% of the read ceiling). sger's kernel (TRIANGLE 0) keeps the masks:
        // with this test in it, even always taking them, it went 64 -> 55%.
        bool edge = 4 * r + 3 >= rows || r == j0 >> 2;
#endif
        ivec2 c = c0;
        for (int i = 0; i < COLS; ++i) {
            // (One column a fragment: live, or the fragment returned above.)
            if (COLS == 1 || live[i]) {
                vec4 v = texelFetch(a, c, 0);
#if TRIANGLE
                imageStore(a_out, c, edge ? updated(v, r, j0 + i, xv, yv, xj[i], yj[i])
                                          : all_updated(v, xv, yv, xj[i], yj[i]));
#else
                imageStore(a_out, c, updated(v, r, j0 + i, xv, yv, xj[i], yj[i]));
#endif
            }
            if (i + 1 < COLS) {
                c = advance(c, step_col, a_width);
            }
        }
        r += per_col;
        c0 = advance(c0, step_a, a_width);
        xc = advance(xc, step_x, x_width);
        yc = advance(yc, step_y, y_width);
    }
}

#else

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(a_width);
    int ld4 = lda >> 2;
    int j = t / ld4;
    int r = t - j * ld4;
    vec4 v = texelFetch(a, ivec2(gl_FragCoord.xy), 0);
    int lo;
    int hi;
    float xj;
    float yj;
    if (j < cols) {
        row_texels(j, lo, hi);
        if (r >= lo && r < hi && column_factors(j, xj, yj)) {
            vec4 xv = load_logical(x, x_width, incx, rows, r);
            vec4 yv = kind == 2 ? load_logical(y, y_width, incy, rows, r) : vec4(0.0);
            v = updated(v, r, j, xv, yv, xj, yj);
        }
    }
    result = v;
}

#endif
