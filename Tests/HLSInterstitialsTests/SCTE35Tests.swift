import Foundation
import HLSInterstitials
import IntermissionTestSupport
import Testing

/// `SpliceInfoSection` (issue 25, part 4): SCTE 35 `splice_info_section` decoded, checked against
/// the SCTE 35 standard's own examples and, field by field, against Python's `threefive` on seeded
/// random cues; hostile bytes get an error with a byte offset, never a trap.
@Suite(.realTime) struct SCTE35Tests {
    /// The `time_signal` example of SCTE 35 (section 14.2): a Provider Placement Opportunity Start
    /// of 307 s with an Airing ID UPID.
    static let timeSignalExample = "/DA0AAAAAAAA///wBQb+cr0AUAAeAhxDVUVJSAAAjn/PAAGlmbAICAAAAAAsoKGKNAIAmsnRfg=="
    /// The `splice_insert` example of SCTE 35 (section 14.1): out of network, 60.293567 s, auto-return,
    /// with an avail descriptor.
    static let spliceInsertExample = "/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo="

    @Test func theStandardsTimeSignalExample() throws {
        let section = try SpliceInfoSection(base64: Self.timeSignalExample)
        #expect(section.sapType == 3)
        #expect(section.tier == 0xFFF)
        #expect(section.crc32 == 0x9AC9_D17E)
        guard case .timeSignal(let time) = section.command else {
            Issue.record("not a time_signal: \(section.command)")
            return
        }
        // 0x072BD0050 ticks = 1,924,989,008 / 90,000 s.
        #expect(time.ptsTime == 0x0_72BD_0050)
        let segmentation = try #require(section.segmentations.first)
        #expect(segmentation.eventID == 0x4800_008E)
        #expect(segmentation.type == .providerPlacementOpportunityStart)
        #expect(segmentation.duration == 0x00_01A5_99B0)  // 27,630,000 ticks: 307 s
        #expect(segmentation.durationSeconds == 307)
        #expect(segmentation.upids == [SegmentationUPID(type: 0x08, bytes: [0, 0, 0, 0, 0x2C, 0xA0, 0xA1, 0x8A])])
        #expect(segmentation.segmentNumber == 2)
        #expect(segmentation.segmentsExpected == 0)
        #expect(segmentation.restrictions?.noRegionalBlackout == true)
        #expect(segmentation.restrictions?.archiveAllowed == true)
        #expect(segmentation.restrictions?.webDeliveryAllowed == false)
        // The same bytes in hexadecimal, as SCTE35-OUT writes them.
        let hex = "0x" + Data(base64Encoded: Self.timeSignalExample)!.map { String(format: "%02X", $0) }.joined()
        #expect(try SpliceInfoSection(hexadecimal: hex) == section)
    }

    @Test func theStandardsSpliceInsertExample() throws {
        let section = try SpliceInfoSection(base64: Self.spliceInsertExample)
        guard case .insert(let insert) = section.command else {
            Issue.record("not a splice_insert: \(section.command)")
            return
        }
        #expect(insert.eventID == 0x4800_008F)
        #expect(insert.outOfNetwork)
        #expect(insert.programSplice)
        #expect(!insert.spliceImmediate)
        #expect(insert.spliceTime?.ptsTime == 0x0_7369_C02E)
        #expect(insert.breakDuration == BreakDuration(autoReturn: true, duration: 0x00_52CC_F5))
        #expect(section.descriptors == [.avail(providerAvailID: 309)])
    }

    /// `threefive` makes seeded random cues and decodes them; every field must agree.
    @Test func agreesWithThreefiveOnRandomCues() async throws {
        let script = Fixture.repository.appendingPathComponent("scripts/referee_scte35.py").path
        let result = try? await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", script, "generate", "500", "2027"]
        )
        guard let result, result.status == 0 else {
            let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"
            #expect(!required, "threefive is not installed (pip install threefive)")
            return
        }
        var agreed = 0
        var lines = 0
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            lines += 1
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let base64 = try #require(object["base64"] as? String)
            let cue = try #require(object["cue"] as? [String: Any])
            let section = try SpliceInfoSection(base64: base64)
            let mismatches = Self.mismatches(section, cue)
            #expect(mismatches.isEmpty, "\(base64): \(mismatches)")
            if mismatches.isEmpty { agreed += 1 }
        }
        #expect(lines == 500)
        print("SCTE-35: \(agreed) of \(lines) threefive cues agree field by field")
    }

    /// The fields of `section` that differ from threefive's decoding `cue`.
    static func mismatches(_ section: SpliceInfoSection, _ cue: [String: Any]) -> [String] {
        var found: [String] = []
        func check(_ name: String, _ ours: Any?, _ theirs: Any?) {
            // JSON gives flags as numbers; threefive writes hexadecimal without leading zeros.
            var theirs = theirs
            if ours is Bool, let number = theirs as? NSNumber { theirs = number.boolValue }
            if let text = theirs as? String, text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16),
                let mine = ours as? String, mine.hasPrefix("0x"), let own = UInt64(mine.dropFirst(2), radix: 16)
            {
                if value != own { found.append("\(name): ours \(mine), threefive \(text)") }
                return
            }
            if "\(ours.map { "\($0)" } ?? "nil")" != "\(theirs.map { "\($0)" } ?? "nil")" {
                found.append("\(name): ours \(ours ?? "nil"), threefive \(theirs ?? "nil")")
            }
        }
        func seconds(_ ticks: UInt64?) -> String? { ticks.map { String(format: "%.6f", Double($0) / 90_000) } }
        func theirSeconds(_ value: Any?) -> String? { (value as? Double).map { String(format: "%.6f", $0) } }
        func hex(_ value: UInt64, digits: Int) -> String { String(format: "0x%0\(digits)lx", value) }
        let info = cue["info_section"] as? [String: Any] ?? [:]
        check("sap_type", hex(UInt64(section.sapType), digits: 2), info["sap_type"])
        check("tier", hex(UInt64(section.tier), digits: 4), info["tier"])
        check("cw_index", hex(UInt64(section.controlWordIndex), digits: 2), info["cw_index"])
        check("crc", hex(UInt64(section.crc32), digits: 8), info["crc"])
        check("pts_adjustment", seconds(section.ptsAdjustment), theirSeconds(info["pts_adjustment"]))
        let command = cue["command"] as? [String: Any] ?? [:]
        switch section.command {
        case .timeSignal(let time):
            check("command_type", 6, command["command_type"])
            check("pts_time", seconds(time.ptsTime), theirSeconds(command["pts_time"]))
        case .insert(let insert):
            check("command_type", 5, command["command_type"])
            check("splice_event_id", insert.eventID, command["splice_event_id"])
            check("out_of_network_indicator", insert.outOfNetwork, command["out_of_network_indicator"])
            check("splice_immediate_flag", insert.spliceImmediate, command["splice_immediate_flag"])
            check("pts_time", seconds(insert.spliceTime?.ptsTime), theirSeconds(command["pts_time"]))
            check("break_duration", seconds(insert.breakDuration?.duration), theirSeconds(command["break_duration"]))
            check("break_auto_return", insert.breakDuration?.autoReturn, command["break_auto_return"])
            check("unique_program_id", insert.uniqueProgramID, command["unique_program_id"])
            check("avail_num", insert.availNumber, command["avail_num"])
            check("avails_expected", insert.availsExpected, command["avails_expected"])
        default:
            found.append("command: \(section.command)")
        }
        let theirs = cue["descriptors"] as? [[String: Any]] ?? []
        check("descriptor count", section.descriptors.count, theirs.count)
        for (ours, them) in zip(section.descriptors, theirs) {
            switch ours {
            case .avail(let id):
                check("avail tag", 0, them["tag"])
                check("provider_avail_id", id, them["provider_avail_id"])
            case .segmentation(let segmentation):
                check("segmentation tag", 2, them["tag"])
                check(
                    "segmentation_event_id",
                    hex(UInt64(segmentation.eventID), digits: 8),
                    them["segmentation_event_id"]
                )
                check("segmentation_type_id", segmentation.type.rawValue, them["segmentation_type_id"])
                check(
                    "segmentation_duration",
                    seconds(segmentation.duration),
                    theirSeconds(them["segmentation_duration"])
                )
                check(
                    "delivery_not_restricted_flag",
                    segmentation.deliveryNotRestricted,
                    them["delivery_not_restricted_flag"]
                )
                check(
                    "web_delivery_allowed_flag",
                    segmentation.restrictions?.webDeliveryAllowed,
                    them["web_delivery_allowed_flag"]
                )
                check(
                    "no_regional_blackout_flag",
                    segmentation.restrictions?.noRegionalBlackout,
                    them["no_regional_blackout_flag"]
                )
                check("archive_allowed_flag", segmentation.restrictions?.archiveAllowed, them["archive_allowed_flag"])
                check("segmentation_upid_type", segmentation.upids.first?.type, them["segmentation_upid_type"])
                check("segmentation_upid", segmentation.upids.first?.text, them["segmentation_upid"])
                check("segment_num", segmentation.segmentNumber, them["segment_num"])
                check("segments_expected", segmentation.segmentsExpected, them["segments_expected"])
                check("sub_segment_num", segmentation.subSegmentNumber, them["sub_segment_num"])
                check("sub_segments_expected", segmentation.subSegmentsExpected, them["sub_segments_expected"])
            default:
                found.append("descriptor: \(ours)")
            }
        }
        return found
    }

    /// Every prefix of a valid section is an error with a code, never a trap; so is every section
    /// with one byte changed (the CRC catches what the fields do not).
    @Test func truncatedAndCorruptedSectionsAreErrors() throws {
        let bytes = [UInt8](Data(base64Encoded: Self.timeSignalExample)!)
        for length in 0..<bytes.count {
            #expect(throws: SCTE35DecodingError.self) { try SpliceInfoSection(bytes: Array(bytes[..<length])) }
        }
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x5A
            #expect(throws: SCTE35DecodingError.self, "byte \(index)") { try SpliceInfoSection(bytes: changed) }
        }
        do {
            var changed = bytes
            changed[20] ^= 1
            _ = try SpliceInfoSection(bytes: changed)
        } catch {
            #expect(error.code == .crcMismatch)
            #expect(error.byteOffset == bytes.count - 4)
        }
    }

    /// Text that is not hexadecimal or Base64, or longer than any section, is refused before it is
    /// decoded; a wrong table ID and lengths that disagree name themselves.
    @Test func hostileTextAndFields() throws {
        let cases: [(() throws(SCTE35DecodingError) -> SpliceInfoSection, SCTE35DecodingError.Code)] = [
            (
                { () throws(SCTE35DecodingError) in
                    try SpliceInfoSection(base64: String(repeating: "A", count: 100_000))
                }, .tooLarge
            ),
            (
                { () throws(SCTE35DecodingError) in
                    try SpliceInfoSection(hexadecimal: String(repeating: "F", count: 100_000))
                }, .tooLarge
            ),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(base64: "/DA0\u{0}AAAA") }, .invalidText),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(base64: "/DA0A") }, .invalidText),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(hexadecimal: "0xFC3") }, .invalidText),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(hexadecimal: "0xFG") }, .invalidText),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(hexadecimal: "0x00") }, .invalidTableID),
            ({ () throws(SCTE35DecodingError) in try SpliceInfoSection(hexadecimal: "FC30FF") }, .lengthMismatch),
            (
                { () throws(SCTE35DecodingError) in try SpliceInfoSection(bytes: [UInt8](repeating: 0xFC, count: 5000))
                }, .tooLarge
            ),
        ]
        for (index, (decode, code)) in cases.enumerated() {
            do {
                _ = try decode()
                Issue.record("case \(index) decoded")
            } catch {
                #expect(error.code == code, "case \(index): \(error)")
            }
        }
    }

    /// A `MID` UPID holds several UPIDs; one that runs past its length, or holds another MID, is an
    /// error; seeded random mutations of real cues never trap.
    @Test func nestedUPIDsAndRandomMutations() throws {
        // A MID of an Ad-ID and a URI, checked field by field.
        let adID = Array("ABCD01234567".utf8)
        let uri = Array("urn:x".utf8)
        let mid: [UInt8] = [0x03, UInt8(adID.count)] + adID + [0x0F, UInt8(uri.count)] + uri
        let upids = try #require(try Self.segmentationUPIDs(upidType: 0x0D, upid: mid))
        #expect(upids == [SegmentationUPID(type: 0x03, bytes: adID), SegmentationUPID(type: 0x0F, bytes: uri)])
        #expect(upids.map(\.text) == ["ABCD01234567", "urn:x"])
        #expect(throws: SCTE35DecodingError.self) {
            try Self.segmentationUPIDs(upidType: 0x0D, upid: [0x0D, 0x02, 0x03, 0x00])
        }
        #expect(throws: SCTE35DecodingError.self) {
            try Self.segmentationUPIDs(upidType: 0x0D, upid: [0x03, 0x09, 0x41])
        }

        var generator = SeededGenerator(seed: 35)
        let seeds = [Self.timeSignalExample, Self.spliceInsertExample].map { [UInt8](Data(base64Encoded: $0)!) }
        for _ in 0..<20_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &generator)]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes = Self.withCRC(bytes) }
            _ = try? SpliceInfoSection(bytes: bytes)
        }
    }

    /// The UPIDs of a time_signal section whose one segmentation descriptor carries `upid`.
    static func segmentationUPIDs(upidType: UInt8, upid: [UInt8]) throws -> [SegmentationUPID]? {
        var descriptor: [UInt8] = [0x43, 0x55, 0x45, 0x49, 0, 0, 0, 1, 0x7F, 0xBF]  // CUEI, id 1, program, no duration
        descriptor += [upidType, UInt8(upid.count)] + upid + [0x30, 0, 0]
        let command: [UInt8] = [0x7F]  // time_signal with no time
        var body: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xF0]
        body += [UInt8(command.count), 0x06] + command
        body += [0x00, UInt8(descriptor.count + 2), 0x02, UInt8(descriptor.count)] + descriptor
        let length = body.count + 4
        let section: [UInt8] = [0xFC, 0x30 | UInt8(length >> 8), UInt8(length & 0xFF)] + body
        return try SpliceInfoSection(bytes: Self.withCRC(section + [0, 0, 0, 0])).segmentations.first?.upids
    }

    /// `bytes` with its last four bytes replaced by the MPEG-2 CRC-32 of the rest.
    static func withCRC(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 4 else { return bytes }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes.dropLast(4) {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return bytes.dropLast(4) + [
            UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF),
        ]
    }
}
