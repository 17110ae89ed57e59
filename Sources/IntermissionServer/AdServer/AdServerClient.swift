import AdInsertion
import AsyncHTTPClient
import HLSPlaylist
import HTTPFetch
import NIOCore

/// Asks VAST ad servers for pods, within a time budget: the I/O side of `AdServerResolution`
/// (which decides, and does no I/O: AdInsertion does not depend on `HTTPFetch`).
///
/// The ad server's answer and every wrapper's are fetched with `BoundedFetch` on one shared
/// `HTTPClient` (keep-alive connections on its event loops, no thread per request); wrappers of one
/// level are fetched at once. Every fetch's deadline is the budget's end, so the whole resolution
/// ends by then. Error URLs are fired in the background and never delay an answer.
struct AdServerClient: Sendable {
    /// The client ad servers are asked with: process-wide, never shut down, with room for many
    /// keep-alive connections to one ad server (an answer takes tens of milliseconds, so a busy
    /// server keeps dozens in flight).
    static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(2)
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The largest VAST document read.
    static let maximumDocumentBytes = 1 << 20

    /// The fetcher.
    var fetch = BoundedFetch(client: AdServerClient.sharedHTTPClient)

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
    }

    /// Asks `url` for a pod and follows its wrappers, all before `deadline`.
    ///
    /// - Parameters:
    ///   - url: The filled-in ad-server URL.
    ///   - headers: The viewer's device fields (`X-Device-IP`, `X-Device-User-Agent`).
    ///   - resolution: The break and the media choice.
    ///   - deadline: When every answer must be in.
    func resolve(
        url: String,
        headers: [(name: String, value: String)],
        resolution: AdServerResolution,
        deadline: ContinuousClock.Instant
    ) async -> Outcome {
        var outcome = Outcome(ads: [], failures: [], diagnostics: [], problem: nil)
        let first: VASTDocument
        switch await self.document(url, headers: headers, deadline: deadline) {
        case .success(let (document, diagnostics)):
            first = document
            outcome.diagnostics += diagnostics
        case .failure(let failure):
            outcome.problem = failure.message
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
                    walk.failures.append(resolution.failed(item, code: error.code, reason: error.message))
                }
            }
            ads += walk.ads
            outcome.failures += walk.failures
        }
        outcome.ads = resolution.pod(ads)
        self.fire(outcome.failures, headers: headers)
        return outcome
    }

    /// Fetches and decodes one VAST document: a fetch failure is error 301 (unreachable or too
    /// slow), a document that is not VAST 100 or 101.
    func document(
        _ url: String,
        headers: [(name: String, value: String)],
        deadline: ContinuousClock.Instant
    ) async -> Result<(VASTDocument, [VASTDiagnostic]), VASTError> {
        let left = deadline - ContinuousClock.now
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
            return .failure(VASTError(code: .wrapperTimeout, message: error.message, line: 0))
        }
        do {
            return .success(try VASTDecoder.decode(body))
        } catch {
            return .failure(error)
        }
    }

    /// Fires the error URLs of `failures` in the background (each once, within 2 s).
    func fire(_ failures: [AdServerResolution.Failure], headers: [(name: String, value: String)]) {
        let urls = failures.flatMap { $0.filledURLs(cacheBuster: Self.cacheBuster()) }
        guard !urls.isEmpty else { return }
        let fetch = self.fetch
        Task {
            await withTaskGroup(of: Void.self) { group in
                for url in urls.prefix(256) {
                    group.addTask {
                        _ = try? await fetch.get(
                            FetchRequest(
                                url: url,
                                headers: headers,
                                timeout: .seconds(2),
                                maximumBodySize: 64 << 10,
                                keepsBody: false,
                                acceptedStatuses: nil
                            )
                        )
                    }
                }
            }
        }
    }

    /// A random 8-digit number for `[CACHEBUSTING]`.
    static func cacheBuster() -> String {
        String(Int.random(in: 10_000_000...99_999_999))
    }
}
