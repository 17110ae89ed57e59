#!/usr/bin/env python3
"""Referee: SCTE-35 splice_info_sections made and decoded by Python's `threefive` package (PyPI 3.x).

Usage:
    python3 scripts/referee_scte35.py generate COUNT SEED   COUNT random cues (seeded): each line
                                                            {"base64": ..., "cue": threefive's decoding}
    python3 scripts/referee_scte35.py decode                 one Base64 cue a line on stdin; each line
                                                            out {"base64": ..., "cue": ...} or {"error": ...}

The cues mix time_signal and splice_insert (immediate or timed, with and without break_duration,
auto-return on and off) with segmentation descriptors of the program, break, advertisement and
placement-opportunity types (sub-segments on the placement-opportunity starts), restricted and
unrestricted delivery, URI, Ad-ID and MPU-free UPIDs, and avail descriptors. The Swift test
decodes the same bytes with HLSInterstitials' SpliceInfoSection and compares every field.
"""
import json
import random
import sys

from threefive import AvailDescriptor, Cue, SegmentationDescriptor, SpliceInsert, TimeSignal

TYPES = [0x10, 0x11, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37]


def command(rng):
    if rng.random() < 0.5:
        signal = TimeSignal()
        signal.time_specified_flag = True
        signal.pts_time = round(rng.uniform(0, 95000), 6)
        return signal
    insert = SpliceInsert()
    insert.splice_event_id = rng.randrange(0, 2**32)
    insert.splice_event_cancel_indicator = False
    insert.out_of_network_indicator = rng.random() < 0.5
    insert.program_splice_flag = True
    insert.duration_flag = rng.random() < 0.7
    insert.splice_immediate_flag = rng.random() < 0.2
    insert.event_id_compliance_flag = True
    if not insert.splice_immediate_flag:
        insert.time_specified_flag = True
        insert.pts_time = round(rng.uniform(0, 95000), 6)
    if insert.duration_flag:
        insert.break_auto_return = rng.random() < 0.5
        insert.break_duration = round(rng.uniform(1, 300), 6)
    insert.unique_program_id = rng.randrange(0, 65536)
    insert.avail_num = rng.randrange(0, 256)
    insert.avails_expected = rng.randrange(0, 256)
    return insert


def segmentation(rng, index):
    descriptor = SegmentationDescriptor()
    descriptor.segmentation_event_id = hex(rng.randrange(0, 2**32))
    descriptor.segmentation_event_cancel_indicator = False
    descriptor.segmentation_event_id_compliance_indicator = True
    descriptor.program_segmentation_flag = True
    descriptor.segmentation_duration_flag = rng.random() < 0.7
    descriptor.delivery_not_restricted_flag = rng.random() < 0.5
    if not descriptor.delivery_not_restricted_flag:
        descriptor.web_delivery_allowed_flag = rng.random() < 0.5
        descriptor.no_regional_blackout_flag = rng.random() < 0.5
        descriptor.archive_allowed_flag = rng.random() < 0.5
        descriptor.device_restrictions = "No Restrictions"
    if descriptor.segmentation_duration_flag:
        descriptor.segmentation_duration = round(rng.uniform(1, 300), 6)
    descriptor.segmentation_type_id = rng.choice(TYPES)
    if rng.random() < 0.5:
        descriptor.segmentation_upid_type = 0x0F
        descriptor.segmentation_upid = "https://ads.example/creative/%d" % index
    else:
        descriptor.segmentation_upid_type = 0x03
        descriptor.segmentation_upid = "ABCD%08d" % index
    descriptor.segmentation_upid_length = len(descriptor.segmentation_upid)
    descriptor.segment_num = rng.randrange(0, 256)
    descriptor.segments_expected = rng.randrange(0, 256)
    if descriptor.segmentation_type_id in (0x34, 0x36):
        descriptor.sub_segment_num = rng.randrange(0, 256)
        descriptor.sub_segments_expected = rng.randrange(0, 256)
    return descriptor


def decoded(base64):
    cue = Cue(base64)
    cue.decode()
    return {"base64": base64, "cue": cue.get()}


def generate(count, seed):
    rng = random.Random(seed)
    for index in range(count):
        cue = Cue()
        cue.command = command(rng)
        if rng.random() < 0.3:
            avail = AvailDescriptor()
            avail.provider_avail_id = rng.randrange(0, 2**32)
            cue.descriptors.append(avail)
        for _ in range(rng.choice([0, 1, 1, 2])):
            cue.descriptors.append(segmentation(rng, index))
        print(json.dumps(decoded(cue.encode()), default=str))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 2 and sys.argv[1] == "decode":
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                print(json.dumps(decoded(line), default=str))
            except Exception as error:  # threefive raises plain exceptions on bad input
                print(json.dumps({"base64": line, "error": str(error)}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
