/// The OpenAPI 3.0 description of every route the server answers, served at `GET /openapi.yaml`.
///
/// Kept in step with the router by `OpenAPIDocumentTests`, which compares its paths and methods with
/// the routes `makeRouter()` registers (and the media mounts, served by middleware).
enum OpenAPIDocument {
    /// The document (YAML).
    static let yaml = #"""
        openapi: 3.0.3
        info:
          title: Intermission server
          version: "1"
          description: >-
            HLS Interstitials ad insertion: decorated VOD and live playlists, late-bound asset lists,
            local media, and an admin API for live breaks and the inventory. Every error is JSON
            (the Error schema). Every GET route answers HEAD too. The admin API needs the bearer token
            of the configuration (`server.adminToken`; `demo` with `--demo`).
        servers:
          - url: /
        tags:
          - name: page
          - name: playback
          - name: admin
          - name: operations
        paths:
          /:
            get:
              tags: [page]
              operationId: page
              summary: The web page (channels, VOD assets, timelines, breaks, decisions)
              description: >-
                Viewers show as 8-digit keyed tags; with the admin token (Authorization: Bearer) the
                page shows their full IDs.
              responses:
                "200":
                  description: An HTML page with a strict Content-Security-Policy
                  content:
                    text/html:
                      schema: {type: string}
          /openapi.yaml:
            get:
              tags: [page]
              operationId: openAPIDocument
              summary: This document
              responses:
                "200":
                  description: The OpenAPI document
                  content:
                    application/yaml:
                      schema: {type: string}
          /health:
            get:
              tags: [operations]
              operationId: health
              summary: Whether the server works; the detail with the admin token
              security: [{}, {bearerAuth: []}]
              responses:
                "200":
                  description: The state (and, with the token, channels and storage)
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Health"}
          /metrics:
            get:
              tags: [operations]
              operationId: metrics
              summary: Prometheus metrics
              description: >-
                Among them intermission_outbound_refused_total{purpose} (requests for URLs from ad
                servers' documents refused by the outbound policy) and
                intermission_forwards_dropped_total{reason} (beacon forwards dropped: queueFull,
                rateLimited) and intermission_vast_errors_total{source,code} (VAST errors reported:
                source decision or player).
              responses:
                "200":
                  description: Metrics in the Prometheus text format
                  content:
                    text/plain:
                      schema: {type: string}
          /vod/{asset}/{path}:
            get:
              tags: [playback]
              operationId: vodPlaylist
              summary: A decorated playlist of a VOD asset (path is one or more segments ending in .m3u8)
              parameters:
                - $ref: "#/components/parameters/Asset"
                - $ref: "#/components/parameters/PlaylistPath"
              responses:
                "200": {$ref: "#/components/responses/Playlist"}
                "304": {description: Not modified (If-None-Match)}
                "400": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "502": {$ref: "#/components/responses/Error"}
          /live/{channel}/{path}:
            get:
              tags: [playback]
              operationId: livePlaylist
              summary: A decorated playlist of a live channel (path is one or more segments ending in .m3u8)
              parameters:
                - $ref: "#/components/parameters/Channel"
                - $ref: "#/components/parameters/PlaylistPath"
                - name: _HLS_msn
                  in: query
                  description: Blocking playlist reload (upstream channels)
                  schema: {type: integer, minimum: 0}
                - name: _HLS_part
                  in: query
                  schema: {type: integer, minimum: 0}
              responses:
                "200": {$ref: "#/components/responses/Playlist"}
                "304": {description: Not modified (If-None-Match)}
                "400": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "502": {$ref: "#/components/responses/Error"}
                "503": {$ref: "#/components/responses/Error"}
          /v1/asset-lists/{scope}/{break}.json:
            get:
              tags: [playback]
              operationId: assetList
              summary: The ads of one break for one viewer (X-ASSET-LIST), decided once and kept
              parameters:
                - name: scope
                  in: path
                  required: true
                  description: vod-{asset} or live-{channel}
                  schema: {type: string, pattern: "^(vod|live)-.+$"}
                - {$ref: "#/components/parameters/BreakName"}
                - {$ref: "#/components/parameters/PrimaryID"}
                - {$ref: "#/components/parameters/StartOffset"}
                - {$ref: "#/components/parameters/InterstitialID"}
              responses:
                "200":
                  description: The asset list
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/AssetList"}
                "400": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /v1/schedules/{scope}/{break}.json:
            get:
              tags: [playback]
              operationId: schedule
              summary: A live break as a scheduled-date-range document (Appendix H), one interstitial per ad
              parameters:
                - name: scope
                  in: path
                  required: true
                  description: live-{channel} of a channel with breakFormat schedule
                  schema: {type: string, pattern: "^live-.+$"}
                - {$ref: "#/components/parameters/BreakName"}
                - {$ref: "#/components/parameters/PrimaryID"}
                - {$ref: "#/components/parameters/StartOffset"}
                - {$ref: "#/components/parameters/InterstitialID"}
              responses:
                "200":
                  description: The schedule
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [DATERANGES]
                        properties:
                          DATERANGES: {type: array, items: {type: object}}
                "400": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /media/{mount}/{path}:
            get:
              tags: [playback]
              operationId: media
              summary: A file of a mounted media folder (playlists, segments, keys; served by middleware)
              parameters:
                - name: mount
                  in: path
                  required: true
                  schema: {type: string}
                - name: path
                  in: path
                  required: true
                  description: One or more path segments
                  schema: {type: string}
              responses:
                "200":
                  description: The file
                  content:
                    application/octet-stream:
                      schema: {type: string, format: binary}
                "206": {description: A byte range of the file}
                "404": {$ref: "#/components/responses/Error"}
                "416": {description: Range not satisfiable}
          /v1/admin/channels:
            get:
              tags: [admin]
              operationId: listChannels
              summary: The live channels
              security: [{bearerAuth: []}]
              responses:
                "200":
                  description: The channels
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [channels]
                        properties:
                          channels:
                            type: array
                            items: {$ref: "#/components/schemas/Channel"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
          /v1/admin/channels/{channel}/breaks:
            parameters:
              - $ref: "#/components/parameters/Channel"
            get:
              tags: [admin]
              operationId: listBreaks
              summary: The channel's breaks from an hour ago to an hour ahead (planned and stored)
              security: [{bearerAuth: []}]
              responses:
                "200":
                  description: The breaks
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [breaks]
                        properties:
                          breaks:
                            type: array
                            items: {$ref: "#/components/schemas/Break"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
            post:
              tags: [admin]
              operationId: createBreak
              summary: Starts a break now, later (startIn) or at a date (start)
              security: [{bearerAuth: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/NewBreak"}
              responses:
                "201":
                  description: The break, as stored
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Break"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "409": {$ref: "#/components/responses/Error"}
                "413": {$ref: "#/components/responses/Error"}
                "415": {$ref: "#/components/responses/Error"}
          /v1/admin/channels/{channel}/breaks/{id}/early-return:
            parameters:
              - $ref: "#/components/parameters/Channel"
              - $ref: "#/components/parameters/BreakID"
            post:
              tags: [admin]
              operationId: earlyReturn
              summary: Ends a break early (X-PLAYOUT-LIMIT); no body ends it now
              security: [{bearerAuth: []}]
              requestBody:
                required: false
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/EarlyReturn"}
              responses:
                "200":
                  description: The break, with its playout limit
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Break"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "409": {$ref: "#/components/responses/Error"}
                "413": {$ref: "#/components/responses/Error"}
                "415": {$ref: "#/components/responses/Error"}
          /v1/admin/channels/{channel}/breaks/{id}:
            parameters:
              - $ref: "#/components/parameters/Channel"
              - $ref: "#/components/parameters/BreakID"
            delete:
              tags: [admin]
              operationId: cancelBreak
              summary: Cancels a break that has not started
              security: [{bearerAuth: []}]
              responses:
                "200":
                  description: The cancelled break
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Break"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "409": {$ref: "#/components/responses/Error"}
          /v1/admin/inventory:
            get:
              tags: [admin]
              operationId: listCreatives
              summary: The creatives ads are chosen from
              security: [{bearerAuth: []}]
              responses:
                "200":
                  description: The inventory
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [creatives]
                        properties:
                          creatives:
                            type: array
                            items: {$ref: "#/components/schemas/Creative"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
            post:
              tags: [admin]
              operationId: putCreative
              summary: Adds or replaces a creative (kept across restarts)
              security: [{bearerAuth: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/Creative"}
              responses:
                "201":
                  description: The creative
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Creative"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "413": {$ref: "#/components/responses/Error"}
                "415": {$ref: "#/components/responses/Error"}
          /v1/admin/inventory/{id}:
            delete:
              tags: [admin]
              operationId: deleteCreative
              summary: Removes a creative
              security: [{bearerAuth: []}]
              parameters:
                - name: id
                  in: path
                  required: true
                  schema: {$ref: "#/components/schemas/ID"}
              responses:
                "204": {description: Removed}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /v1/track/{token}/{event}:
            parameters:
              - name: token
                in: path
                required: true
                description: >-
                  The signed beacon token written into the asset list's X-AD-CREATIVE-SIGNALING, bound
                  to the decision stored for the viewer (refused with 403 once that decision is pruned)
                schema: {type: string, maxLength: 2048}
              - name: event
                in: path
                required: true
                schema:
                  type: string
                  enum: [impression, start, firstQuartile, midpoint, thirdQuartile, complete, clickTracking, creativeView, progress, skip, pause, resume, mute, unmute]
              - name: offset
                in: query
                required: false
                description: >-
                  For progress (required there): the offset in the ad, in milliseconds, as the asset list's
                  progress URL gives it; only the slot's own offsets are accepted (404 otherwise)
                schema: {type: integer, minimum: 0, maximum: 86400000}
            get:
              tags: [playback]
              operationId: trackBeacon
              summary: Records a beacon once (repeats are counted) and forwards it to the ad server
              responses:
                "204": {description: Recorded (X-Intermission-Duplicates says how many repeats came before)}
                "400": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
            post:
              tags: [playback]
              operationId: trackBeaconPost
              summary: The same as GET, for clients that post beacons
              responses:
                "204": {description: Recorded}
                "400": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /v1/track/{token}/error:
            parameters:
              - name: token
                in: path
                required: true
                description: The signed beacon token of the slot whose ad failed
                schema: {type: string, maxLength: 2048}
              - name: errorcode
                in: query
                required: true
                description: >-
                  The VAST error code (VAST 4.x 2.3.6.3: 400 general linear error, 401 file not found,
                  405 problem displaying the media); ERRORCODE is read too. Forwarded to the ad's Error URLs
                  in [ERRORCODE]
                schema: {type: integer, minimum: 100, maximum: 999}
            get:
              tags: [playback]
              operationId: trackError
              summary: Records that the slot's ad failed (once; repeats are counted) and forwards the error
              responses:
                "204": {description: Recorded (X-Intermission-Duplicates says how many repeats came before)}
                "400": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
            post:
              tags: [playback]
              operationId: trackErrorPost
              summary: The same as GET, for clients that post beacons
              responses:
                "204": {description: Recorded}
                "400": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /v1/admin/reports/breaks/{scope}/{break}:
            get:
              tags: [admin]
              operationId: breakReport
              summary: Beacons received for one break, per creative, event and plan, with forwarding counts
              security: [{bearerAuth: []}]
              parameters:
                - name: scope
                  in: path
                  required: true
                  schema: {type: string, maxLength: 200}
                - name: break
                  in: path
                  required: true
                  schema: {$ref: "#/components/schemas/ID"}
              responses:
                "200":
                  description: The report
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/BeaconReport"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
          /v1/admin/reports/creatives/{creative}:
            get:
              tags: [admin]
              operationId: creativeReport
              summary: Beacons received for one creative, per break, event and plan
              security: [{bearerAuth: []}]
              parameters:
                - name: creative
                  in: path
                  required: true
                  schema: {$ref: "#/components/schemas/ID"}
              responses:
                "200":
                  description: The report
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/BeaconReport"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
          /v1/admin/conditioning:
            get:
              tags: [admin]
              operationId: conditioningStatus
              summary: Creative conditioning (progressive media files made into HLS), creative by creative
              description: >-
                Whether conditioning is on (`enabled`), the tools found (`ffmpeg`, `ffprobe`, whether
                `prlimit` and `nice` limits apply), this instance's queue and running jobs, the count of
                creatives by state (pending, conditioning, ready, failed) and each creative's key,
                source URL, state, attempts, next attempt, last error and, when ready, the URI it is
                served under (the 500 most recently changed).
              security: [{bearerAuth: []}]
              responses:
                "200":
                  description: The status
                  content:
                    application/json:
                      schema: {type: object}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
        components:
          securitySchemes:
            bearerAuth:
              type: http
              scheme: bearer
          parameters:
            Asset:
              name: asset
              in: path
              required: true
              schema: {$ref: "#/components/schemas/ID"}
            Channel:
              name: channel
              in: path
              required: true
              schema: {$ref: "#/components/schemas/ID"}
            BreakID:
              name: id
              in: path
              required: true
              schema: {$ref: "#/components/schemas/ID"}
            BreakName:
              name: break
              in: path
              required: true
              schema: {type: string, minLength: 1, maxLength: 200}
            PrimaryID:
              name: _HLS_primary_id
              in: query
              description: The viewer (the player's playback session)
              schema: {type: string, maxLength: 200}
            StartOffset:
              name: _HLS_start_offset
              in: query
              description: Seconds into the break the player joins (0 to 3600)
              schema: {type: number, minimum: 0, maximum: 3600}
            InterstitialID:
              name: _HLS_interstitial_id
              in: query
              description: Must equal the break of the path when given
              schema: {type: string}
            PlaylistPath:
              name: path
              in: path
              required: true
              description: The playlist's path below the asset or channel (segments of 1 or more, last ends in .m3u8)
              schema: {type: string, pattern: "\\.m3u8$"}
          responses:
            Playlist:
              description: An HLS playlist
              content:
                application/vnd.apple.mpegurl:
                  schema: {type: string}
            Error:
              description: An error
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
          schemas:
            BeaconReport:
              type: object
              required: [lines, beacons, duplicates, forwarding]
              properties:
                lines:
                  type: array
                  items: {type: object, additionalProperties: true}
                beacons: {type: integer}
                duplicates: {type: integer}
                forwarding:
                  type: object
                  description: >-
                    The beacon forwarder's counts since start: delivered, retried, failed, dropped (queue
                    full or over tracking.forwardRatePerHost), rateLimited (dropped for the rate), refused
                    (the outbound policy refused the destination: private, loopback, link-local, …), waiting.
                  properties:
                    delivered: {type: integer}
                    retried: {type: integer}
                    failed: {type: integer}
                    dropped: {type: integer}
                    rateLimited: {type: integer}
                    refused: {type: integer}
                    waiting: {type: integer}
                  additionalProperties: true
            ID:
              type: string
              minLength: 1
              maxLength: 64
              description: 1 to 64 bytes of letters, digits, '-', '_', '.' and '~'
            Seconds:
              type: number
              minimum: 0.001
              maximum: 3600
            Error:
              type: object
              required: [error]
              properties:
                error:
                  type: object
                  required: [status, code, message]
                  properties:
                    status: {type: integer, minimum: 400, maximum: 599}
                    code: {type: string, example: invalidInput}
                    message: {type: string}
                    field: {type: string, description: The input field at fault}
            Channel:
              type: object
              required: [id, source, url, window]
              properties:
                id: {$ref: "#/components/schemas/ID"}
                source: {type: string, enum: [loop, upstream]}
                url: {type: string, description: The source (credentials redacted)}
                window: {type: integer, description: Segments in the live window}
                breakEvery: {type: number, description: Seconds between planned breaks}
                breakDuration: {type: number, description: Seconds of each planned break}
            Break:
              type: object
              required: [id, channel, startDate, duration, cue, restrictions, snap, cancelled, origin]
              properties:
                id: {type: string}
                channel: {type: string}
                startDate: {type: string, format: date-time}
                duration: {type: number}
                cue:
                  type: array
                  items: {type: string, enum: [PRE, POST, ONCE]}
                restrictions:
                  type: array
                  items: {type: string, enum: [SKIP, JUMP]}
                snap:
                  type: array
                  items: {type: string, enum: [OUT, IN]}
                resumeOffset: {type: number}
                playoutLimit: {type: number}
                cancelled: {type: boolean}
                origin: {type: string, enum: [scheduled, admin, scte35]}
            NewBreak:
              type: object
              required: [duration]
              properties:
                id: {$ref: "#/components/schemas/ID"}
                start:
                  type: string
                  description: '"now" (the default) or an ISO 8601 date from an hour ago to 30 days ahead'
                  example: now
                startIn:
                  type: number
                  minimum: 0
                  maximum: 2592000
                  description: Seconds from now (instead of start)
                duration: {$ref: "#/components/schemas/Seconds"}
                cue:
                  type: array
                  items: {type: string, enum: [PRE, POST, ONCE]}
                restrictions:
                  type: array
                  items: {type: string, enum: [SKIP, JUMP]}
                snap:
                  type: array
                  items: {type: string, enum: [OUT, IN]}
                resumeOffset: {type: number, minimum: -3600, maximum: 3600}
            EarlyReturn:
              type: object
              properties:
                at: {type: string, format: date-time, description: When the break ends (default now)}
                after: {$ref: "#/components/schemas/Seconds"}
            Creative:
              type: object
              required: [id, uri, duration, value]
              properties:
                id: {$ref: "#/components/schemas/ID"}
                uri: {type: string, minLength: 1, maxLength: 2048}
                duration: {$ref: "#/components/schemas/Seconds"}
                value: {type: number, minimum: 0, maximum: 1000000}
                scopes:
                  description: The presentations the creative may fill pods of (vod-{asset}, live-{channel}); absent, any.
                  type: array
                  maxItems: 10000
                  items: {type: string, minLength: 5, maxLength: 69, pattern: "^(vod|live)-"}
                warning:
                  description: >-
                    In the answer to a POST only: why the stored duration is not the one sent (a local
                    creative is stored with its media's duration), or why its media could not be read.
                  type: string
                  readOnly: true
            AssetList:
              type: object
              required: [ASSETS]
              properties:
                ASSETS:
                  type: array
                  items:
                    type: object
                    required: [URI, DURATION]
                    properties:
                      URI: {type: string}
                      DURATION: {type: number}
            Health:
              type: object
              required: [status]
              properties:
                status: {type: string, enum: [ok, degraded]}
        """#
}
