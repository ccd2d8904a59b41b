// Batched sgemm (blas/level3/batched.rs): C_p := alpha*op(A_p)*op(B_p) + beta*C_p for every
// p < batch, X_p stored column-major from element p*stride_x; one draw over C's texture
// computes all the products, a fragment the elements of its texel. Elements outside every
// window pass through. The summed index runs over [k0, k1) (a span of k: see in_spans).
//
// With quad_a, a texel of C is four rows of one column of one C_p (m, ldc and stride_c
// multiples of 4), and op(A_p) = A_p with lda and stride_a multiples of 4, so the four rows
// of column l of A_p are one texel: 4 multiply-adds per fetch of A. With quad_b as well,
// op(B_p) = B_p with ldb and stride_b multiples of 4: four values of k of column j are one
// texel. Otherwise every element is computed alone with scalar fetches.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int a_trans;
uniform int stride_a;
uniform sampler2D b;
uniform int b_width;
uniform int ldb;
uniform int b_trans;
uniform int stride_b;
uniform sampler2D c;
uniform int c_width;
uniform int ldc;
uniform int stride_c;
uniform int m;
uniform int n;
uniform int batch;
uniform int k0;
uniform int k1;
uniform int quad_a;
uniform int quad_b;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

// Where element e of C lies: its product p and (i, j) there; false outside every window.
bool place(int e, out int p, out int i, out int j) {
    p = e / stride_c;
    int d = e - p * stride_c;
    j = d / ldc;
    i = d - j * ldc;
    return p < batch && i < m && j < n;
}

void main() {
    int t = frag_texel(c_width);
    vec4 r = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    result = r;
    int p;
    int i;
    int j;
    if (quad_a != 0) {
        if (!place(4 * t, p, i, j)) {
            return;
        }
        int ap = p * stride_a + i;
        int bp = p * stride_b + (b_trans != 0 ? j : j * ldb);
        int bstep = b_trans != 0 ? ldb : 1;
        vec4 acc = vec4(0.0);
        if (quad_b != 0) {
            for (int l = k0; l < k1; l += 4) {
                vec4 bv = load_texel(b, b_width, (bp + l) >> 2);
                for (int q = 0; q < 4; ++q) {
                    if (l + q < k1) {
                        acc += load_texel(a, a_width, (ap + (l + q) * lda) >> 2) * bv[q];
                    }
                }
            }
        } else {
            for (int l = k0; l < k1; ++l) {
                acc += load_texel(a, a_width, (ap + l * lda) >> 2) *
                       load_elem(b, b_width, bp + l * bstep);
            }
        }
        for (int ch = 0; ch < 4; ++ch) {
            result[ch] = blas_update(alpha, acc[ch], beta, r[ch]);
        }
        return;
    }
    for (int ch = 0; ch < 4; ++ch) {
        if (!place(4 * t + ch, p, i, j)) {
            continue;
        }
        int ap = p * stride_a + (a_trans != 0 ? i * lda : i);
        int astep = a_trans != 0 ? 1 : lda;
        int bp = p * stride_b + (b_trans != 0 ? j : j * ldb);
        int bstep = b_trans != 0 ? ldb : 1;
        float acc = 0.0;
        for (int l = k0; l < k1; ++l) {
            acc += load_elem(a, a_width, ap + l * astep) * load_elem(b, b_width, bp + l * bstep);
        }
        result[ch] = blas_update(alpha, acc, beta, r[ch]);
    }
}
