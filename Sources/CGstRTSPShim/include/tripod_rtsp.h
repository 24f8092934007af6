// gst-rtsp-server behind a few fixed-argument functions: GObject's variadic g_object_set and
// signal connections, and the GStreamer macros, do not import into Swift. The GStreamer types stay
// in tripod_rtsp.c; Swift sees one opaque server.
#ifndef TRIPOD_RTSP_H
#define TRIPOD_RTSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tripod_rtsp tripod_rtsp;

/// What tripod_rtsp_push did with an access unit.
enum {
    TRIPOD_RTSP_PUSHED = 1,
    /// No client is playing: nothing to feed.
    TRIPOD_RTSP_NO_CLIENT = 0,
    /// Dropped: the stream's queue was full (a slow client), or it waits for a keyframe.
    TRIPOD_RTSP_DROPPED = -1,
};

/// Starts an RTSP server (gst_rtsp_server_new, gst_rtsp_server_attach) on its own GLib main loop
/// thread, serving `path` from an appsrc (H.264 byte-stream, one access unit per buffer) through
/// h264parse and rtph264pay, shared by every client, RTP over UDP and TCP. `port` 0 picks one.
/// With `user` and `password` (non-NULL) clients must pass RTSP digest authentication
/// (gst_rtsp_auth_add_digest). `max_queue_bytes` bounds the appsrc's queue; `max_sessions` the
/// sessions at once. Returns NULL with a message in `error` on failure.
tripod_rtsp *tripod_rtsp_start(const char *address, int port, const char *path, const char *user, const char *password,
                               uint32_t max_queue_bytes, uint32_t max_sessions, char *error, size_t error_size);

/// The port the server listens on (gst_rtsp_server_get_bound_port).
int tripod_rtsp_port(tripod_rtsp *server);

/// Queues one H.264 access unit (Annex B, with SPS/PPS before a keyframe) with its timestamp in
/// nanoseconds (any origin, increasing); never blocks (gst_app_src_push_buffer on a bounded queue).
int tripod_rtsp_push(tripod_rtsp *server, const uint8_t *bytes, size_t size, int64_t timestamp_ns, int keyframe);

/// True once after a client began to play or a drop: the encoder's next frame should be a keyframe.
int tripod_rtsp_take_keyframe_request(tripod_rtsp *server);

/// Counters: access units queued, dropped (queue full or waiting for a keyframe), clients connected.
void tripod_rtsp_counts(tripod_rtsp *server, uint64_t *pushed, uint64_t *dropped, uint32_t *clients);

/// Closes every client, stops the loop thread and frees the server.
void tripod_rtsp_stop(tripod_rtsp *server);

#endif
