// A diagonal block of a triangular solve (blas/level3/tri), in place on W: the rows r of
// [r0, r1) of every column get x_r, solving T x = w within the block (forward from r0 when
// T is lower, backward from r1 - 1 when upper), every row before the block in solve order
// already subtracted. T is read from its transpose Ts (texel (q/4, r) holds T(r, q..q+3))
// and W is pitched (texel (x, y) holds rows 4x..4x+3 of column y). A lane is a texel: it
// runs its column's substitution over the whole block (at most STEP rows, defined before
// this file), subtracting in reference's order, and keeps its own rows. As reference's loops do:
// skip_w leaves out the rows whose value is 0 before the division (neither divided nor
// subtracted), skip_t the terms whose T(r, q) is 0; recip divides by multiplying with the
// reciprocal; unit_diag divides by nothing. Rows outside the block pass through.
//
// With APPLY 1 the block [r0, r1) is one of the grid of NB rows whose inverses one pass
// computed before (level2/trsv.frag's PASS 2: texel (c*NB/4 + f, b) of `inv` is rows
// 4f..4f+3 of column c of block b's inverse), and a lane is the inverse's rows times its
// column of the block: a texel of W and four texels of the inverse for sixteen
// multiply-adds. A lane that meets an Inf or NaN there (in the inverse: a zero or
// non-finite diagonal, an Inf or NaN in T; in W; or in the result) runs the substitution
// instead, so that Inf and NaN go where reference's loops put them. One test of the result
// finds them all: an Inf or NaN among the terms leaves one in the sum (Inf times a nonzero
// is Inf, times zero NaN, and Inf + -Inf and every sum with a NaN are NaN), and the lanes
// past the block multiply zeros of W, as the terms' tests skipped them. Testing every term
// instead took a third of the pass on the H100 (strsm 1024: 745 -> 490 us).
uniform sampler2D w;
uniform sampler2D ts;
uniform int r0;
uniform int r1;
uniform int forward;
uniform int unit_diag;
uniform int skip_w;
uniform int skip_t;
uniform int recip;

layout(location = 0) out vec4 result;

// The texel p of W after the block's substitution.
vec4 substitute(ivec2 p) {
    int i0 = 4 * p.x;
    vec4 result = texelFetch(w, p, 0);
    int first = forward != 0 ? r0 : r1 - 1;
    int dir = forward != 0 ? 1 : -1;
    // Every lane runs the whole block (the same trip count in every fragment) and takes
    // its own rows as they are solved. Mesa's softpipe (GL 3.3) computed wrong values when
    // lanes of one quad ran loops of different lengths over these arrays and read their own
    // rows back out of them by a computed index afterwards (issue 31); the work is that of
    // the block's last lane either way.
    int rows = r1 - r0;
    float sol[STEP];
    bool live[STEP];
    for (int k = 0; k < rows; ++k) {
        int r = first + dir * k;
        float v = texelFetch(w, ivec2(r >> 2, p.y), 0)[r & 3];
        int cached = -1;
        vec4 tv = vec4(0.0);
        for (int kk = 0; kk < k; ++kk) {
            int q = first + dir * kk;
            if ((q >> 2) != cached) {
                cached = q >> 2;
                tv = texelFetch(ts, ivec2(cached, r), 0);
            }
            float t = tv[q & 3];
            if (live[kk] && (skip_t == 0 || t != 0.0)) {
                v -= t * sol[kk];
            }
        }
        live[k] = skip_w == 0 || v != 0.0;
        if (unit_diag == 0 && live[k]) {
            float d = texelFetch(ts, ivec2(r >> 2, r), 0)[r & 3];
            v = recip != 0 ? v * (1.0 / d) : v / d;
        }
        sol[k] = v;
        if (r >= i0 && r < i0 + 4) {
            result[r - i0] = v;
        }
    }
    return result;
}

#if APPLY && COLS > 1

// On GPUs with image stores: fragment (g.x, g.y) computes the texels TEXELS*g.x ..
// +TEXELS-1 of the block's rows in the COLS columns from g.y*COLS, fetching each texel of W
// once for all its texels and each texel of the inverse once for all its columns (per four
// rows of the block: 4*TEXELS texels of the inverse and COLS of W for 16*TEXELS*COLS
// multiply-adds), and writes them to out_image (not W: other fragments still read the
// block's rows of W). A texel of a column whose sum is not finite substitutes, as above.
// TEXELS and COLS are defined before this file.
//
// With PACKED_W (COLS 4: the fragment's columns are column group g.y of W) the solved rows
// also go into the strip kernels' op(B) quads of all of W's rows, `wp_out` (texel
// (2q + a, 2l + b) holds row l of columns 4j..4j+3, j = 4q + a + 2b), from which every
// later update of the solve reads them (no pack of them for each update); rows past the
// block's end (past the matrix) and columns past cols are 0 there, as the strip kernels
// read them. out_image is then a texture that becomes W's when the solve is done.
uniform sampler2D inv;
uniform int cols;

layout(binding = 0, rgba32f) writeonly uniform highp image2D out_image;
#ifdef PACKED_W
#if COLS != 4
#error "PACKED_W writes a column group of 4 a fragment"
#endif
layout(binding = 1, rgba32f) writeonly uniform highp image2D wp_out;
#endif

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int f0 = TEXELS * g.x;
    int b = r0 / NB;
    int nb = r1 - r0;
    int x_end = (r1 + 3) >> 2;
    int y0 = g.y * COLS;
    int last_col = cols - 1;
    ivec4 lanes = ivec4(0, 1, 2, 3);
    vec4 acc[TEXELS * COLS];
    for (int a = 0; a < TEXELS * COLS; ++a) {
        acc[a] = vec4(0.0);
    }
    for (int k = 0; 4 * k < nb; ++k) {
        int c = 4 * k;
        vec4 iv[4 * TEXELS];
        for (int t = 0; t < TEXELS; ++t) {
            for (int j = 0; j < 4; ++j) {
                int col_j = min(c + j, nb - 1);
                iv[4 * t + j] = texelFetch(inv, ivec2(col_j * (NB / 4) + f0 + t, b), 0);
            }
        }
        bvec4 live = lessThan(ivec4(c) + lanes, ivec4(nb));
        for (int col = 0; col < COLS; ++col) {
            vec4 wv = texelFetch(w, ivec2((r0 >> 2) + k, min(y0 + col, last_col)), 0);
            wv = select4(vec4(0.0), wv, live);
            for (int t = 0; t < TEXELS; ++t) {
                acc[t * COLS + col] += iv[4 * t] * wv.x + iv[4 * t + 1] * wv.y +
                                       iv[4 * t + 2] * wv.z + iv[4 * t + 3] * wv.w;
            }
        }
    }
    for (int t = 0; t < TEXELS; ++t) {
        int x = (r0 >> 2) + f0 + t;
        if (x >= x_end) {
            break;
        }
        // Rows past the block (past the matrix) keep W's values.
        bvec4 mine = lessThan(ivec4(4 * x) + lanes, ivec4(r1));
#ifdef PACKED_W
        for (int col = 0; col < 4; ++col) {
            vec4 v = vec4(0.0);
            ivec2 q = ivec2(x, y0 + col);
            if (q.y < cols) {
                if (finite(acc[t * COLS + col])) {
                    v = acc[t * COLS + col];
                } else {
                    v = substitute(q);
                }
                imageStore(out_image, q, select4(texelFetch(w, q, 0), v, mine));
                v = select4(vec4(0.0), v, mine);
            }
            acc[t * COLS + col] = v;
        }
        // The four columns' rows 4x..4x+3, transposed: a texel of the quads a row.
        vec4 a0 = acc[t * COLS];
        vec4 a1 = acc[t * COLS + 1];
        vec4 a2 = acc[t * COLS + 2];
        vec4 a3 = acc[t * COLS + 3];
        ivec2 at = quad_texel(g.y, 4 * x);
        imageStore(wp_out, at, vec4(a0.x, a1.x, a2.x, a3.x));
        imageStore(wp_out, at + ivec2(0, 2), vec4(a0.y, a1.y, a2.y, a3.y));
        imageStore(wp_out, at + ivec2(0, 4), vec4(a0.z, a1.z, a2.z, a3.z));
        imageStore(wp_out, at + ivec2(0, 6), vec4(a0.w, a1.w, a2.w, a3.w));
#else
        for (int col = 0; col < COLS; ++col) {
            int y = y0 + col;
            if (y >= cols) {
                break;
            }
            ivec2 q = ivec2(x, y);
            vec4 r;
            if (finite(acc[t * COLS + col])) {
                r = select4(texelFetch(w, q, 0), acc[t * COLS + col], mine);
            } else {
                r = substitute(q);
            }
            imageStore(out_image, q, r);
        }
#endif
    }
}

#elif APPLY

uniform sampler2D inv;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int f = p.x - (r0 >> 2);
    int b = r0 / NB;
    int nb = r1 - r0;
    ivec4 lanes = ivec4(0, 1, 2, 3);
    vec4 x = vec4(0.0);
    for (int g = 0; 4 * g < nb; ++g) {
        vec4 wv = texelFetch(w, ivec2((r0 >> 2) + g, p.y), 0);
        wv = select4(vec4(0.0), wv, lessThan(ivec4(4 * g) + lanes, ivec4(nb)));
        int c = 4 * g;
        vec4 i0 = texelFetch(inv, ivec2(c * (NB / 4) + f, b), 0);
        vec4 i1 = texelFetch(inv, ivec2(min(c + 1, nb - 1) * (NB / 4) + f, b), 0);
        vec4 i2 = texelFetch(inv, ivec2(min(c + 2, nb - 1) * (NB / 4) + f, b), 0);
        vec4 i3 = texelFetch(inv, ivec2(min(c + 3, nb - 1) * (NB / 4) + f, b), 0);
        x += i0 * wv.x + i1 * wv.y + i2 * wv.z + i3 * wv.w;
    }
    // Rows past the block (past the matrix) keep W's values.
    bvec4 mine = lessThan(ivec4(4 * p.x) + lanes, ivec4(r1));
#if EVERY_LANE
    // Every fragment substitutes and the result is chosen: Mesa's softpipe (GL 3.3)
    // computes wrong values where only some fragments of a quad run the substitution's
    // loops over its arrays (issue 31's fault, met again here: NaN for Inf).
    vec4 s = substitute(p);
    result = finite(x) ? select4(texelFetch(w, p, 0), x, mine) : s;
#else
    // A branch, not a ?: (level2/trsv.frag: with ?: the H100 substituted in every fragment).
    if (finite(x)) {
        result = select4(texelFetch(w, p, 0), x, mine);
    } else {
        result = substitute(p);
    }
#endif
}

#else

void main() {
    result = substitute(ivec2(gl_FragCoord.xy));
}

#endif
