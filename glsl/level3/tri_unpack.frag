// The solved rows of a triangular solve (blas/level3/tri) copied back from the strip
// kernels' op(B) quads of W's rows, `wp` (common.glsl's quad_texel: tri_solve.frag's
// PACKED_W), into W, pitched (texel (x, y)
// holds rows 4x..4x+3 of column y), through image stores. Fragment (g.x, g.y) writes the
// texels x0 + g.x of the four columns of group j = g.y: four fetches of wp, transposed, for
// four stores. Rows at or past r1 keep W's values (past the matrix they are not its
// elements); columns past cols are not written.
uniform sampler2D w;
uniform sampler2D wp;
uniform int x0;
uniform int r1;
uniform int cols;

layout(binding = 0, rgba32f) writeonly uniform highp image2D w_out;

// Column y of the four (rows 4x..4x+3 in v), where it is one of W's.
void put(int x, int y, vec4 v, bvec4 mine) {
    if (y >= cols) {
        return;
    }
    if (!all(mine)) {
        v = select4(texelFetch(w, ivec2(x, y), 0), v, mine);
    }
    imageStore(w_out, ivec2(x, y), v);
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int x = x0 + g.x;
    int j = g.y;
    ivec2 at = quad_texel(j, 4 * x);
    vec4 q0 = texelFetch(wp, at, 0);
    vec4 q1 = texelFetch(wp, at + ivec2(0, 2), 0);
    vec4 q2 = texelFetch(wp, at + ivec2(0, 4), 0);
    vec4 q3 = texelFetch(wp, at + ivec2(0, 6), 0);
    bvec4 mine = lessThan(ivec4(4 * x) + ivec4(0, 1, 2, 3), ivec4(r1));
    put(x, 4 * j, vec4(q0.x, q1.x, q2.x, q3.x), mine);
    put(x, 4 * j + 1, vec4(q0.y, q1.y, q2.y, q3.y), mine);
    put(x, 4 * j + 2, vec4(q0.z, q1.z, q2.z, q3.z), mine);
    put(x, 4 * j + 3, vec4(q0.w, q1.w, q2.w, q3.w), mine);
}
