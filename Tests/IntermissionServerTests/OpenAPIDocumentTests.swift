import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Logging
import Testing

@testable import IntermissionServer

/// `/openapi.yaml` documents exactly the routes the server has.
@Suite(.realTime) struct OpenAPIDocumentTests {
    /// The operations of the document: `METHOD /path` for every method under every path.
    ///
    /// Reads the document's own layout (paths at two spaces under `paths:`, methods at four), which
    /// ``documentLayoutIsTheOneRead()`` checks.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations = Set<String>()
        var inPaths = false
        var path: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line == "paths:"
                path = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.dropFirst(4).dropLast()
                if ["get", "put", "post", "delete", "patch", "options", "head", "trace"].contains(method) {
                    operations.insert(method.uppercased() + " " + path)
                }
            }
        }
        return operations
    }

    /// A router path in the document's spelling: `**` (one or more segments) is the `{path}` parameter.
    static func documented(_ routerPath: String) -> String {
        let path = routerPath.hasPrefix("/") ? routerPath : "/" + routerPath
        return path.replacingOccurrences(of: "/**", with: "/{path}")
    }

    /// The router's routes and the media mounts' route, as `METHOD /path` (HEAD left out: every GET
    /// route answers HEAD, which the document says once).
    static func serverOperations() async throws -> (router: Set<String>, guarded: Set<String>) {
        let configuration = try demoConfiguration(clock: ManualWallClock(t0))
        let parts = ServerApplicationParts(
            configuration: configuration,
            store: InMemoryAdStore(),
            logger: Logger(label: "t")
        )
        var router = Set<String>()
        for route in parts.makeRouter().routes where route.method != .head {
            router.insert("\(route.method) " + Self.documented("\(route.path)"))
        }
        var guarded = Set<String>()
        for route in ServerApplicationParts.routeMethods.routes {
            let path = Self.documented(route.pattern.joined(separator: "/"))
            for method in route.methods where method != .head { guarded.insert("\(method) \(path)") }
        }
        return (router, guarded)
    }

    /// Every route of the router is documented with its methods, and every documented operation is
    /// a route (or the media mounts, which middleware serves).
    @Test func documentMatchesTheRouter() async throws {
        let documented = Self.documentedOperations(OpenAPIDocument.yaml)
        let (router, _) = try await Self.serverOperations()
        #expect(router.count >= 15, "\(router.sorted())")
        let media: Set = ["GET /media/{mount}/{path}"]
        #expect(router.subtracting(documented).isEmpty, "undocumented: \(router.subtracting(documented).sorted())")
        #expect(
            documented.subtracting(router).subtracting(media).isEmpty,
            "documented but not routed: \(documented.subtracting(router).subtracting(media).sorted())"
        )
        #expect(documented.isSuperset(of: media))
    }

    /// The method guard (405 with `Allow`) knows the same routes as the router, shape for shape.
    @Test func methodGuardMatchesTheRouter() async throws {
        let (router, guarded) = try await Self.serverOperations()
        // The guard spells parameters `*`; the router `{name}` (or `{name}.json`).
        func shape(_ operation: String) -> String {
            operation.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
                if segment.hasPrefix("{"), let close = segment.firstIndex(of: "}") {
                    return "*" + segment[segment.index(after: close)...]
                }
                return String(segment)
            }.joined(separator: "/")
        }
        let media: Set = ["GET /media/*/*"]
        #expect(Set(router.map(shape)).union(media) == Set(guarded.map(shape)))
    }

    /// The reader above sees the document's layout: a path of each kind and its methods.
    @Test func documentLayoutIsTheOneRead() {
        let documented = Self.documentedOperations(OpenAPIDocument.yaml)
        #expect(documented.contains("GET /"))
        #expect(documented.contains("POST /v1/admin/channels/{channel}/breaks"))
        #expect(documented.contains("GET /v1/admin/channels/{channel}/breaks"))
        #expect(documented.contains("DELETE /v1/admin/inventory/{id}"))
        #expect(!documented.contains { $0.contains("components") || $0.contains("schemas") })
        #expect(OpenAPIDocument.yaml.hasPrefix("openapi: 3.0.3\n"))
        // Every `$ref` names a component the document defines.
        for line in OpenAPIDocument.yaml.split(separator: "\n") {
            guard let range = line.range(of: "$ref: \"#/components/") else { continue }
            let reference = line[range.upperBound...].prefix { $0 != "\"" }
            let parts = reference.split(separator: "/")
            #expect(parts.count == 2, "\(line)")
            guard parts.count == 2 else { continue }
            #expect(
                OpenAPIDocument.yaml.contains("\n  \(parts[0]):\n")
                    && OpenAPIDocument.yaml.contains("\n    \(parts[1]):\n"),
                "no component \(reference)"
            )
        }
    }

    /// The server serves the document as it is, to GET and HEAD.
    @Test func servedAtOpenAPIYAML() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let answer = try await client.get("/openapi.yaml")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/yaml; charset=utf-8")
            #expect(answer.text == OpenAPIDocument.yaml)
            let head = try await client.execute(uri: "/openapi.yaml", method: .head, headers: [:], body: nil) { $0 }
            #expect(head.status == .ok && head.body.readableBytes == 0)
        }
    }
}
