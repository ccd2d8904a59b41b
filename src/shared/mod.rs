//! A handle any thread may use: [`SharedContext`] owns a thread that holds the GL context;
//! calls from any thread travel to it as jobs over a channel and their results come back.
//! [`SharedBuffer`]s are ids of buffers kept on that thread. Every routine of the device API
//! and of the host (`cblas`) API has a method of the same name (`routines.rs`, one line per
//! routine); [`SharedContext::with`] and [`SharedContext::with_buffers`] run a closure on the
//! GL thread for batches of calls.
//!
//! Semantics: calls from one thread run in the order it made them; calls from different
//! threads are serialised on the GL thread; a call from the GL thread itself (inside a
//! closure) is [`Error::Reentrant`], not a deadlock; a panic inside a call becomes that
//! caller's [`Error::Panicked`] and the handle keeps working; the GL thread ends, freeing
//! everything, when the last clone of the handle and the last buffer are dropped.

mod routines;

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use crate::device::buffer::{Buffer, PendingRead};
use crate::device::context::{Context, ContextOptions, DeviceInfo};
use crate::error::{Error, Result};
use crate::layout::TexLayout;

pub use routines::SharedCblas;

thread_local! {
    /// Whether this thread is the GL thread of some shared handle.
    static ON_GL_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// How long a caller polls for its reply (yielding in between) before it sleeps: waking a
/// sleeping thread costs tens of microseconds (more under gVisor), longer than most calls.
const REPLY_SPIN: std::time::Duration = std::time::Duration::from_millis(2);

/// What runs on the GL thread.
type Job = Box<dyn FnOnce(&mut GlState) + Send>;

/// A message to the GL thread.
enum Msg {
    /// Run a job.
    Job(Job),
    /// A buffer's handle was dropped: free it.
    FreeBuffer(u64),
    /// A pending read's handle was dropped: finish and free it.
    FreeRead(u64),
}

/// What the GL thread owns: the context and the objects the handles name.
pub(crate) struct GlState {
    // Buffers and reads are dropped before the context (field order).
    buffers: HashMap<u64, RefCell<Buffer>>,
    reads: HashMap<u64, PendingRead>,
    ctx: Context,
}

impl GlState {
    /// The buffer of handle `id`, to read.
    fn buf(&self, id: u64) -> Result<Ref<'_, Buffer>> {
        let cell = self.buffers.get(&id).ok_or(Error::Disconnected)?;
        cell.try_borrow().map_err(|_| Error::Reentrant)
    }

    /// The buffer of handle `id`, to write.
    fn buf_mut(&self, id: u64) -> Result<RefMut<'_, Buffer>> {
        let cell = self.buffers.get(&id).ok_or(Error::Disconnected)?;
        cell.try_borrow_mut().map_err(|_| Error::Reentrant)
    }
}

/// The state every clone of a handle and every buffer share.
struct Shared {
    tx: Mutex<Option<mpsc::Sender<Msg>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    gl_thread: std::thread::ThreadId,
    info: DeviceInfo,
    next_id: AtomicU64,
}

impl Shared {
    /// Sends a message to the GL thread (or gives it back when the thread is gone).
    fn post(&self, msg: Msg) -> std::result::Result<(), Msg> {
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        match tx.as_ref() {
            Some(tx) => tx.send(msg).map_err(|e| e.0),
            None => Err(msg),
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Closing the channel ends the GL thread's loop once it has run what was sent.
        self.tx.lock().unwrap_or_else(|e| e.into_inner()).take();
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            // The last reference may be dropped on the GL thread itself (inside a job):
            // it cannot wait for itself; it ends when that job returns.
            if std::thread::current().id() != self.gl_thread {
                let _ = h.join();
            }
        }
    }
}

/// A handle to one GL context that any thread may use: `Send + Sync + Clone`, clones share
/// the context. The context lives on a thread of its own; see the module's notes for the
/// semantics. For single-threaded programs [`Context`] is simpler and a little faster.
///
/// ```
/// use fragblas::SharedContext;
/// let ctx = SharedContext::new()?;
/// let x = ctx.upload(&[1.0, 2.0, 3.0])?;
/// let mut y = ctx.upload(&[1.0, 1.0, 1.0])?;
/// std::thread::scope(|s| {
///     s.spawn(|| ctx.saxpy(3, 2.0, &x, 1, &mut y, 1)).join().unwrap()
/// })?;
/// assert_eq!(y.to_vec()?, vec![3.0, 5.0, 7.0]);
/// # Ok::<(), fragblas::Error>(())
/// ```
#[derive(Clone)]
pub struct SharedContext {
    shared: Arc<Shared>,
}

/// A vector of floats on the GPU of a [`SharedContext`]: `Send + Sync`, usable and droppable
/// from any thread (the texture is freed on the GL thread).
pub struct SharedBuffer {
    id: u64,
    layout: TexLayout,
    shared: Arc<Shared>,
}

/// A readback started with [`SharedBuffer::read_async`], finished from any thread.
pub struct SharedPendingRead {
    id: u64,
    len: usize,
    shared: Arc<Shared>,
}

impl SharedContext {
    /// A handle to a new context with default options (see [`Context::new`]).
    pub fn new() -> Result<Self> {
        Self::with_options(ContextOptions::default())
    }

    /// A handle to a new context with `options` (device, API, tuning...), on a new thread.
    pub fn with_options(options: ContextOptions) -> Result<Self> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let (ready_tx, ready_rx) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("fragblas-gl".into())
            .spawn(move || {
                ON_GL_THREAD.with(|c| c.set(true));
                let ctx = match Context::with_options(options) {
                    Ok(ctx) => ctx,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(ctx.info().clone()));
                let mut state = GlState {
                    buffers: HashMap::new(),
                    reads: HashMap::new(),
                    ctx,
                };
                while let Ok(msg) = rx.recv() {
                    match msg {
                        Msg::Job(job) => job(&mut state),
                        Msg::FreeBuffer(id) => {
                            state.buffers.remove(&id);
                        }
                        Msg::FreeRead(id) => {
                            state.reads.remove(&id);
                        }
                    }
                }
            })
            .map_err(|e| Error::Context(format!("starting the GL thread: {e}")))?;
        let gl_thread = thread.thread().id();
        let info = match ready_rx.recv() {
            Ok(r) => r?,
            Err(_) => return Err(Error::Disconnected),
        };
        Ok(SharedContext {
            shared: Arc::new(Shared {
                tx: Mutex::new(Some(tx)),
                thread: Mutex::new(Some(thread)),
                gl_thread,
                info,
                next_id: AtomicU64::new(1),
            }),
        })
    }

    /// The device behind the context.
    pub fn info(&self) -> &DeviceInfo {
        &self.shared.info
    }

    /// Runs `f` on the GL thread and returns its result: the one path every call takes.
    fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut GlState) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        if ON_GL_THREAD.with(|c| c.get()) {
            return Err(Error::Reentrant);
        }
        let (reply_tx, reply_rx) = mpsc::sync_channel(1);
        let job: Job = Box::new(move |state| {
            let r = catch_unwind(AssertUnwindSafe(|| f(state))).unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".into());
                Err(Error::Panicked(msg))
            });
            let _ = reply_tx.send(r);
        });
        self.shared
            .post(Msg::Job(job))
            .map_err(|_| Error::Disconnected)?;
        // A short call answers within microseconds to a millisecond: poll (yielding the
        // core) before sleeping, since waking a sleeping thread costs tens of microseconds.
        let start = std::time::Instant::now();
        while start.elapsed() < REPLY_SPIN {
            for _ in 0..32 {
                match reply_rx.try_recv() {
                    Ok(r) => return r,
                    Err(mpsc::TryRecvError::Empty) => std::thread::yield_now(),
                    Err(mpsc::TryRecvError::Disconnected) => return Err(Error::Disconnected),
                }
            }
        }
        reply_rx.recv().map_err(|_| Error::Disconnected)?
    }

    /// Runs `f` with the context on the GL thread: for batches of calls, or anything the
    /// handle has no method for. Calling the handle from inside `f` is
    /// [`Error::Reentrant`]; a panic in `f` is [`Error::Panicked`].
    ///
    /// ```
    /// let ctx = fragblas::SharedContext::new()?;
    /// let renderer = ctx.with(|c| c.info().renderer.clone())?;
    /// assert!(!renderer.is_empty());
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn with<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Context) -> R + Send + 'static,
    ) -> Result<R> {
        self.call(move |st| Ok(f(&st.ctx)))
    }

    /// Runs `f` on the GL thread with the context and the buffers behind `inputs` (to read)
    /// and `outputs` (to write), in order.
    ///
    /// ```
    /// use fragblas::SharedContext;
    /// let ctx = SharedContext::new()?;
    /// let x = ctx.upload(&[1.0, 2.0])?;
    /// let mut y = ctx.zeros(2)?;
    /// ctx.with_buffers(&[&x], &mut [&mut y], |c, ins, outs| {
    ///     c.scopy(2, ins[0], 1, &mut outs[0], 1)?;
    ///     c.sscal(2, 3.0, &mut outs[0], 1)
    /// })??;
    /// assert_eq!(y.to_vec()?, vec![3.0, 6.0]);
    /// # Ok::<(), fragblas::Error>(())
    /// ```
    pub fn with_buffers<R: Send + 'static>(
        &self,
        inputs: &[&SharedBuffer],
        outputs: &mut [&mut SharedBuffer],
        f: impl FnOnce(&Context, &[&Buffer], &mut [Buffer]) -> R + Send + 'static,
    ) -> Result<R> {
        for b in inputs {
            self.check_owner(b, "inputs")?;
        }
        for b in outputs.iter() {
            self.check_owner(b, "outputs")?;
        }
        let ins: Vec<u64> = inputs.iter().map(|b| b.id).collect();
        let outs: Vec<u64> = outputs.iter().map(|b| b.id).collect();
        self.call(move |st| {
            // Outputs leave the table for the call (so the closure owns them) and return.
            let mut taken = Vec::with_capacity(outs.len());
            for id in &outs {
                match st.buffers.remove(id) {
                    Some(b) => taken.push((*id, b.into_inner())),
                    None => {
                        for (id, b) in taken {
                            st.buffers.insert(id, RefCell::new(b));
                        }
                        return Err(Error::ForeignBuffer { param: "outputs" });
                    }
                }
            }
            let result = {
                let refs: Result<Vec<Ref<'_, Buffer>>> = ins.iter().map(|id| st.buf(*id)).collect();
                match refs {
                    Ok(refs) => {
                        let ins: Vec<&Buffer> = refs.iter().map(|r| &**r).collect();
                        let mut bufs: Vec<Buffer> = Vec::new();
                        let ids: Vec<u64> = taken.iter().map(|(id, _)| *id).collect();
                        bufs.extend(taken.drain(..).map(|(_, b)| b));
                        let r = catch_unwind(AssertUnwindSafe(|| f(&st.ctx, &ins, &mut bufs)));
                        taken = ids.into_iter().zip(bufs).collect();
                        r.map_err(|_| Error::Panicked("in with_buffers".into()))
                    }
                    Err(e) => Err(e),
                }
            };
            for (id, b) in taken {
                st.buffers.insert(id, RefCell::new(b));
            }
            result
        })
    }

    /// The host (`cblas`) API through this handle: `ctx.cblas().sgemm(..)` takes what
    /// `cblas::sgemm` takes, less the context. Host slices are copied to the GL thread and
    /// outputs copied back.
    pub fn cblas(&self) -> SharedCblas<'_> {
        SharedCblas { ctx: self }
    }

    /// Blocks until every call made so far has finished on the GPU.
    pub fn finish(&self) -> Result<()> {
        self.call(|st| st.ctx.finish())
    }

    /// Errors unless `b` belongs to this handle.
    fn check_owner(&self, b: &SharedBuffer, param: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.shared, &b.shared) {
            Ok(())
        } else {
            Err(Error::ForeignBuffer { param })
        }
    }

    /// Registers a buffer made on the GL thread by `make`, as a new handle.
    fn new_buffer(
        &self,
        make: impl FnOnce(&GlState) -> Result<Buffer> + Send + 'static,
    ) -> Result<SharedBuffer> {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let layout = self.call(move |st| {
            let b = make(st)?;
            let layout = b.layout();
            st.buffers.insert(id, RefCell::new(b));
            Ok(layout)
        })?;
        Ok(SharedBuffer {
            id,
            layout,
            shared: self.shared.clone(),
        })
    }

    /// A zero-filled buffer of `len` floats.
    pub fn zeros(&self, len: usize) -> Result<SharedBuffer> {
        self.new_buffer(move |st| st.ctx.zeros(len))
    }

    /// A buffer holding a copy of `data`.
    pub fn upload(&self, data: &[f32]) -> Result<SharedBuffer> {
        let data = data.to_vec();
        self.new_buffer(move |st| st.ctx.upload(&data))
    }
}

impl SharedBuffer {
    /// Number of floats.
    pub fn len(&self) -> usize {
        self.layout.len
    }

    /// Whether the buffer holds no floats.
    pub fn is_empty(&self) -> bool {
        self.layout.len == 0
    }

    /// The texture shape behind the buffer.
    pub fn layout(&self) -> TexLayout {
        self.layout
    }

    fn handle(&self) -> SharedContext {
        handle(&self.shared)
    }

    /// The whole buffer as a new vector.
    pub fn to_vec(&self) -> Result<Vec<f32>> {
        let id = self.id;
        self.handle().call(move |st| st.buf(id)?.to_vec())
    }

    /// Reads the first `out.len()` floats into `out` (see [`Buffer::read_into`]).
    pub fn read_into(&self, out: &mut [f32]) -> Result<()> {
        let (id, n) = (self.id, out.len());
        let v = self.handle().call(move |st| {
            let mut v = vec![0.0; n];
            st.buf(id)?.read_into(&mut v)?;
            Ok(v)
        })?;
        out.copy_from_slice(&v);
        Ok(())
    }

    /// Overwrites the buffer with `data` (exactly its length; see [`Buffer::write`]).
    pub fn write(&mut self, data: &[f32]) -> Result<()> {
        let (id, data) = (self.id, data.to_vec());
        self.handle().call(move |st| st.buf_mut(id)?.write(&data))
    }

    /// Copies `src` (same length, same handle) into this buffer on the GPU.
    pub fn copy_from(&mut self, src: &SharedBuffer) -> Result<()> {
        self.handle().check_owner(src, "src")?;
        let (id, src) = (self.id, src.id);
        self.handle()
            .call(move |st| st.buf_mut(id)?.copy_from(&*st.buf(src)?))
    }

    /// A new buffer holding a copy of this one.
    pub fn try_clone(&self) -> Result<SharedBuffer> {
        let src = self.id;
        let h = self.handle();
        let id = h.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let layout = h.call(move |st| {
            let b = st.buf(src)?.try_clone()?;
            let layout = b.layout();
            st.buffers.insert(id, RefCell::new(b));
            Ok(layout)
        })?;
        Ok(SharedBuffer {
            id,
            layout,
            shared: self.shared.clone(),
        })
    }

    /// Starts reading the buffer back without waiting (see [`Buffer::read_async`]); the
    /// result can be waited for from any thread.
    pub fn read_async(&self) -> Result<SharedPendingRead> {
        let src = self.id;
        let h = self.handle();
        let id = h.shared.next_id.fetch_add(1, Ordering::Relaxed);
        h.call(move |st| {
            let r = st.buf(src)?.read_async()?;
            st.reads.insert(id, r);
            Ok(())
        })?;
        Ok(SharedPendingRead {
            id,
            len: self.len(),
            shared: self.shared.clone(),
        })
    }
}

/// A handle on the GL thread behind `shared`, for a buffer or pending read to post calls to.
fn handle(shared: &Arc<Shared>) -> SharedContext {
    SharedContext {
        shared: shared.clone(),
    }
}

impl Drop for SharedBuffer {
    fn drop(&mut self) {
        // Never blocks; a gone thread has freed everything already.
        let _ = self.shared.post(Msg::FreeBuffer(self.id));
    }
}

impl std::fmt::Debug for SharedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBuffer")
            .field("id", &self.id)
            .field("len", &self.layout.len)
            .finish()
    }
}

impl SharedPendingRead {
    /// Number of floats it reads.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it reads nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the data has arrived (never waits for the GPU).
    pub fn is_ready(&self) -> Result<bool> {
        let id = self.id;
        handle(&self.shared)
            .call(move |st| st.reads.get(&id).ok_or(Error::Disconnected)?.is_ready())
    }

    /// Waits for the data and returns it.
    pub fn wait(self) -> Result<Vec<f32>> {
        let id = self.id;
        handle(&self.shared).call(move |st| st.reads.remove(&id).ok_or(Error::Disconnected)?.wait())
    }
}

impl Drop for SharedPendingRead {
    fn drop(&mut self) {
        // After `wait` the read is gone already; the message then frees nothing.
        let _ = self.shared.post(Msg::FreeRead(self.id));
    }
}

impl std::fmt::Debug for SharedContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedContext")
            .field("renderer", &self.shared.info.renderer)
            .finish()
    }
}

/// The handles are `Send + Sync`: checked when the crate compiles.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<SharedContext>();
    send_sync::<SharedBuffer>();
    send_sync::<SharedPendingRead>();
    send_sync::<Error>();
};
