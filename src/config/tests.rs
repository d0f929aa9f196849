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

#[test]
fn every_variable_is_read() {
    let o = parse(&[
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
        ("GPUARRAY_RADIX_STAGE", "128"),
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
    ])
    .unwrap();
    assert_eq!(o.adapter.as_deref(), Some("llvm"));
    assert_eq!(o.backend, Some(Backend::Vulkan));
    assert_eq!(o.spin, Duration::from_micros(5));
    assert_eq!(o.timeout, Duration::from_secs(20));
    assert_eq!(o.params, ParamsPath::Uniform);
    assert_eq!(o.small_read, SmallRead::Kernel);
    assert!(!o.subgroups && !o.coop && o.conv_direct && o.host_events && o.matmul_verbose);
    assert!(o.sort_profile && o.linalg_trace);
    assert_eq!(o.radix_stage, 128);
    assert!(o.radix_wide_ballots && o.checked_kernels);
    assert!(!Options::default().checked_kernels);
    assert!(!o.matmul_gemv && !o.matmul_split_k && o.top_k_select && !o.float_atomics);
    assert_eq!(o.reduce_groups, Some(64));
    assert!(!o.reduce_fuse && o.reduce_profile);
    assert!(Options::default().reduce_fuse && !Options::default().reduce_profile);
    assert_eq!(o.matmul_tiles.map(|t| (t.bm, t.tn)), Some((64, 4)));
    assert!(!o.conv_pointwise);
    assert_eq!(o.conv_tiles.map(|t| (t.bn, t.tm)), Some((32, 8)));
    assert_eq!(
        o.coop_variant.map(|v| (v.sgn, v.fm, v.stages)),
        Some((4, 2, None))
    );
    assert_eq!((o.coop_unit, o.coop_epi), (Some(4), Some(1)));
    assert_eq!(o.coop_dump, Some(PathBuf::from("/tmp/coop")));
    assert_eq!(o.pipeline_cache, PipelineCacheDir::Off);
    assert_eq!(o.matmul_big, Some(16));
    assert!(o.matmul_big_quad);
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
            .reduce_groups,
        None
    );
}
