import HLSInterstitials
import HLSPlaylist

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer entry point of the default target (`playlist`): parse arbitrary bytes leniently and
/// check the invariants that must hold for every input: the model serializes back to the same
/// bytes, and reading every part of the model does not crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parsed = PlaylistParser.parse(bytes)
    if parsed.playlist.serialized() != bytes {
        fatalError("round trip lost bytes")
    }
    for diagnostic in parsed.diagnostics {
        precondition(diagnostic.location.line >= 1 && diagnostic.location.column >= 1)
    }
    switch parsed.playlist {
    case .media(let media):
        for segment in media.segments {
            _ = (segment.uri, segment.key, segment.map, segment.parts.count, segment.date)
        }
        for placed in media.dateRanges {
            _ = (placed.dateRange.startDate, placed.dateRange.cue, placed.dateRange.scte35Out)
            if let date = placed.dateRange.startDate { _ = media.time(at: date) }
        }
        _ = try? media.substitutingVariables()
        if media.segments.count > 0 {
            var copy = media
            copy.insertDateRange(DateRange(id: "fuzz", startDate: nil), at: media.segments.count / 2)
            precondition(copy.dateRanges.count == media.dateRanges.count + 1)
        }
    case .multivariant(let multivariant):
        _ = (multivariant.variants.map(\.codecs), multivariant.renditions.map(\.language))
        _ = try? multivariant.substitutingVariables()
    }
    return 0
}

/// The `asset-list` target: decode arbitrary bytes as an asset list.
///
/// A list that decodes has
/// durations inside the documented range, converts to media time, and encodes to JSON that decodes
/// to an equal list.
public func fuzzAssetList(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue.parse(bytes) {
        let again = try? JSONValue.parse(value.serialized())
        precondition(again != nil, "serialized JSON does not parse")
    }
    guard let list = try? AssetList.decode(bytes) else { return 0 }
    for asset in list.assets {
        precondition(asset.duration >= 0 && asset.duration <= AssetList.maximumSeconds, "duration out of range")
        precondition(asset.mediaDuration >= .zero)
    }
    _ = list.totalDuration
    var event = InterstitialEvent(identifier: "fuzz", time: 0)
    event.skipControl = SkipControl(offset: 1)
    _ = list.effectiveSkipControl(for: event)
    let decoded = try? AssetList.decode(list.encode())
    precondition(decoded?.assets == list.assets, "an encoded asset list does not decode to the same assets")
    return 0
}

/// The `attributes` target: parse arbitrary bytes as an attribute list, alone and as the value of
/// an interstitial `EXT-X-DATERANGE` line.
///
/// Typed reads never trap; a parsed list renders to text
/// that parses to the same list; an event read from the line has every time inside the range.
public func fuzzAttributes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let list = try? AttributeList(parsing: text) {
        for attribute in list {
            let v = attribute.value
            _ = (v.form, v.integer, v.decimal, v.signedDecimal, v.double, v.resolution, v.hexadecimal, v.stringList)
        }
        // The rendered list parses to the same list, unless the last value ends in whitespace: the
        // parser trims whitespace at the end of a line (tolerated, with a warning in playlists).
        let last = list.attributes.last?.value.rawValue.last
        if last != " " && last != "\t" {
            precondition((try? AttributeList(parsing: list.description)) == list, "a rendered list parses differently")
        }
    }
    let line =
        Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00Z\n".utf8)
        + Array("#EXT-X-DATERANGE:CLASS=\"com.apple.hls.interstitial\",".utf8) + bytes
        + Array("\n#EXTINF:6,\na.ts\n".utf8)
    let parsed = PlaylistParser.parse(line)
    precondition(parsed.playlist.serialized() == line, "round trip lost bytes")
    guard let media = parsed.playlist.media else { return 0 }
    let events = InterstitialEvent.events(in: media)
    for event in events {
        for time in [event.duration, event.resumptionOffset, event.playoutLimit, event.plannedDuration] {
            if let time { precondition(MediaTime.validRange.contains(time), "a time out of range was read") }
        }
    }
    let schedule = Schedule(primary: media, events: events)
    _ = (schedule.diagnostics(), schedule.jsonDescription)
    _ = InterstitialValidator().validate(media)
    return 0
}

/// libFuzzer's driver, exported by the fuzzer runtime that `-sanitize=fuzzer` links in.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM links an executable target's entry point under this name; hand control to libFuzzer.
@_cdecl("HLSPlaylistFuzz_main")
public func fuzzMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    // scripts/fuzz.sh picks the target through the environment (libFuzzer owns the arguments).
    switch getenv("INTERMISSION_FUZZ_TARGET").map({ String(cString: $0) }) {
    case "asset-list"?:
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzAssetList(data, size) }
    case "attributes"?:
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzAttributes(data, size) }
    default:
        return runFuzzerDriver(&count, &arguments) { data, size in fuzz(data, size) }
    }
}
