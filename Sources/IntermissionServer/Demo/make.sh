#!/usr/bin/env bash
# Regenerate the tiny real HLS streams in this folder (committed; used by player and server tests).
#
# Usage: Sources/IntermissionServer/Demo/make.sh        (from anywhere; writes next to this script)
#
#   primary/   60 s testsrc 160x90 @ 15 fps + 1 kHz sine (64 kHz), 2 s MPEG-TS segments
#   ad-red/    10 s color=red   + 880 Hz beeping tone, 2 s MPEG-TS segments
#   ad-green/  10 s color=green + 880 Hz beeping tone
#   ad-blue/   10 s color=blue  + 880 Hz beeping tone
#   podcast/          60 s audio only: a 440 Hz tone, 4 s segments (the podcast episode)
#   ad-audio-one/     12 s audio only: 660 Hz beeping tone, 4 s segments
#   ad-audio-two/     12 s audio only: 990 Hz beeping tone, 4 s segments
#
# Each folder holds seg-NNN.ts, a media playlist prog.m3u8 (VOD) and a one-variant
# multivariant playlist main.m3u8, both written by ffmpeg. H.264 (40 kb/s target) +
# AAC-LC mono 64 kHz 16 kb/s, keyframe every 2 s; bit-exact flags and one encoder thread
# so a rerun with the same ffmpeg version gives the same bytes. Needs ffmpeg (Debian:
# apt-get install ffmpeg).
#
# Audio and video start at the same PTS in every segment and end together at the playlist's
# duration, so a player that dates the timeline from the earliest PTS (hls.js) or ends an
# interstitial at its media's end finds what the playlist says:
# - no B-frames (-bf 0), so video PTS equal DTS and the muxer cuts each segment at its keyframe,
#   on the 2 s grid (15 fps, a keyframe every 30 frames);
# - AAC at 64 kHz, where a frame of 1024 samples lasts 16 ms and 2 s is exactly 125 frames, so an
#   audio frame begins on every segment boundary (at 22.05 kHz or 48 kHz none does, and the first
#   audio of a segment lags its video by up to a frame);
# - the audio is shifted by the encoder's 1024 priming samples (else it starts 16 ms early), and
#   cut one frame short of the length, since the encoder flushes a frame of its own at the end.
# DemoMediaTests (IntermissionServerTests) checks every segment's start and end with ffprobe.
set -euo pipefail
command -v ffmpeg >/dev/null || { echo "$0: ffmpeg not found (apt-get install ffmpeg)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

make_stream() { # make_stream NAME VIDEO_SOURCE AUDIO_SOURCE SECONDS
    local name=$1 video=$2 audio=$3 seconds=$4
    rm -rf "${here:?}/$name"
    mkdir -p "$here/$name"
    (cd "$here/$name" && ffmpeg -hide_banner -loglevel error -nostdin -y \
        -f lavfi -i "$video" -f lavfi -i "$audio" -t "$seconds" \
        -c:v libx264 -preset veryfast -profile:v main -pix_fmt yuv420p -bf 0 -threads:v 1 \
        -b:v 40k -maxrate 60k -bufsize 120k -g 30 -keyint_min 30 -sc_threshold 0 \
        -af "atrim=end_sample=$((seconds * 64000 - 1024)),asetpts=PTS+1024/SR/TB" \
        -c:a aac -b:a 16k -ac 1 -ar 64000 \
        -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'seg-%03d.ts' \
        -master_pl_name main.m3u8 prog.m3u8)
    [[ -s "$here/$name/prog.m3u8" && -s "$here/$name/main.m3u8" ]] || { echo "$0: $name: no playlists" >&2; exit 1; }
}

# Audio-only streams for the podcast feed (Apple's podcast rules: EXT-X-TARGETDURATION 4 to 10,
# EXT-X-VERSION 7 in media and 4 in multivariant playlists, CODECS and AVERAGE-BANDWIDTH on
# the variant). AAC-LC mono at 32 kHz: a frame is 1024 samples = 32 ms, so 4 s is exactly 125
# frames and every segment lasts exactly 4 s (cue points land on segment boundaries). The tone
# is one frame shorter than the length, since the encoder adds a frame of its own at the end.
make_audio() { # make_audio NAME AUDIO_SOURCE SECONDS
    local name=$1 audio=$2 seconds=$3
    rm -rf "${here:?}/$name"
    mkdir -p "$here/$name"
    (cd "$here/$name" && ffmpeg -hide_banner -loglevel error -nostdin -y \
        -f lavfi -i "$audio" -t "$(awk -v s="$seconds" 'BEGIN { printf "%.3f", s - 0.032 }')" -vn \
        -c:a aac -b:a 24k -ac 1 -ar 32000 \
        -fflags +bitexact -flags:a +bitexact -map_metadata -1 \
        -f hls -hls_time 4 -hls_playlist_type vod -hls_segment_filename 'seg-%03d.ts' prog.m3u8)
    sed -i 's/^#EXT-X-VERSION:3$/#EXT-X-VERSION:7/' "$here/$name/prog.m3u8"
    local bytes peak
    bytes=$(cat "$here/$name"/seg-*.ts | wc -c)
    peak=$(for f in "$here/$name"/seg-*.ts; do wc -c <"$f"; done | sort -n | tail -1)
    printf '#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:BANDWIDTH=%d,AVERAGE-BANDWIDTH=%d,CODECS="mp4a.40.2"\nprog.m3u8\n' \
        $((peak * 8 / 4)) $((bytes * 8 / seconds)) >"$here/$name/main.m3u8"
    [[ $(grep -c '^#EXTINF:4.000000,$' "$here/$name/prog.m3u8") -eq $((seconds / 4)) ]] ||
        { echo "$0: $name: segments are not all 4 s" >&2; exit 1; }
}

make_stream primary "testsrc=size=160x90:rate=15" "sine=frequency=1000:sample_rate=64000" 60
for color in red green blue; do
    make_stream "ad-$color" "color=c=$color:size=160x90:rate=15" "sine=frequency=880:beep_factor=2:sample_rate=64000" 10
done
make_audio podcast "sine=frequency=440:sample_rate=32000" 60
make_audio ad-audio-one "sine=frequency=660:beep_factor=2:sample_rate=32000" 12
make_audio ad-audio-two "sine=frequency=990:beep_factor=2:sample_rate=32000" 12
du -sh "$here" | sed 's/^/media folder: /'
