//! Environment variables, read once per process: operations consult their switches and
//! tuning knobs on every call, and reading the environment each time costs microseconds.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::gpu::lock;

/// The value of environment variable `name` when the process first asked for it.
pub(crate) fn var(name: &'static str) -> Option<&'static str> {
    static SEEN: OnceLock<Mutex<HashMap<&'static str, Option<&'static str>>>> = OnceLock::new();
    let mut seen = lock(SEEN.get_or_init(Default::default));
    *seen.entry(name).or_insert_with(|| {
        std::env::var(name)
            .ok()
            .map(|v| &*Box::leak(v.into_boxed_str()))
    })
}

/// Whether `name` is set to `value`.
pub(crate) fn is(name: &'static str, value: &str) -> bool {
    var(name) == Some(value)
}
