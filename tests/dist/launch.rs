//! The launcher: runs this binary under mpirun with 2 and 3 ranks; fails when mpirun is
//! missing or a run fails or exceeds its time.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest one mpirun run may take before it is killed (and the test fails).
const LIMIT: Duration = Duration::from_secs(300);

pub fn launch_all() {
    let exe = std::env::current_exe().expect("this test binary's path");
    let mpirun = std::env::var("MPIRUN").unwrap_or_else(|_| "mpirun".into());
    let probe = Command::new(&mpirun).arg("--version").output();
    if !probe.is_ok_and(|o| o.status.success()) {
        panic!(
            "`{mpirun} --version` failed: tests/dist needs Open MPI's mpirun \
             (apt-get install openmpi-bin libopenmpi-dev; `make test` installs them)"
        );
    }
    for np in [2, 3] {
        run(&mpirun, np, &exe, false);
    }
    // The examples in quick mode with 2 ranks: plain executables of this profile, which
    // `make test` builds first (as tests/examples.rs runs the others).
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .join("examples");
    for name in ["dist_lstsq", "dist_montecarlo", "dist_allreduce"] {
        let ex = dir.join(name);
        if ex.is_file() {
            run(&mpirun, 2, &ex, true);
        } else if std::env::var("GPUARRAY_EXAMPLES_REQUIRE").is_ok_and(|v| v == "1") {
            panic!(
                "{} is missing: run `cargo build --profile test --examples --features mpi`",
                ex.display()
            );
        } else {
            crate::common::skip(&format!(
                "{} is missing (cargo build --profile test --examples --features mpi)",
                ex.display()
            ));
        }
    }
}

fn run(mpirun: &str, np: usize, exe: &std::path::Path, quick: bool) {
    {
        let t = Instant::now();
        let mut child = Command::new(mpirun)
            .args([
                "--oversubscribe",
                "--allow-run-as-root",
                "-np",
                &np.to_string(),
            ])
            .arg(exe)
            .env("GPUARRAY_EXAMPLES_QUICK", if quick { "1" } else { "0" })
            // Containers forbid the cross-memory attach Open MPI's shared memory uses by
            // default; ranks that wait should yield their core (2 cores, 3 ranks).
            .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
            .env("OMPI_MCA_mpi_yield_when_idle", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start {mpirun}: {e}"));
        let status = loop {
            if let Some(s) = child.try_wait().expect("waiting for mpirun") {
                break s;
            }
            if t.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "mpirun -np {np} {} ran past {LIMIT:?}: killed",
                    exe.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(
            status.success(),
            "mpirun -np {np} {} failed: {status}",
            exe.display()
        );
        println!(
            "dist: {} with {np} ranks passed in {:.1} s",
            exe.display(),
            t.elapsed().as_secs_f64()
        );
    }
}
