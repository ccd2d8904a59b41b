// Second snrm2 pass: fragment j sums (x_i / scale)^2 over the logical texels
// j + k*out_texels, k < fan_in, where scale = max |x_i| sits in texel 0 of `scale`.
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
uniform int out_texels;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int j = frag_texel(out_width);
    float s = texelFetch(scale, ivec2(0, 0), 0).x;
    vec4 acc = vec4(0.0);
    bool degenerate = s == 0.0 || isinf(s);
    for (int k = 0; k < fan_in; ++k) {
        int t = j + k * out_texels;
        if (j >= out_texels || 4 * t >= n) {
            break;
        }
        vec4 xv = load_logical(x, x_width, incx, n, t);
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
