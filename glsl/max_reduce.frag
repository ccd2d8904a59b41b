// Ping-pong pass: fragment j takes the maxima of the texels j + k*out_texels (k < fan_in) of the
// src_texels texels in src, lane by lane. With fan_in 2 this is the blueprint's half reduction.
uniform sampler2D src;
uniform int src_width;
uniform int src_texels;
uniform int fan_in;
uniform int out_texels;
uniform int out_width;

layout(location = 0) out vec4 result;

void main() {
    int j = frag_texel(out_width);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < fan_in; ++k) {
        int t = j + k * out_texels;
        if (j >= out_texels || t >= src_texels) {
            break;
        }
        vec4 v = load_texel(src, src_width, t);
        acc = max(acc, v);
    }
    result = acc;
}
