// Ping-pong pass for isamax: fragment j keeps the best of the candidates in texels
// j + k*out_texels (k < fan_in) of src.
uniform sampler2D src;
uniform int src_width;
uniform int src_texels;
uniform int fan_in;
uniform int out_texels;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int j = frag_texel(out_width);
    vec4 best = NO_CANDIDATE;
    for (int k = 0; k < fan_in; ++k) {
        int t = j + k * out_texels;
        if (j >= out_texels || t >= src_texels) {
            break;
        }
        vec4 cand = load_texel(src, src_width, t);
        if (iamax_better(cand, best)) {
            best = cand;
        }
    }
    result = best;
}
