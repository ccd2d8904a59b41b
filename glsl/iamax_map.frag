// First isamax pass: fragment j keeps the best candidate (see common.glsl) among the logical
// elements of texels j + k*out_texels, k < fan_in. Indices only grow inside the loop, so a
// strict comparison keeps the first of equal magnitudes.
uniform sampler2D x;
uniform int x_width;
uniform int incx;
uniform int n;
uniform int fan_in;
uniform int out_texels;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int j = frag_texel(out_width);
    vec4 best = NO_CANDIDATE;
    for (int k = 0; k < fan_in; ++k) {
        int t = j + k * out_texels;
        if (j >= out_texels || 4 * t >= n) {
            break;
        }
        vec4 xv = load_logical(x, x_width, incx, n, t);
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
