// One block step of a triangular solve op(A) s = t (see blas/level2/trsv.rs). t is the
// right-hand side so far (unit stride, n elements). The unknowns are cut into blocks of NB
// on a fixed grid, [lo, lo + nb) with lo a multiple of NB, taken in the solve's order:
// first to last with `forward` (lower and not transposed, upper and transposed), last to
// first without. Every unknown of an earlier block is solved in t, and its contribution is
// already subtracted from this block's right-hand side.
//
// The solve reads A by texels of four rows of one column, A(4R..4R+3, j) (`a_col`): with
// VEC4 (full storage, lda % 4 == 0) one fetch, else two fetches (storage.glsl's index of
// the first row; the others follow it in every storage). A lane outside the matrix or A's stored triangle or band is 0 and flagged unstored, and
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
// PASS picks the kernel:
//   1 (solve): fragment f (of NB/4) writes the four unknowns lo + 4f.. of the block's
//     solution s. Every fragment solves the whole block itself (`solve_block`), the block
//     held in registers as NB/4 vec4 reached by constant indices, and every loop as long in
//     every fragment, so all fragments run the same operations in the same order and agree
//     bit for bit (a computed index into an array of solved values, with loops of different
//     lengths across a quad, went wrong on Mesa's softpipe, GL 3.3: issue 31);
//   2 (invert): every diagonal block's inverse at once, each column solved for e_c by the
//     same code: thousands of independent chains instead of one a block (with WHOLE, on
//     GPUs with image stores: columns of 16 x 16 sub-blocks' inverses, joined by pass 4);
//   3 (apply): the block's solution as its inverse times the right-hand side, a short pass;
//     a fragment that meets an Inf or NaN solves instead (pass 1's code);
//   4 (join, image stores): two halves' inverses into their whole's inverse (see there);
//   0 (update): the fragment of t's texel T writes t's four lanes: an unknown of the block
//     gets its value from s, one in the rows the block's columns reach after it in the
//     solve order (texels [upd_lo, upd_hi)) has the block's contribution subtracted, any
//     other stays.
// IMAGE (GPUs with image stores; passes 0, 1 and 3): the same kernels writing through
// image stores, so that a solve's draws never change the bound framebuffer (each change
// cost the H100 5-11 us, two a block). Passes 1 and 3 store the block's solution into s
// (image 0); pass 0 runs only over t's texels [range_lo, range_hi) (the block's and those
// its columns reach), fragment (x, y) of a grid_w-wide grid on texel range_lo + y*grid_w
// + x, and stores each into t itself (image 0): a fragment reads and writes only its own
// texel of t.
// QUAD (with IMAGE and VEC4, on GPUs with quad operations; passes 0 and 3): the four
// fragments of a 2 x 2 quad of the grid work on one texel, fragment q = (x & 1) + 2(y & 1)
// of the quad on a quarter of the block's groups of four columns ([q*G/4, (q+1)*G/4) of
// the G groups, in the solve order), a quarter of the chain of fetches each; the quad's
// sums are added by quad operations (`quad_sum`) and fragment 0 stores the total. Pass 0's
// grid is grid_w quads wide, quad (x, y) on texel range_lo + y*grid_w + x; pass 3's is
// (2 NB/4, 2), quad f on texel f of the block's solution. Every branch before the sum
// depends on the quad's texel only, so the four fragments reach it together.
uniform int n;
uniform sampler2D t;
uniform int t_width;
uniform int block_lo;  // the block: unknowns [block_lo, block_lo + block_nb)
uniform int block_nb;
uniform int forward;  // 1: the first unknown first
uniform int dot_form; // 1: reference's dot-product loop (op(A) = A^T); 0: its column loop

layout(location = 0) out vec4 result;

const int NB4 = NB / 4;

// Lane c of v, chosen rather than indexed (a computed index into a vector or an array put
// the block in local memory on NVIDIA: 0.35 ms a block).
float lane(vec4 v, int c) {
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

// v with lane c replaced by y.
vec4 with_lane(vec4 v, int c, float y) {
    return select4(v, vec4(y), equal(ivec4(0, 1, 2, 3), ivec4(c)));
}

#ifdef QUAD
// The sum of v over the fragment's quad, the same bits in all four (the two pairs' sums,
// each commutative, then their sum).
vec4 quad_sum(vec4 v) {
    v += subgroupQuadSwapHorizontal(v);
    return v + subgroupQuadSwapVertical(v);
}

// A quad's partial sums start from -0.0, which adds nothing to any value (-0.0 too: a
// +0.0 start would turn a right-hand side's -0.0 into +0.0 where nothing is subtracted).
vec4 quad_zero() {
    return vec4(uintBitsToFloat(0x80000000u));
}
#endif

#ifdef SPLIT
// SPLIT (image stores): a block's update is split over SPLIT fragments a texel, each over
// a run of the block's columns (a quarter of the chain each), which store their partial
// sums (each summed as the update sums: from 0, in the solve order, zeros skipped) into
// `pend` instead of updating t: texel T's are at T*SPLIT + q for texels [pend_lo,
// pend_hi) (none elsewhere). Whoever reads T next adds them to t: the next block's
// inverse product (or substitution) for its own texels, the next update (its first
// fragment of T, which stores the sum into t) for the others. Every texel a step's
// update covers is covered by the next step's or is the next block's own, so nothing is
// left pending at the end.
uniform sampler2D pend;
uniform int pend_width;
uniform int pend_lo;
uniform int pend_hi;

// The partial sums pending for texel T (0 outside [pend_lo, pend_hi)), added in order.
vec4 pending(int T) {
    vec4 sum = vec4(0.0);
    if (T >= pend_lo && T < pend_hi) {
        for (int q = 0; q < SPLIT; ++q) {
            int i = T * SPLIT + q;
            sum += texelFetch(pend, ivec2(i % pend_width, i / pend_width), 0);
        }
    }
    return sum;
}
#endif

// Texel T of the right-hand side as the solve has it now: t's, plus what is pending.
vec4 rhs_texel(int T) {
    vec4 v = texelFetch(t, ivec2(T % t_width, T / t_width), 0);
#ifdef SPLIT
    v += pending(T);
#endif
    return v;
}

// Which lanes of A(4R..4R+3, j) are elements of A's stored part: inside the matrix, the
// stored triangle and (band storage) the band, with d = i - j.
bvec4 a_stored(int R, int j) {
    ivec4 i4 = ivec4(4 * R) + ivec4(0, 1, 2, 3);
    ivec4 d = i4 - ivec4(j);
    bvec4 stored = both(lessThan(i4, ivec4(n)),
                        upper != 0 ? lessThanEqual(d, ivec4(0)) : greaterThanEqual(d, ivec4(0)));
    if (storage == 1) {
        stored = both(stored, both(lessThanEqual(d, ivec4(kl)), lessThanEqual(-d, ivec4(ku))));
    }
    return stored;
}

// A(4R..4R+3, j), with `stored` saying which lanes are elements of A's stored part.
vec4 a_col(int R, int j, out bvec4 stored) {
    stored = a_stored(R, j);
    ivec2 size = textureSize(a, 0);
#if VEC4
    // Texels past the matrix (a block's rows past n) are read from the last texel.
    int e = min(R + j * (lda >> 2), size.x * size.y - 1);
    return texelFetch(a, ivec2(e % a_width, e / a_width), 0);
#else
    // In every storage the rows of a column follow each other: element (4R + c, j) is c
    // after (4R, j), so the four lie in at most two texels.
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

#if PASS == 4

// Combines inverses of halves into the inverse of the whole, for every pair of halves of
// `half_size` unknowns of every diagonal block at once (after PASS 2 with SUB): with M a
// diagonal block of op(A) and R, K the inverses of its halves that hold the rows and the
// columns of its off-diagonal part C (lower: the second half's rows, the first's columns;
// upper: the other way round), the inverse's off-diagonal part is D = -R C K.
//   PART 1: E = C K, stored into e_out at D's place;
//   PART 2: D = -R E, stored into the inverse (inv_out).
// Fragment (x, b) of block b writes texel fi of columns 4jg..4jg+3 of the pair p's
// off-diagonal part (x = (p*half_size/4 + jg)*half_size/4 + fi): the texels of A (PART 1)
// or R (PART 2) it fetches serve its four columns, each summed in the order of one column
// a fragment (E = C K at 4096 took 93 us so, a band's 1024 blocks 2.1 ms). Products meet
// only stored elements of A (masked, not multiplied by 0), so an Inf or NaN of C, R or K
// reaches every column of D it touches (through 0*Inf if need be), and the solves' users
// of those columns solve by substitution.
uniform sampler2D inv;
uniform int half_size;
#if PART == 2
uniform sampler2D e;
#endif
layout(binding = 0, rgba32f) writeonly uniform highp image2D part_out;

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int b = g.y;
    int h4 = half_size / 4;
    int per_pair = h4 * h4;
    int pair = g.x / per_pair;
    int rem = g.x - pair * per_pair;
    int jg = rem / h4;
    int fi = rem - jg * h4;
    int base = 2 * half_size * pair;
    int rs = forward != 0 ? base + half_size : base;  // the rows' half
    int cs = forward != 0 ? base : base + half_size;  // the columns' half
    int lo = b * NB;
    int col = cs + 4 * jg;  // the first of the four columns
    int trow = (rs >> 2) + fi;
    vec4 acc0 = vec4(0.0);
    vec4 acc1 = vec4(0.0);
    vec4 acc2 = vec4(0.0);
    vec4 acc3 = vec4(0.0);
#if PART == 1
    for (int k4 = 0; k4 < h4; ++k4) {
        // K's rows cs + 4*k4 .. + 3 of the four columns.
        int kt = (cs >> 2) + k4;
        vec4 kv0 = texelFetch(inv, ivec2(col * NB4 + kt, b), 0);
        vec4 kv1 = texelFetch(inv, ivec2((col + 1) * NB4 + kt, b), 0);
        vec4 kv2 = texelFetch(inv, ivec2((col + 2) * NB4 + kt, b), 0);
        vec4 kv3 = texelFetch(inv, ivec2((col + 3) * NB4 + kt, b), 0);
        if (dot_form == 0) {
            // M(r, c) = A(lo + r, lo + c): four rows of M a texel of A's column.
            for (int q = 0; q < 4; ++q) {
                int c = lo + cs + 4 * k4 + q;
                bvec4 st;
                vec4 a4 = a_col((lo >> 2) + trow, min(c, n - 1), st);
                st = both(st, bvec4(c < n));
                acc0 = select4(acc0, acc0 + a4 * lane(kv0, q), st);
                acc1 = select4(acc1, acc1 + a4 * lane(kv1, q), st);
                acc2 = select4(acc2, acc2 + a4 * lane(kv2, q), st);
                acc3 = select4(acc3, acc3 + a4 * lane(kv3, q), st);
            }
        } else {
            // M(r, c) = A(lo + c, lo + r): row r of M, columns c..c+3, a texel of column
            // lo + r of A.
            vec4 d0 = vec4(0.0);
            vec4 d1 = vec4(0.0);
            vec4 d2 = vec4(0.0);
            vec4 d3 = vec4(0.0);
            for (int q = 0; q < 4; ++q) {
                int ac = lo + 4 * trow + q;
                bvec4 st;
                vec4 a4 = a_col(((lo + cs) >> 2) + k4, min(ac, n - 1), st);
                st = both(st, bvec4(ac < n));
                vec4 am = select4(vec4(0.0), a4, st);
                d0 = with_lane(d0, q, dot(am, select4(vec4(0.0), kv0, st)));
                d1 = with_lane(d1, q, dot(am, select4(vec4(0.0), kv1, st)));
                d2 = with_lane(d2, q, dot(am, select4(vec4(0.0), kv2, st)));
                d3 = with_lane(d3, q, dot(am, select4(vec4(0.0), kv3, st)));
            }
            acc0 += d0;
            acc1 += d1;
            acc2 += d2;
            acc3 += d3;
        }
    }
#else
    for (int k4 = 0; k4 < h4; ++k4) {
        // E's rows rs + 4*k4 .. + 3 of the four columns, and R's columns rs + 4*k4 + q.
        int et = (rs >> 2) + k4;
        vec4 ev0 = texelFetch(e, ivec2(col * NB4 + et, b), 0);
        vec4 ev1 = texelFetch(e, ivec2((col + 1) * NB4 + et, b), 0);
        vec4 ev2 = texelFetch(e, ivec2((col + 2) * NB4 + et, b), 0);
        vec4 ev3 = texelFetch(e, ivec2((col + 3) * NB4 + et, b), 0);
        for (int q = 0; q < 4; ++q) {
            vec4 r4 = texelFetch(inv, ivec2((rs + 4 * k4 + q) * NB4 + trow, b), 0);
            acc0 -= r4 * lane(ev0, q);
            acc1 -= r4 * lane(ev1, q);
            acc2 -= r4 * lane(ev2, q);
            acc3 -= r4 * lane(ev3, q);
        }
    }
#endif
    imageStore(part_out, ivec2(col * NB4 + trow, b), acc0);
    imageStore(part_out, ivec2((col + 1) * NB4 + trow, b), acc1);
    imageStore(part_out, ivec2((col + 2) * NB4 + trow, b), acc2);
    imageStore(part_out, ivec2((col + 3) * NB4 + trow, b), acc3);
}

#elif PASS >= 5

// The band chain (image stores; a band no wider than a block, k <= NB): with every block's
// inverse D_b (PASS 2 and 4) and C_b the part of op(A) in block b's rows and the columns
// of the block before it in the solve order (the only other block its rows reach), block
// b's solution is s_b = y_b + Q_b s_prev, y_b = D_b t_b, Q_b = -D_b C_b. PASS 5 computes
// [Q_b | y_b] for every block at once; PASS 7 composes them over groups of blocks of the
// solve order; PASS 6 is one draw a group, short products instead of the block steps'
// inverse products and updates. Where a result is not finite (a zero or non-finite
// diagonal, an Inf or NaN in A or in x, an overflow) PASS 6 raises a flag, and the caller
// solves by the block steps instead, which spread Inf and NaN as reference does.
uniform sampler2D inv;
uniform int reach;  // the band's width beside the diagonal, at most NB
uniform int blocks; // blocks of the solve (PASS 6 and 7)

// The first row of the block before the block whose first row is lo, in the solve order.
int prev_lo(int lo) {
    return forward != 0 ? lo - NB : lo + NB;
}

// The block at place i of the solve order (its index on the grid).
int grid_block(int i) {
    return forward != 0 ? i : blocks - 1 - i;
}

// The groups of four columns of the block before that the block's rows reach: column c of
// it meets row m when their distance NB + m - c (forward) or NB + c - m is at most reach.
ivec2 reached_groups() {
    if (reach == 0) return ivec2(1, 0);
    return forward != 0 ? ivec2((NB - reach) >> 2, NB4 - 1) : ivec2(0, (reach - 1) >> 2);
}

#if PASS == 5
// [Q_b | y_b] of every block: fragment (g*NB/16 + h, b) writes texels 4h..4h+3 (rows
// 16h..16h+15) of columns 4g..4g+3 of Q_b (g < NB/4) at (c*NB/4 + f, b) as the inverse's,
// or of y_b (g = NB/4) at (NB*NB/4 + f, b): each texel of C it fetches serves 4 row texels,
// each texel of the inverse 4 columns. The first block in the solve order has no Q
// (zeros). Every product takes the stored elements of A only (the others are 0, never
// multiplied); the loops skip the terms where the inverse (triangular) or C (the band's
// corner) is 0.
layout(binding = 0, rgba32f) writeonly uniform highp image2D chain_out;
layout(binding = 1, rgba32f) writeonly uniform highp image2D flag_out;

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int b = g.y;
    const int H = NB4 / 4;  // fragments a column group
    int cg = g.x / H;
    int f0 = 4 * (g.x - cg * H);  // the first of the fragment's four row texels
    int lo = b * NB;
    int nb = min(NB, n - lo);
    ivec4 lanes = ivec4(0, 1, 2, 3);
    if (g == ivec2(0)) {
        imageStore(flag_out, ivec2(0), vec4(0.0));
    }
    // The inverse's rows 4f.. meet its columns m >= 4f (backward) or m <= 4f + 3.
    ivec2 ms = forward != 0 ? ivec2(0, f0 + 3) : ivec2(f0, NB4 - 1);
    mat4 acc = mat4(0.0);  // acc[r]: row texel f0 + r of the fragment's column (y)
    if (cg == NB4) {
        for (int m4 = ms.x; m4 <= ms.y; ++m4) {
            int T = (lo >> 2) + m4;
            bvec4 live = lessThan(ivec4(4 * m4) + lanes, ivec4(nb));
            vec4 tv = select4(vec4(0.0), texelFetch(t, ivec2(T % t_width, T / t_width), 0), live);
            for (int q = 0; q < 4; ++q) {
                for (int r = 0; r < 4; ++r) {
                    acc[r] += texelFetch(inv, ivec2((4 * m4 + q) * NB4 + f0 + r, b), 0) * tv[q];
                }
            }
        }
        for (int r = 0; r < 4; ++r) {
            imageStore(chain_out, ivec2(NB * NB4 + f0 + r, b), acc[r]);
        }
        return;
    }
    int plo = prev_lo(lo);
    ivec2 groups = reached_groups();
    // acc0..acc3: the four columns, each a mat4 of the four row texels.
    mat4 acc0 = mat4(0.0);
    mat4 acc1 = mat4(0.0);
    mat4 acc2 = mat4(0.0);
    mat4 acc3 = mat4(0.0);
    if (plo >= 0 && plo < n && cg >= groups.x && cg <= groups.y) {
        int c = plo + 4 * cg;  // the four columns' first, in op(A)
        // C(m, c) is 0 unless NB + m - c (forward) or NB + c - m is at most reach.
        if (forward != 0) {
            ms.y = min(ms.y, (4 * cg + 3 + reach - NB) >> 2);
        } else {
            ms.x = max(ms.x, max(NB + 4 * cg - reach, 0) >> 2);
        }
        for (int m4 = ms.x; m4 <= ms.y; ++m4) {
            // C's rows 4m4..4m4+3 of the four columns: k[j] = C(4m4 + lanes, 4cg + j).
            mat4 k;
            if (dot_form == 0) {
                // C(m, j) = A(lo + m, c + j): a texel of each column of A.
                for (int j = 0; j < 4; ++j) {
                    bvec4 st;
                    vec4 a4 = a_col((lo >> 2) + m4, min(c + j, n - 1), st);
                    k[j] = select4(vec4(0.0), a4, both(st, bvec4(c + j < n)));
                }
            } else {
                // C(m, j) = A(c + j, lo + m): row m of C is a texel of column lo + m of A.
                for (int q = 0; q < 4; ++q) {
                    int col = lo + 4 * m4 + q;
                    bvec4 st;
                    vec4 a4 = a_col(c >> 2, min(col, n - 1), st);
                    k[q] = select4(vec4(0.0), a4, both(st, bvec4(col < n)));
                }
                k = transpose(k);
            }
            for (int q = 0; q < 4; ++q) {
                int m = 4 * m4 + q;
                for (int r = 0; r < 4; ++r) {
                    vec4 d = texelFetch(inv, ivec2(m * NB4 + f0 + r, b), 0);
                    acc0[r] -= d * k[0][q];
                    acc1[r] -= d * k[1][q];
                    acc2[r] -= d * k[2][q];
                    acc3[r] -= d * k[3][q];
                }
            }
        }
    }
    int c0 = 4 * cg;
    for (int r = 0; r < 4; ++r) {
        int f = f0 + r;
        imageStore(chain_out, ivec2(c0 * NB4 + f, b), acc0[r]);
        imageStore(chain_out, ivec2((c0 + 1) * NB4 + f, b), acc1[r]);
        imageStore(chain_out, ivec2((c0 + 2) * NB4 + f, b), acc2[r]);
        imageStore(chain_out, ivec2((c0 + 3) * NB4 + f, b), acc3[r]);
    }
}

#elif PASS == 7
// The maps of a group of G blocks (G = group, the solve order's blocks cut into runs of G)
// from the solution of the block before the group: [M_i | y'_i] = Q_i [M_{i-1} | y'_{i-1}]
// + [0 | y_i] for the blocks at place `place` (>= 1) of every group, with [M | y'] of place
// 0 the block's own [Q | y]. So s_i = y'_i + M_i s_last, s_last the solution of the last
// block of the group before. Fragment (g*NB/(4*ROWS) + h, G) of group G: texels
// ROWS*h.. (ROWS of them) of columns 4g..4g+3 of M_i (g < NB/4) or of y'_i, into image 0
// at the block's place in the inverse's layout; `prev` holds place - 1's maps (chain's
// [Q | y] for place 1). Only the columns the group's first block reaches are not 0: the
// others are stored 0. ROWS 1 (the build used) took the H100 2.70 ms against 2.80 for 4
// (stbsv 2^16, k = 64, groups of 16), its more fragments hiding more of their fetches.
uniform sampler2D chain;
uniform sampler2D prev;
uniform int group;
uniform int place;
layout(binding = 0, rgba32f) writeonly uniform highp image2D maps_out;

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int i = g.y * group + place;  // the block's place in the solve order
    if (i >= blocks) {
        return;
    }
    int b = grid_block(i);
    int pb = grid_block(i - 1);
#ifndef ROWS
#define ROWS 4
#endif
    const int H = NB4 / ROWS;
    int cg = g.x / H;
    int f0 = ROWS * (g.x - cg * H);
    ivec2 groups = reached_groups();
    // The column of the previous maps this fragment's four columns are (y' once).
    bool ycol = cg == NB4;
    mat4 acc0 = mat4(0.0);
    mat4 acc1 = mat4(0.0);
    mat4 acc2 = mat4(0.0);
    mat4 acc3 = mat4(0.0);
    if (ycol) {
        for (int r = 0; r < ROWS; ++r) {
            acc0[r] = texelFetch(chain, ivec2(NB * NB4 + f0 + r, b), 0);
        }
    }
    if (ycol || (cg >= groups.x && cg <= groups.y)) {
        int c0 = 4 * cg;
        // Q_i's columns m meet the previous maps' rows m: those Q_i reaches.
        for (int m4 = groups.x; m4 <= groups.y; ++m4) {
            mat4 pv = mat4(0.0);  // pv[j]: rows 4m4.. of the previous maps' column c0 + j (y': j = 0)
            if (ycol) {
                pv[0] = texelFetch(prev, ivec2(NB * NB4 + m4, pb), 0);
            } else {
                for (int j = 0; j < 4; ++j) {
                    pv[j] = texelFetch(prev, ivec2((c0 + j) * NB4 + m4, pb), 0);
                }
            }
            for (int q = 0; q < 4; ++q) {
                int m = 4 * m4 + q;
                for (int r = 0; r < ROWS; ++r) {
                    vec4 d = texelFetch(chain, ivec2(m * NB4 + f0 + r, b), 0);
                    acc0[r] += d * pv[0][q];
                    if (!ycol) {
                        acc1[r] += d * pv[1][q];
                        acc2[r] += d * pv[2][q];
                        acc3[r] += d * pv[3][q];
                    }
                }
            }
        }
    }
    for (int r = 0; r < ROWS; ++r) {
        int f = f0 + r;
        if (ycol) {
            imageStore(maps_out, ivec2(NB * NB4 + f, b), acc0[r]);
        } else {
            int c0 = 4 * cg;
            imageStore(maps_out, ivec2(c0 * NB4 + f, b), acc0[r]);
            imageStore(maps_out, ivec2((c0 + 1) * NB4 + f, b), acc1[r]);
            imageStore(maps_out, ivec2((c0 + 2) * NB4 + f, b), acc2[r]);
            imageStore(maps_out, ivec2((c0 + 3) * NB4 + f, b), acc3[r]);
        }
    }
}

#else
// One group of the chain, the blocks at places [first_place, first_place + count) of the
// solve order: fragment (f, p) writes texel f of block first_place + p's solution s_i =
// y'_i + M_i s_last into the solution (image 0, where the block's texels are), with s_last
// (the last block of the group before) read from it (the draw before wrote it); the first
// group has none (s_i = y'_i). [M | y'] is the block's [Q | y] (chain) at place 0 of the
// group, PASS 7's (maps) after it. A result lane that is not finite sets the flag (image 1).
uniform sampler2D chain;
uniform sampler2D maps;
uniform sampler2D sol;
uniform int sol_width;
uniform int first_place;
layout(binding = 0, rgba32f) writeonly uniform highp image2D sol_out;
layout(binding = 1, rgba32f) writeonly uniform highp image2D flag_out;

vec4 map_texel(bool own, ivec2 p) {
    return own ? texelFetch(chain, p, 0) : texelFetch(maps, p, 0);
}

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int f = g.x;
    int i = first_place + g.y;
    int b = grid_block(i);
    int lo = b * NB;
    bool own = g.y == 0;
    ivec4 lanes = ivec4(0, 1, 2, 3);
    vec4 x = map_texel(own, ivec2(NB * NB4 + f, b));
    if (first_place > 0) {
        int pb = grid_block(first_place - 1);
        int plo = pb * NB;
        int pnb = min(NB, n - plo);
        ivec2 groups = reached_groups();
        for (int c4 = groups.x; c4 <= groups.y; ++c4) {
            int T = (plo >> 2) + c4;
            bvec4 live = lessThan(ivec4(4 * c4) + lanes, ivec4(pnb));
            vec4 sv = select4(vec4(0.0), texelFetch(sol, ivec2(T % sol_width, T / sol_width), 0), live);
            int c = 4 * c4;
            x += map_texel(own, ivec2(c * NB4 + f, b)) * sv.x
               + map_texel(own, ivec2((c + 1) * NB4 + f, b)) * sv.y
               + map_texel(own, ivec2((c + 2) * NB4 + f, b)) * sv.z
               + map_texel(own, ivec2((c + 3) * NB4 + f, b)) * sv.w;
        }
    }
    bvec4 mine = lessThan(ivec4(4 * f) + lanes, ivec4(n - lo));
    if (!finite(select4(vec4(0.0), x, mine))) {
        imageStore(flag_out, ivec2(0), vec4(1.0));
    }
    int T = (lo >> 2) + f;
    imageStore(sol_out, ivec2(T % sol_width, T / sol_width), x);
}
#endif

#elif PASS != 0

// The block's sixteen texels are named by constant indices only, the steps written out
// sixteen times by these macros (NB is 64): a loop over them, left rolled by the compiler,
// waited for each texel fetch in turn, and a computed index puts the array in local
// memory (each macro is one line: GLSL before 4.20 has no line continuation). The solve
// is one warp's chain of dependent instructions, so a step's cost is its instruction
// count: one division a step for the position of column p (the texels of a column follow
// each other), no storage formulas for full storage, and only the texels the step walks
// fetched and updated, under a branch a texel (on the H100 a block took 0.3 ms with
// per-texel formulas, 0.14 ms so; fetching all sixteen texels without branches, 0.18).
// EACH(M) writes macro M out for every texel the solve holds (HELD): the block's sixteen,
// or with WHOLE a sub-block's SUB/4 = four. With arrays of sixteen there (the steps' bounds
// are uniforms, so all sixteen stay live, more than registers hold) the sub-block pass took
// the H100 4.2 ms for a stbsv band's 1024 blocks and 174 us at order 4096; with four, 1.1
// ms and 43 us (BENCHMARKS.md, session 29).
#ifdef WHOLE
#if SUB != 16
#error "EACH writes out SUB / 4 = 4 texels"
#endif
const int HELD = 4;
#define EACH(M) M(0) M(1) M(2) M(3)
#else
#if NB != 64
#error "EACH writes out NB / 4 = 16 texels"
#endif
const int HELD = NB4;
#define EACH(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#endif
#define LOAD(r) acc[r] = 4 * (r) >= nb ? vec4(0.0) : (unit_rhs ? ((r) == (c >> 2) ? with_lane(vec4(0.0), c & 3, 1.0) : vec4(0.0)) : rhs_texel(r0 + (r))); live[r] = lessThan(ivec4(4 * (r)) + lanes, ivec4(nb));
#define WALK(r) (4 * (r) < nb && (r) >= wlo && (r) <= whi && (up ? (r) >= pr : (r) <= pr))
#if VEC4
#define FETCH(r) if (WALK(r)) { col[r] = texelFetch(a, pos, 0); st[r] = live[r]; } pos.x += 1; if (pos.x == a_width) { pos = ivec2(0, pos.y + 1); }
#else
#define FETCH(r) if (WALK(r)) { col[r] = a_col(r0 + (r), lo + p, st[r]); st[r] = both(st[r], live[r]); }
#endif
#define PICK(r) if (pr == (r)) { y = lane(acc[r], pc); }
#define DIAG(r) if (pr == (r)) { dcol = col[r]; }
#define APPLY(r) if (WALK(r)) { bvec4 m = (r) == pr ? both(st[r], in_order) : st[r]; if (dot_p) { y -= dot(select4(vec4(0.0), col[r], m), select4(vec4(0.0), acc[r], m)); } else { acc[r] = select4(acc[r], acc[r] - col[r] * y, m); } }
#define STORE(r) if (pr == (r)) { acc[r] = with_lane(acc[r], pc, y); }
#define MINE(r) if (f == (r)) { mine = acc[r]; }
#ifdef WHOLE
// PASS 2 on GPUs with image stores: the column of a sub-block's inverse, its SUB/4 texels.
#define WRITE(r) if ((r) < SUB / 4) { imageStore(inv_out, ivec2(whole_col * NB4 + whole_row0 + (r), whole_block), acc[r]); }
#endif

// Texel f of the solution of block [lo, lo + nb) for the right-hand side in t or, with c
// >= 0, for e_c (column c of the block's inverse). The loop runs `steps` times in every
// fragment (at least nb; a uniform, not a constant: unrolled 64 times it took llvmpipe
// over a second to compile), and does the work of steps [kmin, kmax] only, each over
// texels [wlo, whi] of the block only (a column of the inverse is 0 before its unit, and
// texel f needs no unknown after it).
#ifdef WHOLE
// The column and block a fragment of PASS 2's whole-column form writes (set by its main).
int whole_col;
int whole_block;
int whole_row0;
layout(binding = 0, rgba32f) writeonly uniform highp image2D inv_out;
#endif

vec4 solve_block(int f, int lo, int nb, int c, int steps, ivec2 ks, int wlo, int whi) {
    int r0 = lo >> 2;
    bool unit_rhs = c >= 0;
    ivec4 lanes = ivec4(0, 1, 2, 3);
    bool dot_p = dot_form != 0;
    // The texels a step walks lie at or after the step's own (or at or before it).
    bool up = (forward != 0) != dot_p;
    vec4 acc[HELD];
    vec4 col[HELD];
    bvec4 st[HELD];
    bvec4 live[HELD];
    EACH(LOAD)
    for (int k = 0; k < steps; ++k) {
        if (k >= nb || k < ks.x || k > ks.y) {
            continue;
        }
        int p = forward != 0 ? k : nb - 1 - k;
        int pr = p >> 2;
        int pc = p & 3;
        float y = 0.0;
        EACH(PICK)
        // Both forms walk column p: the dot form over the unknowns solved before p (then
        // divides), the column form over those after it (once p is divided). The column
        // form skips an unknown that is 0 when its turn comes, without fetching.
        bool live_p = dot_p || y != 0.0;
        if (live_p) {
            // In texel pr, the lanes the step walks: after p (before it for the dot form).
            bvec4 in_order = up ? greaterThan(lanes, ivec4(pc)) : lessThan(lanes, ivec4(pc));
#if VEC4
            int e = r0 + (lo + p) * (lda >> 2);
            ivec2 pos = ivec2(e % a_width, e / a_width);
#endif
            EACH(FETCH)
            vec4 dcol = vec4(0.0);
            EACH(DIAG)
            float diag = unit_diag == 0 ? lane(dcol, pc) : 1.0;
            if (!dot_p && unit_diag == 0) {
                y /= diag;
            }
            EACH(APPLY)
            if (dot_p && unit_diag == 0) {
                y /= diag;
            }
        }
        EACH(STORE)
    }
#ifdef WHOLE
    EACH(WRITE)
#endif
    vec4 mine = vec4(0.0);
    EACH(MINE)
    return mine;
}

#ifdef IMAGE
layout(binding = 0, rgba32f) writeonly uniform highp image2D s_out;
// Texel f of the block's solution.
#define SOLVED(f, x) imageStore(s_out, ivec2(f, 0), x)
#else
#define SOLVED(f, x) result = x
#endif

#if PASS == 1

// Solves block [block_lo, block_lo + block_nb): fragment f writes texel f.
void main() {
    int f = int(gl_FragCoord.x);
    SOLVED(f, solve_block(f, block_lo, block_nb, -1, block_nb, ivec2(0, NB), 0, NB4));
}

#elif PASS == 2 && defined(WHOLE)

// Inverts every diagonal block at once on GPUs with image stores, one fragment a column:
// fragment (c, b) solves column c of the inverse of the diagonal sub-block of SUB unknowns
// (16) of block b that holds column c (a chain of SUB steps), writes its SUB/4 texels
// (texel f of column c at (c*NB/4 + f, b)) and zeros on the other side of the diagonal
// (above it for a lower inverse, below for an upper one; every texel of a column past a
// last, short block). PASS 4 then fills the rest from the sub-blocks' inverses (the
// first form of this pass solved whole columns, 64-step chains: 0.54 ms at order 4096
// against 0.31 ms for this pass and PASS 4's four).
void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    whole_col = g.x;
    whole_block = g.y;
    int lo = g.y * NB;
    int nb = min(NB, n - lo);
    const int SUB4 = SUB / 4;
    int sb = g.x / SUB;
    whole_row0 = sb * SUB4;
    int snb = min(SUB, nb - sb * SUB);
    for (int r = 0; r < NB4; ++r) {
        bool zero = snb <= 0 || (forward != 0 ? r < whole_row0 : r >= whole_row0 + SUB4);
        if (zero) {
            imageStore(inv_out, ivec2(g.x * NB4 + r, g.y), vec4(0.0));
        }
    }
    if (snb <= 0) {
        return;
    }
    int cc = min(g.x - sb * SUB, snb - 1);
    ivec2 ks = forward != 0 ? ivec2(cc, snb - 1) : ivec2(snb - 1 - cc, snb - 1);
    ivec2 ws = forward != 0 ? ivec2(cc >> 2, SUB4 - 1) : ivec2(0, cc >> 2);
    solve_block(0, lo + sb * SUB, snb, cc, SUB, ks, ws.x, ws.y);
}

#elif PASS == 2

// Inverts every diagonal block at once: fragment (c*NB/4 + f, b) writes texel f of column
// c of block b's inverse (0 for a column past a last, short block).
void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int c = g.x / NB4;
    int lo = g.y * NB;
    int nb = min(NB, n - lo);
    int f = g.x - c * NB4;
    int cc = min(c, nb - 1);
    // Forward, the unknowns from c to texel f's last; backward, from c down to its first.
    ivec2 ks = forward != 0 ? ivec2(cc, 4 * f + 3) : ivec2(nb - 1 - cc, nb - 1 - 4 * f);
    ivec2 ws = forward != 0 ? ivec2(cc >> 2, f) : ivec2(f, cc >> 2);
    vec4 v = solve_block(f, lo, nb, cc, NB, ks, ws.x, ws.y);
    result = c < nb ? v : vec4(0.0);
}

#elif PASS == 3

uniform sampler2D inv;

// Solves block [block_lo, block_lo + block_nb) by its inverse: texel f of the solution is
// the inverse's rows 4f.. times the right-hand side. Where the inverse's rows, the
// right-hand side or the result hold an Inf or NaN (a zero or non-finite diagonal, a NaN
// or Inf in A or in x), the fragment solves the block instead, as reference's loops
// would, so that Inf and NaN go where reference's go. The result's test alone finds them:
// an Inf or NaN among the terms leaves one in the sum (level3/tri_solve.frag says why).
// The texels group g of the apply meets: t's texel g of the block and the inverse's texel
// f of columns 4g..4g+3 (clamped to the block).
void apply_fetch(int g, int f, int b, int r0, out vec4 tv, out vec4 i0, out vec4 i1,
                 out vec4 i2, out vec4 i3) {
    tv = rhs_texel(r0 + g);
    int c0 = 4 * g;
    i0 = texelFetch(inv, ivec2(c0 * NB4 + f, b), 0);
    i1 = texelFetch(inv, ivec2(min(c0 + 1, block_nb - 1) * NB4 + f, b), 0);
    i2 = texelFetch(inv, ivec2(min(c0 + 2, block_nb - 1) * NB4 + f, b), 0);
    i3 = texelFetch(inv, ivec2(min(c0 + 3, block_nb - 1) * NB4 + f, b), 0);
}

void main() {
    int b = block_lo / NB;
    int r0 = block_lo >> 2;
    int groups = (block_nb + 3) >> 2;
#ifdef QUAD
    ivec2 frag = ivec2(gl_FragCoord.xy);
    int f = frag.x >> 1;
    int q = (frag.x & 1) | ((frag.y & 1) << 1);
    int g_begin = q * groups / 4;
    int g_end = (q + 1) * groups / 4;
    vec4 x = quad_zero();
    // A quarter of the groups (at most four), all fetched before any is used.
    vec4 ta[4];
    vec4 a0[4];
    vec4 a1[4];
    vec4 a2[4];
    vec4 a3[4];
    for (int k = 0; k < 4; ++k) {
        apply_fetch(min(g_begin + k, groups - 1), f, b, r0, ta[k], a0[k], a1[k], a2[k], a3[k]);
    }
    for (int k = 0; k < 4; ++k) {
        int g = g_begin + k;
        if (g < g_end) {
            vec4 tk = select4(vec4(0.0), ta[k], lessThan(ivec4(4 * g) + ivec4(0, 1, 2, 3), ivec4(block_nb)));
            x += a0[k] * tk.x + a1[k] * tk.y + a2[k] * tk.z + a3[k] * tk.w;
        }
    }
    x = quad_sum(x);
    if (q != 0) {
        return;
    }
#else
    int f = int(gl_FragCoord.x);
    vec4 x = vec4(0.0);
    // Each group's texels are fetched one group ahead of their use (a pass of a few
    // fragments is a chain of fetch latencies, one a group without this).
    vec4 tv;
    vec4 i0;
    vec4 i1;
    vec4 i2;
    vec4 i3;
    apply_fetch(0, f, b, r0, tv, i0, i1, i2, i3);
    for (int g = 0; g < groups; ++g) {
        vec4 tn;
        vec4 j0;
        vec4 j1;
        vec4 j2;
        vec4 j3;
        apply_fetch(min(g + 1, groups - 1), f, b, r0, tn, j0, j1, j2, j3);
        tv = select4(vec4(0.0), tv, lessThan(ivec4(4 * g) + ivec4(0, 1, 2, 3), ivec4(block_nb)));
        x += i0 * tv.x + i1 * tv.y + i2 * tv.z + i3 * tv.w;
        tv = tn;
        i0 = j0;
        i1 = j1;
        i2 = j2;
        i3 = j3;
    }
#endif
    // A branch, not a ?: (with ?: the H100 ran the substitution in every fragment).
    if (!finite(x)) {
        x = solve_block(f, block_lo, block_nb, -1, block_nb, ivec2(0, NB), 0, NB4);
    }
    SOLVED(f, x);
}

#endif

#else

uniform sampler2D s;
uniform int upd_lo;  // texels of t the block's columns can change
uniform int upd_hi;

#if VEC4
// Set by main: lda/4 texels (one column further) as a step of position in A's texture,
// and A's last texel (a column's rows past n read it).
ivec2 a_step;
int a_last;
ivec2 a_last_pos;

// A texel of A: its index e in the texture and its place there, moved along by steps
// (one division a fragment, where it starts, not one a texel).
struct Cursor {
    int e;
    ivec2 pos;
};

Cursor cursor_at(int e) {
    return Cursor(e, ivec2(e % a_width, e / a_width));
}

// The cursor moved by `by` texels, `by_pos` as a place (|by| % a_width, |by| / a_width,
// negated with by), at most one wrap across a texture row.
Cursor cursor_moved(Cursor c, int by, ivec2 by_pos) {
    c.e += by;
    c.pos += by_pos;
    if (c.pos.x >= a_width) {
        c.pos += ivec2(-a_width, 1);
    } else if (c.pos.x < 0) {
        c.pos += ivec2(a_width, -1);
    }
    return c;
}

// A(4R..4R+3, j0 + c) for the four columns c = 0..3 from the cursor of column j0's texel,
// columns past j0 + more read as column j0 + more, as `a_col` gives each: column j + 1's
// texel lies lda/4 texels after column j's. No stored-lane masks: in full storage every
// element the update meets is in the stored triangle (its rows and columns lie on either
// side of the block, on the triangle's side), and the callers' own masks (`live`,
// `in_block`) take out the rows past n.
void a_cols4(Cursor at, int more, out vec4 c0, out vec4 c1, out vec4 c2, out vec4 c3) {
    int step = lda >> 2;
    c0 = texelFetch(a, at.e > a_last ? a_last_pos : at.pos, 0);
#define A_NEXT(c) if (c <= more) { at = cursor_moved(at, step, a_step); }
    A_NEXT(1)
    c1 = texelFetch(a, at.e > a_last ? a_last_pos : at.pos, 0);
    A_NEXT(2)
    c2 = texelFetch(a, at.e > a_last ? a_last_pos : at.pos, 0);
    A_NEXT(3)
    c3 = texelFetch(a, at.e > a_last ? a_last_pos : at.pos, 0);
}
#endif

// v less c*y where `ok` and the lanes of c are stored and live.
vec4 minus(vec4 v, vec4 c, bvec4 st, bvec4 live, float y, bool ok) {
    return ok && y != 0.0 ? select4(v, v - c * y, both(st, live)) : v;
}

#ifdef IMAGE
uniform int range_lo;  // the texels of t this draw covers
uniform int range_hi;
uniform int grid_w;
layout(binding = 0, rgba32f) writeonly uniform highp image2D t_out;
#define EMIT(x) imageStore(t_out, tpos, x)
#else
#define EMIT(x) result = x
#endif
#ifdef SPLIT
// With SPLIT, fragment F of the grid works on texel range_lo + F % count (count =
// range_hi - range_lo), part q = F / count of the block's columns (groups of four in the
// solve order [q*G/SPLIT, (q+1)*G/SPLIT)), and stores its partial sum into image 1.
layout(binding = 1, rgba32f) writeonly uniform highp image2D part_out;
uniform int part_width;
#endif

void main() {
    int lo = block_lo;
    int nb = block_nb;
    int groups = (nb + 3) >> 2;
    int g_begin = 0;
    int g_end = groups;
#ifdef SPLIT
    ivec2 g = ivec2(gl_FragCoord.xy);
    int count = range_hi - range_lo;
    int F = g.y * grid_w + g.x;
    if (F >= count * SPLIT) {
        return;
    }
    int q = F / count;
    int T = range_lo + (F - q * count);
    g_begin = q * groups / SPLIT;
    g_end = (q + 1) * groups / SPLIT;
    ivec2 tpos = ivec2(T % t_width, T / t_width);
#elif defined(QUAD)
    ivec2 g = ivec2(gl_FragCoord.xy);
    int q = (g.x & 1) | ((g.y & 1) << 1);
    int T = range_lo + (g.y >> 1) * grid_w + (g.x >> 1);
    if (T >= range_hi) {
        return;
    }
    g_begin = q * groups / 4;
    g_end = (q + 1) * groups / 4;
    ivec2 tpos = ivec2(T % t_width, T / t_width);
#elif defined(IMAGE)
    ivec2 g = ivec2(gl_FragCoord.xy);
    int T = range_lo + g.y * grid_w + g.x;
    if (T >= range_hi) {
        return;
    }
    ivec2 tpos = ivec2(T % t_width, T / t_width);
#else
    int T = frag_texel(t_width);
    ivec2 tpos = ivec2(gl_FragCoord.xy);
#endif
    int r0 = lo >> 2;
    if (T >= r0 && 4 * T < lo + nb) {
        // The block's own unknowns (its lanes past nb are past n: whatever they hold).
#if defined(SPLIT) || defined(QUAD)
        if (q == 0) {
            EMIT(texelFetch(s, ivec2(T - r0, 0), 0));
        }
#else
        EMIT(texelFetch(s, ivec2(T - r0, 0), 0));
#endif
        return;
    }
    if (T < upd_lo || T >= upd_hi) {
#ifndef IMAGE
        result = texelFetch(t, tpos, 0);
#endif
        return;
    }
#ifdef SPLIT
    if (q == 0) {
        // What the step before left pending for this texel goes into t now.
        EMIT(rhs_texel(T));
    }
    vec4 v = vec4(0.0);
#elif defined(QUAD)
    vec4 v = q == 0 ? texelFetch(t, tpos, 0) : quad_zero();
#else
    vec4 v = texelFetch(t, tpos, 0);
#endif
#if VEC4
    // For a_cols4, once a fragment (only those that sum reach here).
    a_step = ivec2((lda >> 2) % a_width, (lda >> 2) / a_width);
    ivec2 a_size = textureSize(a, 0);
    a_last = a_size.x * a_size.y - 1;
    a_last_pos = ivec2(a_last % a_width, a_last / a_width);
#endif
    ivec4 lanes = ivec4(0, 1, 2, 3);
    bvec4 live = lessThan(ivec4(4 * T) + lanes, ivec4(n));
    if (dot_form != 0) {
        // Unknown i = 4T + c less the dot product of column i's rows in the block with s,
        // a texel of the block's rows (and of s) a step, the four columns' fetches
        // together. A lane past n (which may hold anything) reads column n - 1.
        ivec4 cols = min(ivec4(4 * T) + lanes, ivec4(n - 1));
#if VEC4
        // Rows 4(r0 + r).. of column cols.x, a texel further each step.
        Cursor at = cursor_at(r0 + g_begin + cols.x * (lda >> 2));
#endif
        for (int r = g_begin; r < g_end; ++r) {
            vec4 sv = texelFetch(s, ivec2(r, 0), 0);
            bvec4 in_block = lessThan(ivec4(4 * r) + lanes, ivec4(nb));
            bvec4 s0;
            bvec4 s1;
            bvec4 s2;
            bvec4 s3;
#if VEC4
            vec4 c0;
            vec4 c1;
            vec4 c2;
            vec4 c3;
            a_cols4(at, n - 1 - cols.x, c0, c1, c2, c3);
            at = cursor_moved(at, 1, ivec2(1, 0));
            s0 = s1 = s2 = s3 = bvec4(true);
#else
            vec4 c0 = a_col(r0 + r, cols.x, s0);
            vec4 c1 = a_col(r0 + r, cols.y, s1);
            vec4 c2 = a_col(r0 + r, cols.z, s2);
            vec4 c3 = a_col(r0 + r, cols.w, s3);
#endif
            s0 = both(s0, in_block);
            s1 = both(s1, in_block);
            s2 = both(s2, in_block);
            s3 = both(s3, in_block);
            v -= vec4(dot(select4(vec4(0.0), c0, s0), select4(vec4(0.0), sv, s0)),
                      dot(select4(vec4(0.0), c1, s1), select4(vec4(0.0), sv, s1)),
                      dot(select4(vec4(0.0), c2, s2), select4(vec4(0.0), sv, s2)),
                      dot(select4(vec4(0.0), c3, s3), select4(vec4(0.0), sv, s3)));
        }
    } else {
        // Column p of the block times its solved unknown, in the solve order, skipping
        // zeros: four columns (a texel of s) a step, their fetches together.
#if VEC4
        // Column lo + 4g's texel of rows 4T.., four columns further (or back) each step.
        int g_first = forward != 0 ? g_begin : groups - 1 - g_begin;
        Cursor at = cursor_at(T + (lo + 4 * g_first) * (lda >> 2));
        int by = (forward != 0 ? 4 : -4) * (lda >> 2);
        ivec2 by_pos = ivec2(abs(by) % a_width, abs(by) / a_width) * (forward != 0 ? 1 : -1);
#endif
        for (int gi = g_begin; gi < g_end; ++gi) {
            int g = forward != 0 ? gi : groups - 1 - gi;
            int p = 4 * g;
            vec4 sv = texelFetch(s, ivec2(g, 0), 0);
            bvec4 s0;
            bvec4 s1;
            bvec4 s2;
            bvec4 s3;
#if VEC4
            vec4 c0;
            vec4 c1;
            vec4 c2;
            vec4 c3;
            a_cols4(at, nb - 1 - p, c0, c1, c2, c3);
            at = cursor_moved(at, by, by_pos);
            s0 = s1 = s2 = s3 = bvec4(true);
#else
            vec4 c0 = a_col(T, lo + p, s0);
            vec4 c1 = a_col(T, lo + min(p + 1, nb - 1), s1);
            vec4 c2 = a_col(T, lo + min(p + 2, nb - 1), s2);
            vec4 c3 = a_col(T, lo + min(p + 3, nb - 1), s3);
#endif
            if (forward != 0) {
                v = minus(v, c0, s0, live, sv.x, true);
                v = minus(v, c1, s1, live, sv.y, p + 1 < nb);
                v = minus(v, c2, s2, live, sv.z, p + 2 < nb);
                v = minus(v, c3, s3, live, sv.w, p + 3 < nb);
            } else {
                v = minus(v, c3, s3, live, sv.w, p + 3 < nb);
                v = minus(v, c2, s2, live, sv.z, p + 2 < nb);
                v = minus(v, c1, s1, live, sv.y, p + 1 < nb);
                v = minus(v, c0, s0, live, sv.x, true);
            }
        }
    }
#ifdef SPLIT
    int i = T * SPLIT + q;
    imageStore(part_out, ivec2(i % part_width, i / part_width), v);
#elif defined(QUAD)
    v = quad_sum(v);
    if (q == 0) {
        EMIT(v);
    }
#else
    EMIT(v);
#endif
}

#endif
