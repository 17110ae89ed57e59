import Foundation
import IntermissionTestSupport
import Testing

/// `intermission format --fix`, run as a user would on the legacy fixtures: the draft name is
/// rewritten to the spec name, every other byte is kept, the validator's warning is gone, and
/// `--fix --check` says whether anything would change.
@Suite(.realTime) struct FormatFixCommandTests {
    /// Fixtures whose draft name has one spec spelling, with the spec text the fixed line must hold
    /// and the draft text it must no longer hold.
    static let rewritable: [(path: String, draft: String, spec: String)] = [
        ("Tests/Fixtures/legacy/x-cue.m3u8", "X-CUE=", "CUE=\"ONCE\""),
        ("Tests/Fixtures/legacy/x-enable-skip-after.m3u8", "X-ENABLE-SKIP-AFTER=", "X-SKIP-CONTROL-OFFSET="),
        ("Tests/Fixtures/legacy/x-enable-skip-for.m3u8", "X-ENABLE-SKIP-FOR=", "X-SKIP-CONTROL-DURATION="),
        ("Tests/Fixtures/legacy/x-skip-after.m3u8", "X-SKIP-AFTER=", "X-SKIP-CONTROL-OFFSET="),
        ("Tests/Fixtures/legacy/x-restrict-seek.m3u8", "SEEK", "X-RESTRICT=\"SKIP,JUMP\""),
        ("Tests/Fixtures/legacy/no-class.m3u8", "ID=\"ad1\",START", "CLASS=\"com.apple.hls.interstitial\""),
    ]

    @Test(arguments: 0..<Self.rewritable.count)
    func fixRewritesTheDraftNameAndKeepsEveryOtherLine(_ index: Int) async throws {
        let (path, draft, spec) = Self.rewritable[index]
        let input = String(decoding: try Data(contentsOf: CLI.repository.appendingPathComponent(path)), as: UTF8.self)
        let before = try await CLI.run(["validate", path])
        let warned = String(decoding: before.stdout, as: UTF8.self)
        #expect(warned.contains("warning[INT-"), "\(warned)")

        let fixed = try await CLI.run(["format", "--fix", path])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        let output = String(decoding: fixed.stdout, as: UTF8.self)
        // Only the date-range line changed; it now has the spec spelling and not the draft one.
        let inputLines = input.split(separator: "\n", omittingEmptySubsequences: false)
        let outputLines = output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(inputLines.count == outputLines.count)
        let changed = zip(inputLines, outputLines).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(changed.count == 1, "\(changed.map(\.offset))")
        let line = try #require(changed.first)
        #expect(line.element.0.hasPrefix("#EXT-X-DATERANGE:"))
        #expect(line.element.1.contains(spec), "\(line.element.1)")
        #expect(!line.element.1.contains(draft), "\(line.element.1)")
        // The rewrite is reported at file:line:col on standard error.
        #expect(fixed.stderr.contains("\(path):\(line.offset + 1):"), "\(fixed.stderr)")
        #expect(fixed.stderr.contains("fixed:"))

        // The fixed playlist has no warning left (the fixtures have no other fault), and nothing
        // more to fix.
        let after = try await CLI.run(["validate", "-"], stdin: fixed.stdout)
        let clean = String(decoding: after.stdout, as: UTF8.self)
        #expect(after.status == 0 && !clean.contains("warning["), "\(clean)")
        #expect(try await CLI.run(["format", "--fix", "--check", path]).status == 1)
        let again = try await CLI.run(["format", "--fix", "--check", "-"], stdin: fixed.stdout)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// A name with no unambiguous spec spelling, or one shadowed by the spec name, is left alone and
    /// said so; the output is the input byte for byte.
    @Test(arguments: [
        "Tests/Fixtures/legacy/x-cue-shadowed.m3u8", "Tests/Fixtures/legacy/x-prefetch-id.m3u8",
        "Tests/Fixtures/legacy/x-skip-button-start.m3u8",
    ])
    func namesWithoutOneSpecSpellingAreLeftAlone(_ path: String) async throws {
        let input = [UInt8](try Data(contentsOf: CLI.repository.appendingPathComponent(path)))
        let result = try await CLI.run(["format", "--fix", path])
        #expect(result.status == 0)
        #expect(result.stdout == input)
        #expect(result.stderr.contains("left alone:"), "\(result.stderr)")
        #expect(try await CLI.run(["format", "--fix", "--check", path]).status == 0)
    }

    /// An asset list's draft skip-control keys become the spec's; the JSON stays an asset list the
    /// other keys of which are unchanged.
    @Test(arguments: [
        ("Tests/Fixtures/legacy/enable-skip-after.json", "ENABLE-SKIP-AFTER", "OFFSET"),
        ("Tests/Fixtures/legacy/enable-skip-for.json", "ENABLE-SKIP-FOR", "DURATION"),
    ])
    func assetListsGetTheSpecSkipControlKeys(_ path: String, _ draft: String, _ spec: String) async throws {
        let inputData = try Data(contentsOf: CLI.repository.appendingPathComponent(path))
        let input = try #require(try JSONSerialization.jsonObject(with: inputData) as? [String: Any])
        let result = try await CLI.run(["format", "--fix", path])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let inputSkip = try #require(input["SKIP-CONTROL"] as? [String: Any])
        let outputSkip = try #require(output["SKIP-CONTROL"] as? [String: Any])
        #expect(outputSkip[draft] == nil)
        #expect((outputSkip[spec] as? Double) == (inputSkip[draft] as? Double))
        #expect(Set(outputSkip.keys) == Set(inputSkip.keys).subtracting([draft]).union([spec]))
        #expect((output["ASSETS"] as? [Any])?.count == (input["ASSETS"] as? [Any])?.count)
        #expect(try await CLI.run(["format", "--fix", "--check", path]).status == 1)
    }

    /// A file that is not there is exit status 2 with the name on standard error.
    @Test func aMissingAssetListIsExitTwo() async throws {
        let result = try await CLI.run(["format", "--fix", "Tests/Fixtures/legacy/none.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("none.json"))
    }
}
