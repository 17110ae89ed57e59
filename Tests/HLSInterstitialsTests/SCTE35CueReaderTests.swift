import Foundation
import HLSInterstitials
import HLSPlaylist
import Testing

/// `SCTE35CueReader` (issue 25, part 4): every common HLS marker style read through the decoder,
/// with dates, durations and identifiers that stay the same across reloads.
@Suite struct SCTE35CueReaderTests {
    static let t0 = DateTime(iso8601: "2025-01-01T00:00:00.000Z")!
    /// The standard's splice_insert example in hexadecimal, for `SCTE35-OUT`.
    static var spliceInsertHex: String {
        "0x" + Data(base64Encoded: SCTE35Tests.spliceInsertExample)!.map { String(format: "%02X", $0) }.joined()
    }

    /// A playlist of 6 s segments from `t0`, with `markers[i]` written before segment `i`.
    static func playlist(_ markers: [Int: [String]], segments: Int = 12) throws -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:100\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n"
        for index in 0..<segments {
            for marker in markers[index] ?? [] { text += marker + "\n" }
            text += "#EXTINF:6,\ns\(100 + index).ts\n"
        }
        return try MediaPlaylist(parsing: text)
    }

    @Test func cueOutContinuedAndCueInAgreeOnTheBreak() throws {
        let playlist = try Self.playlist([
            1: ["#EXT-X-CUE-OUT:DURATION=30"],
            2: ["#EXT-X-CUE-OUT-CONT:ElapsedTime=6.000,Duration=30"],
            3: ["#EXT-X-CUE-OUT-CONT:12/30"],
            6: ["#EXT-X-CUE-IN"],
        ])
        let (cues, diagnostics) = SCTE35CueReader().cues(in: playlist)
        #expect(diagnostics.isEmpty)
        #expect(cues.map(\.kind) == [.breakStart, .breakStart, .breakStart, .breakEnd])
        #expect(cues.map(\.marker) == [.cueOut, .cueOutContinued, .cueOutContinued, .cueIn])
        // Every start names the same break at 6 s, 30 s long, whichever marker a window begins with.
        for cue in cues.prefix(3) {
            #expect(cue.date == Self.t0 + MediaTime(seconds: 6))
            #expect(cue.duration == MediaTime(seconds: 30))
            #expect(cue.id == "cue-\(Self.t0.millisecondsSince1970 / 1000 + 6)")
        }
        #expect(cues[3].date == Self.t0 + MediaTime(seconds: 36))
        #expect(cues[3].segmentIndex == 6)
    }

    @Test func base64MarkersAreDecoded() throws {
        let playlist = try Self.playlist([
            1: ["#EXT-OATCLS-SCTE35:\(SCTE35Tests.spliceInsertExample)", "#EXT-X-ASSET:CAID=0x0000000020FB6501"],
            3: ["#EXT-X-SCTE35:CUE=\"\(SCTE35Tests.timeSignalExample)\",CUE-OUT=YES"],
            5: ["#EXT-X-SPLICEPOINT-SCTE35:\(SCTE35Tests.timeSignalExample)"],
        ])
        let (cues, diagnostics) = SCTE35CueReader().cues(in: playlist)
        #expect(diagnostics.isEmpty)
        #expect(cues.map(\.marker) == [.oatcls, .scte35Tag, .splicePoint])
        #expect(cues.allSatisfy { $0.kind == .breakStart })
        #expect(cues[0].id == "splice-\(0x4800_008F)")
        #expect(cues[0].duration == MediaTime(seconds: 0x52_CCF5 / 90_000.0))
        #expect(cues[0].date == Self.t0 + MediaTime(seconds: 6))
        #expect(cues[1].id == "segmentation-\(0x4800_008E)")
        #expect(cues[1].duration == MediaTime(seconds: 307))
        #expect(cues[2].date == Self.t0 + MediaTime(seconds: 30))
    }

    @Test func dateRangesWithHexadecimalCues() throws {
        let playlist = try Self.playlist([
            2: [
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2025-01-01T00:00:12.000Z\",PLANNED-DURATION=60,SCTE35-OUT=\(Self.spliceInsertHex)"
            ],
            8: [
                "#EXT-X-DATERANGE:ID=\"ad1\",START-DATE=\"2025-01-01T00:00:12.000Z\",DURATION=36,SCTE35-IN=0xFC"
            ],
        ])
        let (cues, diagnostics) = SCTE35CueReader().cues(in: playlist)
        #expect(cues.map(\.kind) == [.breakStart, .breakEnd])
        #expect(cues.map(\.id) == ["ad1", "ad1"])
        #expect(cues[0].duration == MediaTime(seconds: 60))
        #expect(cues[0].section != nil)
        #expect(cues[1].date == Self.t0 + MediaTime(seconds: 48))
        // The IN's cue is one byte: a warning on its line, and the marker still ends the break.
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.rule == SCTE35CueReader.undecodableRule)
        #expect(diagnostics.first?.location.line == 1 + cues[1].lineIndex)
    }

    /// x9k3 writes `EXT-X-SCTE35` with a space before each comma; its continuation lines carry no
    /// `ELAPSED` and are not starts of their own.
    @Test func scte35TagsWithLooseSpacing() throws {
        let playlist = try Self.playlist([
            2: ["#EXT-X-SCTE35:CUE=\"\(SCTE35Tests.spliceInsertExample)\" ,CUE-OUT=YES "],
            3: ["#EXT-X-SCTE35:CUE=\"\(SCTE35Tests.spliceInsertExample)\" ,CUE-OUT=CONT"],
        ])
        let (cues, diagnostics) = SCTE35CueReader().cues(in: playlist)
        #expect(diagnostics.isEmpty)
        #expect(cues.map(\.lineIndex).count == 1)
        #expect(cues.first?.kind == .breakStart && cues.first?.date == Self.t0 + MediaTime(seconds: 12))
    }

    /// Which segmentation types open a break is configurable.
    @Test func segmentationTypesAreConfigurable() throws {
        let playlist = try Self.playlist([2: ["#EXT-OATCLS-SCTE35:\(SCTE35Tests.timeSignalExample)"]])
        #expect(SCTE35CueReader().cues(in: playlist).cues.count == 1)
        let breaksOnly = SCTE35CueReader(breakStarts: [.breakStart], breakEnds: [.breakEnd])
        #expect(breaksOnly.cues(in: playlist).cues.isEmpty)
    }

    /// Garbage, truncated and 100 KB cues give a warning each, with their line, and no cue.
    @Test func hostileCuesAreWarnings() throws {
        let truncated = String(SCTE35Tests.timeSignalExample.prefix(20))
        let playlist = try Self.playlist([
            1: ["#EXT-OATCLS-SCTE35:not base64!"],
            2: ["#EXT-X-SPLICEPOINT-SCTE35:\(truncated)"],
            3: ["#EXT-X-SCTE35:CUE=\"\(String(repeating: "A", count: 100_000))\""],
            4: ["#EXT-X-CUE-OUT-CONT:ElapsedTime=6,Duration=30,SCTE35=%%%"],
        ])
        let (cues, diagnostics) = SCTE35CueReader().cues(in: playlist)
        #expect(diagnostics.count == 4)
        #expect(diagnostics.allSatisfy { $0.severity == .warning && !$0.hint.isEmpty })
        // Only the continuation stands, by its name: its elapsed time still dates the break.
        #expect(cues.map(\.marker) == [.cueOutContinued])
        #expect(cues.first?.date == Self.t0 + MediaTime(seconds: 18))
    }
}
