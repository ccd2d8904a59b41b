// sgemm merge pass: writes alpha*P + beta*C into C's texture, where texel (ib, j) of the
// product P holds rows 4ib..4ib+3 of column j. Elements outside the m x n window pass
// through; with beta == 0 the old C is not used.
uniform sampler2D prod;
uniform sampler2D c;
uniform int c_width;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(c_width);
    vec4 r = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    if (4 * t >= window_end()) {
        result = r;
        return;
    }
    for (int ch = 0; ch < 4; ++ch) {
        int i;
        int j;
        if (in_window(4 * t + ch, i, j)) {
            float acc = texelFetch(prod, ivec2(i >> 2, j), 0)[i & 3];
            r[ch] = blas_update(alpha, acc, beta, r[ch]);
        }
    }
    result = r;
}
