import HLSPlaylist

/// libFuzzer entry point: parse arbitrary bytes leniently and check the invariants that must hold
/// for every input: the model serializes back to the same bytes, and reading every part of the
/// model does not crash.
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
    return runFuzzerDriver(&count, &arguments) { data, size in fuzz(data, size) }
}
