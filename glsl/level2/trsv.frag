// One block step of a triangular solve op(A) s = t (see blas/level2/trsv.rs). t is the
// right-hand side so far (unit stride, n elements). The unknowns are cut into blocks of NB
// on a fixed grid, [lo, lo + nb) with lo a multiple of NB, taken in the solve's order:
// first to last with `forward` (lower and not transposed, upper and transposed), last to
// first without. Every unknown of an earlier block is solved in t, and its contribution is
// already subtracted from this block's right-hand side.
//
// The solve reads A by texels of four rows of one column, A(4R..4R+3, j) (`a_col`): with
// VEC4 (full storage, lda % 4 == 0) one fetch, else two fetches (storage.glsl's index of
// the first row; the others follow it in every storage). A
// lane outside the matrix or A's stored triangle or band is 0 and flagged unstored, and
// never meets a value: products are chosen by masks, not multiplied by 0.
//
// Two forms, as reference BLAS's two loops (`dot_form` picks the second):
//   column form (op(A) = A): unknown p, once solved, is subtracted times column p from the
//     unknowns after it; an unknown whose value is 0 when its turn comes is neither divided
//     by its diagonal nor subtracted (reference skips it, so a zero or NaN diagonal or
//     column of A does not spread from it);
//   dot form (op(A) = A^T): unknown p is its right-hand side minus column p's dot product
//     with the unknowns solved before it, divided by the diagonal; every term is taken.
//
// With SOLVE, fragment f (of NB/4) writes the four unknowns lo + 4f.. of the block's
// solution s. Every fragment solves the whole block itself, the block held in registers as
// NB/4 vec4 reached by constant indices, and every loop as long in every fragment, so all
// fragments run the same operations in the same order and agree bit for bit (a computed
// index into an array of solved values, with loops of different lengths across a quad,
// went wrong on Mesa's softpipe, GL 3.3: issue 31).
// Without SOLVE, the fragment of t's texel T writes t's four lanes: an unknown of the block
// gets its value from s, one in the rows the block's columns reach after it in the solve
// order (texels [upd_lo, upd_hi)) has the block's contribution subtracted, any other stays.
uniform int n;
uniform sampler2D t;
uniform int t_width;
uniform int lo;
uniform int nb;
uniform int forward;  // 1: the first unknown first
uniform int dot_form; // 1: reference's dot-product loop (op(A) = A^T); 0: its column loop

layout(location = 0) out vec4 result;

const int NB4 = NB / 4;

// Component-wise and.
bvec4 both(bvec4 p, bvec4 q) {
    return bvec4(p.x && q.x, p.y && q.y, p.z && q.z, p.w && q.w);
}

// Lane c of v, chosen rather than indexed (a computed index into a vector or an array put
// the block in local memory on NVIDIA: 0.35 ms a block).
float lane(vec4 v, int c) {
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

// v with lane c replaced by y.
vec4 with_lane(vec4 v, int c, float y) {
    return select4(v, vec4(y), equal(ivec4(0, 1, 2, 3), ivec4(c)));
}

// A(4R..4R+3, j), with `stored` saying which lanes are elements of A's stored part.
vec4 a_col(int R, int j, out bvec4 stored) {
    ivec4 i4 = ivec4(4 * R) + ivec4(0, 1, 2, 3);
    // Inside the matrix, the stored triangle and (band storage) the band: d = i - j.
    ivec4 d = i4 - ivec4(j);
    stored = both(lessThan(i4, ivec4(n)),
                  upper != 0 ? lessThanEqual(d, ivec4(0)) : greaterThanEqual(d, ivec4(0)));
    if (storage == 1) {
        stored = both(stored, both(lessThanEqual(d, ivec4(kl)), lessThanEqual(-d, ivec4(ku))));
    }
#if VEC4
    int e = R + j * (lda >> 2);
    return texelFetch(a, ivec2(e % a_width, e / a_width), 0);
#else
    // In every storage the rows of a column follow each other: element (4R + c, j) is c
    // after (4R, j), so the four lie in at most two texels.
    ivec2 size = textureSize(a, 0);
    uint last = uint(size.x * size.y - 1);
    uint e = stored_index(4 * R, j);
    int t0 = int(min(e >> 2u, last));
    int t1 = int(min((e >> 2u) + 1u, last));
    vec4 v0 = texelFetch(a, ivec2(t0 % a_width, t0 / a_width), 0);
    vec4 v1 = texelFetch(a, ivec2(t1 % a_width, t1 / a_width), 0);
    uint o = e & 3u;
    return o == 0u ? v0
         : o == 1u ? vec4(v0.yzw, v1.x)
         : o == 2u ? vec4(v0.zw, v1.xy)
                   : vec4(v0.w, v1.xyz);
#endif
}

// Lanes of texel r of the block (unknowns lo + 4r + c) that lie after (or, with `before`,
// before) unknown p = 4 pr + pc of the block in the solve order; all of them are < nb.
bvec4 order_mask(int r, int pr, int pc, bool before) {
    ivec4 q = ivec4(4 * r) + ivec4(0, 1, 2, 3);
    int p = 4 * pr + pc;
    bool fwd = forward != 0;
    bvec4 m = (fwd != before) ? greaterThan(q, ivec4(p)) : lessThan(q, ivec4(p));
    return both(m, lessThan(q, ivec4(nb)));
}

#if SOLVE

void main() {
    int f = int(gl_FragCoord.x);
    int r0 = lo >> 2;
    vec4 acc[NB4];
    for (int r = 0; r < NB4; ++r) {
        acc[r] = 4 * r < nb ? texelFetch(t, ivec2((r0 + r) % t_width, (r0 + r) / t_width), 0)
                            : vec4(0.0);
    }
    // The loop over the unknowns has a uniform, not a constant, length (unrolled 64 times
    // over a 16-texel body it took llvmpipe over a second to compile); the texels are
    // reached by constant indices only, so the block stays in registers.
    for (int k = 0; k < nb; ++k) {
        int p = forward != 0 ? k : nb - 1 - k;
        int pr = p >> 2;
        int pc = p & 3;
        float y = 0.0;
        for (int r = 0; r < NB4; ++r) {
            if (r == pr) {
                y = lane(acc[r], pc);
            }
        }
        // Both forms walk column p: the dot form over the unknowns solved before p (then
        // divides), the column form over those after it (once p is divided). The column
        // form skips an unknown that is 0 when its turn comes.
        bool dot_p = dot_form != 0;
        bool live_p = dot_p || y != 0.0;
        float diag = 1.0;
        if (unit_diag == 0 && live_p) {
            bvec4 st;
            diag = lane(a_col(r0 + pr, lo + p, st), pc);
        }
        if (!dot_p) {
            y = live_p && unit_diag == 0 ? y / diag : y;
        }
        bool up = (forward != 0) != dot_p;  // the texels walked lie at or after pr
        for (int r = 0; r < NB4; ++r) {
            if (live_p && 4 * r < nb && (up ? r >= pr : r <= pr)) {
                bvec4 st;
                vec4 col = a_col(r0 + r, lo + p, st);
                bvec4 m = both(st, order_mask(r, pr, pc, dot_p));
                if (dot_p) {
                    y -= dot(select4(vec4(0.0), col, m), select4(vec4(0.0), acc[r], m));
                } else {
                    acc[r] = select4(acc[r], acc[r] - col * y, m);
                }
            }
        }
        if (dot_p && unit_diag == 0) {
            y /= diag;
        }
        for (int r = 0; r < NB4; ++r) {
            if (r == pr) {
                acc[r] = with_lane(acc[r], pc, y);
            }
        }
    }
    vec4 mine = vec4(0.0);
    for (int r = 0; r < NB4; ++r) {
        if (r == f) {
            mine = acc[r];
        }
    }
    result = mine;
}

#else

uniform sampler2D s;
uniform int upd_lo;  // texels of t the block's columns can change
uniform int upd_hi;

void main() {
    int T = frag_texel(t_width);
    vec4 v = texelFetch(t, ivec2(gl_FragCoord.xy), 0);
    int r0 = lo >> 2;
    if (T >= r0 && 4 * T < lo + nb) {
        // The block's own unknowns (its lanes past nb are past n: whatever they hold).
        result = texelFetch(s, ivec2(T - r0, 0), 0);
        return;
    }
    if (T < upd_lo || T >= upd_hi) {
        result = v;
        return;
    }
    bvec4 live = lessThan(ivec4(4 * T) + ivec4(0, 1, 2, 3), ivec4(n));
    if (dot_form != 0) {
        // Unknown i = 4T + c less the dot product of column i's rows in the block with s.
        for (int c = 0; c < 4; ++c) {
            int i = min(4 * T + c, n - 1);  // a lane past n (which may hold anything) too
            float acc = v[c];
            for (int r = 0; 4 * r < nb; ++r) {
                bvec4 st;
                vec4 col = a_col(r0 + r, i, st);
                bvec4 m = both(st, lessThan(ivec4(4 * r) + ivec4(0, 1, 2, 3), ivec4(nb)));
                acc -= dot(select4(vec4(0.0), col, m),
                           select4(vec4(0.0), texelFetch(s, ivec2(r, 0), 0), m));
            }
            v[c] = acc;
        }
    } else {
        // Column p of the block times its solved unknown, in the solve order, skipping
        // zeros.
        for (int k = 0; k < nb; ++k) {
            int p = forward != 0 ? k : nb - 1 - k;
            float y = lane(texelFetch(s, ivec2(p >> 2, 0), 0), p & 3);
            if (y != 0.0) {
                bvec4 st;
                vec4 col = a_col(T, lo + p, st);
                v = select4(v, v - col * y, both(st, live));
            }
        }
    }
    result = v;
}

#endif
