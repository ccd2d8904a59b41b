// Rank-1 and rank-2 updates of a triangle in packed storage (kinds 1 and 2 of rank.frag:
// sspr, sspr2), in place through image stores, after packed.glsl.
//
// The grid's fragments go in groups of RUN (1 << run_shift) side by side: fragment
// (gx, gy), lane l = gx % RUN of group g = gx / RUN, updates the texels
// (g*RUN*per + l + k*RUN, gy), k < per, of A's texture. At each step the fragments of a
// warp store a small 2D block of neighbouring texels (RUN in a row, in neighbouring rows),
// as level 1's in-place passes do (on the H100, runs down each column of the triangle
// instead, which touch one texture row at a time, ran at about half this rate), and a
// fragment's texels follow each other closely (4*RUN elements a step), so that it crosses
// few columns: on the H200 (session 41) sspr 4096's kernel took 405 us with a fragment's
// texels a_width / per apart (a column crossed every few steps, a crossing somewhere in a
// warp at almost every step), 319 with runs of 8. A fragment locates its first texel's
// column once (a square root) and then follows the columns as its texels advance. A
// texel wholly inside one column is updated as a vector: its rows i..i+3 of x (and y) are
// one fetch from x's (y's) shifted copies (shifted.frag; copy i & 3 holds them in texel
// i >> 2), with the column's factor, fetched one column ahead (with BLOCKS, the copies
// from a storage buffer), and A's next texel is fetched before this one is stored (a
// fetch in flight across the store: 319 -> 294 us). A texel where a column ends takes its
// lanes from the two columns it spans (the rare texel that spans more, lane by lane),
// each with its own column's factor. As in reference BLAS a column whose factors are all
// 0 keeps its elements (a NaN or Inf of x does not reach it): temp = alpha*x_j (and
// alpha*y_j), then A(i,j) + x_i*temp [+ y_i*temp2] in reference's order. Lanes past the
// array keep their bits.
uniform sampler2D a;
uniform int a_width;
uniform int cols;        // n
uniform int upper;
// KIND (defined when the program is built, or not): sspr2's update (2) fixed in its
// program; sspr's program takes `kind` (1) as a uniform. On the H200 (session 42) the
// benchmark table ran sspr2 4096 in 386-400 us with KIND against 396-416 without, but sspr
// 4096 in 323-334 against 290-304: sspr keeps the uniform. (Profiled draws, each timed
// alone, said otherwise: 15-19% faster with KIND for both.)
#ifdef KIND
const int kind = KIND;
#else
uniform int kind;        // 1: A += alpha x x^T; 2: A += alpha (x y^T + y x^T)
#endif
uniform int span;        // n(n+1)/2 elements
uniform float alpha;
uniform sampler2D xs;    // x's four shifted copies, then y's, m texels each
uniform int xs_shift;   // log2 of the copies' texture width (a power of 2)
uniform int m;

layout(binding = 0, rgba32f) writeonly uniform highp image2D a_out;
uniform int per;         // texels a fragment
uniform int run_shift;   // log2 of RUN, the fragments of a group

// The first element of column j.
uint col_start(int j) {
    return packed_col_start(j, cols, upper != 0);
}

int col_len(int j) {
    return upper != 0 ? j + 1 : cols - j;
}

int first_row(int j) {
    return upper != 0 ? 0 : j;
}

#ifndef BLOCKS
#define BLOCKS 0
#endif
#if BLOCKS
// The copies' texture in a storage buffer, row after row: the texture unit fetches only A.
layout(std430, binding = 0) readonly restrict buffer Copies {
    vec4 copies[];
};
#endif

// Texel t of the copies.
vec4 xs_texel(int t) {
#if BLOCKS
    return copies[t];
#else
    return texelFetch(xs, ivec2(t & ((1 << xs_shift) - 1), t >> xs_shift), 0);
#endif
}

// Logical element i of x (of y): copy 0 holds the vector in order.
float x_at(int i) {
    return xs_texel(i >> 2)[i & 3];
}

float y_at(int i) {
    return xs_texel(4 * m + (i >> 2))[i & 3];
}

// Rows i..i+3 of x (of y, base 4m).
vec4 rows4(int base, int i) {
    return xs_texel(base + (i & 3) * m + (i >> 2));
}

// Whether column j changes at all, with its factors x_j (and y_j).
bool column_factors(int j, out float xj, out float yj) {
    xj = x_at(j);
    if (kind == 1) {
        yj = 0.0;
        return xj != 0.0;
    }
    yj = y_at(j);
    return xj != 0.0 || yj != 0.0;
}

// Reference's update of elements whose rows hold xv (and yv) in a column of factors xj, yj.
vec4 updated(vec4 v, vec4 xv, vec4 yv, float xj, float yj) {
    if (kind == 1) {
        return v + xv * (alpha * xj);
    }
    return v + xv * (alpha * yj) + yv * (alpha * xj);
}

// The texel of elements e..e+3, lane by lane: e lies in column j (elements [e0, e1),
// factors xj, yj, live whether they are not all 0), later lanes may lie in the columns
// after it.
vec4 lanes_updated(vec4 v, uint e, int j, uint e0, uint e1, bool live, float xj, float yj) {
    for (int l = 0; l < 4; ++l, ++e) {
        if (e >= uint(span)) {
            break;
        }
        while (e >= e1) {
            j += 1;
            e0 = e1;
            e1 += uint(col_len(j));
            live = column_factors(j, xj, yj);
        }
        if (live) {
            int i = first_row(j) + int(e - e0);
            float xi = x_at(i);
            float yi = kind == 2 ? y_at(i) : 0.0;
            v[l] = updated(vec4(v[l]), vec4(xi), vec4(yi), xj, yj).x;
        }
    }
    return v;
}

void main() {
    ivec2 c = ivec2(gl_FragCoord.xy);
    int run = 1 << run_shift;
    c.x = (c.x >> run_shift) * run * per + (c.x & (run - 1));
    uint e = 4u * uint(c.y * a_width + c.x);
    if (c.x >= a_width || e >= uint(span)) {
        return;
    }
    int j = packed_col_of(e, cols, upper != 0);
    uint e0 = col_start(j);
    uint e1 = e0 + uint(col_len(j));
    float xj;
    float yj;
    bool live = column_factors(j, xj, yj);
    // The next column's factors, fetched before they are needed (a crossing then does not
    // wait for a fetch).
    float nx = 0.0;
    float ny = 0.0;
    bool next_live = j + 1 < cols && column_factors(j + 1, nx, ny);
    uint step = 4u * uint(run);
    vec4 next_a = texelFetch(a, c, 0);
    for (int k = 0; k < per; ++k) {
        if (c.x >= a_width || e >= uint(span)) {
            break;
        }
        vec4 v = next_a;
        next_a = texelFetch(a, ivec2(min(c.x + run, a_width - 1), c.y), 0);
        if (e + 3u < e1) {
            if (live) {
                int i = first_row(j) + int(e - e0);
                vec4 xv = rows4(0, i);
                vec4 yv = kind == 2 ? rows4(4 * m, i) : vec4(0.0);
                imageStore(a_out, c, updated(v, xv, yv, xj, yj));
            }
        } else if (j + 1 < cols && e + 3u < e1 + uint(col_len(j + 1))) {
            // Column j ends inside the texel and j + 1 holds the rest (all but the last
            // few columns): lanes [0, d) from rows i.. of column j, lanes [d, 4) from rows
            // r.. of column j + 1, with the factors in hand (a lane-by-lane walk, with
            // dependent fetches, cost 12% of sspr's time).
            int d = int(e1 - e);
            int i = first_row(j) + int(e - e0);
            int r = first_row(j + 1);
            vec4 xv = rows4(0, i);
            vec4 yv = kind == 2 ? rows4(4 * m, i) : vec4(0.0);
            vec4 xn = rows4(0, r);
            vec4 yn = kind == 2 ? rows4(4 * m, r) : vec4(0.0);
            // Column j + 1's rows moved up to lanes d..3.
            xn = d == 1 ? xn.xxyz : (d == 2 ? xn.xxxy : xn.xxxx);
            yn = d == 1 ? yn.xxyz : (d == 2 ? yn.xxxy : yn.xxxx);
            bvec4 first = lessThan(ivec4(0, 1, 2, 3), ivec4(d));
            vec4 mine = live ? updated(v, xv, yv, xj, yj) : v;
            vec4 next = next_live ? updated(v, xn, yn, nx, ny) : v;
            imageStore(a_out, c, select4(next, mine, first));
        } else {
            imageStore(a_out, c, lanes_updated(v, e, j, e0, e1, live, xj, yj));
        }
        c.x += run;
        e += step;
        if (e >= e1 && e < uint(span)) {
            int j0 = j;
            while (e >= e1) {
                j += 1;
                e0 = e1;
                e1 += uint(col_len(j));
            }
            if (j == j0 + 1) {
                xj = nx;
                yj = ny;
                live = next_live;
            } else {
                live = column_factors(j, xj, yj);
            }
            next_live = j + 1 < cols && column_factors(j + 1, nx, ny);
        }
    }
}
