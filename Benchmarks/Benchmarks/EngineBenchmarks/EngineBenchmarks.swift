import AdInsertion
import Benchmark
import BenchmarkGate
import EngineSupport
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback

let benchmarks: @Sendable () -> Void = {
    // Gated in CI (Gate): a new viewer's asset-list decision for a 60 s break, made and stored in
    // the in-memory store, then rendered as the asset list's JSON (URIs resolved against the
    // server's URL), as the server answers `GET /v1/asset-lists/...` for a viewer it has not seen.
    Benchmark("AssetListDecision", configuration: Gate.configuration(iterations: 200)) {
        (benchmark: Benchmark, service: AdDecisionService) in
        var fresh = service
        for _ in benchmark.scaledIterations {
            // A fresh store each time, made before the measurement starts, so that every decision
            // is a new one against the same, empty store (one sample per iteration: the explicit
            // start and stop replace the implicit ones).
            fresh.store = InMemoryAdStore()
            benchmark.startMeasurement()
            blackHole(try await DecisionInputs.answer(fresh))
            benchmark.stopMeasurement()
        }
    } setup: {
        DecisionInputs.service()
    }

    // Gated in CI (Gate): one pass of the player's run loop on a virtual clock, one second of
    // playback after the last, over an in-memory VOD with a two-ad break every minute (no network):
    // the playhead moves, the interstitial engine reacts to what it reached (a break starts, an
    // ad ends, the primary resumes), and the loads that became due are made and handled. The loads
    // run as child tasks whose answers may come back in another order from run to run: the p90
    // count moved by 2 between runs measured with instructions and wall time as well on a 2-core
    // machine; a machine with more cores may order them in more ways, hence a tolerance of 5 calls
    // (about a tenth of the 45), still short of what one more load or event per step costs.
    Benchmark("PlayerStep", configuration: Gate.configuration(iterations: 600, mallocTolerance: 5)) {
        (benchmark: Benchmark, player: Player) in
        let clock = player.clock
        for _ in benchmark.scaledIterations {
            // The clock moves before the measurement starts; the pass at the new time is measured.
            clock.advance(to: clock.now + PlayerInputs.step)
            benchmark.startMeasurement()
            try await player.run(until: clock.now)
            benchmark.stopMeasurement()
        }
    } setup: {
        try await PlayerInputs.startedPlayer()
    }
}
