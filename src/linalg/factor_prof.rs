//! `GPUARRAY_FACTOR_PROFILE=1`: each dispatch of the blocked factorizations and solves
//! ([`super::blocked`]) followed by a GPU event, and at the end of each call the time
//! between events summed by the kind of dispatch that ended it, printed to stderr. A
//! call so profiled waits for its events at its end, and the events themselves cost a
//! little (timestamps between dispatches): the sum is a profile, not the call's time.
//!
//! Nested calls (an LU inside a solve) report once, at the end of the outermost.

use std::cell::RefCell;
use std::sync::OnceLock;

use crate::device::Device;
use crate::error::Result;
use crate::profile::Event;

struct Prof {
    depth: u32,
    marks: Vec<(&'static str, Event)>,
}

thread_local! {
    static PROF: RefCell<Option<Prof>> = const { RefCell::new(None) };
}

/// Whether `GPUARRAY_FACTOR_PROFILE` is a number other than 0 (read once, through
/// `config::switch`: the options module stays the one reader of the environment).
pub(crate) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| crate::config::switch("GPUARRAY_FACTOR_PROFILE").is_some_and(|v| v != 0))
}

/// Opens a profiled call (or a nested one) on `dev`.
fn begin(dev: &Device) -> Result<()> {
    if !enabled() {
        return Ok(());
    }
    let start = PROF.with(|p| p.borrow().is_none());
    let ev = if start {
        Some(dev.record_event()?)
    } else {
        None
    };
    PROF.with(|p| {
        let mut p = p.borrow_mut();
        match (p.as_mut(), ev) {
            (Some(q), _) => q.depth += 1,
            (None, Some(ev)) => {
                *p = Some(Prof {
                    depth: 1,
                    marks: vec![("start", ev)],
                })
            }
            (None, None) => {}
        }
    });
    Ok(())
}

/// Marks the end of a dispatch (or of a product) named `label`.
pub(crate) fn mark(dev: &Device, label: &'static str) -> Result<()> {
    if !enabled() || PROF.with(|p| p.borrow().is_none()) {
        return Ok(());
    }
    let ev = dev.record_event()?;
    PROF.with(|p| {
        if let Some(q) = p.borrow_mut().as_mut() {
            q.marks.push((label, ev));
        }
    });
    Ok(())
}

/// Runs `body` as one profiled call on `dev` (see the module docs): its dispatches' marks,
/// a last mark `end`, and at the outermost call the profile titled `title()` (built only
/// where profiling is on). The call is closed whether `body` fails or not.
pub(crate) fn call<R>(
    dev: &Device,
    title: impl FnOnce() -> String,
    body: impl FnOnce() -> Result<R>,
) -> Result<R> {
    if !enabled() {
        return body();
    }
    begin(dev)?;
    let r = body();
    let closed = mark(dev, "end").and_then(|()| end(&title()));
    let r = r?;
    closed?;
    Ok(r)
}

/// Closes a call opened by [`begin`]; at the outermost, waits for its events and prints
/// each kind's time and count and their sum, titled `title`.
fn end(title: &str) -> Result<()> {
    if !enabled() {
        return Ok(());
    }
    let done = PROF.with(|p| {
        let mut p = p.borrow_mut();
        let q = p.as_mut()?;
        q.depth -= 1;
        if q.depth == 0 {
            p.take()
        } else {
            None
        }
    });
    let Some(q) = done else { return Ok(()) };
    q.marks.last().expect("the start").1.synchronize()?;
    let mut kinds: Vec<(&str, f64, u32)> = Vec::new();
    let mut total = 0.0;
    for w in q.marks.windows(2) {
        let ms = w[0].1.elapsed_ms(&w[1].1)?;
        total += ms;
        match kinds.iter_mut().find(|s| s.0 == w[1].0) {
            Some(s) => (s.1, s.2) = (s.1 + ms, s.2 + 1),
            None => kinds.push((w[1].0, ms, 1)),
        }
    }
    let list: Vec<String> = kinds
        .iter()
        .map(|(l, ms, c)| format!("{l} {ms:.3} ms ({c}x)"))
        .collect();
    eprintln!("factor profile {title}: {total:.3} ms: {}", list.join(", "));
    Ok(())
}
