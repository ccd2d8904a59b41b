// sgemm, generic kernel: C := alpha*op(A)*op(B) + beta*C in column-major form, rendered over
// C's own texture. Each fragment computes the (up to) four elements of its texel with
// scalar fetches, so any m, n, k, leading dimension, offset and transpose works. Elements
// outside the window (gemm_window.glsl) pass through untouched. k is 0 when A and B must not be
// read (alpha == 0 or k == 0).
//
// The four elements advance along k together, four values of k a round: 32 independent
// fetches in flight per round instead of one dependent chain per element, so a small
// product (few fragments, nothing else to hide a fetch's latency behind) costs a quarter of
// the rounds; where the texel is four rows of one column and A's and B's columns are
// aligned to texels, a round is five vec4 fetches. Each element's sum still adds its terms
// in order of k.
uniform sampler2D a;
uniform int a_width;
uniform int a_off;
uniform int lda;
uniform int a_trans;
uniform sampler2D b;
uniform int b_width;
uniform int b_off;
uniform int ldb;
uniform int b_trans;
uniform sampler2D c;
uniform int c_width;
uniform int k0;
uniform int k;
uniform float alpha;
uniform float beta;

layout(location = 0) out vec4 result;

// op(A)(i, l) for the four elements at storage positions ap + l*astep, and likewise op(B).
vec4 fetch4(sampler2D s, int width, ivec4 p) {
    return vec4(load_elem(s, width, p.x), load_elem(s, width, p.y), load_elem(s, width, p.z),
                load_elem(s, width, p.w));
}

void main() {
    int t = frag_texel(c_width);
    vec4 r = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    if (4 * t >= window_end()) {
        result = r;
        return;
    }
    // Storage positions of op(A)(i, k0) and op(B)(k0, j) of each live element; an element
    // outside the window walks the positions of a live one (read, never used).
    bvec4 live = bvec4(false);
    ivec4 ap = ivec4(-1);
    ivec4 bp = ivec4(0);
    for (int ch = 0; ch < 4; ++ch) {
        int i;
        int j;
        if (in_window(4 * t + ch, i, j)) {
            live[ch] = true;
            ap[ch] = a_off + (a_trans != 0 ? i * lda : i);
            bp[ch] = b_off + (b_trans != 0 ? j : j * ldb);
        }
    }
    if (!any(live)) {
        result = r;
        return;
    }
    int first = live.x ? 0 : (live.y ? 1 : (live.z ? 2 : 3));
    for (int ch = 0; ch < 4; ++ch) {
        if (!live[ch]) {
            ap[ch] = ap[first];
            bp[ch] = bp[first];
        }
    }
    int astep = a_trans != 0 ? 1 : lda;
    int bstep = b_trans != 0 ? ldb : 1;
    ap += k0 * astep;
    bp += k0 * bstep;
    vec4 acc = vec4(0.0);
    int l = k0;
    if (all(live) && a_trans == 0 && (lda & 3) == 0 && (ap.x & 3) == 0 && ap.w == ap.x + 3 &&
        bp.w == bp.x) {
        // The texel's four elements are rows i..i+3 of one column of C, op(A)(i..i+3, l) is
        // one texel of A and op(B)(l, j) one element for all four: one vec4 fetch of A per
        // value of k, and one fetch of B per four where B's column is aligned too.
        int at = ap.x >> 2;
        int ats = lda >> 2;
        int bq = bp.x;
        if (b_trans == 0 && (bq & 3) == 0) {
            for (; l + 4 <= k; l += 4) {
                vec4 bv = load_texel(b, b_width, bq >> 2);
                vec4 a0 = load_texel(a, a_width, at);
                vec4 a1 = load_texel(a, a_width, at + ats);
                vec4 a2 = load_texel(a, a_width, at + 2 * ats);
                vec4 a3 = load_texel(a, a_width, at + 3 * ats);
                acc += a0 * bv.x;
                acc += a1 * bv.y;
                acc += a2 * bv.z;
                acc += a3 * bv.w;
                at += 4 * ats;
                bq += 4;
            }
        }
        for (; l < k; ++l) {
            acc += load_texel(a, a_width, at) * load_elem(b, b_width, bq);
            at += ats;
            bq += bstep;
        }
    }
    for (; l + 4 <= k; l += 4) {
        vec4 a0 = fetch4(a, a_width, ap);
        vec4 b0 = fetch4(b, b_width, bp);
        vec4 a1 = fetch4(a, a_width, ap + astep);
        vec4 b1 = fetch4(b, b_width, bp + bstep);
        vec4 a2 = fetch4(a, a_width, ap + 2 * astep);
        vec4 b2 = fetch4(b, b_width, bp + 2 * bstep);
        vec4 a3 = fetch4(a, a_width, ap + 3 * astep);
        vec4 b3 = fetch4(b, b_width, bp + 3 * bstep);
        acc += a0 * b0;
        acc += a1 * b1;
        acc += a2 * b2;
        acc += a3 * b3;
        ap += 4 * astep;
        bp += 4 * bstep;
    }
    for (; l < k; ++l) {
        acc += fetch4(a, a_width, ap) * fetch4(b, b_width, bp);
        ap += astep;
        bp += bstep;
    }
    for (int ch = 0; ch < 4; ++ch) {
        if (live[ch]) {
            r[ch] = blas_update(alpha, acc[ch], beta, r[ch]);
        }
    }
    result = r;
}
