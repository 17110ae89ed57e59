import Foundation

/// A playlist file under `Tests/Fixtures`.
struct Fixture: CustomStringConvertible, Sendable {
    /// Path relative to `Tests/Fixtures`.
    let name: String

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    var url: URL { Fixture.root.appendingPathComponent(self.name) }

    var bytes: [UInt8] { [UInt8]((try? Data(contentsOf: self.url)) ?? Data()) }

    var text: String { String(decoding: self.bytes, as: UTF8.self) }

    var description: String { self.name }

    /// Every `.m3u8` file in a fixture folder.
    static func all(in folder: String) -> [Fixture] {
        let dir = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".m3u8") }.sorted().map { Fixture(name: folder + "/" + $0) }
    }

    /// The repository root.
    static let repository = root.deletingLastPathComponent().deletingLastPathComponent()
}
