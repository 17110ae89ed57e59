import AsyncHTTPClient
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Network failures said in words a person reads, such as
/// `cannot connect to 127.0.0.1:1: connection refused` or
/// `no answer from http://example.com/main.m3u8 within 30 s`, instead of the description of an
/// AsyncHTTPClient or SwiftNIO error value.
///
/// ```swift
/// NetworkErrorText.describe(error, url: "http://127.0.0.1:1/a.m3u8", timeout: 30)
/// // "cannot connect to 127.0.0.1:1: connection refused"
/// ```
public enum NetworkErrorText {
    /// One line saying why a request to `url` failed.
    ///
    /// - Parameters:
    ///   - error: What the HTTP client threw.
    ///   - url: The URL requested.
    ///   - timeout: The request's deadline in seconds, for the timeout wording.
    /// - Returns: A sentence without a trailing period.
    public static func describe(_ error: any Error, url: String, timeout: Double) -> String {
        let endpoint = self.endpoint(of: url)
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return "no answer from \(url) within \(self.seconds(timeout)) s"
            case .connectTimeout:
                return "cannot connect to \(endpoint) within \(self.seconds(timeout)) s"
            case .remoteConnectionClosed:
                return "\(endpoint) closed the connection before answering"
            case .tlsHandshakeTimeout:
                return "the TLS handshake with \(endpoint) did not finish in time"
            case .invalidURL, .emptyHost, .emptyScheme:
                return "\(url) is not a URL that can be requested"
            case .redirectLimitReached, .redirectCycleDetected:
                return "\(url) redirects too many times"
            default:
                break
            }
        }
        if let errno = self.errnoCode(in: error) {
            switch errno {
            case ECONNREFUSED: return "cannot connect to \(endpoint): connection refused"
            case ECONNRESET: return "the connection to \(endpoint) was reset"
            case EHOSTUNREACH: return "cannot connect to \(endpoint): no route to host"
            case ENETUNREACH: return "cannot connect to \(endpoint): the network is unreachable"
            case ETIMEDOUT: return "cannot connect to \(endpoint): timed out"
            case EPIPE: return "\(endpoint) closed the connection before answering"
            default: return "cannot connect to \(endpoint): system error \(errno)"
            }
        }
        if self.contains(error, typeNamed: ["SocketAddressError", "DNS", "GAIError", "Resolution"]) {
            return "cannot resolve the host of \(url)"
        }
        if self.contains(error, typeNamed: ["NIOSSL", "TLS", "BoringSSL"]) {
            return "the TLS connection to \(endpoint) failed"
        }
        return "the request to \(url) failed: \(error)"
    }

    /// `host:port` of an http(s) URL (the scheme's default port when none is written).
    public static func endpoint(of url: String) -> String {
        var rest = Substring(url)
        var port = "80"
        let separator = Array("://")
        if let k = rest.indices.first(where: { rest[$0...].starts(with: separator) }) {
            if rest[..<k].lowercased() == "https" { port = "443" }
            rest = rest[rest.index(k, offsetBy: 3)...]
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            let host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            return after.hasPrefix(":") ? String(host + after) : String(host) + ":" + port
        }
        if let colon = hostPort.lastIndex(of: ":") {
            return String(hostPort[..<colon]) + ":" + hostPort[hostPort.index(after: colon)...]
        }
        return hostPort + ":" + port
    }

    /// One line saying why a request to `url` failed (see ``describe(_:url:timeout:)-(_,_,Double)``).
    public static func describe(_ error: any Error, url: String, timeout: Duration) -> String {
        self.describe(error, url: url, timeout: timeout.fetchSeconds)
    }

    /// `30`, `1.5`: seconds without needless digits.
    static func seconds(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The errno of the first `IOError` in the error or the errors it wraps (connection errors
    /// carry one per address tried).
    static func errnoCode(in error: any Error, depth: Int = 0) -> CInt? {
        if let io = error as? IOError { return io.errnoCode }
        guard depth < 4 else { return nil }
        for child in Mirror(reflecting: error).children {
            if let inner = child.value as? any Error, let code = self.errnoCode(in: inner, depth: depth + 1) {
                return code
            }
            if let list = child.value as? [Any] {
                for element in list {
                    if let inner = element as? any Error, let code = self.errnoCode(in: inner, depth: depth + 1) {
                        return code
                    }
                    for grandchild in Mirror(reflecting: element).children {
                        if let inner = grandchild.value as? any Error,
                            let code = self.errnoCode(in: inner, depth: depth + 1)
                        {
                            return code
                        }
                    }
                }
            }
        }
        return nil
    }

    /// Whether the error, or one it wraps, has a type whose name contains one of `names`.
    static func contains(_ error: any Error, typeNamed names: [String], depth: Int = 0) -> Bool {
        let name = String(reflecting: type(of: error))
        if names.contains(where: { name.contains($0) }) { return true }
        guard depth < 4 else { return false }
        for child in Mirror(reflecting: error).children {
            if let inner = child.value as? any Error, self.contains(inner, typeNamed: names, depth: depth + 1) {
                return true
            }
        }
        return false
    }
}
