import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// One HTTP GET with every bound a program that reads from the network needs: one deadline for the
/// whole exchange (connecting, the headers and the last byte of the body), a body size limit, a
/// status check, and failures said in words (``FetchError``).
///
/// The CLI, the server's origin client and the player's loader share it, so a slow, huge or
/// failing server is treated the same way everywhere.
///
/// ```swift
/// let client = BoundedFetch.makeClient()
/// let fetch = BoundedFetch(client: client)
/// let response = try await fetch.get(FetchRequest(url: "https://example.com/main.m3u8", timeout: .seconds(5), maximumBodySize: 4 << 20))
/// print(response.body.count)
/// try await client.shutdown()
/// ```
public struct BoundedFetch: Sendable {
    /// The client requests go through.
    public let client: HTTPClient
    /// Where requests may go; `nil` (the default) sends every request where its URL says.
    ///
    /// With a policy, every hop is checked (``OutboundPolicy/destination(of:trusting:shown:)``) and
    /// redirects are followed here, at most ``OutboundPolicy/maximumRedirects``: `client` must not
    /// follow them itself.
    public var outbound: OutboundPolicy?
    /// The clock a request's deadline runs on.
    private let clock: any Clock<Duration>

    /// Creates a fetcher on `client` (see ``makeClient(connectTimeout:maximumRedirects:)``), whose
    /// requests `outbound` checks when given.
    ///
    /// - Parameters:
    ///   - client: The client requests go through.
    ///   - outbound: Where requests may go; `nil` sends every request where its URL says.
    ///   - clock: The clock each request's deadline runs on and its elapsed time is read from (a
    ///     test passes one it advances itself).
    public init(client: HTTPClient, outbound: OutboundPolicy? = nil, clock: some Clock<Duration> = ContinuousClock()) {
        self.client = client
        self.outbound = outbound
        self.clock = clock
    }

    /// A client that fails at once when nothing listens (it does not retry connecting until the
    /// deadline) and follows at most `maximumRedirects` redirects, without cycles.
    ///
    /// - Parameters:
    ///   - connectTimeout: How long connecting may take; clamped to 1 ms … 1 hour.
    ///   - maximumRedirects: The most redirects followed (0 to 20); 0 follows none.
    /// - Returns: A new client; call `shutdown()` on it when the program is done with it.
    public static func makeClient(connectTimeout: Duration = .seconds(10), maximumRedirects: Int = 5) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .nanoseconds(FetchRequest.clamp(connectTimeout).fetchNanoseconds)
        let redirects = min(max(maximumRedirects, 0), 20)
        configuration.redirectConfiguration = redirects == 0 ? .disallow : .follow(max: redirects, allowCycles: false)
        // No request spans: nothing here bootstraps a tracer, and the default no-op tracer still
        // builds every request's span attributes (about 8% of a player's CPU per request).
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Fetches `request.url`.
    ///
    /// - Parameters:
    ///   - request: The URL, the deadline, the size limit and the statuses accepted.
    ///   - inspect: Called with the body received so far after each chunk, and once more with
    ///     `complete` true at its end; it returns a reason to refuse the body (the fetch stops at
    ///     once and throws ``FetchError/Code/refused`` with that reason), or `nil` to go on. Use it
    ///     to refuse a document from its first bytes.
    /// - Returns: The response, with the body when ``FetchRequest/keepsBody``.
    /// - Throws: ``FetchError``.
    public func get(
        _ request: FetchRequest,
        inspect: (@Sendable (_ body: [UInt8], _ complete: Bool) -> String?)? = nil
    ) async throws(FetchError) -> FetchResponse {
        let shown = request.shownURL ?? request.url
        let lowered = request.url.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw FetchError(code: .invalidURL, message: "\(shown) is not an http or https URL", url: shown)
        }
        let timeout = FetchRequest.clamp(request.timeout)
        let elapsed = self.clock.fetchStopwatch()
        // The exchange races a timer; the loser is cancelled (cancelling the exchange closes the
        // connection, also while the body is streaming).
        let outcome: Result<FetchResponse, FetchError>? = await withTaskGroup(
            of: Result<FetchResponse, FetchError>?.self
        ) { group in
            group.addTask {
                await self.exchange(request, shown: shown, timeout: timeout, elapsed: elapsed, inspect: inspect)
            }
            group.addTask {
                try? await self.clock.sleep(for: timeout, tolerance: nil)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        guard let outcome else {
            if Task.isCancelled {
                throw FetchError(code: .cancelled, message: "the request to \(shown) was cancelled", url: shown)
            }
            throw FetchError(
                code: .timeout,
                message: "no answer from \(shown) within \(NetworkErrorText.seconds(timeout.fetchSeconds)) s",
                url: shown
            )
        }
        return try outcome.get()
    }

    /// One exchange: the request, the status, then the body within the size limit.
    private func exchange(
        _ request: FetchRequest,
        shown: String,
        timeout: Duration,
        elapsed: @escaping @Sendable () -> Duration,
        inspect: (@Sendable ([UInt8], Bool) -> String?)?
    ) async -> Result<FetchResponse, FetchError> {
        var url = request.url
        var redirects = 0
        var response: HTTPClientResponse
        while true {
            var http: HTTPClientRequest
            if let outbound = self.outbound {
                let destination: OutboundPolicy.Destination
                do {
                    destination = try await outbound.destination(
                        of: url,
                        trusting: request.trustedHosts,
                        shown: redirects == 0 ? shown : "\(url) (a redirect of \(shown))"
                    )
                } catch {
                    return .failure(error)
                }
                http = HTTPClientRequest(url: destination.url)
                if let host = destination.hostField { http.headers.add(name: "Host", value: host) }
            } else {
                http = HTTPClientRequest(url: url)
            }
            for (name, value) in request.headers {
                http.headers.add(name: name, value: value)
            }
            let left = max(timeout - elapsed(), FetchRequest.minimumTimeout)
            do {
                response = try await self.client.execute(http, timeout: .nanoseconds(left.fetchNanoseconds))
            } catch {
                return .failure(Self.failure(error, url: request.url, shown: shown, timeout: timeout))
            }
            guard let outbound = self.outbound, (300..<400).contains(Int(response.status.code)),
                let location = response.headers.first(name: "location")
            else { break }
            guard redirects < outbound.maximumRedirects else {
                return .failure(
                    FetchError(code: .transport, message: "\(shown) redirects too many times", url: shown)
                )
            }
            guard let next = Self.resolve(location, against: url) else {
                return .failure(
                    FetchError(
                        code: .invalidURL,
                        message: "\(shown) redirects to a URL that is not http(s)",
                        url: shown
                    )
                )
            }
            if request.keepsRedirectsOnConfiguredHosts, let target = OutboundPolicy.Target(next),
                OutboundPolicy.endpoint(of: request.url) != target.endpoint,
                !outbound.trusts(target, also: request.trustedHosts)
            {
                return .failure(
                    FetchError(
                        code: .forbiddenDestination,
                        message: "\(shown) redirects to \(target.endpoint), off the hosts it may use",
                        url: shown
                    )
                )
            }
            // The redirect's own body is not wanted: a little is read so the connection can be kept.
            _ = try? await response.body.collect(upTo: 16 << 10)
            redirects += 1
            url = next
        }
        let status = Int(response.status.code)
        if let accepted = request.acceptedStatuses, !accepted.contains(status) {
            return .failure(
                FetchError(
                    code: .httpStatus,
                    message: "\(shown): HTTP \(status) \(response.status.reasonPhrase)",
                    url: shown,
                    status: status
                )
            )
        }
        let limit = request.maximumBodySize
        if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }), length > limit {
            return .failure(Self.tooLarge(shown, limit: limit))
        }
        var body: [UInt8] = []
        var count = 0
        do {
            for try await buffer in response.body {
                count += buffer.readableBytes
                if count > limit { return .failure(Self.tooLarge(shown, limit: limit)) }
                if request.keepsBody || inspect != nil { body.append(contentsOf: buffer.readableBytesView) }
                if let inspect, let reason = inspect(body, false) {
                    return .failure(FetchError(code: .refused, message: reason, url: shown, status: status))
                }
            }
        } catch {
            return .failure(Self.failure(error, url: request.url, shown: shown, timeout: timeout))
        }
        if let inspect, let reason = inspect(body, true) {
            return .failure(FetchError(code: .refused, message: reason, url: shown, status: status))
        }
        var headers: [(name: String, value: String)] = []
        for header in response.headers {
            headers.append((header.name, header.value))
        }
        return .success(
            FetchResponse(
                status: status,
                headers: headers,
                body: request.keepsBody ? body : [],
                byteCount: count,
                elapsed: elapsed()
            )
        )
    }

    /// A `Location` value made absolute against the URL it answered: an absolute `http(s)` URL as
    /// it is, `//host/…` with the scheme, `/path` with the scheme and authority, another path
    /// beside the last segment; `nil` for another scheme or a value with spaces or control bytes.
    static func resolve(_ location: String, against base: String) -> String? {
        guard !location.isEmpty, location.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
            let target = OutboundPolicy.Target(base)
        else { return nil }
        if OutboundPolicy.Target(location) != nil { return location }
        if location.contains("://") { return nil }
        let origin = "\(target.scheme)://\(target.userInfo)\(target.hostPort)"
        if location.hasPrefix("//") { return target.scheme + ":" + location }
        if location.hasPrefix("/") { return origin + location }
        let path = target.rest.prefix { $0 != "?" && $0 != "#" }
        let folder = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        return origin + folder + location
    }

    static func tooLarge(_ shown: String, limit: Int) -> FetchError {
        FetchError(code: .bodyTooLarge, message: "\(shown) is larger than \(limit) bytes", url: shown)
    }

    /// A client error as a ``FetchError``, in words; `shown` replaces the URL in the message.
    static func failure(_ error: any Error, url: String, shown: String, timeout: Duration) -> FetchError {
        if error is CancellationError {
            return FetchError(code: .cancelled, message: "the request to \(shown) was cancelled", url: shown)
        }
        var message = NetworkErrorText.describe(error, url: shown, timeout: timeout)
        if shown != url {
            // The description may name the endpoint or the error's own text; never the hidden URL.
            message = message.replacingEvery(url, with: shown)
        }
        let code: FetchError.Code
        if let error = error as? HTTPClientError,
            error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout || error == .writeTimeout
        {
            code = .timeout
        } else {
            code = .transport
        }
        return FetchError(code: code, message: message, url: shown)
    }
}

extension String {
    /// The string with every occurrence of `target` replaced (standard library only).
    package func replacingEvery(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}

extension Clock where Duration == Swift.Duration {
    /// Reads how long has passed on this clock since the call: a request's elapsed time, on the
    /// clock its deadline runs on.
    func fetchStopwatch() -> @Sendable () -> Swift.Duration {
        let origin = self.now
        return { origin.duration(to: self.now) }
    }
}

extension Duration {
    /// The duration in nanoseconds, saturated at `Int64`'s range.
    var fetchNanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// The duration in seconds.
    var fetchSeconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
