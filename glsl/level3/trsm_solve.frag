// One inner step of the blocked triangular solve (blas/level3/trsm.rs) on W (rows x cols,
// column-major, leading dimension rows): in every column, the unknowns of the step, rows
// order(0..steps) with order(k) = s0 + dir*k, are solved against the triangle T (column-
// major from t_off, leading dimension ldt); every unknown before them in solve order is
// final and its contribution already subtracted. A lane of the step recomputes its column's
// substitution from the step's first unknown to its own (at most STEP of them, so cheap):
// v_r = W(r, j) - sum T(r, q) v_q over the unknowns q solved before r, then v_r / T(r, r)
// unless the diagonal is unit. With skip_zero (reference's column-oriented loops, the
// non-transposed left solves), a zero v_q neither updates nor is divided. Other lanes pass
// through. STEP is defined before this file.
uniform sampler2D w;
uniform int w_width;
uniform int rows;
uniform int cols;
uniform sampler2D tri;
uniform int tri_width;
uniform int t_off;
uniform int ldt;
uniform int s0;
uniform int dir;
uniform int steps;
uniform int unit_diag;
uniform int skip_zero;

layout(location = 0) out vec4 result;

float t_at(int r, int q) {
    return load_elem(tri, tri_width, t_off + r + q * ldt);
}

void main() {
    int tt = frag_texel(w_width);
    vec4 v = texelFetch(w, ivec2(gl_FragCoord.xy), 0);
    for (int c = 0; c < 4; ++c) {
        int e = 4 * tt + c;
        int j = e / rows;
        int i = e - j * rows;
        int k = (i - s0) * dir;  // place of row i among the step's unknowns
        if (j >= cols || k < 0 || k >= steps) {
            continue;
        }
        float sol[STEP];
        for (int p = 0; p <= k; ++p) {
            int r = s0 + dir * p;
            float x = load_elem(w, w_width, r + j * rows);
            for (int q = 0; q < p; ++q) {
                if (skip_zero == 0 || sol[q] != 0.0) {
                    x -= t_at(r, s0 + dir * q) * sol[q];
                }
            }
            if (unit_diag == 0 && (skip_zero == 0 || x != 0.0)) {
                x /= t_at(r, r);
            }
            sol[p] = x;
        }
        v[c] = sol[k];
    }
    result = v;
}
