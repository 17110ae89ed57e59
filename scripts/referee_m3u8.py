#!/usr/bin/env python3
"""Referee: summarise an HLS playlist as Python's `m3u8` package (PyPI, 6.x) sees it.

Usage:
    python3 scripts/referee_m3u8.py PLAYLIST

Prints one JSON object on stdout:

    {"segments": N,              complete segments (those with a URI line)
     "durations": [floats],      their EXTINF durations, in order
     "uris": [strings],          their URI lines as written (no base resolution,
                                 no {$var} substitution: m3u8 does neither)
     "dateranges": [ids],        EXT-X-DATERANGE IDs in order of appearance,
                                 one entry per tag (same-ID tags repeat)
     "is_variant": bool,         multivariant playlist?
     "playlists": [strings],     EXT-X-STREAM-INF URIs
     "media": [string|null],     EXT-X-MEDIA URIs (null when the tag has none)
     "iframe_playlists": [...],  EXT-X-I-FRAME-STREAM-INF URIs
     "trailing_parts": N}        EXT-X-PART tags of an unfinished last segment
                                 (LL-HLS); m3u8 models it as a segment without
                                 a URI, which is not counted in "segments"

m3u8 6.x attaches each EXT-X-DATERANGE to the next segment (or partial segment)
and silently drops tags that come after the last one. This script watches the
parser's own state through m3u8's custom-tag hook and reports those trailing
IDs too, so "dateranges" lists every tag in file order.

Exit status: 0 on success, 1 if m3u8 raised while parsing, 2 if the file can't
be read or decoded as UTF-8, or if m3u8 is not installed.
"""

import json
import sys

try:
    import m3u8
except ImportError:
    sys.stderr.write("referee_m3u8: the Python package 'm3u8' is not installed; run: pip install 'm3u8>=6,<7'\n")
    sys.exit(2)


def _ids(dateranges):
    return [d.id for d in dateranges or []]


def summarize(text):
    captured = {}

    def watch_state(line, lineno, data, state):
        # Called for every tag line; keep a handle on the parser state and let
        # m3u8 parse the line normally (returning False).
        captured["state"] = state
        return False

    playlist = m3u8.loads(text, custom_tags_parser=watch_state)

    complete = [s for s in playlist.segments if s.uri is not None]
    dateranges = []
    trailing_parts = 0
    for segment in playlist.segments:
        for part in segment.parts or []:
            dateranges.extend(_ids(part.dateranges))
        dateranges.extend(_ids(segment.dateranges))
        if segment.uri is None:
            trailing_parts += len(segment.parts or [])
    leftover = captured.get("state", {}).get("dateranges") or []
    dateranges.extend(d.get("id") for d in leftover)

    return {
        "segments": len(complete),
        "durations": [float(s.duration) if s.duration is not None else None for s in complete],
        "uris": [s.uri for s in complete],
        "dateranges": dateranges,
        "is_variant": bool(playlist.is_variant),
        "playlists": [p.uri for p in playlist.playlists],
        "media": [m.uri for m in playlist.media],
        "iframe_playlists": [p.uri for p in playlist.iframe_playlists],
        "trailing_parts": trailing_parts,
    }


def main(argv):
    """One path: print its summary. Several paths: one JSON line each, with "file" added
    (and "error" instead of the summary when m3u8 cannot parse that file)."""
    if len(argv) < 2:
        sys.stderr.write("usage: referee_m3u8.py PLAYLIST [PLAYLIST...]\n")
        return 2
    status = 0
    for path in argv[1:]:
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            sys.stderr.write(f"referee_m3u8: cannot read {path}: {error}\n")
            return 2
        try:
            summary = summarize(text)
        except Exception as error:  # m3u8 raises assorted exception types
            sys.stderr.write(f"referee_m3u8: m3u8 failed to parse {path}: {type(error).__name__}: {error}\n")
            if len(argv) == 2:
                return 1
            summary = {"error": f"{type(error).__name__}: {error}"}
            status = 1
        if len(argv) > 2:
            summary = dict(file=path, **summary)
        json.dump(summary, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    return status if len(argv) == 2 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
