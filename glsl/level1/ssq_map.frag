// Second snrm2 pass: fragment p sums (x_i / scale)^2 over the grid texels p + k*fold_step,
// k < fan_in, where scale = max |x_i| sits in texel 0 of `scale`.
// Dividing by the largest magnitude keeps every square in [0, 1], so nothing overflows
// or underflows for values near the ends of the f32 range. With an infinite scale each
// (or zero: all elements zero, or NaN next to zeros) each element contributes 0, or NaN if it
// is a NaN, so that the final pass returns Inf, 0 or NaN as reference BLAS does.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D scale;
uniform int n;
uniform int fan_in;
uniform int grid_width;
uniform ivec2 fold_step;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    float s = texelFetch(scale, ivec2(0, 0), 0).x;
    vec4 acc = vec4(0.0);
    bool degenerate = s == 0.0 || isinf(s);
    for (int k = 0; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        int t = q.y * grid_width + q.x;
        if (q.x >= grid_width || 4 * t >= n) {
            break;
        }
#ifdef UNIT_STRIDE
        vec4 xv = texelFetch(x, q, 0);
#else
        vec4 xv = load_logical(x, x_width, incx, n, t);
#endif
        vec4 v;
        if (degenerate) {
            v = select4(vec4(0.0), vec4(NAN), isnan(xv));
        } else {
            v = xv / s;
            v = v * v;
        }
        acc += select4(vec4(0.0), v, live_lanes(t, n));
    }
    result = acc;
}
