import HLSInterstitials
import HLSPlaylist

/// A creative's duration as its media say it: the sum of the `EXTINF` durations of the media
/// playlist a player starts with, and how far a declared duration may be from it.
///
/// An asset list's `DURATION` that is not the media's makes players disagree on where an
/// interstitial ends: hls.js ends it at the start plus the media's length, and resumes the primary
/// that far into the break. The server therefore reads each creative's playlists once and uses what
/// they say (see ``CreativeDurationReading``).
public struct CreativeMediaDuration: Sendable, Hashable {
    /// The sum of the media playlist's `EXTINF` durations.
    public var duration: MediaTime
    /// One frame: `1 / FRAME-RATE` of the variant read, or ``defaultFrameDuration`` when the variant
    /// declares no frame rate (or the creative's URI is a media playlist).
    public var frameDuration: MediaTime

    /// A frame at 30 frames per second, for a creative whose multivariant playlist declares no
    /// `FRAME-RATE`.
    public static let defaultFrameDuration = MediaTime(nanoseconds: 33_333_333)

    /// Creates a measurement.
    public init(duration: MediaTime, frameDuration: MediaTime = CreativeMediaDuration.defaultFrameDuration) {
        self.duration = duration
        self.frameDuration = frameDuration
    }

    /// Whether `declared` differs from the media's duration by more than a frame.
    public func disagrees(with declared: MediaTime) -> Bool {
        let difference = declared.nanoseconds.subtractingReportingOverflow(self.duration.nanoseconds)
        guard !difference.overflow else { return true }
        return difference.partialValue.magnitude > self.frameDuration.nanoseconds.magnitude
    }
}

/// Reads a creative's duration from its playlists, without doing I/O itself: it says which URI to
/// read next, and is handed the bytes.
///
/// A multivariant playlist leads to its first variant's media playlist (the one a player starts
/// with), whose `EXTINF` durations are summed; a media playlist is summed at once. At most two
/// playlists are read.
///
/// ```swift
/// var reading = CreativeDurationReading(uri: creative.uri)
/// var step = reading.next
/// while case .read(let uri) = step { step = reading.received(try await load(uri), from: uri) }
/// ```
public struct CreativeDurationReading: Sendable {
    /// What to do next.
    public enum Step: Sendable, Hashable {
        /// Read this URI (resolved against the creative's URI) and pass its bytes to
        /// ``CreativeDurationReading/received(_:from:)``.
        case read(String)
        /// The media's duration.
        case measured(CreativeMediaDuration)
        /// The playlists do not give a duration; the text says why.
        case failed(String)
    }

    /// The next step.
    public private(set) var next: Step
    /// The frame duration from the variant's `FRAME-RATE`, once the multivariant playlist is read.
    private var frameDuration = CreativeMediaDuration.defaultFrameDuration
    /// Playlists read so far.
    private var reads = 0

    /// Starts reading the creative at `uri`.
    public init(uri: String) {
        self.next = .read(uri)
    }

    /// Takes the bytes of the playlist at `uri` (the URI the last step asked for).
    public mutating func received(_ bytes: [UInt8], from uri: String) -> Step {
        self.reads += 1
        let playlist: Playlist
        do {
            playlist = try Playlist(bytes: bytes, file: uri)
        } catch {
            self.next = .failed("\(uri) is not a playlist: \(error)")
            return self.next
        }
        switch playlist {
        case .media(let media):
            if media.segments.isEmpty {
                self.next = .failed("\(uri) has no segments")
            } else if !media.hasEndList {
                self.next = .failed("\(uri) has no EXT-X-ENDLIST: a creative is a VOD playlist")
            } else {
                self.next = .measured(
                    CreativeMediaDuration(duration: media.duration, frameDuration: self.frameDuration)
                )
            }
        case .multivariant(let multivariant):
            guard self.reads == 1, let variant = multivariant.variants.first else {
                self.next = .failed("\(uri) names no media playlist")
                return self.next
            }
            if let rate = variant.frameRate, rate.isFinite, rate >= 1, rate <= 1000 {
                self.frameDuration = MediaTime(nanoseconds: Int64((1e9 / rate).rounded()))
            }
            self.next = .read(URIReference.resolve(variant.uri, against: uri))
        }
        return self.next
    }
}
