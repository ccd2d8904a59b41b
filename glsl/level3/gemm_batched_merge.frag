// Merge pass of the register-tiled batched sgemm (gemm_batched_tile.frag): over C's
// texture, each element of every C_p's window gets alpha*product + beta*C_p (beta == 0
// reads no C); the product's element (i, j) of C_p is in tile p*tiles + (j/4)*tm + i/8,
// target (i % 8)/4*4 + j % 4, lane i % 4. Elements outside every window pass through.
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

// Element (i, j) of product p.
float product(int p, int i, int j) {
    int t = p * tiles + (j >> 2) * tm + (i >> 3);
    ivec2 q = ivec2(t % grid_width, t / grid_width);
    int r = ((i & 7) >> 2) * 4 + (j & 3);
    vec4 v;
    if (r == 0) v = texelFetch(p0, q, 0);
    else if (r == 1) v = texelFetch(p1, q, 0);
    else if (r == 2) v = texelFetch(p2, q, 0);
    else if (r == 3) v = texelFetch(p3, q, 0);
    else if (r == 4) v = texelFetch(p4, q, 0);
    else if (r == 5) v = texelFetch(p5, q, 0);
    else if (r == 6) v = texelFetch(p6, q, 0);
    else v = texelFetch(p7, q, 0);
    return v[i & 3];
}

void main() {
    int t = frag_texel(c_width);
    vec4 res = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    for (int ch = 0; ch < 4; ++ch) {
        int e = 4 * t + ch;
        int p = e / stride_c;
        int d = e - p * stride_c;
        int j = d / ldc;
        int i = d - j * ldc;
        if (p < batch && i < m && j < n) {
            res[ch] = blas_update(alpha, product(p, i, j), beta, res[ch]);
        }
    }
    result = res;
}
