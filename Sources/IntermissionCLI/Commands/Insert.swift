import ArgumentParser
import Foundation
import HLSInterstitials
import HLSPlaylist

/// `intermission insert`: add an interstitial tag to a playlist (or to every media playlist of a
/// multivariant playlist), leaving every other byte as it was.
struct Insert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add a valid interstitial EXT-X-DATERANGE tag; everything else stays byte for byte.",
        discussion: """
            --start takes seconds on the primary timeline (mapped to a date through \
            EXT-X-PROGRAM-DATE-TIME) or an ISO-8601 date. A playlist without PROGRAM-DATE-TIME gets \
            one, dated 2000-01-01T00:00:00.000Z at its first segment. Given a multivariant playlist, \
            the same tag goes into every media playlist it references: they are rewritten in place, \
            or written under -o DIR with the same relative paths (required for URLs).
            """
    )

    @Argument(help: "A media or multivariant playlist: a file, '-' for standard input, or an http(s) URL.")
    var playlist: String

    @Option(help: "The interstitial's ID.")
    var id: String

    @Option(help: "Seconds on the primary timeline, or an ISO-8601 date.")
    var start: String

    @Option(name: .customLong("asset-uri"), help: "The absolute URI of the interstitial asset (X-ASSET-URI).")
    var assetURI: String?

    @Option(name: .customLong("asset-list"), help: "The URI of a JSON asset list (X-ASSET-LIST).")
    var assetList: String?

    @Option(name: .customLong("duration"), help: "DURATION in seconds.")
    var duration: String?

    @Option(name: .customLong("resume-offset"), help: "X-RESUME-OFFSET in seconds (0: resume where it paused).")
    var resumeOffset: String?

    @Option(name: .customLong("playout-limit"), help: "X-PLAYOUT-LIMIT in seconds.")
    var playoutLimit: String?

    @Option(help: "X-RESTRICT members: SKIP,JUMP.")
    var restrict: String?

    @Option(help: "CUE members: PRE, POST, ONCE.")
    var cue: String?

    @Option(help: "X-SNAP members: OUT, IN.")
    var snap: String?

    @Option(
        name: .customLong("attribute"),
        help:
            "A client attribute X-NAME=VALUE (repeatable). Quote strings yourself only if you want them quoted: X-A=1.5 stays a number, X-B=text becomes \"text\"."
    )
    var attributes: [String] = []

    @Option(
        name: .shortAndLong,
        help: "Output file (media playlist) or directory (multivariant). Default: standard output / in place."
    )
    var output: String?

    @OptionGroup var network: NetworkOptions

    func validate() throws {
        if (self.assetURI == nil) == (self.assetList == nil) {
            throw ValidationError("give exactly one of --asset-uri and --asset-list")
        }
        for attribute in self.attributes {
            guard let eq = attribute.firstIndex(of: "="), attribute.hasPrefix("X-"), eq != attribute.startIndex else {
                throw ValidationError("--attribute takes X-NAME=VALUE, not '\(attribute)'")
            }
        }
    }

    func makeEvent() throws -> InterstitialEvent {
        var event: InterstitialEvent
        if let seconds = MediaTime(self.start) {
            event = InterstitialEvent(identifier: self.id, time: seconds)
        } else if let date = DateTime(iso8601: self.start) {
            event = InterstitialEvent(identifier: self.id, date: date)
        } else {
            throw ValidationError("--start takes seconds (e.g. 12.5) or an ISO-8601 date, not '\(self.start)'")
        }
        if let uri = self.assetURI { event.assetURIs = [uri] }
        event.assetListURI = self.assetList
        // Decimal seconds within MediaTime.validRange (no exponents, hexadecimal, NaN or infinity);
        // DURATION must not be negative and X-PLAYOUT-LIMIT must be above 0 (Appendix D).
        func seconds(
            _ text: String?,
            _ name: String,
            minimum: MediaTime? = nil,
            above: MediaTime? = nil
        ) throws -> MediaTime? {
            guard let text else { return nil }
            guard let value = MediaTime(text), value >= (minimum ?? .minimum),
                value > (above ?? MediaTime(nanoseconds: .min))
            else {
                let range = minimum != nil ? " of at least 0" : above != nil ? " above 0" : ""
                throw ValidationError(
                    "\(name) takes decimal seconds\(range) (at most \(MediaTime.maximum)), not '\(text.prefix(40))'"
                )
            }
            return value
        }
        event.duration = try seconds(self.duration, "--duration", minimum: .zero)
        event.resumptionOffset = try seconds(self.resumeOffset, "--resume-offset")
        event.playoutLimit = try seconds(self.playoutLimit, "--playout-limit", above: .zero)
        let members = { (text: String?) in
            (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
        }
        event.restrictions = Restrictions(members: members(self.restrict))
        let cue = members(self.cue)
        for member in cue where !["PRE", "POST", "ONCE"].contains(member) {
            throw ValidationError("--cue takes PRE, POST and ONCE, not '\(member)'")
        }
        if cue.contains("PRE") && cue.contains("POST") { throw ValidationError("--cue cannot have both PRE and POST") }
        event.cue = cue.contains("PRE") ? .join : cue.contains("POST") ? .leave : .none
        event.willPlayOnce = cue.contains("ONCE")
        let snap = members(self.snap)
        event.alignsStartWithPrimarySegmentBoundary = snap.contains("OUT")
        event.alignsResumptionWithPrimarySegmentBoundary = snap.contains("IN")
        for attribute in self.attributes {
            let eq = attribute.firstIndex(of: "=")!
            let name = String(attribute[..<eq])
            let raw = String(attribute[attribute.index(after: eq)...])
            let value: AttributeValue =
                raw.hasPrefix("\"") || raw.hasPrefix("0x") || MediaTime(raw) != nil
                ? AttributeValue(rawValue: raw) : .quoted(raw)
            event.userDefinedAttributes.append(Attribute(name: name, value: value))
        }
        return event
    }

    func run() async throws {
        let event = try self.makeEvent()
        let input = try await PlaylistInput.readPlaylistOrExit(self.playlist, timeout: self.network.timeout)
        let inserter = InterstitialInserter()
        switch PlaylistParser.parse(input.bytes).playlist {
        case .media(let media):
            let result = try self.insert(event, into: media, inserter: inserter, file: input.name)
            if let output {
                try Data(result.serialized()).write(to: URL(fileURLWithPath: output))
            } else {
                FileHandle.standardOutput.write(Data(result.serialized()))
            }
        case .multivariant(let multivariant):
            let isRemote = input.name.hasPrefix("http://") || input.name.hasPrefix("https://")
            if isRemote && self.output == nil {
                printError("intermission: \(input.name) is a URL: give -o DIR to write its media playlists")
                throw ExitCode(2)
            }
            var written: [(String, [UInt8])] = []
            for uri in InterstitialInserter.mediaPlaylistURIs(in: multivariant) {
                let location = input.resolve(uri)
                let child: PlaylistInput
                do {
                    child = try await PlaylistInput.read(location, timeout: self.network.timeout)
                } catch {
                    printError("intermission: \(error)")
                    throw ExitCode(2)
                }
                guard case .media(let media) = PlaylistParser.parse(child.bytes).playlist else {
                    printError("intermission: \(location): not a media playlist")
                    throw ExitCode(2)
                }
                let result = try self.insert(event, into: media, inserter: inserter, file: location)
                let path: String
                if let output {
                    let relative = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
                    path = (output as NSString).appendingPathComponent(
                        URIReference.isAbsolute(relative) ? (relative as NSString).lastPathComponent : relative
                    )
                } else {
                    path = location
                }
                written.append((path, result.serialized()))
            }
            // Write only after every playlist took the tag, so a failure changes nothing.
            for (path, bytes) in written {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent.isEmpty
                        ? "." : (path as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true
                )
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                printError("wrote \(path)")
            }
        }
    }

    func insert(
        _ event: InterstitialEvent,
        into media: MediaPlaylist,
        inserter: InterstitialInserter,
        file: String
    )
        throws -> MediaPlaylist
    {
        do {
            return try inserter.insert(event, into: media, file: file)
        } catch let error as InsertionError {
            printError("intermission: \(error)")
            for diagnostic in error.diagnostics { printError("  \(diagnostic)") }
            throw ExitCode(1)
        }
    }
}
