// First pass of sdsdot/dsdot: fragment p accumulates x_i*y_i over the grid texels
// p + k*fold_step, k < fan_in, in float-float (each product exact, the sum to about 48
// bits), and writes (hi, lo, 0, 0). Lanes at or past n add nothing.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform sampler2D y;
uniform int y_width;
uniform int incy;
uniform int n;
uniform int fan_in;
uniform int grid_width;
uniform ivec2 fold_step;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec2 acc = vec2(0.0);
    for (int k = 0; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        int t = q.y * grid_width + q.x;
        if (q.x >= grid_width || 4 * t >= n) {
            break;
        }
#ifdef UNIT_STRIDE
        vec4 xv = texelFetch(x, q, 0);
        vec4 yv = texelFetch(y, q, 0);
#else
        vec4 xv = load_logical(x, x_width, incx, n, t);
        vec4 yv = load_logical(y, y_width, incy, n, t);
#endif
        bvec4 live = live_lanes(t, n);
        for (int c = 0; c < 4; ++c) {
            if (live[c]) {
                acc = ff_add_product(acc, xv[c], yv[c]);
            }
        }
    }
    result = vec4(acc, 0.0, 0.0);
}
