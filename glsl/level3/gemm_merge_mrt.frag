// sgemm merge pass for the multiple-render-target kernel: writes alpha*P + beta*C into C's
// texture, where column j of the product lives in target j % COLS at texel (i/4, j/COLS).
// Elements outside the m x n window pass through; with beta == 0 the old C is not used.
uniform sampler2D p0;
uniform sampler2D p1;
uniform sampler2D p2;
uniform sampler2D p3;
#if COLS == 8
uniform sampler2D p4;
uniform sampler2D p5;
uniform sampler2D p6;
uniform sampler2D p7;
#endif
uniform sampler2D c;
uniform int c_width;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

float product(int i, int j) {
    ivec2 q = ivec2(i >> 2, j / COLS);
    int r = j - (j / COLS) * COLS;
    vec4 v;
    if (r == 0) v = texelFetch(p0, q, 0);
    else if (r == 1) v = texelFetch(p1, q, 0);
    else if (r == 2) v = texelFetch(p2, q, 0);
#if COLS == 8
    else if (r == 3) v = texelFetch(p3, q, 0);
    else if (r == 4) v = texelFetch(p4, q, 0);
    else if (r == 5) v = texelFetch(p5, q, 0);
    else if (r == 6) v = texelFetch(p6, q, 0);
    else v = texelFetch(p7, q, 0);
#else
    else v = texelFetch(p3, q, 0);
#endif
    return v[i & 3];
}

void main() {
    int t = frag_texel(c_width);
    vec4 res = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    if (4 * t >= window_end()) {
        result = res;
        return;
    }
    for (int ch = 0; ch < 4; ++ch) {
        int i;
        int j;
        if (in_window(4 * t + ch, i, j)) {
            res[ch] = blas_update(alpha, product(i, j), beta, res[ch]);
        }
    }
    result = res;
}
