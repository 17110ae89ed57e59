import AdInsertion
import AsyncHTTPClient
import GroupCoordination
import HLSPlaylist
import HTTPFetch
import IntermissionHTTP
import NIOCore

/// Asks VAST ad servers for pods, within a time budget: the I/O side of `AdServerResolution`
/// (which decides, and does no I/O: AdInsertion does not depend on `HTTPFetch`).
///
/// The ad server's answer and every wrapper's are fetched with `BoundedFetch` on one shared
/// `HTTPClient` (keep-alive connections on its event loops, no thread per request); wrappers of one
/// level are fetched at once. Every fetch's deadline is the budget's end, so the whole resolution
/// ends by then; the budget runs on `timer` (the server's timer clock). The caller forwards the failures' error URLs in the background
/// (`TrackingService.forwardErrors`), so they never delay an answer.
///
/// Every fetch goes through the server's `OutboundPolicy` (the configured ad servers' own
/// `host:port` are trusted as named): a wrapper's `VASTAdTagURI` or a redirect that leads to a
/// private, loopback or link-local address is refused, counted and logged, and the wrapper fails
/// with VAST error 301. Redirects are followed by the fetcher, each checked.
struct AdServerClient: Sendable {
    /// The client ad servers are asked with: process-wide, never shut down, with room for many
    /// keep-alive connections to one ad server (an answer takes tens of milliseconds, so a busy
    /// server keeps dozens in flight).
    static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(2)
        // Redirects are followed by `BoundedFetch`, which checks each against the outbound policy.
        configuration.redirectConfiguration = .disallow
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The largest VAST document read.
    static let maximumDocumentBytes = 1 << 20

    /// The fetcher, with the outbound policy every URL is checked against.
    var fetch = BoundedFetch(client: AdServerClient.sharedHTTPClient, outbound: OutboundPolicy())
    /// Where refused destinations are counted.
    var metrics: ServerMetrics?
    /// The clock the budget runs on: deadlines are readings of its elapsed time.
    var timer = ElapsedClock()

    /// What asking the ad server gave.
    struct Outcome: Sendable {
        /// The pod, in play order (empty when nothing usable came back).
        var ads: [AdServerResolution.ResolvedAd]
        /// The failures, whose error URLs were fired.
        var failures: [AdServerResolution.Failure]
        /// What the documents got wrong.
        var diagnostics: [VASTDiagnostic]
        /// Why the ad server's own answer could not be used, if it could not.
        var problem: String?
        /// The requests the outbound policy refused, one line each.
        var refused: [String] = []
    }

    /// Asks `url` for a pod and follows its wrappers, all before `deadline`.
    ///
    /// - Parameters:
    ///   - url: The filled-in ad-server URL.
    ///   - headers: The viewer's device fields (`X-Device-IP`, `X-Device-User-Agent`).
    ///   - resolution: The break and the media choice.
    ///   - deadline: When every answer must be in, as a reading of `timer`'s elapsed time.
    func resolve(
        url: String,
        headers: [(name: String, value: String)],
        resolution: AdServerResolution,
        deadline: Duration
    ) async -> Outcome {
        var outcome = Outcome(ads: [], failures: [], diagnostics: [], problem: nil)
        let first: VASTDocument
        switch await self.document(url, headers: headers, deadline: deadline) {
        case .success(let (document, diagnostics)):
            first = document
            outcome.diagnostics += diagnostics
        case .failure(let failure):
            outcome.problem = failure.message
            if failure.code == Self.refusedCode { outcome.refused.append(failure.message) }
            return outcome
        }
        var walk = resolution.walk(first, answering: nil)
        var ads = walk.ads
        outcome.failures += walk.failures
        while !walk.pending.isEmpty {
            let pending = walk.pending
            walk = AdServerResolution.Walk()
            let answers = await withTaskGroup(
                of: (Int, Result<(VASTDocument, [VASTDiagnostic]), VASTError>).self
            ) { group in
                for (index, item) in pending.enumerated() {
                    group.addTask { (index, await self.document(item.url, headers: headers, deadline: deadline)) }
                }
                var answers: [(Int, Result<(VASTDocument, [VASTDiagnostic]), VASTError>)] = []
                for await answer in group { answers.append(answer) }
                return answers.sorted { $0.0 < $1.0 }
            }
            for (index, answer) in answers {
                let item = pending[index]
                switch answer {
                case .success(let (document, diagnostics)):
                    outcome.diagnostics += diagnostics
                    let next = resolution.walk(document, answering: item)
                    walk.ads += next.ads
                    walk.pending += next.pending
                    walk.failures += next.failures
                case .failure(let error):
                    let refused = error.code == Self.refusedCode
                    if refused { outcome.refused.append(error.message) }
                    walk.failures.append(
                        resolution.failed(item, code: refused ? .wrapperTimeout : error.code, reason: error.message)
                    )
                }
            }
            ads += walk.ads
            outcome.failures += walk.failures
        }
        outcome.ads = resolution.pod(ads)
        return outcome
    }

    /// Fetches and decodes one VAST document: a fetch failure is error 301 (unreachable or too
    /// slow), a document that is not VAST 100 or 101.
    func document(
        _ url: String,
        headers: [(name: String, value: String)],
        deadline: Duration
    ) async -> Result<(VASTDocument, [VASTDiagnostic]), VASTError> {
        let left = deadline - self.timer.elapsed
        guard left > .milliseconds(1) else {
            return .failure(VASTError(code: .wrapperTimeout, message: "no time left in the budget for \(url)", line: 0))
        }
        let request = FetchRequest(
            url: url,
            headers: headers,
            timeout: left,
            maximumBodySize: Self.maximumDocumentBytes
        )
        let body: [UInt8]
        do {
            body = try await self.fetch.get(request).body
        } catch {
            if error.code == .forbiddenDestination {
                self.metrics?.outboundRefused(purpose: "vast")
                return .failure(VASTError(code: Self.refusedCode, message: error.message, line: 0))
            }
            return .failure(VASTError(code: .wrapperTimeout, message: error.message, line: 0))
        }
        do {
            return .success(Self.withoutCredentials(try VASTDecoder.decode(body)))
        } catch {
            return .failure(error)
        }
    }

    /// The code a refused destination is reported with inside the client, told apart from other
    /// fetch failures (301, a timeout) so the refusal is logged; wrappers fail with 301 either way.
    static let refusedCode = VASTErrorCode(-301)

    /// `decoded` without the media files whose URL a viewer must not be handed.
    ///
    /// The rule inventory URIs follow (``InputLimits/uri(_:field:allowsUserInfo:)`` without user
    /// information: printable ASCII, at most 2048 bytes, an `http(s)` URL with a host and no
    /// `user:password@`). An ad left without a usable file fails with VAST error 403.
    static func withoutCredentials(
        _ decoded: (VASTDocument, [VASTDiagnostic])
    ) -> (VASTDocument, [VASTDiagnostic]) {
        var (document, diagnostics) = decoded
        for a in document.ads.indices {
            for c in document.ads[a].creatives.indices {
                guard var linear = document.ads[a].creatives[c].linear else { continue }
                let before = linear.mediaFiles.count
                linear.mediaFiles.removeAll { file in
                    (try? InputLimits.uri(file.url, field: "MediaFile")).map { !$0.hasPrefix("/") } != true
                }
                if linear.mediaFiles.count != before {
                    diagnostics.append(
                        VASTDiagnostic(
                            rule: "media-file-url",
                            message:
                                "\(before - linear.mediaFiles.count) MediaFile URL(s) refused: not an http(s) URL a viewer may be handed (no user name or password)",
                            line: document.ads[a].line,
                            fix: "serve the media file from a URL without credentials"
                        )
                    )
                }
                document.ads[a].creatives[c].linear = linear
            }
        }
        return (document, diagnostics)
    }

    /// A random 8-digit number for `[CACHEBUSTING]`.
    static func cacheBuster() -> String {
        String(Int.random(in: 10_000_000...99_999_999))
    }
}
