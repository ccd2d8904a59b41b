//! Headless EGL set-up: pick a device from the EGL device platform, create a surfaceless
//! GL 4.3 (else 3.3) core context on it and load the GL function table.

use std::ffi::CString;

use glutin::api::egl::{context::PossiblyCurrentContext, device::Device, display::Display};
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;

use crate::error::{Error, Result};

/// Which OpenGL flavour a context speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GlApi {
    /// Desktop OpenGL 3.3 core where the device offers it, else OpenGL ES 3.0.
    #[default]
    Auto,
    /// Desktop OpenGL 3.3 core profile.
    DesktopGl,
    /// OpenGL ES 3.0 (needs `EXT_color_buffer_float` to render into RGBA32F).
    Gles,
}

/// Extension that marks Mesa's software (llvmpipe) device.
const SOFTWARE_EXT: &str = "EGL_MESA_device_software";

/// What EGL says about one device.
#[derive(Debug, Clone)]
pub struct DeviceDesc {
    /// Index in the EGL device list (what `FRAGBLAS_DEVICE` selects).
    pub index: usize,
    /// Whether the device is a software rasteriser.
    pub software: bool,
    /// Device extensions, sorted.
    pub extensions: Vec<String>,
}

/// The EGL objects one context keeps alive.
pub(crate) struct EglContext {
    context: PossiblyCurrentContext,
    // Kept so the display outlives the context; glutin never terminates a shared display.
    _display: Display,
}

impl Drop for EglContext {
    fn drop(&mut self) {
        // EGL destroys a context only once no thread has it current: release it from this
        // thread first, or a context dropped on a thread that then ends (a SharedContext's
        // GL thread) would never be freed. Whatever context was current here is not any more.
        use glutin::context::PossiblyCurrentGlContext;
        let _ = self.context.make_not_current_in_place();
    }
}

impl EglContext {
    /// Makes this context current on the calling thread.
    pub(crate) fn make_current(&self) -> Result<()> {
        self.context
            .make_current_surfaceless()
            .map_err(|e| Error::Context(format!("eglMakeCurrent failed: {e}")))
    }
}

const INSTALL_HINT: &str = "install an EGL driver: on Debian/Ubuntu `apt-get install libegl1 \
     libegl-mesa0 libgl1-mesa-dri` for Mesa (software llvmpipe works without a GPU), or the \
     GPU vendor's driver with its EGL library";

fn devices() -> Result<Vec<Device>> {
    let list = Device::query_devices().map_err(|e| {
        Error::NoDevice(format!(
            "could not enumerate EGL devices ({e}); libEGL.so.1 or EGL_EXT_device_enumeration \
             is missing: {INSTALL_HINT}"
        ))
    })?;
    Ok(list.collect())
}

/// Lists the EGL devices in the order `FRAGBLAS_DEVICE` indexes them.
pub fn list_devices() -> Result<Vec<DeviceDesc>> {
    Ok(devices()?
        .iter()
        .enumerate()
        .map(|(index, d)| describe(index, d))
        .collect())
}

fn describe(index: usize, d: &Device) -> DeviceDesc {
    let mut extensions: Vec<String> = d.extensions().iter().map(|s| s.to_string()).collect();
    extensions.sort();
    DeviceDesc {
        index,
        software: d.extensions().contains(SOFTWARE_EXT),
        extensions,
    }
}

/// Creates a context on device `index`, or on the first hardware device that works, falling
/// back to a software one, when `index` is `None`.
pub(crate) fn create(
    index: Option<usize>,
    api: GlApi,
) -> Result<(EglContext, GlFns, DeviceDesc, GlApi)> {
    let devs = devices()?;
    if devs.is_empty() {
        return Err(Error::NoDevice(format!(
            "EGL lists no devices: {INSTALL_HINT}"
        )));
    }
    if let Some(i) = index {
        let d = devs.get(i).ok_or_else(|| {
            Error::NoDevice(format!(
                "device index {i} requested but EGL lists {} device(s) (indices 0..{})",
                devs.len(),
                devs.len() - 1
            ))
        })?;
        return create_any(d, api).map(|(c, g, a)| (c, g, describe(i, d), a));
    }
    // Hardware first, then software; in EGL's order within each group.
    let mut order: Vec<usize> = (0..devs.len()).collect();
    order.sort_by_key(|&i| devs[i].extensions().contains(SOFTWARE_EXT));
    let mut failures = Vec::new();
    for i in order {
        match create_any(&devs[i], api) {
            Ok((c, g, a)) => return Ok((c, g, describe(i, &devs[i]), a)),
            Err(e) => {
                log::warn!("EGL device {i} gave no {api:?} context, trying the next: {e}");
                failures.push(format!("device {i}: {e}"));
            }
        }
    }
    Err(Error::NoDevice(format!(
        "no EGL device gave a {api:?} context ({}); {INSTALL_HINT}",
        failures.join("; ")
    )))
}

/// Creates a context of the requested API; `Auto` tries desktop GL, then GLES.
fn create_any(device: &Device, api: GlApi) -> Result<(EglContext, GlFns, GlApi)> {
    match api {
        GlApi::Auto => match create_on(device, GlApi::DesktopGl) {
            Ok((c, g)) => Ok((c, g, GlApi::DesktopGl)),
            Err(gl_err) => create_on(device, GlApi::Gles)
                .inspect(|_| log::info!("no desktop GL context ({gl_err}); using OpenGL ES"))
                .map(|(c, g)| (c, g, GlApi::Gles))
                .map_err(|es_err| {
                    Error::Context(format!("desktop GL 3.3: {gl_err}; GLES 3.0: {es_err}"))
                }),
        },
        other => create_on(device, other).map(|(c, g)| (c, g, other)),
    }
}

fn create_on(device: &Device, api: GlApi) -> Result<(EglContext, GlFns)> {
    let gles = api == GlApi::Gles;
    // SAFETY: `None` is the documented argument for a device display; the device comes from
    // EGL's own enumeration and outlives this call.
    let display = unsafe { Display::with_device(device, None) }
        .map_err(|e| Error::Context(format!("eglGetPlatformDisplay(device) failed: {e}")))?;
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_api(if gles { Api::GLES3 } else { Api::OPENGL })
        .build();
    // SAFETY: the template is a valid, fully built glutin template.
    let config = unsafe { display.find_configs(template) }
        .map_err(|e| Error::Context(format!("eglChooseConfig failed: {e}")))?
        .next()
        .ok_or_else(|| Error::Context(format!("no EGL config supports {api:?}")))?;
    // The newest version the kernels can use first (GL 4.3 / GLES 3.1 bring image stores;
    // some drivers, NVIDIA's among them, give exactly the version asked for), then the
    // minimum the crate needs.
    let versions: [(u8, u8); 2] = if gles {
        [(3, 1), (3, 0)]
    } else {
        [(4, 3), (3, 3)]
    };
    let mut not_current = None;
    let mut last_err = String::new();
    for (major, minor) in versions {
        let attrs = if gles {
            ContextAttributesBuilder::new()
                .with_context_api(ContextApi::Gles(Some(Version::new(major, minor))))
                .build(None)
        } else {
            ContextAttributesBuilder::new()
                .with_profile(GlProfile::Core)
                .with_context_api(ContextApi::OpenGl(Some(Version::new(major, minor))))
                .build(None)
        };
        // SAFETY: `config` belongs to `display`; no window handle is involved.
        match unsafe { display.create_context(&config, &attrs) } {
            Ok(c) => {
                not_current = Some(c);
                break;
            }
            Err(e) => {
                log::debug!("{api:?} {major}.{minor} context refused: {e}");
                last_err = format!("{major}.{minor}: {e}");
            }
        }
    }
    let not_current = not_current
        .ok_or_else(|| Error::Context(format!("eglCreateContext ({api:?}) failed: {last_err}")))?;
    let context = not_current
        .make_current_surfaceless()
        .map_err(|e| Error::Context(format!("surfaceless eglMakeCurrent failed: {e}")))?;
    // SAFETY: the context is current; eglGetProcAddress returns entry points valid for it.
    let gl = unsafe {
        glow::Context::from_loader_function(|name| {
            let c = CString::new(name).expect("GL function names have no NUL");
            display.get_proc_address(&c)
        })
    };
    // glow has no wrapper for glFramebufferParameteri (GL 4.3, GLES 3.1), which sizes a
    // framebuffer without attachments for the image-store kernels; look it up directly.
    let fb_param = display.get_proc_address(c"glFramebufferParameteri");
    // SAFETY: a non-null address returned for this name is the GL entry point
    // `void glFramebufferParameteri(GLenum, GLenum, GLint)` of the current context.
    let fb_param = (!fb_param.is_null()).then(|| unsafe {
        std::mem::transmute::<*const std::ffi::c_void, FramebufferParameteri>(fb_param)
    });
    Ok((
        EglContext {
            context,
            _display: display,
        },
        GlFns {
            glow: gl,
            framebuffer_parameteri: fb_param,
        },
    ))
}

/// The GL entry points of one context: glow's table and the one call glow lacks.
pub(crate) struct GlFns {
    pub glow: glow::Context,
    pub framebuffer_parameteri: Option<FramebufferParameteri>,
}

/// `glFramebufferParameteri(target, pname, param)`.
pub(crate) type FramebufferParameteri = unsafe extern "system" fn(u32, u32, i32);
