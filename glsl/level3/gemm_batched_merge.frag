// Merge pass of the register-tiled batched sgemm (gemm_batched_tile.frag): over C's
// texture, each element of every C_p's window gets alpha*product + beta*C_p (beta == 0
// reads no C); the product's element (i, j) of C_p is in tile p*tiles + (j/4)*tm + i/8,
// target (i % 8)/4*4 + j % 4, lane i % 4. Elements outside every window pass through.
// m, ldc and stride_c are multiples of 4 (the tiled path's condition), so four rows of a
// column are one texel of C and one of a target.
// C_p's window: m x n from element p*stride_c, with leading dimension ldc.
uniform sampler2D p0;
uniform sampler2D p1;
uniform sampler2D p2;
uniform sampler2D p3;
uniform sampler2D p4;
uniform sampler2D p5;
uniform sampler2D p6;
uniform sampler2D p7;
uniform sampler2D c;
uniform int c_width;
uniform int ldc;
uniform int stride_c;
uniform int m;
uniform int n;
uniform int batch;
uniform int tm;
uniform int tiles;
uniform int grid_width;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

// Rows i..i+3 (i a multiple of 4) of column j of product p: one texel of one target.
vec4 product(int p, int i, int j) {
    int t = p * tiles + (j >> 2) * tm + (i >> 3);
    ivec2 q = ivec2(t % grid_width, t / grid_width);
    int r = ((i & 7) >> 2) * 4 + (j & 3);
    if (r == 0) return texelFetch(p0, q, 0);
    if (r == 1) return texelFetch(p1, q, 0);
    if (r == 2) return texelFetch(p2, q, 0);
    if (r == 3) return texelFetch(p3, q, 0);
    if (r == 4) return texelFetch(p4, q, 0);
    if (r == 5) return texelFetch(p5, q, 0);
    if (r == 6) return texelFetch(p6, q, 0);
    return texelFetch(p7, q, 0);
}

void main() {
    // The tiled path's C (m, ldc and stride_c multiples of 4): a texel is four rows of one
    // column of one product, or outside every window.
    int e = 4 * frag_texel(c_width);
    vec4 res = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    int p = e / stride_c;
    int d = e - p * stride_c;
    int j = d / ldc;
    int i = d - j * ldc;
    if (p < batch && i < m && j < n) {
        vec4 v = product(p, i, j);
        for (int ch = 0; ch < 4; ++ch) {
            res[ch] = blas_update(alpha, v[ch], beta, res[ch]);
        }
    }
    result = res;
}
