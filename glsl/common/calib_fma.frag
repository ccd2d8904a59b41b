// Ceiling calibration: pure arithmetic, `iters` rounds of 8 vec4 multiply-adds (64 flops)
// per fragment. CHAINS (a constant defined before this file) is the number of independent
// vec4 chains: 8 suits GPUs, which hide latency across many fragments; 2, each advanced four
// times a round, suits a CPU rasteriser whose fragments are SIMD lanes, where 8 vec4 (32
// vector registers) would not fit its 16 registers and spill. The calibration keeps the
// faster. The result depends on every chain so that nothing can be dropped, and `iters` is a
// uniform so that nothing can be folded.
uniform int iters;
uniform float seed;

layout(location = 0) out vec4 result;

void main() {
    vec4 base = vec4(gl_FragCoord.xyxy) * 1.0e-4 + seed;
    vec4 m = vec4(0.999, 0.998, 0.997, 0.996);
    vec4 k = vec4(1.0e-3);
#if CHAINS == 8
    vec4 c0 = base, c1 = base + 0.1, c2 = base + 0.2, c3 = base + 0.3;
    vec4 c4 = base + 0.4, c5 = base + 0.5, c6 = base + 0.6, c7 = base + 0.7;
    for (int i = 0; i < iters; ++i) {
        c0 = c0 * m + k;
        c1 = c1 * m + k;
        c2 = c2 * m + k;
        c3 = c3 * m + k;
        c4 = c4 * m + k;
        c5 = c5 * m + k;
        c6 = c6 * m + k;
        c7 = c7 * m + k;
    }
    result = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
#else
    vec4 c0 = base, c1 = base + 0.1;
    for (int i = 0; i < iters; ++i) {
        c0 = c0 * m + k;
        c1 = c1 * m + k;
        c0 = c0 * m + k;
        c1 = c1 * m + k;
        c0 = c0 * m + k;
        c1 = c1 * m + k;
        c0 = c0 * m + k;
        c1 = c1 * m + k;
    }
    result = c0 + c1;
#endif
}
