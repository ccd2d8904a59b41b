// sgemv: adds the `chunks` bands of partial results of gemv_vec4.frag into the output
// vector's own layout (`out_width` texels a row). Output texel t = 4q + r sits in every band
// at (2*(q % hw) + r%2, 2*(q / hw) + r/2), hw = band_width / 2.
uniform sampler2D parts;
uniform int band_width;
uniform int band_rows;
uniform int chunks;
uniform int out_width;
uniform int out_texels;

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(out_width);
    vec4 acc = vec4(0.0);
    if (t < out_texels) {
        int q = t >> 2;
        int hw = band_width >> 1;
        int qy = q / hw;
        ivec2 pos = ivec2(2 * (q - qy * hw) + (t & 1), 2 * qy + ((t >> 1) & 1));
        for (int c = 0; c < chunks; ++c) {
            acc += texelFetch(parts, pos + ivec2(0, c * band_rows), 0);
        }
    }
    result = acc;
}
