// First sdot pass: fragment j sums x_i*y_i over the logical texels j + k*out_texels,
// k < fan_in (adjacent fragments read adjacent texels), four lanes kept apart.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int n;
uniform int fan_in;
uniform int out_texels;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int j = frag_texel(out_width);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < fan_in; ++k) {
        int t = j + k * out_texels;
        if (j >= out_texels || 4 * t >= n) {
            break;
        }
        vec4 xv = load_logical(x, x_width, incx, n, t);
        vec4 yv = load_logical(y, y_width, incy, n, t);
        acc += select4(vec4(0.0), xv * yv, live_lanes(t, n));
    }
    result = acc;
}
