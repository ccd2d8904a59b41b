// Batched sgemm, register-tiled (blas/level3/batched.rs): every product's op(A_p)*op(B_p)
// in tiles of 8 rows and 4 columns, one tile a fragment, written to 8 render targets and
// put into C by gemm_batched_merge.frag. For A_p and B_p not transposed, with lda, ldb and
// the strides multiples of 4 (batched.rs's quad case): four rows of a column of A_p, and
// four values of k of a column of B_p, are one texel each, so four values of k take two
// fetches of A a value and one of B a column, 12 fetches for 128 multiply-adds (the
// one-texel-a-fragment kernel, gemm_batched.frag, makes 5 for 16).
//
// Fragment t = y*grid_width + x is tile t of the batch: product p = t / tiles, and there
// tile r = t - p*tiles, rows 8*(r % tm) .. +7, columns 4*(r / tm) .. +3. Target c holds
// rows 0..3 of the tile's column c, target 4 + c rows 4..7. Rows past m and columns past n
// are computed from whatever the texels hold there (a clamped column, the gap after a
// column) and never read back. The summed index runs over [k0, k1).
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

layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;

// Texel e of s, clamped to the texture.
vec4 texel(sampler2D s, int width, int e) {
    ivec2 size = textureSize(s, 0);
    return load_texel(s, width, min(e, size.x * size.y - 1));
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int t = g.y * grid_width + g.x;
    int p = min(t / tiles, batch - 1);
    int r = t - (t / tiles) * tiles;
    int i0 = 8 * (r % tm);
    int j0 = 4 * (r / tm);
    // Texel positions (in fours of elements) of rows i0.. of column 0 of A_p, and of k = 0
    // of columns j0.. of B_p.
    int ap = (p * stride_a + i0) >> 2;
    int lda4 = lda >> 2;
    int bp = p * stride_b;
    int b0 = (bp + j0 * ldb) >> 2;
    int b1 = (bp + (j0 + 1) * ldb) >> 2;
    int b2 = (bp + (j0 + 2) * ldb) >> 2;
    int b3 = (bp + (j0 + 3) * ldb) >> 2;
    vec4 c0 = vec4(0.0), c1 = vec4(0.0), c2 = vec4(0.0), c3 = vec4(0.0);
    vec4 c4 = vec4(0.0), c5 = vec4(0.0), c6 = vec4(0.0), c7 = vec4(0.0);
    for (int l = k0; l < k1; l += 4) {
        int lq = l >> 2;
        vec4 v0 = texel(b, b_width, b0 + lq);
        vec4 v1 = texel(b, b_width, b1 + lq);
        vec4 v2 = texel(b, b_width, b2 + lq);
        vec4 v3 = texel(b, b_width, b3 + lq);
        for (int q = 0; q < 4; ++q) {
            // Values of k past k1 are another column's or a gap's: not multiplied.
            if (l + q < k1) {
                int e = ap + (l + q) * lda4;
                vec4 lo = texel(a, a_width, e);
                vec4 hi = texel(a, a_width, e + 1);
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
}
