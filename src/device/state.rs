//! Per-device state of the operation families: results of timed trials, kernels found broken
//! on this adapter, generated sources. Each family defines its own state type and keeps it
//! here, one value per (device, type), made on first use; nothing lives in process-wide
//! statics, so two adapters in one process never share it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::gpu::lock;

use super::Device;

/// Values of any `Default + Send + Sync` type, one per type.
#[derive(Default)]
pub(crate) struct StateMap {
    map: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl Device {
    /// This device's value of `S`, made with `S::default()` on first use. `S` handles its own
    /// locking (a `Mutex` or atomics inside).
    pub(crate) fn state<S: Any + Default + Send + Sync>(&self) -> Arc<S> {
        let mut map = lock(&self.inner.state.map);
        let value = map
            .entry(TypeId::of::<S>())
            .or_insert_with(|| Arc::new(S::default()))
            .clone();
        drop(map);
        value
            .downcast::<S>()
            .unwrap_or_else(|_| unreachable!("the entry of TypeId::of::<S>() holds an S"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    #[derive(Default)]
    struct Counter(AtomicU32);

    #[test]
    fn one_value_per_device_and_type() {
        let a = crate::Device::new().expect("a device");
        let b = crate::Device::new().expect("a second device on the same adapter");
        a.state::<Counter>().0.fetch_add(1, Ordering::Relaxed);
        a.state::<Counter>().0.fetch_add(1, Ordering::Relaxed);
        assert_eq!(a.state::<Counter>().0.load(Ordering::Relaxed), 2);
        assert_eq!(b.state::<Counter>().0.load(Ordering::Relaxed), 0);
    }
}
