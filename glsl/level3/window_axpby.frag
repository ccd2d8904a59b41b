// C's window (gemm_window.glsl) := alpha*op(A) + beta*C, where op(A)(i, j) is stored at
// a_off + i + j*lda (transposed with a_trans); beta == 0 does not read C, alpha == 0 does
// not read A. Everything else of C passes through. The blocked level-3 routines scale,
// copy and transpose sub-blocks with it.
uniform sampler2D a;
uniform int a_width;
uniform int a_off;
uniform int lda;
uniform int a_trans;
uniform sampler2D c;
uniform int c_width;
uniform float alpha;
uniform float beta;

#if IMAGE

// In place through image stores (GPUs with GL 4.3 / GLES 3.1), PER texels a fragment:
// fragment (g.x, g.y) of a grid over the rectangle from `origin` (grid_width fragments
// wide) updates its texels (origin.x + g.x + k*grid_width, origin.y + g.y), k < PER, so at
// each step a warp writes neighbouring texels, as level 1's in-place kernels do. A texel
// holds whole elements of C, each fragment its own texels: only the texels with an element
// in the window are read and written. A must not be C.
uniform ivec2 origin;
uniform int rect_width;
uniform int grid_width;
uniform int a_last;
// The window's (row, column) moves by (step_i, step_j) from one of a fragment's texels to
// the next (4*grid_width elements of C on, split by ldc on the CPU), so that a fragment
// divides once, not once a texel. `aligned`: C's and A's offsets and leading dimensions
// are multiples of 4 and A is not transposed, so a texel of C that holds one column's rows
// i0..i0+3 takes one texel of A.
uniform int step_i;
uniform int step_j;
uniform int aligned;
// With `aligned`: A's texel index moves by a_step (>= 0) where the window's place moves by
// (step_i, step_j) without wrapping into the next column; a_step2 is a_step as a texture
// step (% a_width, / a_width), so that those texels of A are found without a division.
uniform int a_step;
uniform ivec2 a_step2;

layout(binding = 0, rgba32f) writeonly uniform highp image2D c_out;

void main() {
    ivec2 g = ivec2(gl_FragCoord.xy);
    int y = origin.y + g.y;
    // The first texel's place in the window (d < 0: before it; then in_window for each).
    int d = 4 * (y * c_width + origin.x + g.x) - c_off;
    int jw = d >= 0 ? d / ldc : 0;
    int iw = d - jw * ldc;
    // The last aligned texel of A read, and where it lies.
    int ia_last = -1;
    ivec2 pa = ivec2(0);
    for (int k = 0; k < PER; ++k) {
        int dx = g.x + k * grid_width;
        if (dx >= rect_width) {
            break;
        }
        if (k > 0) {
            iw += step_i;
            jw += step_j;
            if (iw >= ldc) {
                iw -= ldc;
                ++jw;
            }
        }
        ivec2 q = ivec2(origin.x + dx, y);
        int e = 4 * (y * c_width + q.x);
        int i0 = iw;
        int j = jw;
        bool in0 = d >= 0 ? j < n && written(i0, j) : in_window(e, i0, j);
        // All four lanes in the window: one column's rows i0..i0+3.
        bool whole = in0 && i0 + 3 < m && (c_tri == 0 ? true
                                                       : (c_tri == 1 ? i0 + 3 + c_diag <= j
                                                                     : i0 + c_diag >= j));
        if (whole && beta == 0.0) {
            vec4 v = vec4(0.0);
            if (alpha != 0.0) {
                if (aligned != 0) {
                    int ia = (a_off + i0 + j * lda) >> 2;
                    pa = ia_last >= 0 && ia == ia_last + a_step ? advance(pa, a_step2, a_width)
                                                                : texel_pos(ia, a_width);
                    ia_last = ia;
                    v = texelFetch(a, pa, 0);
                } else {
                    v = a_trans == 0
                            ? load_run(a, a_width, a_last, a_off + i0 + j * lda)
                            : vec4(op_elem(a, a_width, a_off, lda, 1, i0, j),
                                   op_elem(a, a_width, a_off, lda, 1, i0 + 1, j),
                                   op_elem(a, a_width, a_off, lda, 1, i0 + 2, j),
                                   op_elem(a, a_width, a_off, lda, 1, i0 + 3, j));
                }
                v *= alpha;
            }
            imageStore(c_out, q, v);
            continue;
        }
        if (4 * (y * c_width + q.x) >= window_end()) {
            continue;
        }
        vec4 r = texelFetch(c, q, 0);
        bool any_in = false;
        for (int ch = 0; ch < 4; ++ch) {
            int i;
            int jj;
            if (in_window(e + ch, i, jj)) {
                float v = alpha != 0.0 ? op_elem(a, a_width, a_off, lda, a_trans, i, jj) : 0.0;
                r[ch] = blas_update(alpha, v, beta, r[ch]);
                any_in = true;
            }
        }
        if (any_in) {
            imageStore(c_out, q, r);
        }
    }
}

#else

layout(location = 0) out vec4 result;

void main() {
    int t = frag_texel(c_width);
    vec4 r = texelFetch(c, ivec2(gl_FragCoord.xy), 0);
    if (4 * t >= window_end()) {
        result = r;
        return;
    }
    for (int ch = 0; ch < 4; ++ch) {
        int i;
        int j;
        if (in_window(4 * t + ch, i, j)) {
            float v = alpha != 0.0 ? op_elem(a, a_width, a_off, lda, a_trans, i, j) : 0.0;
            r[ch] = blas_update(alpha, v, beta, r[ch]);
        }
    }
    result = r;
}

#endif
