// sgemm strip kernel, reorder pass for A: row y of the packed texture is one uniform block,
// the rows of op(A) of strip s = y / chunks over the k values of chunk c = y % chunks:
//   texel (2*kk + h, y) = op(A)(8s + 4h .. 8s + 4h + 3, c*KC + kk)
// op(A) is rows x cols, stored column-major from element src_off with leading dimension ld (transposed when
// trans != 0). Rows past `rows` and k values past `cols` are zero. KC is defined before
// this file.
uniform sampler2D src;
uniform int src_width;
uniform int src_off;
uniform int ld;
uniform int trans;
uniform int rows;
uniform int cols;
uniform int chunks;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    int s = p.y / chunks;
    int k = (p.y - s * chunks) * KC + (p.x >> 1);
    int r0 = 8 * s + 4 * (p.x & 1);
    vec4 v = vec4(0.0);
    if (k < cols) {
        for (int ch = 0; ch < 4; ++ch) {
            if (r0 + ch < rows) {
                v[ch] = op_elem(src, src_width, src_off, ld, trans, r0 + ch, k);
            }
        }
    }
    result = v;
}
