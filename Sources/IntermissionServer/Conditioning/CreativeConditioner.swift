import AdInsertion
import Crypto
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPFetch
import IntermissionHTTP
import Logging
import ServiceLifecycle

/// Conditions the creatives an ad server answers with progressive media files only into HLS that
/// matches the presentation (see ``ConditioningConfiguration``), one job per creative across every
/// instance on the store (a lease), and tells the asset-list path which creatives are ready.
///
/// The asset-list path asks ``availability(of:target:)``: a ready creative is answered with its
/// conditioned multivariant playlist; any other is queued here (bounded) and left out of the pod.
/// ``run()`` (owned by ``ConditioningService``) takes queued creatives, at most
/// ``ConditioningConfiguration/maximumJobs`` at once: each is claimed in the store (skipped when
/// another instance holds it), fetched, probed, transcoded, and stored as ready or failed (retried
/// after a back-off when asked for again, at most ``ConditioningConfiguration/maximumAttempts``).
actor CreativeConditioner {
    /// One creative to condition.
    struct Job: Sendable, Hashable {
        /// The store key.
        var key: String
        /// The creative's ID.
        var creativeID: String
        /// The media file to fetch.
        var source: VASTMediaFile
        /// What to make of it.
        var plan: ConditioningPlan
    }

    /// Whether an asset list may hand a creative out.
    enum Availability: Sendable, Hashable {
        /// Ready: the conditioned multivariant playlist's URI.
        case ready(String)
        /// Not ready: why (for the decision log).
        case notReady(String)
    }

    let configuration: ConditioningConfiguration
    let store: any ConditioningStore
    let clock: any WallClock
    let fetch: BoundedFetch
    let origin: OriginClient
    let presentations: AdInsertionConfiguration
    let metrics: ServerMetrics
    let logger: Logger
    /// This instance's name in leases.
    let instance: String
    /// ffmpeg's and ffprobe's paths, `nil` when missing (reported on `/health`).
    let ffmpeg: String?
    let ffprobe: String?
    let runner: ToolRunner

    private var queue: [Job] = []
    private var queued: Set<String> = []
    private var running = 0
    private var readyURIs: [String: String] = [:]
    private var targets: [String: (target: ConditioningTarget?, at: DateTime, problem: String?)] = [:]
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Creates the conditioner; finds ffmpeg, ffprobe, `prlimit` and `nice`.
    init(
        configuration: ConditioningConfiguration,
        store: any ConditioningStore,
        clock: any WallClock,
        fetch: BoundedFetch,
        origin: OriginClient,
        presentations: AdInsertionConfiguration,
        metrics: ServerMetrics,
        logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.fetch = fetch
        self.origin = origin
        self.presentations = presentations
        self.metrics = metrics
        self.logger = logger
        self.instance = UUID().uuidString
        self.ffmpeg = ToolRunner.locate(configuration.ffmpeg)
        self.ffprobe = ToolRunner.locate(configuration.ffprobe)
        self.runner = ToolRunner.detect()
        (self.wakeups, self.wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try? FileManager.default.createDirectory(atPath: configuration.folder, withIntermediateDirectories: true)
    }

    /// What `/health` says about the tools: a problem, or `nil` when ffmpeg and ffprobe were found.
    nonisolated var toolProblem: String? {
        switch (self.ffmpeg, self.ffprobe) {
        case (nil, _): "ffmpeg not found (\(self.configuration.ffmpeg)): creatives without HLS are left out"
        case (_, nil): "ffprobe not found (\(self.configuration.ffprobe)): creatives without HLS are left out"
        default: nil
        }
    }

    /// The store key of a source and target: SHA-256 of the URL and the target's signature, 32
    /// hex digits (a folder name that says nothing of the URL).
    static func key(source: String, target: ConditioningTarget) -> String {
        let digest = SHA256.hash(data: Array((source + "\n" + target.signature).utf8))
        return digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The URI a ready creative is handed out with.
    func uri(of key: String) -> String {
        if let base = self.configuration.cdnBaseURL {
            return (base.hasSuffix("/") ? base : base + "/") + key + "/master.m3u8"
        }
        return "/media/\(ConditioningConfiguration.mountName)/\(key)/master.m3u8"
    }

    // MARK: - Asked by the asset-list path

    /// Whether `ad` (whose `AdServerResolution.ResolvedAd.source` is set) may be handed out now;
    /// asks for it to be conditioned when it is not ready and may be tried.
    func availability(of ad: AdServerResolution.ResolvedAd, target: ConditioningTarget) async -> Availability {
        guard let source = ad.source else { return .ready(ad.uri) }
        let key = Self.key(source: source.url, target: target)
        if let uri = self.readyURIs[key] { return .ready(uri) }
        let plan = ConditioningPlan(target: target, duration: ad.duration)
        if let reason = plan.unsupported { return .notReady("cannot be conditioned: \(reason)") }
        if let problem = self.toolProblem { return .notReady(problem) }
        let now = self.clock.now()
        let record: CreativeConditioning
        do {
            record = try await self.store.requestConditioning(
                CreativeConditioning(key: key, creativeID: ad.creativeID, sourceURL: source.url, updatedAt: now)
            )
        } catch {
            return .notReady("the conditioning state could not be read: \(error)")
        }
        switch record.state {
        case .ready:
            let uri = self.uri(of: key)
            self.readyURIs[key] = uri
            return .ready(uri)
        case .failed where !record.isClaimable(at: now):
            let next = record.nextAttempt.map { "next attempt at \($0.iso8601)" } ?? "given up"
            return .notReady(
                "conditioning failed after \(record.attempts) attempt(s) (\(record.error ?? "no reason")); \(next)"
            )
        default:
            let job = Job(key: key, creativeID: ad.creativeID, source: source, plan: plan)
            let waiting = self.enqueue(job)
            return .notReady("being conditioned (\(record.state), \(waiting))")
        }
    }

    /// Queues `job` unless it is queued or running here; says where it stands.
    private func enqueue(_ job: Job) -> String {
        if self.queued.contains(job.key) { return "queued here" }
        guard self.queue.count < self.configuration.queueLimit else {
            self.metrics.conditioningDropped()
            return "queue full, asked for again later"
        }
        self.queue.append(job)
        self.queued.insert(job.key)
        self.metrics.conditioningQueue(self.queue.count)
        self.wake.yield()
        return "queued"
    }

    /// The target of a presentation: read from its primary once (a failure is read again after a
    /// minute), `nil` with the reason when it cannot be known.
    func target(for scope: AdScope) async -> (ConditioningTarget?, String?) {
        let now = self.clock.now()
        if let known = self.targets[scope.rawValue], known.target != nil || now - known.at < MediaTime(seconds: 60) {
            return (known.target, known.problem)
        }
        let result: (ConditioningTarget?, String?)
        if let url = self.primaryURL(of: scope) {
            result = await self.readTarget(url)
        } else {
            result = (nil, "no primary playlist")
        }
        self.targets[scope.rawValue] = (result.0, now, result.1)
        if let problem = result.1 {
            self.logger.warning("conditioning target unknown", metadata: ["scope": "\(scope)", "reason": "\(problem)"])
        }
        return result
    }

    /// Reads the targets of every presentation with an ad server, so that the first asset list
    /// does not wait for its primary to be probed.
    func warm() async {
        let scopes =
            self.presentations.assets.filter { $0.adServer != nil }.map { AdScope(kind: .vod, name: $0.id) }
            + self.presentations.channels.filter { $0.adServer != nil }.map { AdScope(kind: .live, name: $0.id) }
        for scope in scopes {
            guard !Task.isCancelled else { return }
            _ = await self.target(for: scope)
        }
    }

    /// The main playlist of a presentation.
    private func primaryURL(of scope: AdScope) -> String? {
        switch scope.kind {
        case .vod: return self.presentations.asset(scope.name)?.playlistURL
        case .live:
            guard let channel = self.presentations.channel(scope.name) else { return nil }
            switch channel.source {
            case .upstream(let url): return url
            case .loop(let origin, let playlist): return OriginPath.resolve(playlist, against: origin)
            }
        }
    }

    /// Reads a primary's parameters: its multivariant playlist's ladder and codecs, its first media
    /// playlist's target duration, and its first segment probed.
    private func readTarget(_ url: String) async -> (ConditioningTarget?, String?) {
        guard let ffprobe = self.ffprobe else { return (nil, "ffprobe not found") }
        do {
            var multivariant: MultivariantPlaylist?
            let media: MediaPlaylist
            var mediaURL = url
            switch try await self.origin.playlist(at: url) {
            case .multivariant(let playlist):
                multivariant = playlist
                guard let first = InterstitialInserter.mediaPlaylistURIs(in: playlist, resolvingAgainst: url).first,
                    case .media(let firstMedia) = try await self.origin.playlist(at: first)
                else { return (nil, "the primary's first variant is not a media playlist") }
                media = firstMedia
                mediaURL = first
            case .media(let playlist):
                media = playlist
            }
            guard let segment = media.segments.first else { return (nil, "the primary has no segment") }
            let segmentURL = URIReference.resolve(segment.uri, against: mediaURL)
            let bytes = try await self.origin.bytes(at: segmentURL)
            let scratch = try self.scratchFolder("probe")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let probed: ProbedMedia
            do {
                probed = try await Self.probe(bytes, as: "segment", in: scratch, with: ffprobe)
            } catch {
                return (nil, "the primary's first segment: \(error)")
            }
            let seconds = max(segment.duration.seconds, 0.001)
            let bandwidth = Int(Double(bytes.count * 8) / seconds)
            guard
                let target = probed.target(
                    multivariant: multivariant,
                    targetDuration: media.targetDuration ?? Int(seconds.rounded(.up)),
                    segmentBandwidth: bandwidth
                )
            else { return (nil, "the primary's first segment has no audio stream to match") }
            return (target, nil)
        } catch {
            return (nil, "the primary could not be read: \(error)")
        }
    }

    /// A new scratch folder inside the conditioning folder (same file system, so renames are atomic).
    nonisolated func scratchFolder(_ purpose: String) throws -> String {
        let path = self.configuration.folder + "/.\(purpose)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    // MARK: - The jobs

    /// Takes queued jobs, at most ``ConditioningConfiguration/maximumJobs`` at once, until the task
    /// is cancelled; then the jobs running are cancelled (their ffmpeg killed) and awaited.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await _ in self.wakeups {
                while let job = self.nextJob() {
                    group.addTask {
                        await self.perform(job)
                        await self.ended(job)
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// The next job to start, if one waits and a slot is free.
    private func nextJob() -> Job? {
        guard self.running < self.configuration.maximumJobs, !self.queue.isEmpty else { return nil }
        self.running += 1
        let job = self.queue.removeFirst()
        self.metrics.conditioningQueue(self.queue.count)
        return job
    }

    /// Frees a job's slot and looks for the next.
    private func ended(_ job: Job) {
        self.running -= 1
        self.queued.remove(job.key)
        self.wake.yield()
    }

    /// One job: claim, condition, record.
    private func perform(_ job: Job) async {
        let now = self.clock.now()
        let claimed: CreativeConditioning?
        do {
            claimed = try await self.store.claimConditioning(
                job.key,
                owner: self.instance,
                now: now,
                leaseUntil: now + self.configuration.lease
            )
        } catch {
            self.logger.warning("conditioning: claim failed", metadata: ["key": "\(job.key)", "error": "\(error)"])
            return
        }
        guard let claimed else {
            // Another instance holds it, or it became ready or failed meanwhile.
            if let record = try? await self.store.conditioning(job.key), record.state == .ready {
                self.readyURIs[job.key] = self.uri(of: job.key)
            }
            self.metrics.conditioningJob(result: "skipped")
            return
        }
        let started = ContinuousClock.now
        let outcome: String?
        do {
            try await self.condition(job)
            outcome = nil
        } catch {
            outcome = "\(error)"
        }
        let finished = self.clock.now()
        let nextAttempt = outcome == nil ? nil : self.configuration.retryDelay(afterAttempts: claimed.attempts)
        let kept: Bool
        do {
            kept = try await self.store.finishConditioning(
                job.key,
                owner: self.instance,
                state: outcome == nil ? .ready : .failed,
                error: outcome,
                nextAttempt: nextAttempt.map { finished + $0 },
                now: finished
            )
        } catch {
            self.logger.warning("conditioning: recording failed", metadata: ["key": "\(job.key)", "error": "\(error)"])
            return
        }
        let elapsed = ContinuousClock.now - started
        if let outcome {
            self.metrics.conditioningJob(result: "failed")
            self.logger.warning(
                "conditioning failed",
                metadata: [
                    "creative": "\(job.creativeID)", "key": "\(job.key)", "attempt": "\(claimed.attempts)",
                    "error": "\(outcome)",
                    "retry": "\(nextAttempt.map { "in \($0.seconds) s when asked for" } ?? "never")",
                ]
            )
        } else {
            self.metrics.conditioningJob(result: "ready", duration: elapsed)
            if kept { self.readyURIs[job.key] = self.uri(of: job.key) }
            self.logger.info(
                "creative conditioned",
                metadata: ["creative": "\(job.creativeID)", "key": "\(job.key)", "duration": "\(elapsed)"]
            )
        }
        await self.refreshStateMetrics()
    }

    /// Counts the stored records by state in `/metrics`.
    func refreshStateMetrics() async {
        guard let records = try? await self.store.conditionings(limit: 100_000) else { return }
        var counts: [String: Int] = ["pending": 0, "conditioning": 0, "ready": 0, "failed": 0]
        for record in records { counts[record.state.rawValue, default: 0] += 1 }
        for (state, count) in counts { self.metrics.conditioningCreatives(state: state, count: count) }
    }

    /// Fetches, probes and transcodes `job`'s source into `<folder>/<key>/` (written in a scratch
    /// folder and renamed into place, so a reader never sees half of it).
    private func condition(_ job: Job) async throws {
        guard let ffmpeg = self.ffmpeg, let ffprobe = self.ffprobe else {
            throw ToolError(message: self.toolProblem ?? "ffmpeg not found")
        }
        let files = FileManager.default
        let final = self.configuration.folder + "/" + job.key
        if files.fileExists(atPath: final + "/master.m3u8") { return }
        let scratch = try self.scratchFolder("job")
        defer { try? files.removeItem(atPath: scratch) }
        let body: [UInt8]
        do {
            var request = FetchRequest(
                url: job.source.url,
                headers: [("User-Agent", "intermission-server/0.1")],
                timeout: self.configuration.fetchTimeout,
                maximumBodySize: self.configuration.maximumSourceBytes
            )
            // Redirects stay on the media file's own host or the configured ones.
            request.keepsRedirectsOnConfiguredHosts = true
            body = try await self.fetch.get(request).body
        } catch {
            if error.code == .forbiddenDestination { self.metrics.outboundRefused(purpose: "conditioning") }
            throw ToolError(message: "fetching the media file failed: \(error.message)")
        }
        let source = scratch + "/source"
        let probed = try await Self.probe(body, as: "source", in: scratch, with: ffprobe)
        if job.plan.target.videoCodec != nil, probed.video == nil {
            throw ToolError(message: "the media file has no video stream")
        }
        var plan = job.plan
        plan.sourceHasAudio = probed.audio != nil
        let output = scratch + "/out"
        for index in 0..<plan.rungCount {
            try files.createDirectory(atPath: output + "/" + plan.folder(of: index), withIntermediateDirectories: true)
        }
        guard let arguments = plan.arguments(input: source, output: output) else {
            throw ToolError(message: plan.unsupported ?? "the target cannot be written")
        }
        let (executable, command) = self.runner.command(
            ffmpeg,
            arguments,
            memory: self.configuration.memoryLimit,
            cpuSeconds: self.configuration.cpuLimit,
            niceness: self.configuration.niceness
        )
        self.metrics.ffmpegRun()
        let run = try await ToolRunner.run(executable, command, scratch: scratch, timeout: self.configuration.timeLimit)
        guard !run.killed else {
            throw ToolError(message: "ffmpeg was killed at the time limit (\(self.configuration.timeLimit))")
        }
        guard run.succeeded else {
            throw ToolError(
                message:
                    "ffmpeg failed (\(run.signalled ? "signal" : "status") \(run.status)): \(Self.lastLine(run.stderr))"
            )
        }
        var peaks: [Int] = []
        for index in 0..<plan.rungCount {
            peaks.append(try Self.peakBandwidth(folder: output + "/" + plan.folder(of: index)))
        }
        let master = plan.multivariant(peakBandwidths: peaks)
        guard files.createFile(atPath: output + "/master.m3u8", contents: Data(master.utf8)) else {
            throw ToolError(message: "cannot write the multivariant playlist")
        }
        try? files.removeItem(atPath: source)
        do {
            try files.moveItem(atPath: output, toPath: final)
        } catch  where files.fileExists(atPath: final + "/master.m3u8") {
            // Written meanwhile by an instance whose lease had run out: the same renditions.
        }
    }

    /// Writes `bytes` to `scratch/name` and reads its streams with ffprobe (at most 60 s).
    static func probe(
        _ bytes: [UInt8],
        as name: String,
        in scratch: String,
        with ffprobe: String
    ) async throws
        -> ProbedMedia
    {
        let file = scratch + "/" + name
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
            throw ToolError(message: "cannot write \(file)")
        }
        let run = try await ToolRunner.run(
            ffprobe,
            ProbedMedia.arguments(file),
            scratch: scratch,
            timeout: .seconds(60)
        )
        guard run.succeeded, let probed = ProbedMedia.parse(run.stdout) else {
            throw ToolError(message: "ffprobe could not read it: \(Self.lastLine(run.stderr))")
        }
        return probed
    }

    /// The highest bitrate of a rendition's segments (size over duration), bits per second.
    static func peakBandwidth(folder: String) throws -> Int {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/prog.m3u8")))
        guard case .media(let media) = try Playlist(bytes: bytes, file: "prog.m3u8") else {
            throw ToolError(message: "ffmpeg wrote no media playlist")
        }
        var peak = 0
        for segment in media.segments {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + segment.uri)
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            let seconds = max(segment.duration.seconds, 0.1)
            peak = max(peak, Int((Double(size * 8) / seconds).rounded(.up)))
        }
        guard peak > 0 else { throw ToolError(message: "ffmpeg wrote no segment") }
        return peak
    }

    /// The last non-empty line of a tool's error output.
    static func lastLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).last.map(String.init) ?? "no message"
    }

    // MARK: - Reports

    /// The stored records, most recent first, and this instance's queue (admin API, dashboard).
    func report(limit: Int) async throws -> (records: [CreativeConditioning], queued: Int, running: Int) {
        (try await self.store.conditionings(limit: limit), self.queue.count, self.running)
    }
}

/// Runs the ``CreativeConditioner``'s jobs until the service group shuts down (the jobs running
/// then are cancelled: their ffmpeg is killed, and they are taken up again after the lease).
struct ConditioningService: Service {
    let conditioner: CreativeConditioner

    func run() async throws {
        let conditioner = self.conditioner
        await conditioner.refreshStateMetrics()
        await cancelWhenGracefulShutdown {
            await conditioner.warm()
            await conditioner.run()
        }
    }
}
