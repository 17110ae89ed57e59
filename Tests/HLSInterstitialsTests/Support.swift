import Foundation
import HLSPlaylist

/// Files under `Tests/Fixtures`.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The bytes of a file given by its path relative to `Tests/Fixtures`.
    static func bytes(_ path: String) -> [UInt8] {
        [UInt8]((try? Data(contentsOf: root.appendingPathComponent(path))) ?? Data())
    }

    static func text(_ path: String) -> String {
        String(decoding: bytes(path), as: UTF8.self)
    }

    static func media(_ path: String) throws -> MediaPlaylist {
        try MediaPlaylist(bytes: bytes(path), file: path)
    }

    /// File names (not paths) in a folder, sorted.
    static func names(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        return names.sorted()
    }
}

/// A deterministic random number generator (SplitMix64) so property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
