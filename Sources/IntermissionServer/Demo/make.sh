#!/usr/bin/env bash
# Regenerate the tiny real HLS streams in this folder (committed; used by player and server tests).
#
# Usage: Sources/IntermissionServer/Demo/make.sh        (from anywhere; writes next to this script)
#
#   primary/   60 s testsrc 160x90 @ 15 fps + 1 kHz sine, 2 s MPEG-TS segments
#   ad-red/    10 s color=red   + 880 Hz beeping tone, 2 s MPEG-TS segments
#   ad-green/  10 s color=green + 880 Hz beeping tone
#   ad-blue/   10 s color=blue  + 880 Hz beeping tone
#
# Each folder holds seg-NNN.ts, a media playlist prog.m3u8 (VOD) and a one-variant
# multivariant playlist main.m3u8, both written by ffmpeg. H.264 (40 kb/s target) +
# AAC-LC mono 22.05 kHz 16 kb/s, keyframe every 2 s; bit-exact flags and one encoder thread
# so a rerun with the same ffmpeg version gives the same bytes. Needs ffmpeg (Debian:
# apt-get install ffmpeg).
#
# Audio and video start together, so every segment's earliest PTS is its video keyframe on
# the 2 s grid (players such as hls.js date the timeline, and so the breaks, from the
# earliest PTS): no B-frames (-bf 0), so video PTS equal DTS and the muxer cuts each segment
# at its keyframe; and the audio is shifted by the AAC encoder's 1024 priming samples, which
# would otherwise start the audio 46 ms before the video. The first audio PTS of each
# segment then lies within one AAC frame (1024/22050 s) after the first video PTS;
# DemoMediaTests (IntermissionServerTests) checks it with ffprobe.
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
        -af "asetpts=PTS+1024/SR/TB" -c:a aac -b:a 16k -ac 1 -ar 22050 \
        -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 \
        -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'seg-%03d.ts' \
        -master_pl_name main.m3u8 prog.m3u8)
    [[ -s "$here/$name/prog.m3u8" && -s "$here/$name/main.m3u8" ]] || { echo "$0: $name: no playlists" >&2; exit 1; }
}

make_stream primary "testsrc=size=160x90:rate=15" "sine=frequency=1000:sample_rate=22050" 60
for color in red green blue; do
    make_stream "ad-$color" "color=c=$color:size=160x90:rate=15" "sine=frequency=880:beep_factor=2:sample_rate=22050" 10
done
du -sh "$here" | sed 's/^/media folder: /'
