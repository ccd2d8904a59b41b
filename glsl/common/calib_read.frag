// Ceiling calibration: read bandwidth. Each fragment sums TEXELS texels of one texture (a
// constant defined before this file: 8, 16 or 32), taken as the reductions take them
// (fragment (x, y) reads (x, y + k*rows), rows = output rows), and writes one: many reads
// per write, so the fragment rate does not bound it. The calibration keeps the best count.
uniform sampler2D src;
uniform int rows;

layout(location = 0) out vec4 result;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < TEXELS; ++k) {
        acc += texelFetch(src, ivec2(p.x, p.y + k * rows), 0);
    }
    result = acc;
}
