import Benchmark
import BenchmarkGate
import BenchmarkSupport
import HLSInterstitials
import HLSPlaylist

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(5),
        maxIterations: 200
    )

    // Gated in CI (Gate): parse the 24h DVR playlist (43,200 segments, 500 interstitials).
    Benchmark("ParseDVR24h", configuration: Gate.configuration(iterations: 20)) { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            blackHole(PlaylistParser.parse(bytes))
        }
    } setup: {
        try DVRPlaylist.bytes()
    }

    Benchmark("Serialize 24h DVR playlist (unedited)") { (benchmark: Benchmark, playlist: Playlist) in
        for _ in benchmark.scaledIterations {
            blackHole(playlist.serialized())
        }
    } setup: {
        PlaylistParser.parse(try DVRPlaylist.bytes()).playlist
    }

    Benchmark("Serialize 24h DVR playlist (500 DATERANGE lines re-rendered)") {
        (benchmark: Benchmark, playlist: MediaPlaylist) in
        for _ in benchmark.scaledIterations {
            blackHole(playlist.serialized())
        }
    } setup: { () throws -> MediaPlaylist in
        var media = try MediaPlaylist(bytes: try DVRPlaylist.bytes())
        for k in media.dateRanges.indices {
            var range = media.dateRanges[k].dateRange
            range.attributes["X-PLAYOUT-LIMIT"] = .decimal(MediaTime(seconds: 10))
            media.replaceDateRange(at: k, with: range)
        }
        return media
    }

    Benchmark("Map 500 START-DATEs to media time") { benchmark, media in
        for _ in benchmark.scaledIterations {
            for placed in media.dateRanges {
                blackHole(media.time(at: placed.dateRange.startDate!))
            }
        }
    } setup: {
        try MediaPlaylist(bytes: try DVRPlaylist.bytes())
    }

    scheduleBenchmarks()
}

let scheduleBenchmarks: @Sendable () -> Void = {
    Benchmark("Schedule 24h DVR playlist (500 interstitials, from the playlist)") { benchmark, media in
        for _ in benchmark.scaledIterations {
            blackHole(Schedule(primary: media))
        }
    } setup: {
        try MediaPlaylist(bytes: try DVRPlaylist.bytes())
    }

    // Gated in CI (Gate): the schedule's update on a live reload adding one segment and one tag.
    Benchmark("ScheduleLiveUpdate", configuration: Gate.configuration(iterations: 50)) {
        (benchmark: Benchmark, input: LiveReload) in
        var schedule = input.base
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            blackHole(schedule.update(primary: input.reload, events: input.reloadEvents))
            benchmark.stopMeasurement()
            blackHole(schedule.update(primary: input.live, events: input.liveEvents))
        }
    } setup: {
        try LiveReload.make()
    }
}
