// y := alpha*x + beta*y (op 1) or y := x (op 0) for the first n elements of unit-stride
// vectors; elements at or past n keep their value. With beta == 0 the old y is not read
// (so a NaN in y does not leak); op 2 computes alpha*x + beta*y taking both products always
// (a row of a plane rotation); op 3 is y := beta*y (0 for beta == 0, y not read). One texel (4 elements) per fragment, one fetch per input.
uniform sampler2D x;
uniform int x_width;
uniform sampler2D y;
uniform int y_width;
uniform int n;
uniform int op;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(y_width);
    vec4 yv = texelFetch(y, ivec2(gl_FragCoord.xy), 0);
    if (4 * t >= n) {
        result = yv;
        return;
    }
    vec4 xv = load_texel(x, x_width, t);
    vec4 v = xv;
    if (op != 0) {
        v = alpha * xv;
        if (beta != 0.0 || op == 2) {
            v += beta * yv;
        }
        if (op == 3) {
            v = beta == 0.0 ? vec4(0.0) : beta * yv;
        }
    }
    result = select4(yv, v, live_lanes(t, n));
}
