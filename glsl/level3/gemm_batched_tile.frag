// Batched sgemm, register-tiled (blas/level3/batched.rs): every product's op(A_p)*op(B_p)
// in tiles of 8 rows and 4 columns, one tile a fragment, written to 8 render targets and
// put into C by gemm_batched_merge.frag. For A_p and B_p not transposed, with lda, ldb and
// the strides multiples of 4 (batched.rs's quad case): four rows of a column of A_p, and
// four values of k of a column of B_p, are one texel each, so four values of k take two
// fetches of A a value and one of B a column, 12 fetches for 128 multiply-adds (the
// one-texel-a-fragment kernel, gemm_batched.frag, makes 5 for 16).
//
// Fragment t = y*grid_width + x is tile t of the batch: product p = t / tiles, and there
// tile r = t - p*tiles, rows 8*(r % tm) .. +7, columns 4*(r / tm) .. +3 (a row of the grid
// holds whole products side by side: laying each product out as a block of the grid, for
// neighbouring fragments to share its rows and columns, made the H100 slower, 326 -> 293
// GFLOP/s at 1000 x 64^3). Target c holds rows 0..3 of the tile's column c, target 4 + c
// rows 4..7. Rows past m and columns past n are computed from whatever the texels hold
// there and never read back. The summed index runs over [k0, k1).
//
// With IMAGE (GPUs with image stores; COLS, 4 or 8, defined before this file) a tile has
// COLS columns and the fragment writes alpha*tile + beta*C into C itself through image
// stores, no targets and no merge pass: m, ldc and stride_c are multiples of 4, so each
// texel of C belongs to one tile. Without IMAGE, COLS is 4.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int stride_a;
uniform sampler2D b;
uniform int b_width;
uniform int ldb;
uniform int stride_b;
uniform int batch;
uniform int tm;
uniform int tiles;
uniform int grid_width;
uniform int k0;
uniform int k1;

#if IMAGE
uniform sampler2D c;
uniform int c_width;
uniform int ldc;
uniform int stride_c;
uniform int m;
uniform int n;
uniform float alpha;
uniform float beta;

layout(binding = 0, rgba32f) writeonly uniform highp image2D c_out;
#else
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;
#endif

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int t = g.y * grid_width + g.x;
#if IMAGE
    if (t / tiles >= batch) {
        // Past the last tile of the grid.
        return;
    }
#endif
    int p = min(t / tiles, batch - 1);
    int r = t - (t / tiles) * tiles;
    int i0 = 8 * (r % tm);
    int j0 = COLS * (r / tm);
    // Positions of the texels of rows i0.. of column k0 of A_p, and of k0.. of columns
    // j0.. of B_p, stepped by addition (a division a fetch made the integer units, not the
    // fetches, the bound). Positions past a texture (rows past m, columns past n of the
    // last product) read undefined values that are never used.
    int lda4 = lda >> 2;
    ivec2 da = texel_pos(lda4, a_width);
    ivec2 pa = texel_pos(((p * stride_a + i0) >> 2) + k0 * lda4, a_width);
    int bp = (p * stride_b + k0) >> 2;
    int ldb4 = ldb >> 2;
    ivec2 one = ivec2(1, 0);
#if IMAGE
    ivec2 q[COLS];
    vec4 lo_acc[COLS];
    vec4 hi_acc[COLS];
    for (int col = 0; col < COLS; ++col) {
        q[col] = texel_pos(bp + (j0 + col) * ldb4, b_width);
        lo_acc[col] = vec4(0.0);
        hi_acc[col] = vec4(0.0);
    }
    for (int l = k0; l < k1; l += 4) {
        vec4 v[COLS];
        for (int col = 0; col < COLS; ++col) {
            v[col] = texelFetch(b, q[col], 0);
            q[col] = advance(q[col], one, b_width);
        }
        for (int kk = 0; kk < 4; ++kk) {
            // Values of k past k1 are another column's or a gap's: not multiplied.
            if (l + kk < k1) {
                vec4 lo = texelFetch(a, pa, 0);
                vec4 hi = texelFetch(a, advance(pa, one, a_width), 0);
                pa = advance(pa, da, a_width);
                for (int col = 0; col < COLS; ++col) {
                    lo_acc[col] += lo * v[col][kk];
                    hi_acc[col] += hi * v[col][kk];
                }
            }
        }
    }
    for (int col = 0; col < COLS; ++col) {
        int j = j0 + col;
        if (j >= n) {
            break;
        }
        for (int h = 0; h < 2; ++h) {
            int i = i0 + 4 * h;
            if (i >= m) {
                break;
            }
            ivec2 at = texel_pos((p * stride_c + i + j * ldc) >> 2, c_width);
            vec4 old = beta != 0.0 ? texelFetch(c, at, 0) : vec4(0.0);
            vec4 acc = h == 0 ? lo_acc[col] : hi_acc[col];
            vec4 res;
            for (int ch = 0; ch < 4; ++ch) {
                res[ch] = blas_update(alpha, acc[ch], beta, old[ch]);
            }
            imageStore(c_out, at, res);
        }
    }
#else
    ivec2 q0 = texel_pos(bp + j0 * ldb4, b_width);
    ivec2 q1 = texel_pos(bp + (j0 + 1) * ldb4, b_width);
    ivec2 q2 = texel_pos(bp + (j0 + 2) * ldb4, b_width);
    ivec2 q3 = texel_pos(bp + (j0 + 3) * ldb4, b_width);
    vec4 c0 = vec4(0.0), c1 = vec4(0.0), c2 = vec4(0.0), c3 = vec4(0.0);
    vec4 c4 = vec4(0.0), c5 = vec4(0.0), c6 = vec4(0.0), c7 = vec4(0.0);
    for (int l = k0; l < k1; l += 4) {
        vec4 v0 = texelFetch(b, q0, 0);
        vec4 v1 = texelFetch(b, q1, 0);
        vec4 v2 = texelFetch(b, q2, 0);
        vec4 v3 = texelFetch(b, q3, 0);
        q0 = advance(q0, one, b_width);
        q1 = advance(q1, one, b_width);
        q2 = advance(q2, one, b_width);
        q3 = advance(q3, one, b_width);
        for (int q = 0; q < 4; ++q) {
            // Values of k past k1 are another column's or a gap's: not multiplied.
            if (l + q < k1) {
                vec4 lo = texelFetch(a, pa, 0);
                vec4 hi = texelFetch(a, advance(pa, one, a_width), 0);
                pa = advance(pa, da, a_width);
                c0 += lo * v0[q];
                c1 += lo * v1[q];
                c2 += lo * v2[q];
                c3 += lo * v3[q];
                c4 += hi * v0[q];
                c5 += hi * v1[q];
                c6 += hi * v2[q];
                c7 += hi * v3[q];
            }
        }
    }
    o0 = c0;
    o1 = c1;
    o2 = c2;
    o3 = c3;
    o4 = c4;
    o5 = c5;
    o6 = c6;
    o7 = c7;
#endif
}
