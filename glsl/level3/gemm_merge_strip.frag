// sgemm merge pass for the strip kernel: writes alpha*P + beta*C into C's texture, where
// element (i, j) of the product is component j % 4 of target i % 8 at the texel of fragment
// f = j / 4 = 4q + r of strip i / 8: (2*(q / (BAND/2)) + r%2,
// BAND*(i/8) + 2*(q % (BAND/2)) + r/2). Elements outside the m x n window
// pass through; with beta == 0 the old C is not used. BAND is defined before this file.
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
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

float product(int i, int j) {
    int f = j >> 2;  // the strip's fragment that computed column j: f = 4q + r
    int q = f >> 2;
    ivec2 t = ivec2(2 * (q / (BAND / 2)) + (f & 1), BAND * (i >> 3) + 2 * (q % (BAND / 2)) + ((f >> 1) & 1));
    int r = i & 7;
    vec4 v;
    if (r == 0) v = texelFetch(p0, t, 0);
    else if (r == 1) v = texelFetch(p1, t, 0);
    else if (r == 2) v = texelFetch(p2, t, 0);
    else if (r == 3) v = texelFetch(p3, t, 0);
    else if (r == 4) v = texelFetch(p4, t, 0);
    else if (r == 5) v = texelFetch(p5, t, 0);
    else if (r == 6) v = texelFetch(p6, t, 0);
    else v = texelFetch(p7, t, 0);
    return v[j & 3];
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
