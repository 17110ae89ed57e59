#!/usr/bin/env python3
"""A VAST ad server for scripts/bench-vast.sh: every GET waits DELAY seconds (asyncio, so any
number of requests wait at once on keep-alive connections) and answers a pod of three InLine ads
(sequence 1-3, 10 s each, two HLS media files each). GET /count answers how many VAST requests
it answered.

Usage: vast-ad-server.py PORT [DELAY seconds, default 0.05]
"""
import asyncio
import sys

PORT = int(sys.argv[1])
DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
answered = 0


def ad(n):
    return f"""<Ad id="bench-{n}" sequence="{n}"><InLine><AdSystem>bench</AdSystem><AdTitle>bench {n}</AdTitle>
<Error><![CDATA[http://127.0.0.1:{PORT}/error?code=[ERRORCODE]]]></Error>
<Impression><![CDATA[http://127.0.0.1:{PORT}/impression/{n}]]></Impression>
<Creatives><Creative id="bench-creative-{n}"><UniversalAdId idRegistry="ad-id.org">BENCH-{n}</UniversalAdId><Linear>
<Duration>00:00:10.000</Duration>
<TrackingEvents><Tracking event="start"><![CDATA[http://127.0.0.1:{PORT}/start/{n}]]></Tracking>
<Tracking event="complete"><![CDATA[http://127.0.0.1:{PORT}/complete/{n}]]></Tracking></TrackingEvents>
<MediaFiles>
<MediaFile delivery="streaming" type="video/mp4" bitrate="2000"><![CDATA[http://127.0.0.1:{PORT}/media/{n}.mp4]]></MediaFile>
<MediaFile delivery="streaming" type="application/x-mpegURL" bitrate="4000"><![CDATA[http://127.0.0.1:{PORT}/media/{n}-4000.m3u8]]></MediaFile>
<MediaFile delivery="streaming" type="application/x-mpegURL" bitrate="1500"><![CDATA[http://127.0.0.1:{PORT}/media/{n}-1500.m3u8]]></MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad>"""


BODY = ('<?xml version="1.0" encoding="UTF-8"?>\n<VAST version="4.2">'
        + "".join(ad(n) for n in (1, 2, 3)) + "</VAST>\n").encode()


def response(body, content_type):
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n")
    return head.encode() + body


async def serve(reader, writer):
    global answered
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"/"
            if target.startswith(b"/count"):
                writer.write(response(str(answered).encode(), "text/plain"))
            else:
                await asyncio.sleep(DELAY)
                answered += 1
                writer.write(response(BODY, "application/xml"))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", PORT, backlog=1024)
    async with server:
        await server.serve_forever()


asyncio.run(main())
