//! Timed trials that a cold GPU cannot fool: the one way the library chooses between
//! configurations by timing them (the matrix-product tile trial, module
//! `ops::linalg::tile_trial`).
//!
//! A GPU after a pause of the host runs at a fraction of its clock for a while (on the H200
//! through Vulkan, 345-645 MHz against 1980 MHz; issue 34): a trial that times each
//! candidate once, in order, ranks the first candidates by the clock, not by their speed. So
//! [`run`]:
//! 1. runs every candidate once untimed (compiles its pipeline, touches its memory);
//! 2. brings the clock to a steady state: times the first candidate again and again until it
//!    has kept the GPU busy for [`SETTLE_BUSY_MS`] and its times have stopped falling (the
//!    median of the last [`SETTLE_WINDOW`] calls within [`SETTLE_TOLERANCE`] of the median
//!    of the window before), bounded by [`SETTLE_MAX_BUSY_MS`] and [`SETTLE_MAX_CALLS`];
//! 3. times the candidates interleaved, [`ROUNDS`] rounds of one call each, each round
//!    starting one candidate later (a clock still moving weighs on every candidate alike);
//! 4. takes each candidate's median, and of the candidates within [`TIE`] of the fastest
//!    median the first in the caller's order, so that noise between near-equal candidates does
//!    not make processes choose differently.
//!
//! The timing source is a closure, so that the unit tests drive the trial with a simulated
//! clock ramp (the first calls slow) and check that the choice does not change.

use crate::error::Result;

/// GPU-busy milliseconds the settling phase spends at least (the measurement: 100 ms
/// of heavy work after a pause brought the H200 to its full clock, 20 ms did not).
pub(crate) const SETTLE_BUSY_MS: f64 = 100.0;
/// GPU-busy milliseconds after which settling stops even without agreement.
pub(crate) const SETTLE_MAX_BUSY_MS: f64 = 400.0;
/// Calls after which settling stops even without agreement (tiny candidates).
pub(crate) const SETTLE_MAX_CALLS: usize = 2000;
/// Settling compares the medians of two successive windows of this many calls (odd: one
/// outlier moves a median by one rank only).
pub(crate) const SETTLE_WINDOW: usize = 5;
/// The clock is steady when the last window's median is at most this share below the
/// window's before (a clock still rising makes every window faster than the last).
pub(crate) const SETTLE_TOLERANCE: f64 = 0.05;
/// Interleaved rounds: each candidate is timed this many times, its median kept.
pub(crate) const ROUNDS: usize = 5;
/// Candidates whose median is within this share of the fastest one's count as tied; the
/// first of them in the caller's order wins.
pub(crate) const TIE: f64 = 0.05;

/// What a trial measured: the winner's index, each candidate's median (milliseconds) and the
/// settling phase's calls.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub best: usize,
    pub medians: Vec<f64>,
    pub settle_calls: usize,
}

/// Runs the trial over `n` candidates (`n > 0`); `time(i)` runs candidate `i` once, waits for
/// it, and returns its time in milliseconds.
///
/// # Errors
/// The first error of `time`.
pub(crate) fn run(n: usize, mut time: impl FnMut(usize) -> Result<f64>) -> Result<Outcome> {
    assert!(n > 0, "a trial needs a candidate");
    for i in 0..n {
        time(i)?;
    }
    let settle_calls = settle(&mut || time(0))?;
    let mut times = vec![Vec::with_capacity(ROUNDS); n];
    for round in 0..ROUNDS {
        for k in 0..n {
            let i = (round + k) % n;
            times[i].push(time(i)?);
        }
    }
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    Ok(Outcome {
        best: pick(&medians),
        medians,
        settle_calls,
    })
}

/// Times `call` until the clock is steady (see the module's step 2); returns the calls made.
fn settle(call: &mut impl FnMut() -> Result<f64>) -> Result<usize> {
    let mut times: Vec<f64> = Vec::new();
    let mut busy = 0.0;
    while times.len() < SETTLE_MAX_CALLS && busy < SETTLE_MAX_BUSY_MS {
        let t = call()?;
        busy += t.max(0.0);
        times.push(t);
        if busy >= SETTLE_BUSY_MS && plateau(&times) {
            break;
        }
    }
    Ok(times.len())
}

/// Whether the times have stopped falling: the median of the last [`SETTLE_WINDOW`] is at
/// least the median of the window before it, less [`SETTLE_TOLERANCE`].
fn plateau(t: &[f64]) -> bool {
    let w = SETTLE_WINDOW;
    let n = t.len();
    n >= 2 * w
        && median(t[n - w..].to_vec())
            >= median(t[n - 2 * w..n - w].to_vec()) * (1.0 - SETTLE_TOLERANCE)
}

/// The first candidate whose median is within [`TIE`] of the fastest.
fn pick(medians: &[f64]) -> usize {
    let best = medians.iter().copied().fold(f64::INFINITY, f64::min);
    medians
        .iter()
        .position(|&m| m <= best * (1.0 + TIE))
        .unwrap_or(0)
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    let n = t.len();
    if n == 0 {
        return f64::INFINITY;
    }
    if n % 2 == 1 {
        t[n / 2]
    } else {
        (t[n / 2 - 1] + t[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simulated GPU: candidate `i` costs `cost[i]` ms at full clock, times the clock
    /// factor of the call (`slow(call)`, 1 at full clock), times a noise factor.
    struct Sim<F: Fn(usize) -> f64> {
        cost: Vec<f64>,
        slow: F,
        calls: usize,
        seed: u64,
        noise: f64,
    }

    impl<F: Fn(usize) -> f64> Sim<F> {
        fn new(cost: &[f64], slow: F) -> Self {
            Sim {
                cost: cost.to_vec(),
                slow,
                calls: 0,
                seed: 0,
                noise: 0.0,
            }
        }

        fn noisy(mut self, seed: u64, noise: f64) -> Self {
            self.seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            self.noise = noise;
            self
        }

        fn time(&mut self, i: usize) -> Result<f64> {
            let f = (self.slow)(self.calls);
            self.calls += 1;
            // xorshift: uniform in [0, 1)
            self.seed ^= self.seed << 13;
            self.seed ^= self.seed >> 7;
            self.seed ^= self.seed << 17;
            let u = (self.seed >> 11) as f64 / (1u64 << 53) as f64;
            // One call in 16 is an outlier (a preemption, a clock dip): 3x.
            let spike = if self.noise > 0.0 && self.seed >> 60 == 0 {
                3.0
            } else {
                1.0
            };
            Ok(self.cost[i] * f * (1.0 + self.noise * (u - 0.5)) * spike)
        }
    }

    /// The trial before issue 34: each candidate once untimed, then the better of two
    /// timings, in order. Kept to show that the ramp below fools it (the tests can fail).
    fn naive(n: usize, time: &mut impl FnMut(usize) -> Result<f64>) -> usize {
        let mut best = (f64::INFINITY, 0);
        for i in 0..n {
            time(i).unwrap();
            let t = time(i).unwrap().min(time(i).unwrap());
            if t < best.0 {
                best = (t, i);
            }
        }
        best.1
    }

    /// Full-clock costs of five candidates (ms); candidate 3 is the fastest, 10% ahead.
    const COST: [f64; 5] = [2.0, 1.6, 1.5, 1.3, 1.45];

    /// The clock of a GPU after a pause: 4x slow at first, reaching full speed after
    /// `ramp` calls.
    fn ramp(ramp: usize) -> impl Fn(usize) -> f64 {
        move |call| 1.0 + 3.0 * (1.0 - call as f64 / ramp as f64).max(0.0)
    }

    #[test]
    fn a_clock_ramp_does_not_change_the_choice() {
        let warm = run(5, |i| Sim::new(&COST, |_| 1.0).time(i)).unwrap();
        assert_eq!(warm.best, 3);
        for steps in [5, 10, 20, 40, 80, 200] {
            let mut sim = Sim::new(&COST, ramp(steps));
            let cold = run(5, |i| sim.time(i)).unwrap();
            assert_eq!(cold.best, warm.best, "ramp over {steps} calls: {cold:?}");
        }
        // The old trial chooses by the clock under the same ramp.
        let mut sim = Sim::new(&COST, ramp(20));
        assert_ne!(naive(5, &mut |i| sim.time(i)), 3);
    }

    /// A clock that drops for a few calls in the middle of the rounds (the driver lowering
    /// it) costs the candidates it hits one round each: the medians keep the order.
    #[test]
    fn a_dip_during_the_rounds_does_not_change_the_choice() {
        // At full clock the settling takes 50 calls of candidate 0 (100 ms busy at 2 ms),
        // after the 5 untimed ones: the rounds are calls 56 to 80.
        for start in 0..25 {
            let mut sim = Sim::new(&COST, |_| 1.0);
            let mut calls = 0;
            let out = run(5, |i| {
                calls += 1;
                let t = sim.time(i)?;
                let dip = 56 + start..56 + start + 4;
                Ok(if dip.contains(&calls) { 3.0 * t } else { t })
            })
            .unwrap();
            assert_eq!(out.settle_calls, 50);
            assert_eq!(out.best, 3, "dip at {start}: {out:?}");
        }
    }

    /// Noisy timings (±10%, and one call in 16 an outlier at 3x) over a ramp: twenty
    /// simulated processes choose alike between candidates 10% apart.
    #[test]
    fn noisy_processes_choose_alike() {
        for seed in 1..=20 {
            let mut sim = Sim::new(&COST, ramp(30)).noisy(seed, 0.2);
            let out = run(5, |i| sim.time(i)).unwrap();
            assert_eq!(out.best, 3, "seed {seed}: {out:?}");
        }
    }

    /// Near-equal candidates (within the tie share) resolve to the first in order, whatever
    /// the noise: the choice is stable across processes.
    #[test]
    fn ties_go_to_the_first_candidate() {
        let cost = [1.0, 0.995, 1.3];
        for seed in 1..=20 {
            let mut sim = Sim::new(&cost, |_| 1.0).noisy(seed, 0.01);
            assert_eq!(run(3, |i| sim.time(i)).unwrap().best, 0, "seed {seed}");
        }
        assert_eq!(pick(&[2.0, 1.0, 1.02, 0.995]), 1);
    }

    /// Settling stops once the clock is steady and the GPU was busy long enough, and is
    /// bounded when it never agrees.
    #[test]
    fn settling_is_bounded() {
        // Steady at 10 ms a call: 100 ms busy, then the agreement holds: 10 calls.
        let mut c = || Ok(10.0);
        assert_eq!(settle(&mut c).unwrap(), 10);
        // Alternating 1 and 2 ms: steady (the windows' medians agree) once 100 ms busy.
        let mut k = 0;
        let mut c = || {
            k += 1;
            Ok(if k % 2 == 0 { 1.0 } else { 2.0 })
        };
        assert_eq!(settle(&mut c).unwrap(), 67);
        // Halving every 4 calls from 64 ms never settles: stops at the busy bound (400 ms
        // after 4 x 64 + 4 x 32 + 16).
        let mut k = 0;
        let mut c = || {
            k += 1;
            Ok(64.0 / f64::powi(2.0, (k - 1) / 4))
        };
        assert_eq!(settle(&mut c).unwrap(), 9);
        // Tiny calls: bounded by the call count.
        let mut c = || Ok(1e-4);
        assert_eq!(settle(&mut c).unwrap(), SETTLE_MAX_CALLS);
        // The ramp: settling lasts until the clock is up (call 40), then agrees.
        let mut sim = Sim::new(&[1.0], ramp(40));
        let calls = settle(&mut || sim.time(0)).unwrap();
        assert!((40..=60).contains(&calls), "{calls}");
    }

    #[test]
    fn errors_propagate() {
        let r = run(3, |i| {
            if i == 2 {
                Err(crate::Error::DeviceLost("test".into()))
            } else {
                Ok(1.0)
            }
        });
        assert!(matches!(r, Err(crate::Error::DeviceLost(_))));
    }
}
