// y := alpha*x + beta*y (op 1) or y := x (op 0) elementwise over n logical elements; y has a
// non-zero increment, x any (negative ones walk from the end, a zero one repeats x[0], as in
// reference BLAS). Elements of y that no logical index touches keep their value. With beta
// == 0 the old y is not read; op 2 takes both products always (a row of a plane rotation);
// op 3 is y := beta*y (0 for beta == 0, y not read).
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int n;
uniform int op;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(y_width);
    vec4 r = texelFetch(y, ivec2(gl_FragCoord.xy), 0);
    int ay = abs(incy);
    int last = (n - 1) * ay;  // storage position of the last touched element
    if (4 * t > last) {
        result = r;
        return;
    }
    for (int c = 0; c < 4; ++c) {
        int e = 4 * t + c;
        if (e > last || e % ay != 0) {
            continue;
        }
        int q = e / ay;
        int i = incy > 0 ? q : n - 1 - q;
        float xv = load_elem(x, x_width, elem_pos(i, n, incx));
        float v = xv;
        if (op != 0) {
            v = alpha * xv;
            if (beta != 0.0 || op == 2) {
                v += beta * r[c];
            }
            if (op == 3) {
                v = beta == 0.0 ? 0.0 : beta * r[c];
            }
        }
        r[c] = v;
    }
    result = r;
}
