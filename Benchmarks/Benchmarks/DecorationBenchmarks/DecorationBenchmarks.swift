import Benchmark
import BenchmarkSupport
import DecorationSupport

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .instructions, .mallocCountTotal],
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )

    // The target: ≤ 6.4 µs, ritcher's published per-playlist figure for the same pipeline.
    Benchmark(
        "Live window (6 segments): parse, decorate with one break, serialize",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
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
