//! The trials' choices on disk, beside the pipeline cache: one file per adapter and driver
//! (`tuning-<hash>.txt` in the pipeline cache's folder, `Options::pipeline_cache`), so that
//! the next process on the same adapter and driver runs no trial and starts at full speed.
//!
//! The file is text: a header line with the format's version and gpuarray's, a line naming
//! the adapter (name, vendor and device ids, driver, driver version, backend), then one
//! `key<TAB>value` line per choice (the families name their keys and values, e.g. `matmul
//! f32 class 1` and `tiled 128,128,16,8,8`). It is loaded once when a device opens and
//! written after each new choice, atomically (a temporary file renamed over it), merged with
//! what other processes wrote meanwhile. A file that does not parse, of another format or
//! version, or of another adapter (copied from another machine, a hash collision) is
//! ignored and rewritten at the next choice. A value that the family no longer accepts is
//! the family's to ignore (it runs its trial again).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::gpu::lock;

/// The first line of a file of this format and this version of gpuarray.
fn header() -> String {
    format!("gpuarray tuning 1 {}", env!("CARGO_PKG_VERSION"))
}

/// What identifies an adapter and its driver in the file (and, hashed, in its name).
pub(crate) fn identity(info: &wgpu::AdapterInfo) -> String {
    let text = format!(
        "{}|{:04x}:{:04x}|{}|{}|{:?}",
        info.name, info.vendor, info.device, info.driver, info.driver_info, info.backend
    );
    clean(&text)
}

/// `s` with tabs, line breaks and other control characters replaced by spaces.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// FNV-1a, 64 bits: a hash that every build of every version computes alike.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file of the adapter `identity` in folder `dir`.
pub(crate) fn file_in(dir: &Path, identity: &str) -> PathBuf {
    dir.join(format!("tuning-{:016x}.txt", fnv(identity)))
}

/// The choices of a file's text, or `None` where it is not a file of this format and
/// version for the adapter `identity`.
pub(crate) fn parse(text: &str, identity: &str) -> Option<BTreeMap<String, String>> {
    let mut lines = text.lines();
    if lines.next()? != header() {
        return None;
    }
    if lines.next()?.strip_prefix("adapter ")? != identity {
        return None;
    }
    let mut map = BTreeMap::new();
    for line in lines {
        let (k, v) = line.split_once('\t')?;
        if k.is_empty() || v.is_empty() || v.contains('\t') {
            return None;
        }
        map.insert(k.to_string(), v.to_string());
    }
    Some(map)
}

/// The text of a file with `map`'s choices for the adapter `identity`.
pub(crate) fn render(identity: &str, map: &BTreeMap<String, String>) -> String {
    let mut s = format!("{}\nadapter {identity}\n", header());
    for (k, v) in map {
        s.push_str(&format!("{k}\t{v}\n"));
    }
    s
}

/// The choices in the file at `path` for `identity`: empty where it is missing, unreadable,
/// corrupt or another adapter's.
pub(crate) fn load(path: &Path, identity: &str) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| parse(&t, identity))
        .unwrap_or_default()
}

/// Writes `map` merged over the file's valid choices to `path`, atomically (temporary file
/// and rename).
pub(crate) fn save(
    path: &Path,
    identity: &str,
    map: &BTreeMap<String, String>,
) -> std::io::Result<()> {
    let mut all = load(path, identity);
    all.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, render(identity, &all))?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// One device's choices: those loaded from disk at opening and those its trials made.
pub(crate) struct TuneStore {
    /// The file, where there is a folder for it and the options let trials use the disk.
    path: Option<PathBuf>,
    identity: String,
    map: Mutex<BTreeMap<String, String>>,
}

impl TuneStore {
    /// The store of adapter `info`, loaded from its file in `dir` (none where `dir` is).
    pub(crate) fn open(info: &wgpu::AdapterInfo, dir: Option<PathBuf>) -> TuneStore {
        let identity = identity(info);
        let path = dir.map(|d| file_in(&d, &identity));
        let map = path
            .as_deref()
            .map(|p| load(p, &identity))
            .unwrap_or_default();
        TuneStore {
            path,
            identity,
            map: Mutex::new(map),
        }
    }

    /// The choice stored under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        lock(&self.map).get(key).cloned()
    }

    /// Stores `value` under `key` and writes the file (best-effort: a failure is logged).
    pub(crate) fn put(&self, key: &str, value: &str) {
        let mut map = lock(&self.map);
        map.insert(clean(key).replace('\t', " "), clean(value));
        if let Some(path) = &self.path
            && let Err(e) = save(path, &self.identity, &map)
        {
            log::debug!("gpuarray: tuning not saved to {path:?}: {e}");
        }
    }

    /// The file, if any.
    #[cfg(test)]
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, driver: &str) -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: name.into(),
            vendor: 0x10de,
            device: 0x2335,
            device_type: wgpu::DeviceType::DiscreteGpu,
            driver: "NVIDIA".into(),
            driver_info: driver.into(),
            backend: wgpu::Backend::Vulkan,
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::DiscreteGpu, wgpu::Backend::Vulkan)
        }
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "gpuarray-tune-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn choices_round_trip_through_the_file() {
        let dir = tmp("roundtrip");
        let h200 = info("NVIDIA H200", "580.95");
        let a = TuneStore::open(&h200, Some(dir.clone()));
        assert_eq!(a.get("matmul f32 class 1"), None);
        a.put("matmul f32 class 1", "tiled 128,128,16,8,8");
        a.put("matmul f32 class 9", "big 16 pair");
        // A second process on the same adapter and driver finds both.
        let b = TuneStore::open(&h200, Some(dir.clone()));
        assert_eq!(
            b.get("matmul f32 class 1").as_deref(),
            Some("tiled 128,128,16,8,8")
        );
        assert_eq!(b.get("matmul f32 class 9").as_deref(), Some("big 16 pair"));
        // Two stores writing different keys: the file keeps both (merged on save).
        let c = TuneStore::open(&h200, Some(dir.clone()));
        b.put("matmul f16 class 0", "tiled 64,64,16,4,4");
        c.put("matmul f32 class 2", "tiled 64,64,16,4,4");
        let d = TuneStore::open(&h200, Some(dir.clone()));
        assert_eq!(
            d.get("matmul f16 class 0").as_deref(),
            Some("tiled 64,64,16,4,4")
        );
        assert_eq!(
            d.get("matmul f32 class 2").as_deref(),
            Some("tiled 64,64,16,4,4")
        );
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_corrupt_file_is_ignored_and_rewritten() {
        let dir = tmp("corrupt");
        let h200 = info("NVIDIA H200", "580.95");
        let path = file_in(&dir, &identity(&h200));
        std::fs::create_dir_all(&dir).unwrap();
        let good = render(
            &identity(&h200),
            &BTreeMap::from([("k".into(), "v".into())]),
        );
        for bad in [
            b"\xff\xfe garbage".to_vec(),
            Vec::new(),
            good.replace("\tv", " v").into_bytes(),
            good.replace("gpuarray tuning 1", "gpuarray tuning 0")
                .into_bytes(),
            good.as_bytes()[..good.len() / 2].to_vec(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            let s = TuneStore::open(&h200, Some(dir.clone()));
            assert_eq!(s.get("k"), None, "{:?}", String::from_utf8_lossy(&bad));
            s.put("m", "w");
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                parse(&text, &identity(&h200)),
                Some(BTreeMap::from([("m".into(), "w".into())]))
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_adapters_file_is_ignored() {
        let dir = tmp("foreign");
        let h200 = info("NVIDIA H200", "580.95");
        let h100 = info("NVIDIA H100", "580.95");
        let newer = info("NVIDIA H200", "590.10");
        assert_ne!(identity(&h200), identity(&h100));
        assert_ne!(identity(&h200), identity(&newer));
        TuneStore::open(&h100, Some(dir.clone())).put("k", "h100");
        // Another adapter's file copied under this adapter's name.
        let ours = file_in(&dir, &identity(&h200));
        std::fs::copy(file_in(&dir, &identity(&h100)), &ours).unwrap();
        let s = TuneStore::open(&h200, Some(dir.clone()));
        assert_eq!(s.get("k"), None);
        // A new driver is another file: its choices are measured again.
        assert_ne!(file_in(&dir, &identity(&newer)), ours);
        assert_eq!(TuneStore::open(&newer, Some(dir.clone())).get("k"), None);
        s.put("k", "h200");
        assert_eq!(
            TuneStore::open(&h100, Some(dir.clone()))
                .get("k")
                .as_deref(),
            Some("h100")
        );
        assert_eq!(
            TuneStore::open(&h200, Some(dir.clone()))
                .get("k")
                .as_deref(),
            Some("h200")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_a_folder_nothing_is_written() {
        let s = TuneStore::open(&info("x", "y"), None);
        s.put("k\tx", "v\nw");
        assert_eq!(s.get("k x").as_deref(), Some("v w"));
        assert!(s.path().is_none());
        // Keys and values never break the format.
        let map = BTreeMap::from([("k x".to_string(), "v w".to_string())]);
        assert_eq!(parse(&render("id", &map), "id"), Some(map));
    }
}
