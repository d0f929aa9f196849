//! The options' parsing from the environment: every variable, good and bad values.

use super::*;

fn parse(vars: &[(&str, &str)]) -> Result<Options> {
    Options::from_lookup(|k| {
        vars.iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    })
}

#[test]
fn nothing_set_gives_the_defaults() {
    assert_eq!(parse(&[]).unwrap(), Options::default());
}

/// Every variable `from_env` reads, each with a value other than its default.
const EVERY: &[(&str, &str)] = &[
    ("GPUARRAY_ADAPTER", "llvm"),
    ("GPUARRAY_BACKEND", "Vulkan"),
    ("GPUARRAY_SPIN_US", "5"),
    ("GPUARRAY_TIMEOUT_S", "20"),
    ("GPUARRAY_PARAMS", "uniform"),
    ("GPUARRAY_SMALL_READ", "kernel"),
    ("GPUARRAY_SUBGROUPS", "0"),
    ("GPUARRAY_REDUCE_GROUPS", "64"),
    ("GPUARRAY_REDUCE_FUSE", "0"),
    ("GPUARRAY_REDUCE_PROFILE", "1"),
    ("GPUARRAY_MATMUL_TILES", "64, 64, 16, 4, 4"),
    ("GPUARRAY_MATMUL_VERBOSE", "1"),
    ("GPUARRAY_LINALG_TRACE", "1"),
    ("GPUARRAY_SORT_PROFILE", "1"),
    ("GPUARRAY_RADIX_STAGE", "64"),
    ("GPUARRAY_RADIX_WIDE_BALLOTS", "1"),
    ("GPUARRAY_CHECKED", "1"),
    ("GPUARRAY_COOP", "0"),
    ("GPUARRAY_MATMUL_GEMV", "0"),
    ("GPUARRAY_MATMUL_SPLIT_K", "0"),
    ("GPUARRAY_TOP_K_SELECT", "1"),
    ("GPUARRAY_COOP_VARIANT", "2x4:2x2:32"),
    ("GPUARRAY_COOP_UNIT", "4"),
    ("GPUARRAY_COOP_EPI", "1"),
    ("GPUARRAY_COOP_DUMP", "/tmp/coop"),
    ("GPUARRAY_CONV_DIRECT", "1"),
    ("GPUARRAY_CONV_POINTWISE", "0"),
    ("GPUARRAY_CONV_TILES", "128,32,16,8,4"),
    ("GPUARRAY_EVENTS", "host"),
    ("GPUARRAY_PIPELINE_CACHE", "off"),
    ("GPUARRAY_FLOAT_ATOMICS", "0"),
    ("GPUARRAY_MATMUL_BIG", "16"),
    ("GPUARRAY_MATMUL_BIG_QUAD", "1"),
    ("GPUARRAY_MATMUL_F64", "128,64,8,8,4"),
    ("GPUARRAY_INT64", "0"),
    ("GPUARRAY_RADIX_ONESWEEP", "1"),
    ("GPUARRAY_RADIX_SPIN", "0"),
    ("GPUARRAY_ZIG_PROFILE", "1"),
    ("GPUARRAY_DIST_PROFILE", "1"),
    ("GPUARRAY_TRIAL", "cached"),
    ("GPUARRAY_CLOCK_BURST", "50:100"),
    ("GPUARRAY_CLOCK_KEEPALIVE", "2:1048576:500"),
    ("GPUARRAY_CLOCK_HOLD", "40:800:250:stream"),
    ("GPUARRAY_BATCH_DISPATCHES", "8"),
    ("GPUARRAY_LINALG_CHECK", "0"),
];

#[test]
fn every_variable_is_read() {
    let o = parse(EVERY).unwrap();
    assert_eq!(o.adapter.as_deref(), Some("llvm"));
    assert_eq!(o.backend, Some(Backend::Vulkan));
    assert_eq!(o.spin, Duration::from_micros(5));
    assert_eq!(o.timeout, Duration::from_secs(20));
    assert_eq!(o.tuning.params, ParamsPath::Uniform);
    assert_eq!(o.tuning.small_read, SmallRead::Kernel);
    assert!(
        !o.tuning.subgroups
            && !o.tuning.coop
            && o.tuning.conv_direct
            && o.host_events
            && o.diagnostics.matmul_verbose
    );
    assert!(o.diagnostics.sort_profile && o.diagnostics.linalg_trace);
    assert_eq!(o.tuning.radix_stage, 64);
    assert!(o.tuning.radix_wide_ballots && o.checked_kernels);
    assert!(!Options::default().checked_kernels);
    assert!(!o.linalg_check && Options::default().linalg_check);
    assert!(
        !o.tuning.matmul_gemv
            && !o.tuning.matmul_split_k
            && o.tuning.top_k_select
            && !o.tuning.float_atomics
    );
    assert_eq!(o.tuning.reduce_groups, Some(64));
    assert!(!o.tuning.reduce_fuse && o.diagnostics.reduce_profile);
    assert!(
        Options::default().tuning.reduce_fuse && !Options::default().diagnostics.reduce_profile
    );
    assert_eq!(o.tuning.matmul_tiles.map(|t| (t.bm, t.tn)), Some((64, 4)));
    assert!(!o.tuning.conv_pointwise);
    assert_eq!(o.tuning.conv_tiles.map(|t| (t.bn, t.tm)), Some((32, 8)));
    assert_eq!(
        o.tuning.coop_variant.map(|v| (v.sgn, v.fm, v.stages)),
        Some((4, 2, None))
    );
    assert_eq!((o.tuning.coop_unit, o.tuning.coop_epi), (Some(4), Some(1)));
    assert_eq!(o.diagnostics.coop_dump, Some(PathBuf::from("/tmp/coop")));
    assert_eq!(o.pipeline_cache, PipelineCacheDir::Off);
    assert_eq!(o.tuning.matmul_big, Some(16));
    assert!(o.tuning.matmul_big_quad);
    assert_eq!(o.tuning.matmul_f64.map(|t| (t.bn, t.tn)), Some((64, 4)));
    assert!(!o.tuning.int64 && o.tuning.radix_onesweep && o.diagnostics.zig_profile);
    assert!(o.diagnostics.dist_profile);
    assert_eq!(o.tuning.radix_spin, Some(0));
    assert_eq!(o.tuning.trial, Trial::Cached);
    assert_eq!(
        o.tuning.clock_burst,
        Some(ClockBurst {
            idle_ms: 50,
            burst_ms: 100,
            elements: 1 << 24
        })
    );
    assert_eq!(
        o.tuning.clock_keepalive,
        Some(KeepAlive {
            period_ms: 2,
            elements: 1 << 20,
            linger_ms: 500
        })
    );
    assert_eq!(o.tuning.batch_dispatches, Some(8));
    assert_eq!(
        o.tuning.clock_hold,
        HoldSetting::On(ClockHold {
            duty_pct: 40,
            linger_ms: 800,
            piece_us: 250,
            work: HoldWork::Stream
        })
    );
    assert_eq!(Options::default().tuning.clock_hold, HoldSetting::Auto);
    assert_eq!(
        parse(&[("GPUARRAY_CLOCK_HOLD", "OFF")])
            .unwrap()
            .tuning
            .clock_hold,
        HoldSetting::Off
    );
    let d = Options::default().tuning;
    assert!(d.trial == Trial::Run && d.clock_burst.is_none() && d.clock_keepalive.is_none());
    assert_eq!(d.batch_dispatches, None);
    assert_eq!(
        parse(&[("GPUARRAY_TRIAL", "OFF")]).unwrap().tuning.trial,
        Trial::Off
    );
    let t = parse(&[("GPUARRAY_TIMEOUT_S", " 0.25")]).unwrap();
    assert_eq!(t.timeout, Duration::from_millis(250));
    let dir = parse(&[("GPUARRAY_PIPELINE_CACHE", "/x/y")]).unwrap();
    assert_eq!(dir.pipeline_cache, PipelineCacheDir::Dir("/x/y".into()));
}

#[test]
fn malformed_values_are_typed_errors() {
    for (name, value) in [
        ("GPUARRAY_SPIN_US", "-1"),
        ("GPUARRAY_TIMEOUT_S", "soon"),
        ("GPUARRAY_TIMEOUT_S", "-1"),
        ("GPUARRAY_TIMEOUT_S", "inf"),
        ("GPUARRAY_PARAMS", "push"),
        ("GPUARRAY_SMALL_READ", "dma"),
        ("GPUARRAY_SUBGROUPS", "maybe"),
        ("GPUARRAY_REDUCE_GROUPS", "99999999999"),
        ("GPUARRAY_MATMUL_TILES", "64,64,16,4"),
        ("GPUARRAY_MATMUL_TILES", "a,b,c,d,e"),
        ("GPUARRAY_CONV_TILES", "128,64"),
        ("GPUARRAY_CONV_POINTWISE", "yes please"),
        ("GPUARRAY_COOP", "2"),
        // Fewer than five numbers once indexed out of bounds (issue 4's note).
        ("GPUARRAY_COOP_VARIANT", "4x4:2"),
        ("GPUARRAY_COOP_VARIANT", "4x4:2x4:32:1:2:3"),
        ("GPUARRAY_COOP_VARIANT", "legacy"),
        ("GPUARRAY_EVENTS", "cpu"),
        ("GPUARRAY_MATMUL_BIG", "on"),
        ("GPUARRAY_TRIAL", "sometimes"),
        ("GPUARRAY_CLOCK_BURST", "50"),
        ("GPUARRAY_CLOCK_BURST", "50:0"),
        ("GPUARRAY_CLOCK_BURST", "50:100:1:2"),
        ("GPUARRAY_CLOCK_KEEPALIVE", "2:1024"),
        ("GPUARRAY_CLOCK_HOLD", "0:1000"),
        ("GPUARRAY_CLOCK_HOLD", "91:1000"),
        ("GPUARRAY_CLOCK_HOLD", "40:0"),
        ("GPUARRAY_CLOCK_HOLD", "40:1000:0"),
        ("GPUARRAY_CLOCK_HOLD", "40:1000:spin"),
        ("GPUARRAY_CLOCK_HOLD", "40:1000:100:fast"),
        ("GPUARRAY_CLOCK_KEEPALIVE", "0:1024:100"),
        ("GPUARRAY_CLOCK_KEEPALIVE", "2:0:100"),
        ("GPUARRAY_BATCH_DISPATCHES", "0"),
        ("GPUARRAY_BATCH_DISPATCHES", "513"),
    ] {
        let e = parse(&[(name, value)]).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidOption { name: n, value: v, .. } if *n == name && v == value),
            "{name}={value}: {e:?}"
        );
    }
    assert!(matches!(
        parse(&[("GPUARRAY_BACKEND", "glide")]),
        Err(Error::UnknownBackend(_))
    ));
    // Zero workgroups means the default.
    assert_eq!(
        parse(&[("GPUARRAY_REDUCE_GROUPS", "0")])
            .unwrap()
            .tuning
            .reduce_groups,
        None
    );
}

/// Each variable alone moves the options off the defaults: none is read and dropped.
#[test]
fn each_variable_alone_changes_the_options() {
    for &(name, value) in EVERY {
        let o = parse(&[(name, value)]).unwrap();
        assert_ne!(o, Options::default(), "{name}={value} changed nothing");
    }
}

/// The README's tables of variables list exactly the variables `from_env` reads.
#[test]
fn the_readme_lists_every_variable() {
    let readme = include_str!("../../README.md");
    let start = readme
        .find("## Options and environment variables")
        .expect("the README's options section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut listed: Vec<&str> = section[..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split(['`', '=']).next())
        .collect();
    let mut read: Vec<&str> = EVERY.iter().map(|(n, _)| *n).collect();
    listed.sort_unstable();
    read.sort_unstable();
    assert_eq!(listed, read);
}
