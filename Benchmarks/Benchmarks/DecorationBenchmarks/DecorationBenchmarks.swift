import Benchmark
import BenchmarkGate
import BenchmarkSupport
import DecorationSupport

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .instructions, .mallocCountTotal],
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )

    // Gated in CI (Gate): a live window of 6 segments parsed, decorated with one break and
    // serialized, 1,000 times per iteration. For comparison: ritcher publishes 6.4 µs per playlist
    // for the same pipeline.
    Benchmark("DecorateLiveWindow", configuration: Gate.configuration(iterations: 20, scalingFactor: .kilo)) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(DecorationInputs.pipeline(DecorationInputs.liveWindow, breaks: DecorationInputs.liveBreaks))
        }
    }

    // The target: within 2× of the next benchmark (what `intermission format` does).
    Benchmark("24h DVR playlist: parse, decorate with 48 breaks, serialize") { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            blackHole(DecorationInputs.pipeline(bytes, breaks: DecorationInputs.dvrBreaks))
        }
    } setup: {
        try DVRPlaylist.bytes()
    }

    Benchmark("24h DVR playlist: parse, serialize (intermission format)") { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            blackHole(DecorationInputs.format(bytes))
        }
    } setup: {
        try DVRPlaylist.bytes()
    }
}
