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
        let t = Instant::now();
        let mut child = Command::new(&mpirun)
            .args(["--oversubscribe", "--allow-run-as-root", "-np", &np.to_string()])
            .arg(&exe)
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
                panic!("mpirun -np {np} ran past {LIMIT:?}: killed");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "mpirun -np {np} failed: {status}");
        println!("dist: {np} ranks passed in {:.1} s", t.elapsed().as_secs_f64());
    }
}
