//! The open batch of recorded work, and [`Device::launch`], the one way operations dispatch a
//! kernel: they ask the device for a pipeline ([`Device::kernel`]), the kernel layer binds it
//! into a [`Dispatch`], and the device records that into its pending compute pass.
//!
//! Dispatches go into one open compute pass (on some drivers every pass costs tens of
//! microseconds of command-buffer set-up), which copies and clears close. Without
//! immediates each dispatch's parameters take one slot of a uniform arena, written at
//! submit; the batch is submitted when the arena is full ([`BATCH_DISPATCHES`]).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{Error, Result};
use crate::gpu::{lock, Gpu};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{groups, Binding, Dispatch, Params, ParamsIn, PARAM_SLOT};
use crate::kernel::limits;
use crate::kernel::raw::{self, Layout};
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;

use super::Device;

/// Dispatches recorded before the pending work is submitted without a sync point.
pub const BATCH_DISPATCHES: u32 = 512;

/// What one dispatch covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Work {
    /// This many work items, one per invocation: a 1-D grid of workgroups folded into 2-D.
    Items(u32),
    /// An explicit grid of workgroups (each extent at most 65,535), for kernels that tile a
    /// 2-D or 3-D problem.
    Groups([u32; 3]),
}

/// The parameter arena and the open batch.
pub(crate) struct Pending {
    /// A uniform buffer of [`BATCH_DISPATCHES`] parameter slots.
    pub(crate) arena: wgpu::Buffer,
    batch: Mutex<Batch>,
}

/// Work recorded but not yet submitted.
#[derive(Default)]
pub(crate) struct Batch {
    /// Declared before `encoder`: the pass must end before the encoder is finished.
    pass: Option<wgpu::ComputePass<'static>>,
    encoder: Option<wgpu::CommandEncoder>,
    /// Parameters of the recorded dispatches, one slot each, written at submit.
    params: Vec<u8>,
    slots: u32,
    /// Copies and clears recorded: the batch is submitted at [`BATCH_DISPATCHES`] of them
    /// too, so that uploads' staging buffers and the command buffer stay bounded.
    commands: u32,
    /// Upload staging buffers used by the recorded work, recycled after submit.
    uploads: Vec<wgpu::Buffer>,
}

impl Pending {
    pub(crate) fn new(gpu: &Gpu) -> Pending {
        let arena = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarray params"),
            size: PARAM_SLOT * BATCH_DISPATCHES as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Pending {
            arena,
            batch: Mutex::new(Batch::default()),
        }
    }

    /// Drops everything recorded and not submitted (the device is being destroyed).
    pub(crate) fn discard(&self) {
        *lock(&self.batch) = Batch::default();
    }
}

impl Batch {
    /// The pending encoder, created on first use; ends the open compute pass, if any.
    pub(crate) fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpuarray batch"),
            })
        })
    }

    /// The open compute pass, begun on first use.
    pub(crate) fn pass(&mut self, device: &wgpu::Device) -> &mut wgpu::ComputePass<'static> {
        if self.pass.is_none() {
            let pass = self
                .encoder(device)
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                })
                .forget_lifetime();
            self.pass = Some(pass);
        }
        self.pass.as_mut().expect("just set")
    }

    /// Counts a copy or clear recorded; true when the batch should now be submitted.
    pub(crate) fn count_command(&mut self) -> bool {
        self.commands += 1;
        self.commands >= BATCH_DISPATCHES
    }

    /// Registers an upload staging buffer to recycle once the batch is submitted.
    pub(crate) fn add_upload(&mut self, buffer: wgpu::Buffer) {
        self.uploads.push(buffer);
    }
}

impl Device {
    /// The open batch, locked.
    pub(crate) fn batch(&self) -> MutexGuard<'_, Batch> {
        lock(&self.inner.batch.batch)
    }

    /// The pipeline for `key`, compiling `spec()` on first use.
    ///
    /// # Errors
    /// [`Error::InvalidShader`] or [`Error::Validation`] when the kernel does not compile
    /// (a bug in gpuarray for its own kernels), [`Error::OutOfMemory`].
    pub(crate) fn kernel(&self, key: Key, spec: impl FnOnce() -> Spec) -> Result<Arc<Kernel>> {
        let i = &self.inner;
        i.kernels
            .get(&i.gpu, key, spec)
            .map_err(|e| self.with_usage(e))
    }

    /// The raw user kernel `src` at `entry` in `layout` with override `constants`, compiled
    /// on first use.
    pub(crate) fn raw_kernel(
        &self,
        src: &str,
        entry: &str,
        layout: &Layout,
        constants: &[(&str, f64)],
    ) -> Result<Arc<crate::kernel::cache::RawPipeline>> {
        let i = &self.inner;
        raw::pipeline(&i.gpu, &i.kernels, src, entry, layout, constants)
            .map_err(|e| self.with_usage(e))
    }

    /// Checks user kernel `name` (the validated module and its validation) against this
    /// adapter's limits (see `kernel::limits`): its compute entry point `entry`, or every
    /// one where `None`, with override `constants` (the others at their defaults).
    ///
    /// # Errors
    /// [`Error::InvalidShader`] naming the limit and both numbers.
    pub(crate) fn check_limits(
        &self,
        name: &str,
        (module, info): &crate::kernel::source::Validated,
        entry: Option<&str>,
        constants: &[(&str, f64)],
    ) -> Result<()> {
        let limits = limits::KernelLimits::of(&self.inner.gpu);
        limits::check(module, info, entry, constants, &limits).map_err(|m| Error::InvalidShader {
            name: name.to_string(),
            message: format!("{name}: exceeds this adapter's limits: {m}"),
        })
    }

    /// An out-of-memory error from a lower layer, with the bytes in use filled in.
    fn with_usage(&self, e: Error) -> Error {
        match e {
            Error::OutOfMemory {
                requested, limit, ..
            } => Error::OutOfMemory {
                requested,
                used: self.inner.pool.stats().used,
                limit,
            },
            e => e,
        }
    }

    /// A device buffer of at least `bytes` bytes from the array pool.
    pub(crate) fn alloc(&self, bytes: u64) -> Result<BufferHandle> {
        self.inner.pool.alloc(&self.inner.gpu, bytes, &[])
    }

    /// A device-owned scratch buffer of `bytes` bytes, outside the pool's statistics and
    /// limit (`MemoryPool::used_bytes` counts arrays only).
    pub(crate) fn alloc_owned(&self, bytes: u64) -> Result<BufferHandle> {
        self.inner.pool.alloc_owned(&self.inner.gpu, bytes)
    }

    /// Like [`Device::alloc`], for an output that a kernel writes while it reads the
    /// allocations `inputs`: a small one is placed apart from their slabs (wgpu forbids one
    /// buffer bound read-only and writable in one dispatch; see `memory::slab`).
    pub(crate) fn alloc_apart(&self, bytes: u64, inputs: &[&BufferHandle]) -> Result<BufferHandle> {
        let mut avoid = [0u64; 4];
        let n = inputs.len().min(avoid.len());
        for (a, h) in avoid.iter_mut().zip(inputs) {
            *a = h.buffer_id();
        }
        self.inner.pool.alloc(&self.inner.gpu, bytes, &avoid[..n])
    }

    /// Whether the device reads small arrays through a copy kernel into host-visible
    /// buffers ([`Device::alloc_readback`]).
    pub(crate) fn has_readback(&self) -> bool {
        self.inner.readback.is_some()
    }

    /// A host-visible buffer for a small read.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where the device has no such buffers ([`Device::has_readback`]),
    /// [`Error::OutOfMemory`].
    pub(crate) fn alloc_readback(&self, bytes: u64) -> Result<BufferHandle> {
        match &self.inner.readback {
            Some(pool) => pool.alloc(&self.inner.gpu, bytes, &[]),
            None => Err(self.unsupported("host-visible read buffers", crate::DType::U32)),
        }
    }

    /// Records one dispatch of `kernel` with `params`, reading `inputs` and writing
    /// `output`, over `work`. The one way operations launch a kernel of gpuarray's families.
    ///
    /// # Errors
    /// [`Error::BufferTooLarge`] when a binding exceeds the adapter's binding limit.
    pub(crate) fn launch(
        &self,
        kernel: &Kernel,
        params: &Params,
        inputs: &[Binding<'_>],
        output: Binding<'_>,
        work: Work,
    ) -> Result<()> {
        // Calls that allocate nothing (writes into existing arrays) meet a lost device here.
        self.expect_alive()?;
        self.clock_touch()?;
        let grid = match work {
            Work::Items(0) => return Ok(()),
            Work::Items(n) => {
                let (x, y) = groups(n, kernel.wg);
                [x, y, 1]
            }
            Work::Groups(g) => g,
        };
        let i = &self.inner;
        // A read-only input in the output's buffer is copied; a read-write last input (a
        // kernel's scratch) is not: two read-write bindings of one buffer are allowed, and a
        // copy would take its writes.
        let scratch = kernel.writable_last.then(|| inputs.len() - 1);
        let copies = self.unshare(inputs, |k, b| {
            Some(k) != scratch && b.buffer.buffer_id() == output.buffer.buffer_id()
        })?;
        let unshared: Vec<Binding<'_>>;
        let inputs = if copies.iter().all(Option::is_none) {
            inputs
        } else {
            unshared = rebind(inputs, &copies);
            &unshared
        };
        let dispatch =
            i.binds
                .dispatch(&i.gpu, &i.batch.arena, kernel, params, inputs, output, grid)?;
        match dispatch {
            Some(d) => self.record(d),
            None => Ok(()),
        }
    }

    /// Records one dispatch of a raw user kernel (see `kernel::raw::dispatch`).
    pub(crate) fn launch_raw(
        &self,
        kernel: &crate::kernel::cache::RawPipeline,
        layout: &Layout,
        buffers: &[Binding<'_>],
        uniform: &[u8],
        grid: [u32; 3],
    ) -> Result<()> {
        self.expect_alive()?;
        self.clock_touch()?;
        let i = &self.inner;
        let writable: Vec<bool> = layout
            .slots
            .iter()
            .filter_map(|s| match s {
                raw::Slot::Storage { read_only, .. } => Some(!read_only),
                raw::Slot::Uniform { .. } => None,
            })
            .collect();
        // Read-only bindings that share a slab with a writable one are copied.
        let copies = self.unshare(buffers, |k, b| {
            !writable[k]
                && buffers.iter().zip(&writable).any(|(w, &wr)| {
                    wr && w.buffer.id() != b.buffer.id()
                        && w.buffer.buffer_id() == b.buffer.buffer_id()
                })
        })?;
        let unshared: Vec<Binding<'_>>;
        let buffers = if copies.iter().all(Option::is_none) {
            buffers
        } else {
            unshared = rebind(buffers, &copies);
            &unshared
        };
        match raw::dispatch(
            &i.gpu,
            &i.batch.arena,
            kernel,
            layout,
            buffers,
            uniform,
            grid,
        )? {
            Some(d) => self.record(d),
            None => Ok(()),
        }
    }

    /// Copies of the bindings among `reads` for which `shares` holds (they share a buffer,
    /// a slab or a whole one, with a binding the dispatch writes, which wgpu forbids: an
    /// operation written into one of its operands, `a += &b`), each into a buffer of its
    /// own; the copies are recorded into the batch before the dispatch.
    fn unshare(
        &self,
        reads: &[Binding<'_>],
        shares: impl Fn(usize, &Binding<'_>) -> bool,
    ) -> Result<Vec<Option<BufferHandle>>> {
        let mut copies = Vec::new();
        for (k, b) in reads.iter().enumerate() {
            if !shares(k, b) {
                copies.push(None);
                continue;
            }
            let bytes = b.bytes.div_ceil(4) * 4;
            let copy = self.inner.pool.alloc_whole(&self.inner.gpu, bytes)?;
            let mut batch = self.batch();
            batch.encoder(&self.inner.gpu.device).copy_buffer_to_buffer(
                b.buffer.buffer(),
                b.buffer.base(),
                copy.buffer(),
                0,
                bytes,
            );
            copies.push(Some(copy));
        }
        Ok(copies)
    }

    /// Records `d` into the open compute pass, its parameters into an arena slot or as
    /// immediates; submits when the arena is full.
    fn record(&self, d: Dispatch) -> Result<()> {
        self.inner.gpu.check_lost()?;
        let params = d.params.as_slice();
        let mut batch = self.batch();
        let offset = batch.slots * PARAM_SLOT as u32;
        if d.params_in == ParamsIn::Arena {
            // Dispatches with immediates left no bytes in the arena: pad to this slot.
            batch.params.resize(offset as usize, 0);
            batch.params.extend_from_slice(params);
            let end = ((batch.slots + 1) as u64 * PARAM_SLOT) as usize;
            batch.params.resize(end, 0);
        }
        batch.slots += 1;
        let pass = batch.pass(&self.inner.gpu.device);
        pass.set_pipeline(&d.pipeline);
        match d.params_in {
            ParamsIn::Arena => pass.set_bind_group(0, &d.bind_group, &[offset]),
            ParamsIn::Immediates => {
                pass.set_immediates(0, params);
                pass.set_bind_group(0, &d.bind_group, &[]);
            }
            ParamsIn::None => pass.set_bind_group(0, &d.bind_group, &[]),
        }
        pass.dispatch_workgroups(d.grid[0], d.grid[1], d.grid[2]);
        self.inner.dispatches.fetch_add(1, Ordering::Relaxed);
        let limit = self.options().tuning.batch_dispatches;
        let limit = limit.map_or(BATCH_DISPATCHES, |b| b.clamp(1, BATCH_DISPATCHES));
        if batch.slots >= limit {
            self.submit_locked(&mut batch)?;
        }
        Ok(())
    }

    /// Submits the pending batch while its lock is held; returns the index to wait for.
    ///
    /// # Errors
    /// On a lost or failed device (an earlier wait timed out) the batch is dropped and
    /// [`Error::DeviceLost`] returned: a submit behind unfinished work can block in the
    /// driver. [`Error::Timeout`] when the submit itself outlasts the timeout (where a
    /// submit runs the work, as on lavapipe; see `Gpu::submit`).
    pub(crate) fn submit_locked(&self, batch: &mut Batch) -> Result<Option<wgpu::SubmissionIndex>> {
        batch.pass = None;
        let gpu = &self.inner.gpu;
        if gpu.is_lost() {
            *batch = Batch::default();
            gpu.check()?;
        }
        let Some(encoder) = batch.encoder.take() else {
            return Ok(None);
        };
        if !batch.params.is_empty() {
            let _gl = gpu.gl_lock();
            gpu.queue
                .write_buffer(&self.inner.batch.arena, 0, &batch.params);
        }
        batch.params.clear();
        batch.slots = 0;
        batch.commands = 0;
        let index = gpu.submit(encoder.finish());
        self.inner.submits.fetch_add(1, Ordering::Relaxed);
        if index.is_err() {
            // Still in use by the work: dropped, not recycled.
            batch.uploads.clear();
        }
        for buffer in batch.uploads.drain(..) {
            self.inner.staging.recycle_upload(gpu, buffer);
        }
        index.map(Some)
    }

    /// Submits the pending work (if any); returns the index to wait for.
    pub(crate) fn flush(&self) -> Result<Option<wgpu::SubmissionIndex>> {
        let mut batch = self.batch();
        let index = self.submit_locked(&mut batch)?;
        drop(batch);
        self.check()?;
        Ok(index)
    }
}

/// `bindings`, with those that have a copy bound to it instead.
fn rebind<'a>(bindings: &[Binding<'a>], copies: &'a [Option<BufferHandle>]) -> Vec<Binding<'a>> {
    bindings
        .iter()
        .zip(copies)
        .map(|(b, c)| match c {
            Some(buffer) => Binding {
                buffer,
                bytes: b.bytes,
                window: 0,
            },
            None => *b,
        })
        .collect()
}
