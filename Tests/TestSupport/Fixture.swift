import Foundation
import HLSPlaylist

/// A file under `Tests/Fixtures`, and the loaders every test target uses to read fixtures.
public struct Fixture: CustomStringConvertible, Sendable {
    /// Path relative to `Tests/Fixtures`.
    public let name: String

    /// Names a fixture by its path relative to `Tests/Fixtures`.
    public init(name: String) {
        self.name = name
    }

    /// `Tests/Fixtures`, found from this file's path.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The repository root.
    public static let repository = root.deletingLastPathComponent().deletingLastPathComponent()

    /// The file's URL.
    public var url: URL { Fixture.root.appendingPathComponent(self.name) }

    /// The file's bytes (empty when it cannot be read).
    public var bytes: [UInt8] { [UInt8]((try? Data(contentsOf: self.url)) ?? Data()) }

    /// The file's text (UTF-8).
    public var text: String { String(decoding: self.bytes, as: UTF8.self) }

    /// The path relative to `Tests/Fixtures`.
    public var description: String { self.name }

    /// Every `.m3u8` file in a fixture folder, sorted.
    public static func all(in folder: String) -> [Fixture] {
        self.names(in: folder).filter { $0.hasSuffix(".m3u8") }.map { Fixture(name: folder + "/" + $0) }
    }

    /// File names (not paths) in a fixture folder, sorted.
    public static func names(in folder: String) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        return names.sorted()
    }

    /// The bytes of the file at `path` (relative to `Tests/Fixtures`).
    public static func bytes(_ path: String) -> [UInt8] {
        Fixture(name: path).bytes
    }

    /// The text of the file at `path` (relative to `Tests/Fixtures`).
    public static func text(_ path: String) -> String {
        Fixture(name: path).text
    }

    /// The media playlist at `path` (relative to `Tests/Fixtures`), parsed strictly.
    public static func media(_ path: String) throws -> MediaPlaylist {
        try MediaPlaylist(bytes: self.bytes(path), file: path)
    }

    /// The media playlist `Tests/Fixtures/playlists/{name}.m3u8`, parsed strictly.
    public static func playlist(_ name: String) throws -> MediaPlaylist {
        let path = "playlists/" + name + ".m3u8"
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try MediaPlaylist(bytes: self.bytes(path))
    }
}
