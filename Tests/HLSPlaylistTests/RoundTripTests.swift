import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct RoundTripTests {
    @Test(arguments: Fixture.all(in: "playlists") + Fixture.all(in: "invalid") + Fixture.all(in: "legacy"))
    func fixtureRoundTripsByteForByte(_ fixture: Fixture) {
        let bytes = fixture.bytes
        #expect(!bytes.isEmpty)
        let parsed = PlaylistParser.parse(bytes, options: .init(mode: .lenient, file: fixture.name))
        #expect(parsed.playlist.serialized() == bytes)
    }

    @Test(arguments: Fixture.all(in: "playlists"))
    func validFixturesHaveNoErrors(_ fixture: Fixture) {
        let parsed = PlaylistParser.parse(fixture.bytes, options: .init(mode: .lenient, file: fixture.name))
        let errors = parsed.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.map(\.description).joined(separator: "\n"))")
    }
}
