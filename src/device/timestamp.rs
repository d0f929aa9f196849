//! GPU timestamps for events ([`crate::profile::Event`]): a query written into the pending
//! work, resolved and read back when first asked for.

use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::gpu::lock;

use super::Device;

/// A GPU timestamp: a query written into the pending work, resolved when first read.
pub(crate) struct Stamp {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    value: OnceLock<f64>,
}

impl Device {
    /// Whether events use GPU timestamps: the adapter has TIMESTAMP_QUERY and
    /// `GPUARRAY_EVENTS` is not `host`.
    pub(crate) fn has_timestamps(&self) -> bool {
        self.inner
            .gpu
            .features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            && !self.options().host_events
    }

    /// Writes a timestamp after the work recorded so far: inside the open compute pass
    /// where the adapter allows (TIMESTAMP_QUERY_INSIDE_PASSES), else between passes
    /// (INSIDE_ENCODERS), else as the start of an empty pass.
    pub(crate) fn write_stamp(&self) -> Result<Stamp> {
        self.check()?;
        let d = &self.inner.gpu.device;
        let set = d.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpuarray event"),
            ty: wgpu::QueryType::Timestamp,
            count: 1,
        });
        let buffer = |usage| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpuarray event"),
                size: 8,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let read = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let f = self.inner.gpu.features;
        let mut batch = self.batch();
        if f.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES) {
            batch.pass(d).write_timestamp(&set, 0);
        } else if f.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS) {
            batch.encoder(d).write_timestamp(&set, 0);
        } else {
            let pass = batch
                .encoder(d)
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("gpuarray event"),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: &set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: None,
                    }),
                });
            drop(pass);
        }
        Ok(Stamp {
            set,
            resolve,
            read,
            value: OnceLock::new(),
        })
    }

    /// The time of `stamp` in milliseconds on the GPU's clock: resolves it (submitting the
    /// pending work) and waits for it, the first time.
    pub(crate) fn read_stamp(&self, stamp: &Stamp) -> Result<f64> {
        if let Some(v) = stamp.value.get() {
            return Ok(*v);
        }
        let index = {
            let mut batch = self.batch();
            let enc = batch.encoder(&self.inner.gpu.device);
            enc.resolve_query_set(&stamp.set, 0..1, &stamp.resolve, 0);
            enc.copy_buffer_to_buffer(&stamp.resolve, 0, &stamp.read, 0, 8);
            self.submit_locked(&mut batch)?
        };
        self.check()?;
        let done = Arc::new(Mutex::new(None));
        let flag = done.clone();
        stamp
            .read
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| *lock(&flag) = Some(r));
        self.inner.gpu.wait_until(index, || lock(&done).is_some())?;
        if let Some(Err(e)) = lock(&done).take() {
            return Err(Error::Map(e.to_string()));
        }
        let ticks = {
            let view = stamp
                .read
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::Map(e.to_string()))?;
            u64::from_le_bytes(view[..8].try_into().expect("8 bytes"))
        };
        stamp.read.unmap();
        let ms = ticks as f64 * self.inner.gpu.queue.get_timestamp_period() as f64 * 1e-6;
        Ok(*stamp.value.get_or_init(|| ms))
    }
}
