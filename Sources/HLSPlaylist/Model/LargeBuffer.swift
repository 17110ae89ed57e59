#if canImport(Glibc)
import Glibc
#endif

/// Storage for the parser's large arrays (the input bytes, one record a line, one a segment),
/// asked of the system in a way that lets it back them with huge pages.
///
/// Parsing a large playlist walks megabytes of input and writes megabytes of records once. With
/// 4 KiB pages that working set needs thousands of TLB entries, and how fast a process runs then
/// can depend on how the host happens to back its pages (issue 2 saw the 24-hour DVR playlist
/// parse at about 370 MB/s in some processes and 600 MB/s in others with the same code). On
/// Linux this type asks for transparent huge pages itself: the whole 2 MiB pages inside a large
/// array's storage are advised `MADV_HUGEPAGE` before anything touches them.
///
/// The storage is not rounded or aligned to 2 MiB on purpose: sized to whole 2 MiB pages, the
/// arrays all started at the same offset of a 2 MiB page, and the parse measured about 8% slower
/// than with the allocator's own placement (issue 15); only the first and last partial 2 MiB of an
/// array stay in small pages.
///
/// It allocates memory only: no file, clock or network is touched. Elsewhere, and where the
/// system declines the advice, the arrays are ordinary arrays of the requested capacity.
public enum LargeBuffer {
    /// The huge page size this type aims at (x86-64 and arm64 Linux with 4 KiB base pages).
    static let hugePageSize = 2 << 20

    /// Below this many bytes the advice is not worth a system call.
    static let minimumAdvisedBytes = 2 << 20

    /// An array of bytes of length `count`, filled by `body`, in storage advised for huge pages.
    ///
    /// Made for reading a file into before parsing it: the caller's `body` writes the bytes (for
    /// example with `read(2)`) and returns how many it wrote, at most `count`.
    ///
    /// - Parameters:
    ///   - count: The capacity to fill; at least 0.
    ///   - body: Writes into the buffer (of exactly `count` bytes) and returns how many bytes it
    ///     wrote from the start; a result outside `0...count` traps.
    /// - Returns: The bytes `body` wrote.
    /// - Throws: What `body` throws; nothing is kept then.
    public static func bytes(
        count: Int,
        initializingWith body: (UnsafeMutableBufferPointer<UInt8>) throws -> Int
    ) rethrows -> [UInt8] {
        precondition(count >= 0, "a negative byte count")
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            self.advise(UnsafeMutableRawBufferPointer(buffer))
            let written = try body(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            precondition(written >= 0 && written <= count, "initializingWith returned \(written) of \(count) bytes")
            initialized = written
        }
    }

    /// An empty array that can grow to at least `minimumCapacity` elements without moving, in
    /// storage advised for huge pages.
    static func emptyArray<Element>(reservingCapacity minimumCapacity: Int) -> [Element] {
        if minimumCapacity * MemoryLayout<Element>.stride < self.minimumAdvisedBytes {
            // Too small to advise: `reserveCapacity` is specialized here, whereas the unsafe
            // initializer below asks the runtime for the storage's type metadata on every call
            // (a few hundred instructions, as much as parsing a line).
            var array: [Element] = []
            array.reserveCapacity(minimumCapacity)
            return array
        }
        return [Element](unsafeUninitializedCapacity: minimumCapacity) { buffer, initialized in
            self.advise(UnsafeMutableRawBufferPointer(buffer))
            initialized = 0
        }
    }

    /// The whole 2 MiB pages inside `buffer`, or nil when there are none.
    static func hugePageRange(of buffer: UnsafeMutableRawBufferPointer) -> Range<UInt>? {
        guard let base = buffer.baseAddress, buffer.count >= self.minimumAdvisedBytes else { return nil }
        let size = UInt(self.hugePageSize)
        let start = UInt(bitPattern: base)
        let (end, overflow) = start.addingReportingOverflow(UInt(buffer.count))
        guard !overflow else { return nil }
        let first = (start + size - 1) & ~(size - 1)
        let last = end & ~(size - 1)
        return first < last ? first..<last : nil
    }

    /// Advises the whole 2 MiB pages inside `buffer` for transparent huge pages (Linux); a no-op
    /// elsewhere, for small buffers, and when the kernel declines.
    static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
        guard let range = self.hugePageRange(of: buffer),
            let address = UnsafeMutableRawPointer(bitPattern: range.lowerBound)
        else {
            return
        }
        // The advice is a hint: a kernel without transparent huge pages answers EINVAL, which
        // changes nothing, so the result is not checked.
        _ = madvise(address, Int(range.upperBound - range.lowerBound), MADV_HUGEPAGE)
        #endif
    }
}
