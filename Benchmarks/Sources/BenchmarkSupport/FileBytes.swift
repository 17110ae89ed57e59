import HLSPlaylist

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a benchmark input the way a program that parses large playlists should: into one buffer
/// from `LargeBuffer`, sized from the file's length, so its pages can be huge pages.
public enum FileBytes {
    /// A file that could not be read, with the `errno` of the failing call.
    public struct Failure: Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// The system error number.
        public var code: CInt
        /// "path: error N".
        public var description: String { "\(self.path): cannot be read (error \(self.code))" }
    }

    /// The whole file at `path`.
    public static func read(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(path: path, code: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(path: path, code: errno) }
        return try LargeBuffer.bytes(count: Int(status.st_size)) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var filled = 0
            while filled < buffer.count {
                let count = pread(descriptor, base + filled, buffer.count - filled, off_t(filled))
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw Failure(path: path, code: errno) }
                if count == 0 { break }
                filled += count
            }
            return filled
        }
    }
}
