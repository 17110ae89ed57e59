/// `segmentation_descriptor()` (SCTE 35 section 10.3.3): what a `time_signal` (or a
/// `splice_insert`) means: a program, a chapter, an advertisement, a placement opportunity, with its
/// duration and the content's identifier (UPID).
public struct SegmentationDescriptor: Sendable, Hashable {
    /// `segmentation_event_id`.
    public var eventID: UInt32
    /// `segmentation_event_cancel_indicator`: the event with this ID is cancelled (no other field
    /// is set).
    public var isCancelled: Bool
    /// `segmentation_event_id_compliance_indicator`.
    public var eventIDCompliance: Bool
    /// `program_segmentation_flag`: the segmentation applies to the whole program.
    public var programSegmentation: Bool
    /// `delivery_not_restricted_flag`.
    public var deliveryNotRestricted: Bool
    /// `web_delivery_allowed_flag`, `no_regional_blackout_flag`, `archive_allowed_flag` and
    /// `device_restrictions`, when delivery is restricted.
    public var restrictions: Restrictions?
    /// Component tags and their PTS offsets, when not for the whole program.
    public var components: [Component]
    /// `segmentation_duration` in 90 kHz ticks (40 bits), when `segmentation_duration_flag` is 1.
    public var duration: UInt64?
    /// The content identifiers: one, or several for a `MID` UPID (type `0x0D`).
    public var upids: [SegmentationUPID]
    /// `segmentation_type_id`.
    public var type: SegmentationType
    /// `segment_num`.
    public var segmentNumber: UInt8
    /// `segments_expected`.
    public var segmentsExpected: UInt8
    /// `sub_segment_num`, for the placement-opportunity and ad-block starts that carry it.
    public var subSegmentNumber: UInt8?
    /// `sub_segments_expected`, with ``subSegmentNumber``.
    public var subSegmentsExpected: UInt8?

    /// Delivery restrictions.
    public struct Restrictions: Sendable, Hashable {
        /// `web_delivery_allowed_flag`.
        public var webDeliveryAllowed: Bool
        /// `no_regional_blackout_flag`.
        public var noRegionalBlackout: Bool
        /// `archive_allowed_flag`.
        public var archiveAllowed: Bool
        /// `device_restrictions` (2 bits).
        public var deviceRestrictions: UInt8
    }

    /// A component's PTS offset.
    public struct Component: Sendable, Hashable {
        /// `component_tag`.
        public var tag: UInt8
        /// `pts_offset` in 90 kHz ticks (33 bits).
        public var ptsOffset: UInt64
    }

    /// ``duration`` in seconds.
    public var durationSeconds: Double? { self.duration.map { Double($0) / 90_000 } }

    init(from reader: inout SpliceBits) throws(SCTE35DecodingError) {
        self.eventID = UInt32(try reader.bits(32, "segmentation_event_id"))
        self.isCancelled = try reader.flag("segmentation_event_cancel_indicator")
        self.eventIDCompliance = try reader.flag("segmentation_event_id_compliance_indicator")
        try reader.skip(6)
        self.programSegmentation = true
        self.deliveryNotRestricted = true
        self.restrictions = nil
        self.components = []
        self.duration = nil
        self.upids = []
        self.type = .notIndicated
        self.segmentNumber = 0
        self.segmentsExpected = 0
        self.subSegmentNumber = nil
        self.subSegmentsExpected = nil
        guard !self.isCancelled else { return }
        self.programSegmentation = try reader.flag("program_segmentation_flag")
        let hasDuration = try reader.flag("segmentation_duration_flag")
        self.deliveryNotRestricted = try reader.flag("delivery_not_restricted_flag")
        if self.deliveryNotRestricted {
            try reader.skip(5)
        } else {
            self.restrictions = Restrictions(
                webDeliveryAllowed: try reader.flag("web_delivery_allowed_flag"),
                noRegionalBlackout: try reader.flag("no_regional_blackout_flag"),
                archiveAllowed: try reader.flag("archive_allowed_flag"),
                deviceRestrictions: UInt8(try reader.bits(2, "device_restrictions"))
            )
        }
        if !self.programSegmentation {
            let count = Int(try reader.byte("component_count"))
            for _ in 0..<count {
                let tag = try reader.byte("component_tag")
                try reader.skip(7)
                self.components.append(Component(tag: tag, ptsOffset: try reader.bits(33, "pts_offset")))
            }
        }
        if hasDuration { self.duration = try reader.bits(40, "segmentation_duration") }
        let upidType = try reader.byte("segmentation_upid_type")
        let upidLength = Int(try reader.byte("segmentation_upid_length"))
        let upidStart = reader.byteOffset
        let upidBytes = try reader.bytes(upidLength, "segmentation_upid")
        self.upids = try SegmentationUPID.decode(type: upidType, bytes: upidBytes, at: upidStart)
        self.type = SegmentationType(rawValue: try reader.byte("segmentation_type_id"))
        self.segmentNumber = try reader.byte("segment_num")
        self.segmentsExpected = try reader.byte("segments_expected")
        // Sub-segments were added later: a descriptor that ends here is still valid.
        if self.type.carriesSubSegments, reader.remainingBytes >= 2 {
            self.subSegmentNumber = try reader.byte("sub_segment_num")
            self.subSegmentsExpected = try reader.byte("sub_segments_expected")
        }
    }
}

/// `segmentation_type_id` (SCTE 35 table 23): an open vocabulary (values SCTE 35 does not name are
/// kept as they are).
public struct SegmentationType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The `segmentation_type_id` byte.
    public var rawValue: UInt8

    /// Wraps a `segmentation_type_id`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 0x00 Not Indicated.
    public static let notIndicated = Self(rawValue: 0x00)
    /// 0x01 Content Identification.
    public static let contentIdentification = Self(rawValue: 0x01)
    /// 0x02 Call Ad Server.
    public static let callAdServer = Self(rawValue: 0x02)
    /// 0x10 Program Start.
    public static let programStart = Self(rawValue: 0x10)
    /// 0x11 Program End.
    public static let programEnd = Self(rawValue: 0x11)
    /// 0x20 Chapter Start.
    public static let chapterStart = Self(rawValue: 0x20)
    /// 0x21 Chapter End.
    public static let chapterEnd = Self(rawValue: 0x21)
    /// 0x22 Break Start.
    public static let breakStart = Self(rawValue: 0x22)
    /// 0x23 Break End.
    public static let breakEnd = Self(rawValue: 0x23)
    /// 0x30 Provider Advertisement Start.
    public static let providerAdvertisementStart = Self(rawValue: 0x30)
    /// 0x31 Provider Advertisement End.
    public static let providerAdvertisementEnd = Self(rawValue: 0x31)
    /// 0x32 Distributor Advertisement Start.
    public static let distributorAdvertisementStart = Self(rawValue: 0x32)
    /// 0x33 Distributor Advertisement End.
    public static let distributorAdvertisementEnd = Self(rawValue: 0x33)
    /// 0x34 Provider Placement Opportunity Start.
    public static let providerPlacementOpportunityStart = Self(rawValue: 0x34)
    /// 0x35 Provider Placement Opportunity End.
    public static let providerPlacementOpportunityEnd = Self(rawValue: 0x35)
    /// 0x36 Distributor Placement Opportunity Start.
    public static let distributorPlacementOpportunityStart = Self(rawValue: 0x36)
    /// 0x37 Distributor Placement Opportunity End.
    public static let distributorPlacementOpportunityEnd = Self(rawValue: 0x37)
    /// 0x38 Provider Overlay Placement Opportunity Start.
    public static let providerOverlayPlacementOpportunityStart = Self(rawValue: 0x38)
    /// 0x3A Distributor Overlay Placement Opportunity Start.
    public static let distributorOverlayPlacementOpportunityStart = Self(rawValue: 0x3A)
    /// 0x44 Provider Ad Block Start.
    public static let providerAdBlockStart = Self(rawValue: 0x44)
    /// 0x46 Distributor Ad Block Start.
    public static let distributorAdBlockStart = Self(rawValue: 0x46)

    /// The types that open an ad break by default: provider and distributor advertisement and
    /// placement-opportunity starts.
    public static let defaultBreakStarts: Set<SegmentationType> = [
        .providerAdvertisementStart, .distributorAdvertisementStart, .providerPlacementOpportunityStart,
        .distributorPlacementOpportunityStart,
    ]
    /// The types that close one by default: the matching ends.
    public static let defaultBreakEnds: Set<SegmentationType> = [
        .providerAdvertisementEnd, .distributorAdvertisementEnd, .providerPlacementOpportunityEnd,
        .distributorPlacementOpportunityEnd,
    ]

    /// Whether a descriptor of this type may carry `sub_segment_num` and `sub_segments_expected`
    /// (placement-opportunity and ad-block starts).
    var carriesSubSegments: Bool { [0x34, 0x36, 0x38, 0x3A, 0x44, 0x46].contains(self.rawValue) }

    /// `0x30`, as SCTE 35 tables write it.
    public var description: String {
        "0x" + (self.rawValue < 16 ? "0" : "") + String(self.rawValue, radix: 16, uppercase: true)
    }
}

/// A `segmentation_upid()`: the content's identifier, by `segmentation_upid_type`.
public struct SegmentationUPID: Sendable, Hashable {
    /// `segmentation_upid_type`, from SCTE 35 table 22 (`0x0C` MPU, `0x0F` URI, `0x10` UUID and others).
    public var type: UInt8
    /// The identifier's bytes.
    public var bytes: [UInt8]

    /// Creates a UPID.
    public init(type: UInt8, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }

    /// The identifier as text, for the types whose value is text (ISCI, Ad-ID, TID, ADI, ATSC,
    /// ADS information, URI, SCR); `nil` for binary ones.
    public var text: String? {
        guard [0x01, 0x02, 0x03, 0x07, 0x09, 0x0E, 0x0F, 0x11].contains(self.type) else { return nil }
        return String(decoding: self.bytes, as: UTF8.self)
    }

    /// The UPIDs of one `segmentation_upid()`: several for `MID` (0x0D), each with its type and
    /// length; one otherwise (none for type 0 and length 0).
    static func decode(type: UInt8, bytes: [UInt8], at offset: Int) throws(SCTE35DecodingError) -> [SegmentationUPID] {
        guard type == 0x0D else {
            return type == 0 && bytes.isEmpty ? [] : [SegmentationUPID(type: type, bytes: bytes)]
        }
        var result: [SegmentationUPID] = []
        var index = 0
        while index < bytes.count {
            guard index + 2 <= bytes.count, index + 2 + Int(bytes[index + 1]) <= bytes.count else {
                throw SCTE35DecodingError(
                    code: .invalidDescriptor,
                    message: "a MID segmentation_upid's entry runs past segmentation_upid_length",
                    byteOffset: offset + index
                )
            }
            guard bytes[index] != 0x0D else {
                throw SCTE35DecodingError(
                    code: .invalidDescriptor,
                    message: "a MID segmentation_upid may not hold another MID",
                    byteOffset: offset + index
                )
            }
            let length = Int(bytes[index + 1])
            result.append(SegmentationUPID(type: bytes[index], bytes: Array(bytes[(index + 2)..<(index + 2 + length)])))
            index += 2 + length
        }
        return result
    }
}
