// First isamax pass: fragment p keeps the best candidate (see common.glsl) of the grid
// texels p + k*fold_step, k < fan_in.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform int n;
uniform int fan_in;
uniform int grid_width;
uniform ivec2 fold_step;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 best = NO_CANDIDATE;
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
        for (int c = 0; c < 4; ++c) {
            int i = 4 * t + c;
            if (i < n) {
                vec4 cand = iamax_candidate(xv[c], i);
                if (iamax_better(cand, best)) {
                    best = cand;
                }
            }
        }
    }
    result = best;
}
