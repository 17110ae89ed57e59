import HLSPlaylist

#if canImport(Glibc)
import Glibc

/// `read(2)` (the name `read` inside ``PlaylistInput`` is its own method).
private let systemReadInto = Glibc.read
#elseif canImport(Darwin)
import Darwin

/// `read(2)` (the name `read` inside ``PlaylistInput`` is its own method).
private let systemReadInto = Darwin.read
#endif

extension PlaylistInput {
    /// Reads an open file (or pipe) to its end, head first, with the rules of
    /// ``readHeadFirst(descriptor:name:)``: a regular file goes straight into one buffer sized
    /// from its length and advised for huge pages (``LargeBuffer``), so parsing it runs at the
    /// same speed in every process; anything else is read in chunks.
    static func readFile(descriptor: CInt, name: String) throws -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            status.st_size >= 0, status.st_size <= Int64(self.maximumSize)
        else {
            // Pipes, terminals, and files over the limit (refused by the head-first reader).
            return try self.readHeadFirst(descriptor: descriptor, name: name)
        }
        // One byte more than the file's length, so a file that grew since `fstat` is noticed.
        let capacity = Int(status.st_size) + 1
        let bytes = try LargeBuffer.bytes(count: capacity) { buffer in
            try self.fill(buffer, from: descriptor, name: name)
        }
        if bytes.count == capacity {
            // It grew while being read: read it again from the start, in chunks.
            guard lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw Unusable(reason: "\(name): cannot be read (error \(errno))")
            }
            return try self.readHeadFirst(descriptor: descriptor, name: name)
        }
        try self.checkHead(bytes, complete: true, name: name)
        return bytes
    }

    /// Reads into `buffer` until it is full or the file ends, checking the head as soon as it is
    /// in; returns the byte count.
    private static func fill(
        _ buffer: UnsafeMutableBufferPointer<UInt8>,
        from descriptor: CInt,
        name: String
    ) throws
        -> Int
    {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = systemReadInto(descriptor, base + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw Unusable(reason: "\(name): cannot be read (error \(errno))")
            }
            if count == 0 { break }
            let before = filled
            filled += count
            if before < 10 {
                try self.checkHead(UnsafeBufferPointer(rebasing: buffer[0..<filled]), complete: false, name: name)
            }
        }
        return filled
    }

    /// Throws ``notAPlaylist(_:)`` when `head` shows the input is not a playlist.
    private static func checkHead(_ head: some Collection<UInt8>, complete: Bool, name: String) throws {
        if self.headRefuses(ArraySlice(head.prefix(16)), complete: complete) {
            throw self.notAPlaylist(name)
        }
    }
}
