/// A `splice_info_section` (ANSI/SCTE 35 2023, section 9.6): the binary cue that packagers carry
/// in `EXT-X-DATERANGE` `SCTE35-OUT`/`-IN`/`-CMD` (hexadecimal), in `EXT-OATCLS-SCTE35` and
/// `EXT-X-SCTE35:CUE=` (Base64), and in MPEG-TS.
///
/// Decoding checks the `CRC_32`, every length field against the bytes, and every field's place:
/// bad input throws ``SCTE35DecodingError`` with the byte offset, never traps. An encrypted section
/// (`encrypted_packet` 1) keeps its command and descriptors as bytes (``SpliceCommand/encrypted(_:)``).
///
/// ```swift
/// let section = try SpliceInfoSection(base64: "/DAlAAAAAAAAAP/wFAUAAAPvf+//adb6P/4AUmXAAAAAAAAMAAAAAAAA")
/// if case .insert(let insert) = section.command { print(insert.breakDuration?.duration) }
/// ```
public struct SpliceInfoSection: Sendable, Hashable {
    /// `sap_type`: the stream access point type at the splice point (3: not specified).
    public var sapType: UInt8
    /// `protocol_version` (0).
    public var protocolVersion: UInt8
    /// `encrypted_packet`: whether the command and descriptors are encrypted.
    public var isEncrypted: Bool
    /// `encryption_algorithm` (0: none).
    public var encryptionAlgorithm: UInt8
    /// `pts_adjustment`: 90 kHz ticks added to every PTS of the section (33 bits).
    public var ptsAdjustment: UInt64
    /// `cw_index`: the control word of an encrypted section.
    public var controlWordIndex: UInt8
    /// `tier` (12 bits; `0xFFF`: every tier).
    public var tier: UInt16
    /// The splice command.
    public var command: SpliceCommand
    /// The splice descriptors, in order.
    public var descriptors: [SpliceDescriptor]
    /// `CRC_32`, checked when decoded.
    public var crc32: UInt32

    /// The longest section: `section_length` is 12 bits and at most 4,093.
    public static let maximumBytes = 4096

    /// Decodes a section from its bytes.
    ///
    /// - Throws: ``SCTE35DecodingError``.
    public init(bytes: [UInt8]) throws(SCTE35DecodingError) {
        guard bytes.count <= Self.maximumBytes else {
            throw SCTE35DecodingError(
                code: .tooLarge,
                message: "\(bytes.count) bytes: a splice_info_section has at most \(Self.maximumBytes)",
                byteOffset: Self.maximumBytes
            )
        }
        var reader = SpliceBits(bytes, context: "splice_info_section")
        let tableID = try reader.byte("table_id")
        guard tableID == 0xFC else {
            throw SCTE35DecodingError(
                code: .invalidTableID,
                message:
                    "table_id is 0x\(String(tableID, radix: 16, uppercase: true)), not 0xFC: not a splice_info_section",
                byteOffset: 0
            )
        }
        try reader.skip(2)  // section_syntax_indicator, private_indicator
        self.sapType = UInt8(try reader.bits(2, "sap_type"))
        let sectionLength = Int(try reader.bits(12, "section_length"))
        guard 3 + sectionLength == bytes.count else {
            throw SCTE35DecodingError(
                code: .lengthMismatch,
                message: "section_length says \(3 + sectionLength) bytes in all, there are \(bytes.count)",
                byteOffset: 1
            )
        }
        guard sectionLength >= 4 + 11 + 2 else {
            throw SCTE35DecodingError(
                code: .truncated,
                message: "section_length \(sectionLength) is too short for a splice_info_section",
                byteOffset: 1
            )
        }
        let computed = MPEGCRC32.checksum(bytes[..<(bytes.count - 4)])
        let stored = bytes[(bytes.count - 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard computed == stored else {
            throw SCTE35DecodingError(
                code: .crcMismatch,
                message:
                    "CRC_32 is 0x\(String(stored, radix: 16, uppercase: true)), the bytes give 0x\(String(computed, radix: 16, uppercase: true))",
                byteOffset: bytes.count - 4
            )
        }
        self.crc32 = stored
        self.protocolVersion = try reader.byte("protocol_version")
        self.isEncrypted = try reader.flag("encrypted_packet")
        self.encryptionAlgorithm = UInt8(try reader.bits(6, "encryption_algorithm"))
        self.ptsAdjustment = try reader.bits(33, "pts_adjustment")
        self.controlWordIndex = try reader.byte("cw_index")
        self.tier = UInt16(try reader.bits(12, "tier"))
        let commandLength = Int(try reader.bits(12, "splice_command_length"))
        let commandType = try reader.byte("splice_command_type")
        // What follows the command: descriptor_loop_length (2), [E_CRC_32 (4)], CRC_32 (4).
        let trailer = 2 + (self.isEncrypted ? 4 : 0) + 4
        if self.isEncrypted {
            // Everything from splice_command_type to E_CRC_32 is encrypted: kept as bytes.
            let start = reader.byteOffset - 1
            self.command = .encrypted(Array(bytes[start..<(bytes.count - 4)]))
            self.descriptors = []
            return
        }
        let commandStart = reader.byteOffset
        // 0xFFF: a legacy length (unknown); the command's own fields say where it ends.
        let commandEnd = commandLength == 0xFFF ? bytes.count - trailer : commandStart + commandLength
        guard commandEnd <= bytes.count - trailer else {
            throw SCTE35DecodingError(
                code: .lengthMismatch,
                message: "splice_command_length \(commandLength) runs past the section's end",
                byteOffset: commandStart - 3
            )
        }
        var commandReader = SpliceBits(bytes, start: commandStart, end: commandEnd, context: "splice command")
        self.command = try SpliceCommand.decode(type: commandType, from: &commandReader)
        let loopStart = commandLength == 0xFFF ? commandReader.byteOffset : commandEnd
        if commandLength != 0xFFF, commandReader.remainingBytes != 0, commandType != 0xFF, commandType != 0x04 {
            throw SCTE35DecodingError(
                code: .lengthMismatch,
                message:
                    "splice_command_length \(commandLength) leaves \(commandReader.remainingBytes) bytes the command does not use",
                byteOffset: commandReader.byteOffset
            )
        }
        var loopReader = SpliceBits(bytes, start: loopStart, end: bytes.count - 4, context: "descriptor loop")
        let loopLength = Int(try loopReader.bits(16, "descriptor_loop_length"))
        let loopEnd = loopReader.byteOffset + loopLength
        guard loopEnd <= bytes.count - 4 else {
            throw SCTE35DecodingError(
                code: .lengthMismatch,
                message: "descriptor_loop_length \(loopLength) runs past the CRC_32",
                byteOffset: loopStart
            )
        }
        var descriptors: [SpliceDescriptor] = []
        var offset = loopReader.byteOffset
        while offset < loopEnd {
            let descriptor = try SpliceDescriptor.decode(bytes, at: offset, end: loopEnd)
            descriptors.append(descriptor.descriptor)
            offset = descriptor.next
        }
        self.descriptors = descriptors
        // alignment_stuffing may follow the loop; it is not read.
    }

    /// Decodes a section written in hexadecimal, with or without `0x` (as `SCTE35-OUT` holds it).
    ///
    /// - Throws: ``SCTE35DecodingError`` (``SCTE35DecodingError/Code/invalidText`` for text that is
    ///   not hexadecimal).
    public init(hexadecimal text: some StringProtocol) throws(SCTE35DecodingError) {
        try self.init(bytes: try SCTE35Text.hexadecimal(text))
    }

    /// Decodes a section written in Base64 (as `EXT-OATCLS-SCTE35` and `EXT-X-SCTE35:CUE=` hold it).
    ///
    /// - Throws: ``SCTE35DecodingError`` (``SCTE35DecodingError/Code/invalidText`` for text that is
    ///   not Base64).
    public init(base64 text: some StringProtocol) throws(SCTE35DecodingError) {
        try self.init(bytes: try SCTE35Text.base64(text))
    }

    /// The segmentation descriptors, in order.
    public var segmentations: [SegmentationDescriptor] {
        self.descriptors.compactMap {
            if case .segmentation(let segmentation) = $0 { return segmentation }
            return nil
        }
    }
}

/// A splice command (`splice_command_type`).
public enum SpliceCommand: Sendable, Hashable {
    /// `splice_null` (0x00): a heartbeat.
    case null
    /// `splice_schedule` (0x04), kept as its bytes.
    case schedule([UInt8])
    /// `splice_insert` (0x05).
    case insert(SpliceInsert)
    /// `time_signal` (0x06): the time; the segmentation descriptors say what happens then.
    case timeSignal(SpliceTime)
    /// `bandwidth_reservation` (0x07).
    case bandwidthReservation
    /// `private_command` (0xFF): its `identifier` and bytes.
    case privateCommand(identifier: UInt32, bytes: [UInt8])
    /// A command type SCTE 35 does not define, with its bytes.
    case unknown(type: UInt8, bytes: [UInt8])
    /// An encrypted section's command and descriptors, as bytes (from `splice_command_type` to
    /// `E_CRC_32`).
    case encrypted([UInt8])

    /// Decodes the command of `type` from `reader`'s window.
    static func decode(type: UInt8, from reader: inout SpliceBits) throws(SCTE35DecodingError) -> SpliceCommand {
        switch type {
        case 0x00: return .null
        case 0x04: return .schedule(try reader.bytes(reader.remainingBytes, "splice_schedule"))
        case 0x05: return .insert(try SpliceInsert(from: &reader))
        case 0x06: return .timeSignal(try SpliceTime(from: &reader))
        case 0x07: return .bandwidthReservation
        case 0xFF:
            let identifier = UInt32(try reader.bits(32, "identifier"))
            return .privateCommand(
                identifier: identifier,
                bytes: try reader.bytes(reader.remainingBytes, "private_byte")
            )
        default: return .unknown(type: type, bytes: try reader.bytes(reader.remainingBytes, "splice command"))
        }
    }
}

/// `splice_time()`: a PTS, or none (`time_specified_flag` 0: immediate, or given elsewhere).
public struct SpliceTime: Sendable, Hashable {
    /// `pts_time` in 90 kHz ticks (33 bits), when `time_specified_flag` is 1.
    public var ptsTime: UInt64?

    /// Creates a splice time.
    public init(ptsTime: UInt64?) {
        self.ptsTime = ptsTime
    }

    init(from reader: inout SpliceBits) throws(SCTE35DecodingError) {
        if try reader.flag("time_specified_flag") {
            try reader.skip(6)
            self.ptsTime = try reader.bits(33, "pts_time")
        } else {
            try reader.skip(7)
            self.ptsTime = nil
        }
    }

    /// ``ptsTime`` in seconds.
    public var seconds: Double? { self.ptsTime.map { Double($0) / 90_000 } }
}

/// `break_duration()`.
public struct BreakDuration: Sendable, Hashable {
    /// `auto_return`: the splice back to the network happens by itself when the duration ends.
    public var autoReturn: Bool
    /// `duration` in 90 kHz ticks (33 bits).
    public var duration: UInt64

    /// Creates a break duration.
    public init(autoReturn: Bool, duration: UInt64) {
        self.autoReturn = autoReturn
        self.duration = duration
    }

    /// ``duration`` in seconds.
    public var seconds: Double { Double(self.duration) / 90_000 }
}

/// `splice_insert()` (0x05): a splice out of (or back into) the network at a time.
public struct SpliceInsert: Sendable, Hashable {
    /// One component's splice time, when the splice is not for the whole program.
    public struct Component: Sendable, Hashable {
        /// `component_tag`.
        public var tag: UInt8
        /// Its splice time (none when the splice is immediate).
        public var spliceTime: SpliceTime?
    }

    /// `splice_event_id`.
    public var eventID: UInt32
    /// `splice_event_cancel_indicator`: the event with this ID is cancelled (no other field is set).
    public var isCancelled: Bool
    /// `out_of_network_indicator`: a splice out (into a break); `false`: back into the network.
    public var outOfNetwork: Bool
    /// `program_splice_flag`: the whole program splices at once (not component by component).
    public var programSplice: Bool
    /// `splice_immediate_flag`: splice at the next opportunity, not at a time.
    public var spliceImmediate: Bool
    /// `event_id_compliance_flag`.
    public var eventIDCompliance: Bool
    /// The program's splice time (program splice, not immediate).
    public var spliceTime: SpliceTime?
    /// The components' splice times (component splice).
    public var components: [Component]
    /// `break_duration()`, when `duration_flag` is 1.
    public var breakDuration: BreakDuration?
    /// `unique_program_id`.
    public var uniqueProgramID: UInt16
    /// `avail_num`.
    public var availNumber: UInt8
    /// `avails_expected`.
    public var availsExpected: UInt8

    init(from reader: inout SpliceBits) throws(SCTE35DecodingError) {
        self.eventID = UInt32(try reader.bits(32, "splice_event_id"))
        self.isCancelled = try reader.flag("splice_event_cancel_indicator")
        try reader.skip(7)
        self.outOfNetwork = false
        self.programSplice = false
        self.spliceImmediate = false
        self.eventIDCompliance = false
        self.spliceTime = nil
        self.components = []
        self.breakDuration = nil
        self.uniqueProgramID = 0
        self.availNumber = 0
        self.availsExpected = 0
        guard !self.isCancelled else { return }
        self.outOfNetwork = try reader.flag("out_of_network_indicator")
        self.programSplice = try reader.flag("program_splice_flag")
        let hasDuration = try reader.flag("duration_flag")
        self.spliceImmediate = try reader.flag("splice_immediate_flag")
        self.eventIDCompliance = try reader.flag("event_id_compliance_flag")
        try reader.skip(3)
        if self.programSplice {
            if !self.spliceImmediate { self.spliceTime = try SpliceTime(from: &reader) }
        } else {
            let count = Int(try reader.byte("component_count"))
            for _ in 0..<count {
                let tag = try reader.byte("component_tag")
                let time = self.spliceImmediate ? nil : try SpliceTime(from: &reader)
                self.components.append(Component(tag: tag, spliceTime: time))
            }
        }
        if hasDuration {
            let autoReturn = try reader.flag("auto_return")
            try reader.skip(6)
            self.breakDuration = BreakDuration(autoReturn: autoReturn, duration: try reader.bits(33, "duration"))
        }
        self.uniqueProgramID = UInt16(try reader.bits(16, "unique_program_id"))
        self.availNumber = try reader.byte("avail_num")
        self.availsExpected = try reader.byte("avails_expected")
    }
}

/// A splice descriptor (`splice_descriptor_tag`), of identifier `CUEI` unless said.
public enum SpliceDescriptor: Sendable, Hashable {
    /// `avail_descriptor` (0x00): `provider_avail_id`.
    case avail(providerAvailID: UInt32)
    /// `DTMF_descriptor` (0x01): `preroll` (tenths of a second) and the DTMF characters.
    case dtmf(preroll: UInt8, characters: String)
    /// `segmentation_descriptor` (0x02).
    case segmentation(SegmentationDescriptor)
    /// `time_descriptor` (0x03): TAI seconds and nanoseconds, and the UTC offset in seconds.
    case time(taiSeconds: UInt64, taiNanoseconds: UInt32, utcOffset: UInt16)
    /// `audio_descriptor` (0x04), kept as its bytes after the identifier.
    case audio([UInt8])
    /// A descriptor of another tag or identifier: its tag, identifier and bytes after the
    /// identifier.
    case other(tag: UInt8, identifier: UInt32, bytes: [UInt8])

    /// `CUEI`, the identifier of SCTE 35's own descriptors.
    public static let cueIdentifier: UInt32 = 0x4355_4549

    /// Decodes the descriptor at `offset` of a loop that ends at `end`; it and where the next one
    /// starts.
    static func decode(
        _ bytes: [UInt8],
        at offset: Int,
        end: Int
    ) throws(SCTE35DecodingError) -> (descriptor: SpliceDescriptor, next: Int) {
        var head = SpliceBits(bytes, start: offset, end: end, context: "splice descriptor")
        let tag = try head.byte("splice_descriptor_tag")
        let length = Int(try head.byte("descriptor_length"))
        let bodyEnd = offset + 2 + length
        guard bodyEnd <= end else {
            throw SCTE35DecodingError(
                code: .lengthMismatch,
                message: "descriptor 0x\(String(tag, radix: 16)) of \(length) bytes runs past descriptor_loop_length",
                byteOffset: offset
            )
        }
        guard length >= 4 else {
            throw SCTE35DecodingError(
                code: .invalidDescriptor,
                message: "descriptor 0x\(String(tag, radix: 16)) of \(length) bytes has no room for its identifier",
                byteOffset: offset
            )
        }
        var reader = SpliceBits(bytes, start: offset + 2, end: bodyEnd, context: "splice descriptor")
        let identifier = UInt32(try reader.bits(32, "identifier"))
        guard identifier == Self.cueIdentifier else {
            return (
                .other(tag: tag, identifier: identifier, bytes: try reader.bytes(reader.remainingBytes, "bytes")),
                bodyEnd
            )
        }
        let descriptor: SpliceDescriptor
        switch tag {
        case 0x00:
            descriptor = .avail(providerAvailID: UInt32(try reader.bits(32, "provider_avail_id")))
        case 0x01:
            let preroll = try reader.byte("preroll")
            let count = Int(try reader.bits(3, "dtmf_count"))
            try reader.skip(5)
            let characters = try reader.bytes(count, "DTMF_char")
            descriptor = .dtmf(preroll: preroll, characters: String(decoding: characters, as: UTF8.self))
        case 0x02:
            var segmentation = SpliceBits(bytes, start: offset + 6, end: bodyEnd, context: "segmentation_descriptor")
            descriptor = .segmentation(try SegmentationDescriptor(from: &segmentation))
        case 0x03:
            descriptor = .time(
                taiSeconds: try reader.bits(48, "TAI_seconds"),
                taiNanoseconds: UInt32(try reader.bits(32, "TAI_ns")),
                utcOffset: UInt16(try reader.bits(16, "UTC_offset"))
            )
        case 0x04:
            descriptor = .audio(try reader.bytes(reader.remainingBytes, "audio_descriptor"))
        default:
            descriptor = .other(
                tag: tag,
                identifier: identifier,
                bytes: try reader.bytes(reader.remainingBytes, "bytes")
            )
        }
        return (descriptor, bodyEnd)
    }
}
