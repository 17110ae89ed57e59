import Benchmark

/// The benchmarks that gate CI: `scripts/ci/benchmarks.sh` checks them against the thresholds
/// committed under `Benchmarks/Thresholds/<toolchain>/` (written by package-benchmark's
/// `thresholds update`).
///
/// The checked metrics are counts that do not move with the load of a shared machine: instructions
/// (hardware counters, where the machine exposes them) and malloc calls. Wall time is recorded for
/// information only and never checked (the CI step runs with `--metric mallocCountTotal`, so its
/// thresholds hold malloc counts only; see CONTRIBUTING.md). Their instructions are counted by
/// callgrind instead and gated by `scripts/ci/instructions.sh` (`InstructionProbe`).
public enum Gate {
    /// What a gated benchmark records when run by hand.
    public static var metrics: [BenchmarkMetric] { [.instructions, .mallocCountTotal, .wallClock] }

    /// The allowed deviation from a committed threshold (its p90): 5 % more or fewer instructions,
    /// and `mallocs` malloc calls more or fewer.
    ///
    /// - Parameter mallocs: The malloc calls a run may differ by; 0 (not one call) where the count
    ///   is exact for the same input on the same toolchain.
    public static func tolerances(mallocs: Int) -> [BenchmarkMetric: BenchmarkThresholds] {
        [
            .instructions: BenchmarkThresholds(relative: [.p90: 5]),
            .mallocCountTotal: BenchmarkThresholds(absolute: [.p90: mallocs]),
        ]
    }

    /// The configuration of a gated benchmark: ``metrics``, ``tolerances(mallocs:)``, and exactly
    /// `iterations` measured iterations (the time limit is far away), so that the p90 is taken over
    /// the same samples in every run.
    ///
    /// - Parameters:
    ///   - iterations: The number of measured iterations (after one warm-up iteration).
    ///   - scalingFactor: How many times the benchmark body runs per iteration.
    ///   - mallocTolerance: The malloc calls a run may differ by (default 0).
    public static func configuration(
        iterations: Int,
        scalingFactor: BenchmarkScalingFactor = .one,
        mallocTolerance: Int = 0
    ) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: self.metrics,
            scalingFactor: scalingFactor,
            maxDuration: .seconds(120),
            maxIterations: iterations,
            thresholds: self.tolerances(mallocs: mallocTolerance)
        )
    }
}
