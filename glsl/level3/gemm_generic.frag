// sgemm, generic kernel: C := alpha*op(A)*op(B) + beta*C in column-major form, rendered over
// C's own texture. Each fragment computes the (up to) four elements of its texel with
// scalar fetches, so any m, n, k, leading dimension, offset and transpose works. Elements
// outside the window (gemm_window.glsl) pass through untouched. k is 0 when A and B must not be
// read (alpha == 0 or k == 0).
uniform sampler2D a;
uniform int a_width;
uniform int a_off;
uniform int lda;
uniform int a_trans;
uniform sampler2D b;
uniform int b_width;
uniform int b_off;
uniform int ldb;
uniform int b_trans;
uniform sampler2D c;
uniform int c_width;
uniform int k0;
uniform int k;
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
        if (!in_window(4 * t + ch, i, j)) {
            continue;
        }
        // Storage positions of op(A)(i, 0) and op(B)(0, j), and their steps along k.
        int ap = a_off + (a_trans != 0 ? i * lda : i);
        int astep = a_trans != 0 ? 1 : lda;
        int bp = b_off + (b_trans != 0 ? j : j * ldb);
        int bstep = b_trans != 0 ? ldb : 1;
        float acc = 0.0;
        for (int l = k0; l < k; ++l) {
            acc += load_elem(a, a_width, ap + l * astep) * load_elem(b, b_width, bp + l * bstep);
        }
        r[ch] = blas_update(alpha, acc, beta, r[ch]);
    }
    result = r;
}
