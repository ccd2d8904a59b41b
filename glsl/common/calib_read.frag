// Ceiling calibration: read bandwidth. Each fragment sums 16 texels of one texture, taken
// as the reductions take them (fragment (x, y) reads (x, y + k*rows), rows = output rows),
// and writes one: 16 reads per write, so the fragment rate does not bound it.
uniform sampler2D src;
uniform int rows;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < 16; ++k) {
        acc += texelFetch(src, ivec2(p.x, p.y + k * rows), 0);
    }
    result = acc;
}
