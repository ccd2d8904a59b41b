use glow::HasContext;
use glutin::api::egl::{device::Device, display::Display};
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;
use std::ffi::CString;

const VS: &str = r#"#version 430
uniform ivec4 rects[64];
uniform vec2 fb;
void main() {
    int r = gl_VertexID / 6;
    int v = gl_VertexID % 6;
    ivec2 cs[6] = ivec2[6](ivec2(0,0), ivec2(1,0), ivec2(0,1), ivec2(1,0), ivec2(1,1), ivec2(0,1));
    ivec4 R = rects[r];
    vec2 p = vec2(R.xy + cs[v] * R.zw) / fb * 2.0 - 1.0;
    gl_Position = vec4(p, 0.0, 1.0);
}"#;

const FS_ID: &str = r#"#version 430
#extension GL_NV_shader_thread_group : require
layout(r32i, binding = 0) uniform writeonly iimage2D img;
void main() {
    imageStore(img, ivec2(gl_FragCoord.xy), ivec4(int(gl_SMIDNV) * 1000 + int(gl_WarpIDNV)));
}"#;

const FS_WORK: &str = r#"
#if MODE == 3
layout(rgba32f, binding = 0) uniform image2D img;
#else
layout(rgba32f, binding = 0) writeonly uniform image2D img;
#endif
uniform sampler2D src;
uniform int iters;
uniform float s;
uniform float t;
void main() {
    vec4 a0 = vec4(gl_FragCoord.x * 1e-6) + vec4(0.0, 0.1, 0.2, 0.3), a1 = a0 + 1.0, a2 = a0 + 2.0, a3 = a0 + 3.0;
    vec4 a4 = a0 + 4.0, a5 = a0 + 5.0, a6 = a0 + 6.0, a7 = a0 + 7.0;
    vec4 m = vec4(s) + vec4(0.0, 1e-5, 2e-5, 3e-5), c = vec4(t) + vec4(0.0, 1e-4, 2e-4, 3e-4);
    for (int i = 0; i < iters; ++i) {
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
    }
    vec4 r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    ivec2 at = ivec2(gl_FragCoord.xy) & 1023;
#if MODE == 1 || MODE == 2
    r += texelFetch(src, at, 0);
#elif MODE == 3
    r += imageLoad(img, at);
#endif
    imageStore(img, at, r);
}"#;

const FS_STRIP: &str = r#"
layout(rgba32f, binding = 0) writeonly uniform image2D img;
#if SRC == 0
layout(std140, binding = 0) uniform AStrip { vec4 a[512]; } strip;
#define A(i) strip.a[i]
#elif SRC == 2
layout(std140, binding = 0) uniform AStrip { vec4 a[BLOCK]; } strips4[4];
#elif SRC == 3
layout(std140, binding = 0) uniform AStrip { vec4 a[4096]; } strip;
#define A(i) strip.a[goff + (i)]
#else
layout(std430, binding = 0) readonly buffer AS { vec4 a[]; } strip;
#define A(i) strip.a[i]
#endif
uniform sampler2D bt;
uniform int kc;
#ifdef REAL_B
uniform int q0;
uniform int quads;
#endif
#ifdef REAL_C
uniform sampler2D csrc;
uniform int c_off;
#endif
#define STEP(b, l) { vec4 lo = A(2 * (l)); vec4 hi = A(2 * (l) + 1); \
  c0 += lo.x * b; c1 += lo.y * b; c2 += lo.z * b; c3 += lo.w * b; \
  c4 += hi.x * b; c5 += hi.y * b; c6 += hi.z * b; c7 += hi.w * b; }
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 c0 = vec4(0.0), c1 = vec4(0.0), c2 = vec4(0.0), c3 = vec4(0.0);
    vec4 c4 = vec4(0.0), c5 = vec4(0.0), c6 = vec4(0.0), c7 = vec4(0.0);
#ifdef REAL_B
    int rband = p.y / BANDROWS;
    int ryb = p.y - rband * BANDROWS;
    int q_all = (p.x >> 1) * (BANDROWS / 2) + (ryb >> 1);
    int qq = min(q_all, quads - 1);
    ivec2 bq = ivec2(2 * (qq + q0) + (p.x & 1), ryb & 1);
#else
    ivec2 bq = ivec2(p.x & 511, p.y & 1);
#endif
#define LOOP for (int l = 0; l < kc; l += 4) { \
        vec4 b0 = texelFetch(bt, bq + ivec2(0, 2 * l), 0); \
        vec4 b1 = texelFetch(bt, bq + ivec2(0, 2 * (l + 1)), 0); \
        vec4 b2 = texelFetch(bt, bq + ivec2(0, 2 * (l + 2)), 0); \
        vec4 b3 = texelFetch(bt, bq + ivec2(0, 2 * (l + 3)), 0); \
        STEP(b0, l) STEP(b1, l + 1) STEP(b2, l + 2) STEP(b3, l + 3) }
#if SRC == 3
    int goff = ((p.y / BANDROWS) % 4) * OFFSTEP;
#endif
#if SRC == 2
    int g = (p.y / BANDROWS) % 4;
    if (g == 0) {
#define A(i) strips4[0].a[i]
        LOOP
#undef A
    } else if (g == 1) {
#define A(i) strips4[1].a[i]
        LOOP
#undef A
    } else if (g == 2) {
#define A(i) strips4[2].a[i]
        LOOP
#undef A
    } else {
#define A(i) strips4[3].a[i]
        LOOP
#undef A
    }
#else
    LOOP
#endif
#ifdef REAL_C
    // The real kernel's update of C: 8 texels of C read and written a fragment.
    vec4 pr[8] = vec4[8](c0, c1, c2, c3, c4, c5, c6, c7);
    int rb = p.y / BANDROWS;
    int j = 4 * ((p.x >> 1) * (BANDROWS / 2) + ((p.y % BANDROWS) >> 1)) + (p.x & 1) + 2 * (p.y & 1);
    for (int l = 0; l < 4; ++l) {
        int t = (c_off + 8 * (rb % 32) + (4 * j + l) * 256) >> 2;
        for (int h = 0; h < 2; ++h) {
            ivec2 at = ivec2((t + h) & 1023, ((t + h) >> 10) & 1023);
            vec4 old = texelFetch(csrc, at, 0);
            imageStore(img, at, old * 0.5 + vec4(pr[4 * h][l], pr[4 * h + 1][l], pr[4 * h + 2][l], pr[4 * h + 3][l]));
        }
    }
#else
    imageStore(img, p & 1023, c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7);
#endif
}"#;

unsafe fn prog(gl: &glow::Context, fs: &str) -> Option<glow::Program> {
    let p = gl.create_program().unwrap();
    for (ty, src) in [(glow::VERTEX_SHADER, VS), (glow::FRAGMENT_SHADER, fs)] {
        let sh = gl.create_shader(ty).unwrap();
        gl.shader_source(sh, src);
        gl.compile_shader(sh);
        if !gl.get_shader_compile_status(sh) {
            println!("compile failed: {}", gl.get_shader_info_log(sh));
            return None;
        }
        gl.attach_shader(p, sh);
    }
    gl.link_program(p);
    if !gl.get_program_link_status(p) {
        panic!("{}", gl.get_program_info_log(p));
    }
    Some(p)
}

type Rect = [i32; 4];

unsafe fn set_rects(gl: &glow::Context, p: glow::Program, rects: &[Rect]) {
    let flat: Vec<i32> = rects.iter().flatten().copied().collect();
    let l = gl.get_uniform_location(p, "rects[0]");
    gl.uniform_4_i32_slice(l.as_ref(), &flat);
}

/// Mean GPU us per draw over `reps` draws of `draws` (each a list of rects).
/// GPU us a draw over `reps` draws of `r`, `before(i)` ahead of draw i (one warm-up draw
/// first, without it).
unsafe fn time_rect(gl: &glow::Context, p: glow::Program, r: Rect, reps: usize, mut before: impl FnMut(usize)) -> f64 {
    set_rects(gl, p, &[r]);
    gl.draw_arrays(glow::TRIANGLES, 0, 6);
    gl.finish();
    let q = gl.create_query().unwrap();
    gl.begin_query(glow::TIME_ELAPSED, q);
    for i in 0..reps {
        before(i);
        set_rects(gl, p, &[r]);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
    }
    gl.end_query(glow::TIME_ELAPSED);
    let mut ns: u64 = 0;
    gl.get_query_parameter_u64_with_offset(q, glow::QUERY_RESULT, &mut ns as *mut u64 as usize);
    gl.delete_query(q);
    ns as f64 / 1000.0 / reps as f64
}

unsafe fn time(gl: &glow::Context, p: glow::Program, draws: &[Vec<Rect>], reps: usize) -> (f64, f64) {
    // warm
    for d in draws {
        set_rects(gl, p, d);
        gl.draw_arrays(glow::TRIANGLES, 0, 6 * d.len() as i32);
    }
    gl.finish();
    let q = gl.create_query().unwrap();
    let t0 = std::time::Instant::now();
    gl.begin_query(glow::TIME_ELAPSED, q);
    for _ in 0..reps {
        for d in draws {
            set_rects(gl, p, d);
            gl.draw_arrays(glow::TRIANGLES, 0, 6 * d.len() as i32);
        }
    }
    gl.end_query(glow::TIME_ELAPSED);
    gl.finish();
    let wall = t0.elapsed().as_secs_f64() * 1e6 / (reps * draws.len()) as f64;
    let mut ns: u64 = 0;
    gl.get_query_parameter_u64_with_offset(q, glow::QUERY_RESULT, &mut ns as *mut u64 as usize);
    gl.delete_query(q);
    (ns as f64 / 1000.0 / (reps * draws.len()) as f64, wall)
}

fn main() {
    let dev = Device::query_devices().unwrap().next().unwrap();
    let display = unsafe { Display::with_device(&dev, None) }.unwrap();
    let tmpl = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_api(Api::OPENGL)
        .build();
    let config = unsafe { display.find_configs(tmpl) }.unwrap().next().unwrap();
    let attrs = ContextAttributesBuilder::new()
        .with_profile(GlProfile::Core)
        .with_context_api(ContextApi::OpenGl(Some(Version::new(4, 3))))
        .build(None);
    let ctx = unsafe { display.create_context(&config, &attrs) }.unwrap();
    let _cur = ctx.make_current_surfaceless().unwrap();
    let gl = unsafe {
        glow::Context::from_loader_function(|n| {
            let c = CString::new(n).unwrap();
            display.get_proc_address(&c)
        })
    };
    let fbp: unsafe extern "system" fn(u32, u32, i32) =
        unsafe { std::mem::transmute(display.get_proc_address(c"glFramebufferParameteri")) };
    unsafe {
        println!("renderer: {}", gl.get_parameter_string(glow::RENDERER));
        let vao = gl.create_vertex_array().unwrap();
        gl.bind_vertex_array(Some(vao));
        let fbo = gl.create_framebuffer().unwrap();
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(fbo));
        let (fw, fh) = (4096, 4096);
        fbp(glow::DRAW_FRAMEBUFFER, glow::FRAMEBUFFER_DEFAULT_WIDTH, fw);
        fbp(glow::DRAW_FRAMEBUFFER, glow::FRAMEBUFFER_DEFAULT_HEIGHT, fh);
        gl.viewport(0, 0, fw, fh);
        // SM map
        let idt = gl.create_texture().unwrap();
        gl.bind_texture(glow::TEXTURE_2D, Some(idt));
        let n = 1024;
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::R32I, n, n);
        gl.bind_image_texture(0, Some(idt), 0, false, 0, glow::WRITE_ONLY, glow::R32I);
        if std::env::var("SKIP_MAP").is_err() { if let Some(pid) = prog(&gl, FS_ID) {
        gl.use_program(Some(pid));
        let l = gl.get_uniform_location(pid, "fb");
        gl.uniform_2_f32(l.as_ref(), fw as f32, fh as f32);
        let read = |gl: &glow::Context| {
            gl.memory_barrier(glow::ALL_BARRIER_BITS);
            let mut buf = vec![0u8; (n * n * 4) as usize];
            gl.get_tex_image(glow::TEXTURE_2D, 0, glow::RED_INTEGER, glow::INT, glow::PixelPackData::Slice(Some(&mut buf)));
            let v: Vec<i32> = buf.chunks(4).map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
            v
        };
        set_rects(&gl, pid, &[[0, 0, n, n]]);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        let v = read(&gl);
        let mut sms: Vec<i32> = v.iter().map(|x| x / 1000).collect();
        sms.sort();
        sms.dedup();
        println!("SMs seen in {n}x{n}: {:?}", sms);
        // map of 8x8 blocks over 256x256: SM id of the block's first pixel, plus whether uniform
        println!("SM of each 8x8 block (x across, y down), 0..256:");
        for by in 0..32 {
            let mut line = String::new();
            for bx in 0..32 {
                let s0 = v[(by * 8 * n + bx * 8) as usize] / 1000;
                let mut uni = true;
                for yy in 0..8 {
                    for xx in 0..8 {
                        if v[((by * 8 + yy) * n + bx * 8 + xx) as usize] / 1000 != s0 {
                            uni = false;
                        }
                    }
                }
                line += &format!("{:>3}{}", s0, if uni { ' ' } else { '*' });
            }
            println!("{line}");
        }
        println!("SM of each 64x64 block, 0..1024:");
        for by in 0..16 {
            let mut line = String::new();
            for bx in 0..16 {
                let mut h = std::collections::BTreeMap::new();
                for yy in 0..64 {
                    for xx in 0..64 {
                        *h.entry(v[((by * 64 + yy) * n + bx * 64 + xx) as usize] / 1000).or_insert(0) += 1;
                    }
                }
                line += &format!("{:?} ", h.keys().collect::<Vec<_>>());
            }
            println!("{line}");
        }
        for r in [[0, 0, 8, 32], [0, 0, 16, 32]] {
            let sentinel = vec![-1i32; (n * n) as usize];
            gl.tex_sub_image_2d(glow::TEXTURE_2D, 0, 0, 0, n, n, glow::RED_INTEGER, glow::INT, glow::PixelUnpackData::Slice(Some(bytemuck_cast(&sentinel))));
            set_rects(&gl, pid, &[r]);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            let v = read(&gl);
            println!("warps of rect {:?} (SM*1000+warp id per pixel, y down):", r);
            for y in 0..r[3] {
                let mut line = String::new();
                for x in 0..r[2] {
                    line += &format!("{:>6}", v[(y * n + x) as usize]);
                }
                println!("{line}");
            }
        }
        // small rects: SMs used
        for r in [[0, 0, 8, 32], [0, 0, 8, 64], [0, 0, 16, 16], [0, 0, 32, 8], [0, 0, 64, 8], [0, 0, 256, 8], [0, 0, 32, 32], [0, 0, 64, 64]] {
            let sentinel = vec![-1i32; (n * n) as usize];
            gl.tex_sub_image_2d(glow::TEXTURE_2D, 0, 0, 0, n, n, glow::RED_INTEGER, glow::INT, glow::PixelUnpackData::Slice(Some(bytemuck_cast(&sentinel))));
            set_rects(&gl, pid, &[r]);
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
            let v = read(&gl);
            let mut h = std::collections::BTreeMap::new();
            for x in v.iter().filter(|&&x| x >= 0) {
                *h.entry(x / 1000).or_insert(0) += 1;
            }
            println!("rect {:?}: fragments per SM {:?}", r, h);
        }
        } }
        // timing
        let wt = gl.create_texture().unwrap();
        gl.bind_texture(glow::TEXTURE_2D, Some(wt));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA32F, 1024, 1024);
        gl.bind_image_texture(0, Some(wt), 0, false, 0, glow::WRITE_ONLY, glow::RGBA32F);
        let t1 = gl.create_texture().unwrap();
        gl.bind_texture(glow::TEXTURE_2D, Some(t1));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA32F, 1024, 1024);
        let mut mode_cases = Vec::new();
        for mode in 0..if std::env::var("SKIP_MODES").is_ok() { 0 } else { 4 } {
            let src = format!("#version 430\n#define MODE {mode}\n{FS_WORK}");
            let pw = prog(&gl, &src).unwrap();
            gl.use_program(Some(pw));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(if mode == 2 { wt } else { t1 }));
            gl.bind_image_texture(0, Some(wt), 0, false, 0, if mode == 3 { glow::READ_WRITE } else { glow::WRITE_ONLY }, glow::RGBA32F);
            let l = gl.get_uniform_location(pw, "fb");
            gl.uniform_2_f32(l.as_ref(), fw as f32, fh as f32);
            let l = gl.get_uniform_location(pw, "s");
            gl.uniform_1_f32(l.as_ref(), 0.999);
            let l = gl.get_uniform_location(pw, "t");
            gl.uniform_1_f32(l.as_ref(), 0.001);
            let li = gl.get_uniform_location(pw, "iters");
            for iters in [256, 64] {
                gl.uniform_1_i32(li.as_ref(), iters);
                for r in [[0, 0, 8, 32], [0, 0, 4, 32], [0, 0, 64, 64], [0, 0, 256, 256]] {
                    let (us, wall) = time(&gl, pw, &[vec![r]], 200);
                    let frags = r[2] * r[3];
                    mode_cases.push(format!("mode {mode} (0 none, 1 other tex, 2 same tex, 3 imageLoad) iters {iters} rect {:?}: {us:.2} us/draw (wall {wall:.2}) {:.0} GFMA/s", r, frags as f64 * 32.0 * iters as f64 / us / 1000.0));
                    println!("{}", mode_cases.last().unwrap());
                }
            }
        }
        // strip-like kernels
        let ubo = gl.create_buffer().unwrap();
        gl.bind_buffer(glow::UNIFORM_BUFFER, Some(ubo));
        let data: Vec<f32> = (0..65536 / 4).map(|i| (i % 7) as f32 * 0.01).collect();
        gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, bytemuck_f32(&data), glow::STATIC_DRAW);
        let big = gl.create_buffer().unwrap();
        gl.bind_buffer(glow::UNIFORM_BUFFER, Some(big));
        let bdata: Vec<f32> = (0..(65536 * 8) / 4).map(|i| (i % 7) as f32 * 0.01).collect();
        gl.buffer_data_u8_slice(glow::UNIFORM_BUFFER, bytemuck_f32(&bdata), glow::STATIC_DRAW);
        let btd: Vec<f32> = (0..1024 * 1024 * 4).map(|i| (i % 5) as f32 * 0.1).collect();
        gl.bind_texture(glow::TEXTURE_2D, Some(t1));
        gl.tex_sub_image_2d(glow::TEXTURE_2D, 0, 0, 0, 1024, 1024, glow::RGBA, glow::FLOAT, glow::PixelUnpackData::Slice(Some(bytemuck_f32(&btd))));
        gl.bind_image_texture(0, Some(wt), 0, false, 0, glow::WRITE_ONLY, glow::RGBA32F);
        let br: i32 = std::env::var("BANDROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(8);
        let strip_cases: &[(usize, bool, i32)] = if std::env::var("SKIP_STRIP").is_ok() {
            &[]
        } else {
            &[(0, false, 0), (2, false, 512), (3, false, 512), (3, false, 0)]
        };
        for &(srcm, rebind, block) in strip_cases {
            let same = srcm == 22;
            let srcm = if same { 2 } else { srcm };
            let pw = prog(&gl, &format!("#version 430\n#define SRC {srcm}\n#define BLOCK {block}\n#define OFFSTEP {block}\n#define BANDROWS {br}\n{FS_STRIP}")).unwrap();
            gl.use_program(Some(pw));
            let l = gl.get_uniform_location(pw, "fb");
            gl.uniform_2_f32(l.as_ref(), fw as f32, fh as f32);
            let l = gl.get_uniform_location(pw, "kc");
            gl.uniform_1_i32(l.as_ref(), 256);
            let target = if srcm == 0 { glow::UNIFORM_BUFFER } else { glow::SHADER_STORAGE_BUFFER };
            gl.bind_buffer_range(target, 0, Some(ubo), 0, 8192);
            let bytes = block * 16;
            if srcm == 3 {
                gl.bind_buffer_range(glow::UNIFORM_BUFFER, 0, Some(big), 0, 65536);
            }
            if srcm == 2 {
                for g in 0..4 {
                    let off = if same { 0 } else { (g as i32) * bytes };
                    gl.bind_buffer_range(glow::UNIFORM_BUFFER, g, Some(big), off, bytes);
                    let idx = gl.get_uniform_block_index(pw, &format!("AStrip[{g}]")).unwrap();
                    gl.uniform_block_binding(pw, idx, g);
                }
            }
            for r in [[0, 0, 8, 4 * br], [0, 0, 4, 4 * br], [0, 0, 64, 64]] {
                let us = time_rect(&gl, pw, r, 200, |i| {
                    if rebind && srcm == 2 {
                        for g in 0..4u32 {
                            let off = ((i % 2) * 4 + g as usize) as i32 * bytes;
                            gl.bind_buffer_range(glow::UNIFORM_BUFFER, g, Some(big), off, bytes);
                        }
                    } else if rebind {
                        gl.bind_buffer_range(target, 0, Some(ubo), 8192 * (i % 4) as i32, 8192);
                    }
                });
                let frags = r[2] * r[3];
                println!("strip bandrows {br} src {} block/offstep {block} same {same} rebind {rebind} rect {:?}: {us:.2} us/draw  {:.0} GFMA/s", ["ubo", "ssbo", "4 ubos", "1 ubo, band offsets"][srcm], r, frags as f64 * 8192.0 / us / 1000.0);
            }
        }
        if std::env::var("REAL").is_ok() {
            // The strip-like loop grown toward the batched kernel: B from a quads texture as
            // wide as 100 products of 256 columns with each draw's product's offset (REAL_B),
            // then the update of C (REAL_C); 1 block and 4 (if-chain); draws of 8 x 4*BANDROWS.
            let bt2 = gl.create_texture().unwrap();
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(bt2));
            gl.tex_storage_2d(glow::TEXTURE_2D, 1, glow::RGBA32F, 3200, 512);
            let b2: Vec<f32> = (0..3200 * 512 * 4).map(|i| (i % 5) as f32 * 0.1).collect();
            gl.tex_sub_image_2d(glow::TEXTURE_2D, 0, 0, 0, 3200, 512, glow::RGBA, glow::FLOAT, glow::PixelUnpackData::Slice(Some(bytemuck_f32(&b2))));
            gl.active_texture(glow::TEXTURE1);
            gl.bind_texture(glow::TEXTURE_2D, Some(wt));
            gl.active_texture(glow::TEXTURE0);
            for (name, defs) in [("plain B", ""), ("real B", "#define REAL_B 1\n"), ("real B + C", "#define REAL_B 1\n#define REAL_C 1\n")] {
                for srcm in [0, 2] {
                    let pw = prog(&gl, &format!("#version 430\n#define SRC {srcm}\n#define BLOCK 512\n#define OFFSTEP 512\n#define BANDROWS {br}\n{defs}{FS_STRIP}")).unwrap();
                    gl.use_program(Some(pw));
                    let l = gl.get_uniform_location(pw, "fb");
                    gl.uniform_2_f32(l.as_ref(), fw as f32, fh as f32);
                    let l = gl.get_uniform_location(pw, "kc");
                    gl.uniform_1_i32(l.as_ref(), 256);
                    let l = gl.get_uniform_location(pw, "quads");
                    gl.uniform_1_i32(l.as_ref(), 16);
                    let l = gl.get_uniform_location(pw, "csrc");
                    gl.uniform_1_i32(l.as_ref(), 1);
                    let lq = gl.get_uniform_location(pw, "q0");
                    let lc = gl.get_uniform_location(pw, "c_off");
                    gl.bind_buffer_range(glow::UNIFORM_BUFFER, 0, Some(ubo), 0, 8192);
                    if srcm == 2 {
                        for g in 0..4 {
                            gl.bind_buffer_range(glow::UNIFORM_BUFFER, g, Some(big), (g as i32) * 8192, 8192);
                            let idx = gl.get_uniform_block_index(pw, &format!("AStrip[{g}]")).unwrap();
                            gl.uniform_block_binding(pw, idx, g);
                        }
                    }
                    for r in [[0, 0, 8, 4 * br], [0, 0, 64, 64]] {
                        let reps: usize = std::env::var("REAL_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(800);
                        let us = time_rect(&gl, pw, r, reps, |i| {
                            // Draw i: strips 4(i % 8) .. of product i / 8, as the batched draws.
                            gl.uniform_1_i32(lq.as_ref(), ((i / 8) % 100) as i32 * 16);
                            gl.uniform_1_i32(lc.as_ref(), ((i / 8) % 16) as i32 * 65536 + (i % 8) as i32 * 32);
                        });
                        let frags = r[2] * r[3];
                        println!("real-like {name} bandrows {br} {} rect {:?}: {us:.2} us/draw  {:.0} GFMA/s", ["1 ubo", "", "4 ubos"][srcm], r, frags as f64 * 8192.0 / us / 1000.0);
                    }
                }
            }
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
        gl.bind_image_texture(0, Some(wt), 0, false, 0, glow::WRITE_ONLY, glow::RGBA32F);
        let pw = prog(&gl, &format!("#version 430\n#define MODE 0\n{FS_WORK}")).unwrap();
        gl.use_program(Some(pw));
        let l = gl.get_uniform_location(pw, "fb");
        gl.uniform_2_f32(l.as_ref(), fw as f32, fh as f32);
        let l = gl.get_uniform_location(pw, "s");
        gl.uniform_1_f32(l.as_ref(), 0.999);
        let l = gl.get_uniform_location(pw, "t");
        gl.uniform_1_f32(l.as_ref(), 0.001);
        let li = gl.get_uniform_location(pw, "iters");
        gl.uniform_1_i32(li.as_ref(), 256); // 8192 FMA a fragment
        let one = |r: Rect| vec![vec![r]];
        let cases: Vec<(String, Vec<Vec<Rect>>)> = vec![
            ("8x32 one draw".into(), one([0, 0, 8, 32])),
            ("8x64".into(), one([0, 0, 8, 64])),
            ("16x16".into(), one([0, 0, 16, 16])),
            ("32x32".into(), one([0, 0, 32, 32])),
            ("64x64".into(), one([0, 0, 64, 64])),
            ("128x128".into(), one([0, 0, 128, 128])),
            ("256x256".into(), one([0, 0, 256, 256])),
            ("1024x256".into(), one([0, 0, 1024, 256])),
        ];
        let mut cases = cases;
        for sp in [8, 16, 32, 64, 128, 256, 512] {
            cases.push((format!("4 rects 8x8 x-spaced {sp}"), vec![(0..4).map(|g| [g * sp, 0, 8, 8]).collect()]));
            cases.push((format!("4 rects 8x8 y-spaced {sp}"), vec![(0..4).map(|g| [0, g * sp, 8, 8]).collect()]));
            cases.push((format!("4 rects 8x32 x-spaced {sp}"), vec![(0..4).map(|g| [g * sp.max(8), 0, 8, 32]).collect()]));
            cases.push((format!("16 rects 8x8 x-spaced {sp}"), vec![(0..16).map(|g| [g * sp, 0, 8, 8]).collect()]));
            cases.push((format!("16 rects 8x32 grid spaced {sp}"), vec![(0..16).map(|g| [(g % 4) * sp.max(8), (g / 4) * sp.max(32), 8, 32]).collect()]));
        }
        cases.push(("2 draws alternating 8x32 at 0 and 256".into(), vec![vec![[0, 0, 8, 32]], vec![[256, 0, 8, 32]]]));
        cases.push(("2 draws alternating 8x32 at 0 and (0,256)".into(), vec![vec![[0, 0, 8, 32]], vec![[0, 256, 8, 32]]]));
        for (name, d) in &cases {
            let (us, wall) = time(&gl, pw, d, 100);
            let frags: i32 = d[0].iter().map(|r| r[2] * r[3]).sum();
            println!("{name:<44} {us:>9.2} us/draw (wall {wall:>9.2}) {frags} fragments/draw  {:.0} GFMA/s", frags as f64 * 8192.0 / us / 1000.0);
        }
        // with a barrier between draws
        let _ = gl.get_error();
    }
}

fn bytemuck_f32(v: &[f32]) -> &[u8] {
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 4) }
}

fn bytemuck_cast(v: &[i32]) -> &[u8] {
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 4) }
}
