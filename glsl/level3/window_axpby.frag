// C's window (gemm_window.glsl) := alpha*op(A) + beta*C, where op(A)(i, j) is stored at
// a_off + i + j*lda (transposed with a_trans); beta == 0 does not read C, alpha == 0 does
// not read A. Everything else of C passes through. The blocked level-3 routines scale,
// copy and transpose sub-blocks with it.
uniform sampler2D a;
uniform int a_width;
uniform int a_off;
uniform int lda;
uniform int a_trans;
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
            float v = alpha != 0.0 ? op_elem(a, a_width, a_off, lda, a_trans, i, j) : 0.0;
            r[ch] = blas_update(alpha, v, beta, r[ch]);
        }
    }
    result = r;
}
