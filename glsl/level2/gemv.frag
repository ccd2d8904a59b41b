// sgemv: y := alpha*op(A)*x + beta*y, A stored column-major rows x cols with leading
// dimension lda (op = transpose when trans != 0), x and y with any non-zero increments.
// Rendered over y's texture; elements of y the increment skips pass through. len_x is 0 when
// A and x must not be read (alpha == 0).
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int trans;
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform int len_x;
uniform int l0;
uniform int l1;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int len_y;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(y_width);
    vec4 r = texelFetch(y, ivec2(gl_FragCoord.xy), 0);
    int ay = abs(incy);
    int last = (len_y - 1) * ay;
    if (4 * t > last) {
        result = r;
        return;
    }
    for (int ch = 0; ch < 4; ++ch) {
        int e = 4 * t + ch;
        if (e > last || e % ay != 0) {
            continue;
        }
        int q = e / ay;
        int i = incy > 0 ? q : len_y - 1 - q;
        // op(A)(i, l) is A(l, i) when transposed, A(i, l) otherwise.
        int ap = trans != 0 ? i * lda : i;
        int astep = trans != 0 ? 1 : lda;
        float acc = 0.0;
        for (int l = l0; l < l1; ++l) {
            acc += load_elem(a, a_width, ap + l * astep) * load_elem(x, x_width, elem_pos(l, len_x, incx));
        }
        r[ch] = blas_update(alpha, acc, beta, r[ch]);
    }
    result = r;
}
