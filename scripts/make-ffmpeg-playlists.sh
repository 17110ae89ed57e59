#!/usr/bin/env bash
# Write a set of real ffmpeg-produced HLS playlists (with their tiny media) into DIR.
#
# Usage: scripts/make-ffmpeg-playlists.sh DIR
#
# Each output is 6 s of lavfi testsrc (160x90, 25 fps, H.264 veryfast) + a 1 kHz sine
# (AAC mono 22.05 kHz), cut into 2 s segments (1 s for the fMP4 one):
#
#   DIR/ts-vod/prog.m3u8             MPEG-TS, -hls_playlist_type vod
#   DIR/fmp4/prog.m3u8               -hls_segment_type fmp4 (EXT-X-MAP init.mp4)
#   DIR/single-file/prog.m3u8        -hls_flags single_file (EXT-X-BYTERANGE into one .ts)
#   DIR/pdt-independent/prog.m3u8    -hls_flags program_date_time+independent_segments
#   DIR/aes128/prog.m3u8             AES-128 with -hls_key_info_file (fixed test key and IV)
#   DIR/multivariant/master.m3u8     -var_stream_map (2 variants) + -master_pl_name
#   DIR/event/prog.m3u8              -hls_playlist_type event
#
# Tests generate this at run time; nothing here is committed. Needs ffmpeg (Debian: apt-get
# install ffmpeg). Exits non-zero if ffmpeg fails or an expected playlist is missing.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
command -v ffmpeg >/dev/null || { echo "$0: ffmpeg not found (apt-get install ffmpeg)" >&2; exit 2; }

out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

video="testsrc=size=160x90:rate=25"
audio="sine=frequency=1000:sample_rate=22050"
common=(-hide_banner -loglevel error -nostdin -y
        -f lavfi -i "$video" -f lavfi -i "$audio" -t 6
        -c:v libx264 -preset veryfast -pix_fmt yuv420p -b:v 60k -g 25 -keyint_min 25 -sc_threshold 0
        -c:a aac -b:a 16k -ac 1
        -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1
        -f hls)

hls() { # hls SUBDIR [ffmpeg hls options...] PLAYLIST
    local sub=$1; shift
    mkdir -p "$out/$sub"
    (cd "$out/$sub" && ffmpeg "${common[@]}" "$@")
}

hls ts-vod -hls_time 2 -hls_playlist_type vod -hls_segment_filename 'seg-%03d.ts' prog.m3u8

hls fmp4 -hls_time 1 -hls_playlist_type vod -hls_segment_type fmp4 \
    -hls_fmp4_init_filename init.mp4 -hls_segment_filename 'seg-%03d.m4s' prog.m3u8

hls single-file -hls_time 2 -hls_playlist_type vod -hls_flags single_file prog.m3u8

hls pdt-independent -hls_time 2 -hls_playlist_type vod \
    -hls_flags program_date_time+independent_segments -hls_segment_filename 'seg-%03d.ts' prog.m3u8

# AES-128: a fixed, public test key (never use it for anything else).
mkdir -p "$out/aes128"
printf '\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff' > "$out/aes128/test.key"
printf 'test.key\n%s\n0123456789abcdef0123456789abcdef\n' "$out/aes128/test.key" > "$out/aes128/keyinfo.txt"
hls aes128 -hls_time 2 -hls_playlist_type vod -hls_key_info_file keyinfo.txt \
    -hls_segment_filename 'seg-%03d.ts' prog.m3u8

mkdir -p "$out/multivariant"
(cd "$out/multivariant" && ffmpeg -hide_banner -loglevel error -nostdin -y \
    -f lavfi -i "$video" -f lavfi -i "$audio" -t 6 \
    -filter_complex '[0:v]split=2[v0][v1];[v1]scale=96:54[v1s]' \
    -map '[v0]' -map '[v1s]' -map 1:a -map 1:a \
    -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 25 -keyint_min 25 -sc_threshold 0 \
    -b:v:0 60k -b:v:1 30k -c:a aac -b:a 16k -ac 1 \
    -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 \
    -f hls -hls_time 2 -hls_playlist_type vod \
    -var_stream_map 'v:0,a:0,name:160x90 v:1,a:1,name:96x54' \
    -master_pl_name master.m3u8 -hls_segment_filename 'v%v/seg-%03d.ts' 'v%v/prog.m3u8')

hls event -hls_time 2 -hls_playlist_type event -hls_segment_filename 'seg-%03d.ts' prog.m3u8

expected=(ts-vod/prog.m3u8 fmp4/prog.m3u8 fmp4/init.mp4 single-file/prog.m3u8 single-file/prog.ts
          pdt-independent/prog.m3u8 aes128/prog.m3u8 multivariant/master.m3u8
          multivariant/v160x90/prog.m3u8 multivariant/v96x54/prog.m3u8 event/prog.m3u8)
for file in "${expected[@]}"; do
    [[ -s "$out/$file" ]] || { echo "$0: missing $out/$file" >&2; exit 1; }
done
grep -q '^#EXT-X-BYTERANGE:' "$out/single-file/prog.m3u8" || { echo "$0: single_file output has no byte ranges" >&2; exit 1; }
grep -q '^#EXT-X-KEY:METHOD=AES-128' "$out/aes128/prog.m3u8" || { echo "$0: aes128 output has no key tag" >&2; exit 1; }
grep -q '^#EXT-X-PROGRAM-DATE-TIME:' "$out/pdt-independent/prog.m3u8" || { echo "$0: no program date time" >&2; exit 1; }
grep -q '^#EXT-X-MAP:' "$out/fmp4/prog.m3u8" || { echo "$0: fmp4 output has no EXT-X-MAP" >&2; exit 1; }
echo "ffmpeg playlists written to $out"
