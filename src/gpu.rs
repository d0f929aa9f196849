//! The ground floor: a wgpu device and its queue, with what the layers above need to know of
//! them (features, limits, the device's options), error scopes, the record of uncaptured
//! errors and device loss, waiting for submitted work, and the driver lock.
//!
//! It knows nothing of arrays, pools, kernels or batches: `memory/` and `kernel/` work over a
//! [`Gpu`], and `device/` owns one and builds on all three.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::config::Options;
use crate::error::{Error, Result};

/// Serialises the driver calls that some drivers do not survive concurrently: instance,
/// device and pipeline creation (wgpu issues 10010 and 10234 report crashes when threads
/// create devices and pipelines at once). Pipelines are cached, so this costs nothing after
/// warm-up.
pub(crate) static DRIVER_LOCK: Mutex<()> = Mutex::new(());

/// Locks a mutex, ignoring poisoning (a panic elsewhere leaves our state consistent: every
/// critical section is a few plain assignments).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The limits gpuarray works within (the adapter's own, not WebGPU's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceLimits {
    /// Largest buffer, in bytes.
    pub max_buffer_size: u64,
    /// Largest storage binding, in bytes.
    pub max_storage_buffer_binding_size: u64,
    /// Workgroup memory per workgroup, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// Invocations per workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Workgroups per dispatch dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// Storage buffers per shader stage.
    pub max_storage_buffers_per_shader_stage: u32,
    /// Alignment of a storage binding's offset into its buffer, in bytes.
    pub min_storage_buffer_offset_alignment: u32,
}

impl DeviceLimits {
    fn of(l: &wgpu::Limits) -> DeviceLimits {
        DeviceLimits {
            max_buffer_size: l.max_buffer_size,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
            min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
        }
    }
}

/// What an error scope caught.
pub(crate) enum ScopeError {
    OutOfMemory,
    Validation(String),
}

/// A wgpu device and queue and the facts the layers above consult.
pub(crate) struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) features: wgpu::Features,
    pub(crate) limits: DeviceLimits,
    pub(crate) opts: Options,
    /// Storage buffers can be mapped by the host (UMA adapter with MAPPABLE_PRIMARY_BUFFERS).
    pub(crate) mappable_storage: bool,
    /// Dispatch parameters travel as immediates (push constants) rather than through the
    /// uniform arena: no buffer write per submit.
    pub(crate) immediates: bool,
    /// WGSL's `pack2x16float`, `unpack2x16float` and `quantizeToF16` are available.
    pub(crate) f16_in_f32: bool,
    /// The adapter's f64 fma is fused (the device's probe, set once after opening): the f64
    /// library's exact products take one fma (`Spec::f64_choices`).
    pub(crate) f64_fma_fused: bool,
    /// Counts the times a pool of this device released buffers to the driver: caches that
    /// hold buffers (bind groups) drop their entries when it changes, so that the memory is
    /// really released.
    pub(crate) released: Arc<AtomicU64>,
    errors: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
    /// Submits from a helper thread, where a submit runs the work before it returns (CPU
    /// adapters such as lavapipe): the caller waits for it no longer than the timeout.
    submitter: Option<Submitter>,
    /// How long a wait blocks before [`Error::Timeout`], in nanoseconds (the options'
    /// `timeout` at opening; [`Gpu::set_timeout`] changes it).
    timeout_ns: AtomicU64,
    /// On GL only, held around each call of this library that takes wgpu-hal's lock on the
    /// GL context ([`Gpu::gl_lock`]).
    gl: Option<GlLock>,
}

/// Serialises a GL device's driver calls in the library. wgpu-hal's GL backend holds one
/// lock on the GL context for each call, for a submit as long as llvmpipe runs the whole
/// submission, and panics (the device is lost) when a thread has waited 6 s for it: with
/// several threads on a loaded CPU, a buffer creation or a poll waited behind a long
/// submit and panicked. Threads that wait here wait without a limit, so wgpu's lock is
/// never contended. Taken only around single wgpu calls, never around code that takes it
/// again or waits for another thread that does.
pub(crate) type GlLock = Arc<Mutex<()>>;

impl Gpu {
    /// Wraps `device` and `queue`, installing an uncaptured-error handler and a device-lost
    /// callback that record what they see for [`Gpu::check`]. `immediates_size` is the size
    /// of the parameter block, which immediates must be able to hold.
    pub(crate) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        f16_in_f32: bool,
        opts: Options,
        mappable_storage: bool,
        immediates_size: usize,
        submit_thread: bool,
    ) -> Gpu {
        let features = device.features();
        let l = device.limits();
        let immediates = features.contains(wgpu::Features::IMMEDIATES)
            && l.max_immediate_size as usize >= immediates_size
            && opts.tuning.params != crate::config::ParamsPath::Uniform;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("gpuarray: uncaptured wgpu error: {e}");
            lock(&sink).push(e.to_string());
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *lock(&lost_sink) = Some(format!("{reason:?}: {msg}"));
        });
        let gl = (device.adapter_info().backend == wgpu::Backend::Gl).then(GlLock::default);
        let submitter = submit_thread
            .then(|| Submitter::new(&queue, gl.clone()))
            .flatten();
        Gpu {
            device,
            queue,
            submitter,
            features,
            limits: DeviceLimits::of(&l),
            mappable_storage,
            immediates,
            f16_in_f32,
            f64_fma_fused: false,
            released: Arc::new(AtomicU64::new(0)),
            errors,
            lost,
            timeout_ns: AtomicU64::new(duration_ns(opts.timeout)),
            opts,
            gl,
        }
    }

    /// On GL, the guard of the device's [`GlLock`], to hold around one wgpu call that
    /// reaches the GL context (creating, mapping, unmapping or dropping a buffer, writing
    /// through the queue, submitting, polling); `None` on other backends.
    pub(crate) fn gl_lock(&self) -> Option<MutexGuard<'_, ()>> {
        self.gl.as_deref().map(lock)
    }

    /// The device's [`GlLock`] on GL, for what outlives a borrow of the [`Gpu`] (pools).
    pub(crate) fn gl_handle(&self) -> Option<GlLock> {
        self.gl.clone()
    }

    /// Errors recorded since the last check: a lost device, uncaptured wgpu errors.
    pub(crate) fn check(&self) -> Result<()> {
        if let Some(msg) = lock(&self.lost).clone() {
            return Err(Error::DeviceLost(msg));
        }
        let mut errors = lock(&self.errors);
        if !errors.is_empty() {
            let msg = errors.join("\n");
            errors.clear();
            return Err(Error::Validation(msg));
        }
        Ok(())
    }

    /// [`Error::DeviceLost`] if the device was lost, destroyed or failed (a wait timed out);
    /// unlike [`Gpu::check`], leaves recorded validation errors for the next sync point.
    pub(crate) fn check_lost(&self) -> Result<()> {
        match lock(&self.lost).clone() {
            Some(msg) => Err(Error::DeviceLost(msg)),
            None => Ok(()),
        }
    }

    /// Whether the device was lost (or destroyed).
    pub(crate) fn is_lost(&self) -> bool {
        lock(&self.lost).is_some()
    }

    /// Marks the device lost for `reason` and destroys it.
    pub(crate) fn destroy(&self, reason: &str) {
        lock(&self.lost).get_or_insert_with(|| reason.into());
        self.device.destroy();
    }

    /// How long a wait blocks before [`Error::Timeout`].
    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_nanos(self.timeout_ns.load(Ordering::Relaxed))
    }

    /// Sets how long later waits block before [`Error::Timeout`].
    pub(crate) fn set_timeout(&self, t: Duration) {
        self.timeout_ns.store(duration_ns(t), Ordering::Relaxed);
    }

    /// Gives up on work that did not finish within `limit`: the device is marked failed
    /// (every later call returns [`Error::DeviceLost`] at once, never submitting again,
    /// since a submit behind unfinished work can block in the driver), and the error to
    /// return now.
    fn timed_out(&self, limit: Duration) -> Error {
        let seconds = limit.as_secs_f64();
        log::error!("gpuarray: work not done after {seconds} s; the device is now unusable");
        lock(&self.lost).get_or_insert_with(|| {
            format!(
                "an earlier wait timed out after {seconds} s with work still running; \
                 drop this device and open another"
            )
        });
        Error::Timeout { seconds }
    }

    /// The count of releases to the driver (see [`Gpu::released`]).
    pub(crate) fn releases(&self) -> u64 {
        self.released.load(Ordering::Relaxed)
    }

    /// Runs `f` inside validation and out-of-memory error scopes; returns what they caught.
    pub(crate) fn scoped<R>(&self, f: impl FnOnce(&wgpu::Device) -> R) -> (R, Option<ScopeError>) {
        let d = &self.device;
        let oom = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let r = {
            let _gl = self.gl_lock();
            f(d)
        };
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        let err = match (o, v) {
            (Some(_), _) => Some(ScopeError::OutOfMemory),
            (None, Some(e)) => Some(ScopeError::Validation(e.to_string())),
            (None, None) => None,
        };
        (r, err)
    }

    /// A buffer made inside error scopes: the driver's out-of-memory becomes
    /// [`Error::OutOfMemory`] (with `used` bytes reported), a validation error
    /// [`Error::Validation`].
    pub(crate) fn create_buffer(
        &self,
        desc: &wgpu::BufferDescriptor<'_>,
        used: u64,
    ) -> Result<wgpu::Buffer> {
        let (buffer, err) = self.scoped(|d| d.create_buffer(desc));
        match err {
            None => Ok(buffer),
            Some(ScopeError::OutOfMemory) => Err(Error::OutOfMemory {
                requested: desc.size,
                used,
                limit: u64::MAX,
            }),
            Some(ScopeError::Validation(m)) => Err(Error::Validation(m)),
        }
    }

    /// Submits `commands`. Where a submit runs the work before it returns (see
    /// [`Gpu::submitter`]), a helper thread submits and the caller gives up after the
    /// timeout ([`Gpu::timed_out`]).
    pub(crate) fn submit(&self, commands: wgpu::CommandBuffer) -> Result<wgpu::SubmissionIndex> {
        let Some(sub) = &self.submitter else {
            let _gl = self.gl_lock();
            return Ok(self.queue.submit([commands]));
        };
        let (reply, answer) = mpsc::sync_channel(1);
        let sent = lock(&sub.jobs).send((commands, reply));
        if sent.is_err() {
            return Err(Error::DeviceLost("the submitting thread ended".into()));
        }
        let limit = self.timeout();
        match answer.recv_timeout(limit) {
            Ok(index) => Ok(index),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(self.timed_out(limit)),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(Error::DeviceLost("the submitting thread ended".into()))
            }
        }
    }

    /// Polls without blocking, running any completed callbacks.
    pub(crate) fn poll(&self) {
        let _gl = self.gl_lock();
        let _ = self.device.poll(wgpu::PollType::Poll);
    }

    /// Whether no submission is in flight (polls without blocking, running completed
    /// callbacks; false where the poll fails).
    pub(crate) fn queue_empty(&self) -> bool {
        let _gl = self.gl_lock();
        self.device
            .poll(wgpu::PollType::Poll)
            .is_ok_and(|s| s.is_queue_empty())
    }

    /// Blocks until the submission (or all work, for `None`) is done, polling callbacks.
    /// Gives up with [`Error::Timeout`] after the timeout ([`Gpu::timed_out`]).
    pub(crate) fn wait(&self, index: Option<wgpu::SubmissionIndex>) -> Result<()> {
        let limit = self.timeout();
        let start = Instant::now();
        loop {
            self.check()?;
            let left = limit.saturating_sub(start.elapsed());
            // On GL the wait holds the GL lock: in short steps, so that other threads'
            // submits interleave.
            let step = if self.gl.is_some() {
                Duration::from_millis(20)
            } else {
                Duration::from_secs(1)
            };
            let r = {
                let _gl = self.gl_lock();
                self.device.poll(wgpu::PollType::Wait {
                    submission_index: index.clone(),
                    timeout: Some(left.clamp(Duration::from_millis(1), step)),
                })
            };
            match r {
                Ok(_) => return self.check(),
                Err(wgpu::PollError::Timeout) if start.elapsed() >= limit => {
                    return Err(self.timed_out(limit));
                }
                Err(wgpu::PollError::Timeout) => continue,
                Err(e) => {
                    self.check()?;
                    return Err(Error::DeviceLost(e.to_string()));
                }
            }
        }
    }

    /// Waits until `done()` holds, `done` being set by a callback of work up to `index`.
    /// Spins on non-blocking polls for up to the options' `spin` (short work finishes sooner
    /// than a blocking wait wakes up), then blocks.
    pub(crate) fn wait_until(
        &self,
        index: Option<wgpu::SubmissionIndex>,
        done: impl Fn() -> bool,
    ) -> Result<()> {
        let start = Instant::now();
        loop {
            self.poll();
            if done() {
                return self.check();
            }
            if start.elapsed() >= self.opts.spin {
                break;
            }
            std::hint::spin_loop();
        }
        let mut index = index;
        loop {
            self.wait(index.take())?;
            if done() {
                return Ok(());
            }
            let limit = self.timeout();
            if start.elapsed() >= limit {
                return Err(self.timed_out(limit));
            }
            // The work is done but its callback has not run yet: poll again shortly.
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    /// Whether the device has subgroup operations in compute shaders.
    pub(crate) fn has_subgroups(&self) -> bool {
        self.features.contains(wgpu::Features::SUBGROUP)
    }

    /// Whether the device has atomic adds on f32 in storage buffers.
    pub(crate) fn has_f32_atomics(&self) -> bool {
        self.features
            .contains(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    }

    /// Whether the device has wgpu's cooperative matrices (tensor cores).
    pub(crate) fn has_coop_matrix(&self) -> bool {
        self.features
            .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    }

    /// Naga capabilities matching the device's features, for validating shaders.
    pub(crate) fn naga_capabilities(&self) -> naga::valid::Capabilities {
        use naga::valid::Capabilities as C;
        let pairs = [
            (wgpu::Features::SHADER_F16, C::SHADER_FLOAT16),
            (wgpu::Features::SHADER_F64, C::FLOAT64),
            (wgpu::Features::SHADER_INT64, C::SHADER_INT64),
            (wgpu::Features::SUBGROUP, C::SUBGROUP),
            (wgpu::Features::IMMEDIATES, C::IMMEDIATES),
            (
                wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
                C::COOPERATIVE_MATRIX,
            ),
            (
                wgpu::Features::SHADER_FLOAT32_ATOMIC,
                C::SHADER_FLOAT32_ATOMIC,
            ),
        ];
        let mut caps = pairs
            .iter()
            .filter(|(f, _)| self.features.contains(*f))
            .fold(C::empty(), |acc, (_, c)| acc | *c);
        if self.f16_in_f32 {
            caps |= C::SHADER_FLOAT16_IN_FLOAT32;
        }
        caps
    }
}

/// A submission and where its index goes.
type SubmitJob = (wgpu::CommandBuffer, mpsc::SyncSender<wgpu::SubmissionIndex>);

/// A thread that submits command buffers to a queue, so that a submit that blocks for as
/// long as the work runs cannot block its caller past the timeout. Dropping the [`Gpu`]
/// ends it and waits for it (its clone of the queue must go before the process can exit:
/// a queue dropped on this thread while `exit` tears the driver down crashed doc tests on
/// lavapipe under load), except after a timeout, when a submit may still be running.
struct Submitter {
    jobs: Mutex<mpsc::Sender<SubmitJob>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        let Some(mut sub) = self.submitter.take() else {
            return;
        };
        let thread = sub.thread.take();
        drop(sub); // the sender: the thread's loop ends
        if let Some(t) = thread.filter(|_| !self.is_lost()) {
            let _ = t.join();
        }
    }
}

impl Submitter {
    /// `None` when no thread can be had (the caller then submits itself).
    fn new(queue: &wgpu::Queue, gl: Option<GlLock>) -> Option<Submitter> {
        let (jobs, rx) = mpsc::channel::<SubmitJob>();
        let queue = queue.clone();
        let thread = std::thread::Builder::new()
            .name("gpuarray submit".into())
            .spawn(move || {
                for (commands, reply) in rx {
                    let index = {
                        let _gl = gl.as_deref().map(lock);
                        queue.submit([commands])
                    };
                    let _ = reply.send(index);
                }
            })
            .ok()?;
        Some(Submitter {
            jobs: Mutex::new(jobs),
            thread: Some(thread),
        })
    }
}

/// `t` in nanoseconds, saturating.
fn duration_ns(t: Duration) -> u64 {
    u64::try_from(t.as_nanos()).unwrap_or(u64::MAX)
}
