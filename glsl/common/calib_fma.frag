// Ceiling calibration: pure arithmetic. Each round of the loop does 32 or 128 vec4
// multiply-adds (256 or 1024 flops) per fragment, spread over CHAINS independent vec4 chains
// (constants defined before this file: CHAINS 1, 2, 4, 8 or 16, and REPEAT, how often a round
// advances each chain). Few chains
// suit a CPU rasteriser whose fragments are SIMD lanes (more would spill its 16 vector
// registers); GPUs hide latency across fragments and reach their peak with 1 to 4 (the H100
// measured 1994-1998 GFLOP/s with 1, 2 or 4, 1931-1938 with 8 or 16). The calibration keeps
// the best. The round is written out by the preprocessor (no arrays, no inner loops for a
// compiler to keep), and 128 multiply-adds a round make the loop's own counter and branch
// negligible (with 32 a round the H100 measured 1928 GFLOP/s, 3% under its peak). The result depends on every chain so that nothing can be dropped, and `iters`
// is a uniform so that nothing can be folded.
uniform int iters;
uniform float seed;

layout(location = 0) out vec4 result;

#define F(c) c = c * m + k;
#define X2(s) s s
#define X4(s) X2(s) X2(s)
#define X8(s) X4(s) X4(s)
#define X16(s) X8(s) X8(s)
#define X32(s) X16(s) X16(s)
#define X64(s) X32(s) X32(s)
#define X128(s) X64(s) X64(s)

// REPEAT (defined before this file, X2 to X128) is how often a round advances each chain.
#if CHAINS == 1
#define ROUND REPEAT(F(c0))
#elif CHAINS == 2
#define ROUND REPEAT(F(c0) F(c1))
#elif CHAINS == 4
#define ROUND REPEAT(F(c0) F(c1) F(c2) F(c3))
#elif CHAINS == 8
#define ROUND REPEAT(F(c0) F(c1) F(c2) F(c3) F(c4) F(c5) F(c6) F(c7))
#else
#define ROUND REPEAT(F(c0) F(c1) F(c2) F(c3) F(c4) F(c5) F(c6) F(c7) \
                     F(c8) F(c9) F(c10) F(c11) F(c12) F(c13) F(c14) F(c15))
#endif

void main() {
    vec4 base = vec4(gl_FragCoord.xyxy) * 1.0e-4 + seed;
    vec4 m = vec4(0.999, 0.998, 0.997, 0.996);
    vec4 k = vec4(1.0e-3);
    // Chains a variant does not use are dead code.
    vec4 c0 = base, c1 = base + 0.1, c2 = base + 0.2, c3 = base + 0.3;
    vec4 c4 = base + 0.4, c5 = base + 0.5, c6 = base + 0.6, c7 = base + 0.7;
    vec4 c8 = base + 0.8, c9 = base + 0.9, c10 = base + 1.0, c11 = base + 1.1;
    vec4 c12 = base + 1.2, c13 = base + 1.3, c14 = base + 1.4, c15 = base + 1.5;
    for (int i = 0; i < iters; ++i) {
        ROUND
    }
    vec4 s = c0;
#if CHAINS >= 2
    s += c1;
#endif
#if CHAINS >= 4
    s += (c2 + c3);
#endif
#if CHAINS >= 8
    s += ((c4 + c5) + (c6 + c7));
#endif
#if CHAINS >= 16
    s += ((c8 + c9) + (c10 + c11)) + ((c12 + c13) + (c14 + c15));
#endif
    result = s;
}
