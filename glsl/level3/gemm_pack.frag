// sgemm reorder pass: texel (x, y) of the packed operand holds rows 4x..4x+3 of column y of
// op(M), where op(M) is rows x cols and M is stored column-major with leading dimension ld
// (transposed when trans != 0). Rows past `rows` and columns past `cols` are zero, so the
// vectorised kernel can run over whole texels of any shape. The user's matrix is only read,
// from element src_off on.
uniform sampler2D src;
uniform int src_width;
uniform int src_off;
uniform int ld;
uniform int trans;
uniform int rows;
uniform int cols;
// With quads != 0 the texels come in 2x2 blocks: texel (x, y) of the texture holds texel
// (4*(x/2) + x%2 + 2*(y%2), y/2) of the layout above, so four consecutive texels of one column
// share one 2x2 block (one cache line on GPUs whose textures are tiled).
uniform int quads;

layout(location = 0) out vec4 result;

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    ivec2 p = quads != 0 ? ivec2(4 * (f.x >> 1) + (f.x & 1) + 2 * (f.y & 1), f.y >> 1) : f;
    vec4 v = vec4(0.0);
    int r0 = 4 * p.x;
    if (p.y < cols) {
        if (trans == 0 && ((ld | src_off) & 3) == 0 && r0 + 3 < rows) {
            // Four consecutive stored elements starting on a texel boundary: one fetch.
            v = load_texel(src, src_width, (src_off + r0 + p.y * ld) >> 2);
        } else {
            for (int ch = 0; ch < 4; ++ch) {
                int r = r0 + ch;
                if (r < rows) {
                    v[ch] = op_elem(src, src_width, src_off, ld, trans, r, p.y);
                }
            }
        }
    }
    result = v;
}
