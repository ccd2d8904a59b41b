// sgemv, vectorised kernel: computes the four results 4t..4t+3 of op(A)*x (without alpha,
// beta) over one chunk of the summed index, reading A as vec4 texels. A is stored
// column-major, rows x cols, with a leading dimension that is a multiple of 4, so four
// consecutive rows of a column are one texel; x has increment 1, so four consecutive
// elements are one texel.
//   trans == 0: result i = sum_l A(i, l) x_l: per column l one texel of A (rows 4t..4t+3).
//   trans != 0: result i = sum_l A(l, i) x_l: column i of A is contiguous; per four l one
//               texel of A for each of the four outputs and one texel of x.
// The summed index is split into chunks of `chunk` texels (4 values each): chunk s is drawn
// into rows s*band_rows .. of the target, each band laid out like the output vector; a
// reduction pass adds the bands. Texel positions advance by addition, not division, inside
// the loop. Lanes of A past `rows` (the gap up to lda, which may hold anything) are masked.
uniform sampler2D a;
uniform int a_width;
uniform int lda;
uniform int trans;
uniform int rows;
uniform int cols;
uniform sampler2D x;
uniform int x_width;
uniform int out_width;
uniform int out_texels;
uniform int band_rows;
uniform int chunk;

layout(location = 0) out vec4 result;

// Position of texel t in a texture `w` texels wide.
ivec2 texel_pos(int t, int w) {
    return ivec2(t % w, t / w);
}

// The position `d` texels further on, with d given as (d % w, d / w).
ivec2 advance(ivec2 p, ivec2 d, int w) {
    p += d;
    if (p.x >= w) {
        p.x -= w;
        p.y += 1;
    }
    return p;
}

void main() {
    ivec2 f = ivec2(gl_FragCoord.xy);
    int s = f.y / band_rows;
    int t = (f.y - s * band_rows) * out_width + f.x;
    vec4 acc = vec4(0.0);
    if (t >= out_texels) {
        result = acc;
        return;
    }
    int ld4 = lda >> 2;
    int total = trans == 0 ? (cols + 3) >> 2 : (rows + 3) >> 2;
    int lb0 = s * chunk;
    int lb1 = min(lb0 + chunk, total);
    ivec2 one = ivec2(1, 0);
    ivec2 xp = texel_pos(lb0, x_width);
    if (trans == 0) {
        // x_l for l in 4lb..4lb+3 comes in one texel; columns past cols are zero in x's lanes
        // and their texels of A are not read.
        ivec2 col = ivec2(ld4 % a_width, ld4 / a_width);
        ivec2 ap = texel_pos(t + 4 * lb0 * ld4, a_width);
        for (int lb = lb0; lb < lb1; ++lb) {
            vec4 xv = select4(vec4(0.0), texelFetch(x, xp, 0), live_lanes(lb, cols));
            xp = advance(xp, one, x_width);
            acc += texelFetch(a, ap, 0) * xv.x;
            ap = advance(ap, col, a_width);
            if (4 * lb + 1 < cols) acc += texelFetch(a, ap, 0) * xv.y;
            ap = advance(ap, col, a_width);
            if (4 * lb + 2 < cols) acc += texelFetch(a, ap, 0) * xv.z;
            ap = advance(ap, col, a_width);
            if (4 * lb + 3 < cols) acc += texelFetch(a, ap, 0) * xv.w;
            ap = advance(ap, col, a_width);
        }
    } else {
        // Outputs past cols read column cols-1; they are discarded.
        int i0 = 4 * t;
        ivec2 p0 = texel_pos(min(i0, cols - 1) * ld4 + lb0, a_width);
        ivec2 p1 = texel_pos(min(i0 + 1, cols - 1) * ld4 + lb0, a_width);
        ivec2 p2 = texel_pos(min(i0 + 2, cols - 1) * ld4 + lb0, a_width);
        ivec2 p3 = texel_pos(min(i0 + 3, cols - 1) * ld4 + lb0, a_width);
        for (int lb = lb0; lb < lb1; ++lb) {
            bvec4 live = live_lanes(lb, rows);
            vec4 xv = select4(vec4(0.0), texelFetch(x, xp, 0), live);
            xp = advance(xp, one, x_width);
            acc.x += dot(select4(vec4(0.0), texelFetch(a, p0, 0), live), xv);
            acc.y += dot(select4(vec4(0.0), texelFetch(a, p1, 0), live), xv);
            acc.z += dot(select4(vec4(0.0), texelFetch(a, p2, 0), live), xv);
            acc.w += dot(select4(vec4(0.0), texelFetch(a, p3, 0), live), xv);
            p0 = advance(p0, one, a_width);
            p1 = advance(p1, one, a_width);
            p2 = advance(p2, one, a_width);
            p3 = advance(p3, one, a_width);
        }
    }
    result = acc;
}
