// First sdot pass: fragment p sums x_i*y_i over the grid texels p + k*fold_step, k < fan_in
// (adjacent fragments read adjacent texels), four lanes kept apart. Four texels a round,
// fetched before any is added (see common/sum_reduce.frag); the sums keep their order.
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

int grid_texel(ivec2 q) {
    return q.y * grid_width + q.x;
}

// Whether grid texel q holds elements (positions grow with k: a round whose last texel
// does, all do).
bool inside(ivec2 q) {
    return q.x < grid_width && 4 * grid_texel(q) < n;
}

vec4 product(ivec2 q) {
    int t = grid_texel(q);
#ifdef UNIT_STRIDE
    vec4 xv = texelFetch(x, q, 0);
    vec4 yv = texelFetch(y, q, 0);
#else
    vec4 xv = load_logical(x, x_width, incx, n, t);
    vec4 yv = load_logical(y, y_width, incy, n, t);
#endif
    return select4(vec4(0.0), xv * yv, live_lanes(t, n));
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    int k = 0;
    for (; k + 4 <= fan_in; k += 4) {
        ivec2 q = p + k * fold_step;
        if (!inside(q + 3 * fold_step)) {
            break;
        }
        vec4 v0 = product(q);
        vec4 v1 = product(q + fold_step);
        vec4 v2 = product(q + 2 * fold_step);
        vec4 v3 = product(q + 3 * fold_step);
        acc += v0;
        acc += v1;
        acc += v2;
        acc += v3;
    }
    for (; k < fan_in; ++k) {
        ivec2 q = p + k * fold_step;
        if (!inside(q)) {
            break;
        }
        acc += product(q);
    }
    result = acc;
}
