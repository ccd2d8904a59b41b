// Shared helpers. A buffer of floats lives in an RGBA32F texture: element e is channel
// e % 4 of texel e / 4, and texel t sits at (t % width, t / width). Texels are always
// addressed with texelFetch on integer coordinates, never with interpolated floats.

// A quiet NaN (GLSL has no literal for it).
#define NAN uintBitsToFloat(0x7fc00000u)

// Texel index of this fragment in a target laid out `width` texels per row.
int frag_texel(int width) {
    ivec2 p = ivec2(gl_FragCoord.xy);
    return p.y * width + p.x;
}

// Position of texel t in a texture `w` texels wide.
ivec2 texel_pos(int t, int w) {
    return ivec2(t % w, t / w);
}

// texel_pos without a division while t lies in the first row (a vector's texture often has
// only one).
ivec2 texel_pos_near(int t, int w) {
    return t < w ? ivec2(t, 0) : texel_pos(t, w);
}

// The position `d` texels further on in a texture `w` wide, d given as (d % w, d / w): a
// loop steps its positions by addition, not a division a step.
ivec2 advance(ivec2 p, ivec2 d, int w) {
    p += d;
    if (p.x >= w) {
        p.x -= w;
        p.y += 1;
    }
    return p;
}

// Index i of [0, n) spread: within each whole block of spread*run indices, index
// b*B + u*run + v goes to b*B + v*spread + u (a run of neighbouring indices goes to indices
// `spread` apart); the indices past the last whole block stay where they are.
int spread_index(int i, int n, int spread, int run) {
    int block = spread * run;
    if (spread <= 1 || i >= (n / block) * block) return i;
    int r = i % block;
    return i - r + (r % run) * spread + r / run;
}

// The inverse of spread_index: b*B + v*spread + u goes to b*B + u*run + v.
int unspread_index(int i, int n, int spread, int run) {
    int block = spread * run;
    if (spread <= 1 || i >= (n / block) * block) return i;
    int r = i % block;
    return i - r + (r % spread) * run + r / spread;
}

vec4 load_texel(sampler2D s, int width, int t) {
    return texelFetch(s, ivec2(t % width, t / width), 0);
}

float load_elem(sampler2D s, int width, int e) {
    return load_texel(s, width, e >> 2)[e & 3];
}

// load_elem without a division while element e lies in the texture's first row.
float load_elem_near(sampler2D s, int width, int e) {
    return texelFetch(s, texel_pos_near(e >> 2, width), 0)[e & 3];
}

// Element (r, c) of op(M), where M is stored column-major from element off with leading
// dimension ld and op transposes it when trans != 0.
float op_elem(sampler2D s, int width, int off, int ld, int trans, int r, int c) {
    return load_elem(s, width, off + (trans != 0 ? c + r * ld : r + c * ld));
}

// Storage position of logical element i (0-based) of an n-vector with increment inc, as in
// reference BLAS: a negative increment walks from the end of the storage.
int elem_pos(int i, int n, int inc) {
    return inc > 0 ? i * inc : (n - 1 - i) * (-inc);
}

// Elements e..e+3 from the two texels that hold them, lo (texel e >> 2) and hi (the next),
// r = e & 3.
vec4 shift4(vec4 lo, vec4 hi, int r) {
    return r == 0 ? lo : (r == 1 ? vec4(lo.yzw, hi.x) : (r == 2 ? vec4(lo.zw, hi.xy)
                                                                 : vec4(lo.w, hi.xyz)));
}

// Elements e..e+3 of a buffer whose last texel is `last`, for any e: texels outside the
// buffer are read clamped to it (the caller masks their lanes).
vec4 load_run(sampler2D s, int width, int last, int e) {
    int q = e >> 2;
    int q0 = clamp(q, 0, last);
    ivec2 p0 = texel_pos(q0, width);
    ivec2 p1 = q0 < last && q >= 0 ? advance(p0, ivec2(1, 0), width) : p0;
    return shift4(texelFetch(s, p0, 0), texelFetch(s, p1, 0), e & 3);
}

// Where row l of column group j (columns 4j..4j+3) lies in the strip kernels' op(B) quads:
// 2x2 blocks, four neighbouring groups of one row sharing one (gemm_strip.frag's `bt`).
ivec2 quad_texel(int j, int l) {
    return ivec2(2 * (j >> 2) + (j & 1), 2 * l + ((j >> 1) & 1));
}

// Component-wise choice (mix with a bvec needs GLSL 4.50).
vec4 select4(vec4 if_false, vec4 if_true, bvec4 c) {
    return vec4(c.x ? if_true.x : if_false.x, c.y ? if_true.y : if_false.y,
                c.z ? if_true.z : if_false.z, c.w ? if_true.w : if_false.w);
}

// Component-wise and.
bvec4 both(bvec4 p, bvec4 q) {
    return bvec4(p.x && q.x, p.y && q.y, p.z && q.z, p.w && q.w);
}

// Whether every lane of v is finite.
bool finite(vec4 v) {
    return !any(isnan(v)) && !any(isinf(v));
}

// Which of the four elements of texel t are below n.
bvec4 live_lanes(int t, int n) {
    return lessThan(ivec4(4 * t) + ivec4(0, 1, 2, 3), ivec4(n));
}

// The four logical elements 4t..4t+3 of an n-vector with increment inc. With inc == 1 this is
// one texel fetch; otherwise one fetch per element. Lanes at or past n are unspecified: mask
// them with live_lanes.
vec4 load_logical(sampler2D s, int width, int inc, int n, int t) {
    if (inc == 1) {
        return load_texel(s, width, t);
    }
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        int i = 4 * t + c;
        if (i < n) {
            v[c] = load_elem(s, width, elem_pos(i, n, inc));
        }
    }
    return v;
}

// Reductions never divide (integer division is slow on GPUs and scalarised on llvmpipe). A
// vector is walked as a grid of texels `grid_width` wide (its first operand's texture
// width), and a fold pass has fragment p combine the grid texels p + k*step, k < fan_in,
// where step is (0, output rows) or, once the grid is one row, (output width, 0). Map kernels
// compiled with UNIT_STRIDE fetch grid texel q directly (every operand has unit stride in a
// texture of the grid's width); without it they load logical texel t = q.y * grid_width + q.x
// element by element. (A run-time branch would not do: llvmpipe executes both sides.)

// The sum of the texels of the size rectangle at the origin of s, row by row: what a final
// reduction pass folds itself (at most the fan-in). Four texels a round, fetched before any
// is added; the sum keeps its order.
vec4 sum_rect(sampler2D s, ivec2 size) {
    vec4 acc = vec4(0.0);
    for (int y = 0; y < size.y; ++y) {
        int x = 0;
        for (; x + 4 <= size.x; x += 4) {
            vec4 v0 = texelFetch(s, ivec2(x, y), 0);
            vec4 v1 = texelFetch(s, ivec2(x + 1, y), 0);
            vec4 v2 = texelFetch(s, ivec2(x + 2, y), 0);
            vec4 v3 = texelFetch(s, ivec2(x + 3, y), 0);
            acc += v0;
            acc += v1;
            acc += v2;
            acc += v3;
        }
        for (; x < size.x; ++x) {
            acc += texelFetch(s, ivec2(x, y), 0);
        }
    }
    return acc;
}

// isamax candidates are texels (|x|, index / 2^24, index % 2^24, priority), chosen as
// reference BLAS's sequential loop chooses: the first element of largest |x| among the
// numbers, where a NaN never compares larger, so a NaN loses to every number (priority
// -0.5) - unless it is the first element, which the loop starts from and nothing then beats
// (priority 1). Numbers have priority 0, no candidate -1. Both index parts are exact floats.
vec4 iamax_candidate(float v, int i) {
    bool nan = isnan(v);
    float priority = nan ? (i == 0 ? 1.0 : -0.5) : 0.0;
    return vec4(nan ? 0.0 : abs(v), float(i >> 24), float(i & 0xFFFFFF), priority);
}

const vec4 NO_CANDIDATE = vec4(-1.0, 0.0, 0.0, -1.0);

// Whether candidate a beats b: higher priority, then larger |x|, then smaller index.
bool iamax_better(vec4 a, vec4 b) {
    if (a.w != b.w) {
        return a.w > b.w;
    }
    if (a.x != b.x) {
        return a.x > b.x;
    }
    return a.y < b.y || (a.y == b.y && a.z < b.z);
}

// The BLAS update of one element of C (or y): alpha*acc + beta*c, where beta == 0 means the
// old value is not used at all (a NaN in it must not leak) and alpha == 0 means acc is not.
float blas_update(float alpha, float acc, float beta, float c) {
    float scaled = beta == 0.0 ? 0.0 : beta * c;
    if (alpha == 0.0) {
        return scaled;
    }
    return beta == 0.0 ? alpha * acc : alpha * acc + scaled;
}

// Float-float arithmetic: a value is the unevaluated sum hi + lo of two floats, about 48
// significant bits. Only additions, subtractions and products that are exact are used, so
// a compiler that fuses a multiply and an add changes nothing. But a compiler may also
// treat float arithmetic as real arithmetic (Mesa's NIR folds (a + b) - a into b), which
// would make every error term 0: the kernels that use these helpers are compiled where
// PRECISE is the `precise` qualifier, which forbids that (see Kernel::precise).

// a + b = s + e exactly (Knuth's two-sum; any order of magnitudes).
vec2 two_sum(float a, float b) {
    PRECISE float s = a + b;
    PRECISE float bb = s - a;
    PRECISE float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}

// The float-float sum of a and b, renormalised. An Inf or NaN sum stays in hi, lo 0.
vec2 ff_add(vec2 a, vec2 b) {
    vec2 s = two_sum(a.x, b.x);
    if (isinf(s.x) || isnan(s.x)) {
        return vec2(s.x, 0.0);
    }
    PRECISE float lo = s.y + (a.y + b.y);
    PRECISE float hi = s.x + lo;
    PRECISE float rest = lo - (hi - s.x);
    return vec2(hi, rest);
}

// Adds the exact product x*y to the float-float acc. Each factor splits into its top 12
// significant bits (a mask of the low 12 mantissa bits) and the rest, also at most 12
// significant bits, so the four partial products are exact floats.
vec2 ff_add_product(vec2 acc, float x, float y) {
    float p = x * y;
    if (isinf(p) || isnan(p)) {
        return ff_add(acc, vec2(p, 0.0));
    }
    float xh = uintBitsToFloat(floatBitsToUint(x) & 0xFFFFF000u);
    float yh = uintBitsToFloat(floatBitsToUint(y) & 0xFFFFF000u);
    PRECISE float xl = x - xh;
    PRECISE float yl = y - yh;
    acc = ff_add(acc, two_sum(xh * yh, xh * yl));
    return ff_add(acc, two_sum(xl * yh, xl * yl));
}
