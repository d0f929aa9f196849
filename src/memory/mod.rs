//! The buffer manager, over the ground floor ([`crate::gpu::Gpu`]): pools of device buffers
//! in size classes ([`pool`]) and pools of staging buffers for moving data between host and
//! device ([`staging`]). The device (`device/`) owns them and records the copies; the public
//! face of the array pool is [`crate::MemoryPool`].

pub(crate) mod pool;
pub(crate) mod slab;
pub(crate) mod staging;
