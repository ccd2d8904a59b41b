//! Shader programs: compiling and linking (with the driver's log on failure), uniforms
//! looked up once per program, and uniform-block bindings.

use std::cell::RefCell;
use std::collections::HashMap;

use glow::HasContext;

use super::{Gl, GlWork, Surface};
use crate::error::{Error, Result};

/// A linked program with its uniform locations looked up once.
pub(crate) struct Program {
    name: &'static str,
    /// The kernel's file and defines (profiles name draws by it).
    pub(crate) label: std::rc::Rc<str>,
    program: glow::Program,
    locations: RefCell<HashMap<&'static str, Option<glow::UniformLocation>>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Program({})", self.name)
    }
}

impl Gl {
    /// Connects uniform block `name` of `p` to binding `binding`; a block the compiler
    /// removed is skipped.
    pub(crate) fn set_block_binding(&self, p: &Program, name: &str, binding: u32) {
        // SAFETY: `p` is a linked program of this context.
        unsafe {
            if let Some(index) = self.gl.get_uniform_block_index(p.program, name) {
                self.gl.uniform_block_binding(p.program, index, binding);
            }
        }
    }

    /// Compiles and links a program; failures carry the driver's log. The vertex shader
    /// object is compiled once per source and kept for every later program.
    pub(crate) fn compile(
        &self,
        (name, label): (&'static str, String),
        vs: &str,
        fs: &str,
    ) -> Result<Program> {
        let vertex = self.vertex_shader(name, vs)?;
        let fragment = self.compile_shader(name, glow::FRAGMENT_SHADER, fs)?;
        let gl = &self.gl;
        // SAFETY: current context; both shaders belong to it; the fragment shader is
        // deleted on every path, the kept vertex shader only detached.
        unsafe {
            let program = match gl.create_program() {
                Ok(p) => p,
                Err(e) => {
                    gl.delete_shader(fragment);
                    return Err(Error::Context(e));
                }
            };
            gl.attach_shader(program, vertex);
            gl.attach_shader(program, fragment);
            gl.link_program(program);
            let ok = gl.get_program_link_status(program);
            gl.detach_shader(program, vertex);
            gl.detach_shader(program, fragment);
            gl.delete_shader(fragment);
            if !ok {
                let log = gl.get_program_info_log(program);
                gl.delete_program(program);
                return Err(Error::ProgramLink { kernel: name, log });
            }
            Ok(Program {
                name,
                label: label.into(),
                program,
                locations: RefCell::new(HashMap::new()),
            })
        }
    }

    /// The compiled vertex shader of source `vs`: kept from an earlier program, or compiled
    /// now and kept.
    fn vertex_shader(&self, name: &'static str, vs: &str) -> Result<glow::Shader> {
        if let Some((_, sh)) = self.vertex_shaders.borrow().iter().find(|(s, _)| s == vs) {
            return Ok(*sh);
        }
        let sh = self.compile_shader(name, glow::VERTEX_SHADER, vs)?;
        self.vertex_shaders.borrow_mut().push((vs.to_owned(), sh));
        Ok(sh)
    }

    /// Compiles one shader; on failure it is deleted and the error carries the driver's log.
    fn compile_shader(&self, name: &'static str, kind: u32, src: &str) -> Result<glow::Shader> {
        let gl = &self.gl;
        // SAFETY: current context; the shader is deleted if it does not compile.
        unsafe {
            let sh = gl.create_shader(kind).map_err(Error::Context)?;
            gl.shader_source(sh, src);
            gl.compile_shader(sh);
            if !gl.get_shader_compile_status(sh) {
                let log = gl.get_shader_info_log(sh);
                gl.delete_shader(sh);
                return Err(Error::ShaderCompile { kernel: name, log });
            }
            Ok(sh)
        }
    }

    pub(crate) fn delete_program(&self, p: Program) {
        // SAFETY: created by this context, deleted once (by value).
        unsafe { self.gl.delete_program(p.program) }
    }

    fn location(&self, p: &Program, name: &'static str) -> Option<glow::UniformLocation> {
        p.locations
            .borrow_mut()
            .entry(name)
            // SAFETY: `p` is a linked program of this context.
            .or_insert_with(|| unsafe { self.gl.get_uniform_location(p.program, name) })
            .to_owned()
    }

    /// Makes `p` the current program.
    pub(crate) fn use_program(&self, p: &Program) {
        self.profile.set_program(&p.label);
        // SAFETY: `p` is a linked program of this context.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.use_program(Some(p.program))
        })
    }

    /// Binds `s` to texture unit `unit` and points sampler uniform `name` at it.
    /// A uniform the compiler optimised away is silently skipped (GL does the same).
    pub(crate) fn set_texture(&self, p: &Program, name: &'static str, unit: u32, s: &Surface) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current (callers use_program first), `s` is a live texture.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.active_texture(glow::TEXTURE0 + unit);
            self.gl.bind_texture(glow::TEXTURE_2D, Some(s.tex));
            self.gl.uniform_1_i32(loc.as_ref(), unit as i32);
        })
    }

    pub(crate) fn set_i32(&self, p: &Program, name: &'static str, v: i32) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.uniform_1_i32(loc.as_ref(), v)
        })
    }

    /// Sets the elements of int array uniform `name` from its first, one a value of `v`.
    pub(crate) fn set_i32_array(&self, p: &Program, name: &'static str, v: &[i32]) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL, and GL sets no more
        // elements than the array has.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.uniform_1_i32_slice(loc.as_ref(), v)
        })
    }

    pub(crate) fn set_ivec2(&self, p: &Program, name: &'static str, v: [i32; 2]) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.uniform_2_i32(loc.as_ref(), v[0], v[1])
        })
    }

    pub(crate) fn set_vec4(&self, p: &Program, name: &'static str, v: [f32; 4]) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.uniform_4_f32(loc.as_ref(), v[0], v[1], v[2], v[3])
        })
    }

    pub(crate) fn set_f32(&self, p: &Program, name: &'static str, v: f32) {
        let loc = self.location(p, name);
        // SAFETY: `p` is current; a missing location is a no-op in GL.
        self.profile.time(GlWork::State, || unsafe {
            self.gl.uniform_1_f32(loc.as_ref(), v)
        })
    }
}
