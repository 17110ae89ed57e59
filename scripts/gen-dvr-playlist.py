#!/usr/bin/env python3
"""Write the benchmark playlist: a 24-hour DVR recording with 500 interstitials.

Usage:
    python3 scripts/gen-dvr-playlist.py OUT

The output is a VOD media playlist (EXT-X-PLAYLIST-TYPE:VOD + EXT-X-ENDLIST):

  * 43,200 MPEG-TS segments of exactly 2.000 s (24 h), relative URIs
    `1080p/seg-0000001.ts` ... `1080p/seg-0043200.ts`, media sequence from 1;
  * an EXT-X-PROGRAM-DATE-TIME on every segment (UTC, millisecond precision),
    starting at 2025-01-01T00:00:00.000Z;
  * 500 interstitial EXT-X-DATERANGE tags, one every 172.8 s, each placed just
    before the segment its START-DATE falls in. Every tag has ID, CLASS,
    START-DATE, DURATION, either X-ASSET-LIST (even breaks) or X-ASSET-URI (odd
    breaks) as an absolute https URL carrying _HLS_interstitial_id,
    X-RESUME-OFFSET=0, X-RESTRICT and one X-COM-EXAMPLE- attribute.

Nothing random and no clock is read: every run writes the same bytes.
Prints the size and the counts when done.
"""

import os
import sys

SEGMENTS = 43_200
SEGMENT_MS = 2_000
BREAKS = 500
START_MS = 1_735_689_600_000  # 2025-01-01T00:00:00.000Z in Unix milliseconds
CLASS = "com.apple.hls.interstitial"
DURATIONS = (15, 30, 30, 45, 60, 90, 120)
RESTRICTIONS = ("SKIP,JUMP", "SKIP", "JUMP", "SKIP,JUMP")


def iso_ms(unix_ms):
    """Format Unix milliseconds as YYYY-MM-DDTHH:MM:SS.mmmZ without touching time zones."""
    days, ms_of_day = divmod(unix_ms, 86_400_000)
    # civil-from-days (proleptic Gregorian), after Howard Hinnant's algorithm
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year += month <= 2
    hours, rest = divmod(ms_of_day, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{year:04d}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def daterange(index, start_ms):
    break_id = f"dvr-break-{index + 1:03d}"
    duration = DURATIONS[index % len(DURATIONS)]
    if index % 2 == 0:
        asset = f'X-ASSET-LIST="https://ads.example.com/v1/asset-lists/ch1/{break_id}.json?_HLS_interstitial_id={break_id}"'
    else:
        asset = f'X-ASSET-URI="https://ads.example.com/creatives/c-{1000 + index}/main.m3u8?_HLS_interstitial_id={break_id}"'
    return (
        f'#EXT-X-DATERANGE:ID="{break_id}",CLASS="{CLASS}",START-DATE="{iso_ms(start_ms)}",'
        f"DURATION={duration}.0,{asset},X-RESUME-OFFSET=0,"
        f'X-RESTRICT="{RESTRICTIONS[index % len(RESTRICTIONS)]}",'
        f'X-COM-EXAMPLE-BEACON="https://track.example.com/v1/imp/ch1/{break_id}"'
    )


def build():
    total_ms = SEGMENTS * SEGMENT_MS
    spacing_ms = total_ms // BREAKS  # 172,800 ms
    # break i starts half a spacing into its slot: 86.4 s, 259.2 s, ...
    breaks_by_segment = {}
    for index in range(BREAKS):
        offset_ms = index * spacing_ms + spacing_ms // 2
        breaks_by_segment.setdefault(offset_ms // SEGMENT_MS, []).append(daterange(index, START_MS + offset_ms))

    lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-MEDIA-SEQUENCE:1",
        "#EXT-X-PLAYLIST-TYPE:VOD",
        "#EXT-X-INDEPENDENT-SEGMENTS",
    ]
    for n in range(SEGMENTS):
        lines.extend(breaks_by_segment.get(n, ()))
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{iso_ms(START_MS + n * SEGMENT_MS)}")
        lines.append("#EXTINF:2.000,")
        lines.append(f"1080p/seg-{n + 1:07d}.ts")
    lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen-dvr-playlist.py OUT\n")
        return 2
    text = build()
    data = text.encode("ascii")
    with open(argv[1], "wb") as handle:
        handle.write(data)
    print(
        f"{argv[1]}: {len(data):,} bytes ({len(data) / 1e6:.2f} MB), "
        f"{text.count(chr(10)):,} lines, {SEGMENTS:,} segments, "
        f"{text.count('#EXT-X-PROGRAM-DATE-TIME:'):,} program-date-times, "
        f"{text.count('#EXT-X-DATERANGE:'):,} interstitials, "
        f"{SEGMENTS * SEGMENT_MS / 3_600_000:.1f} h"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
