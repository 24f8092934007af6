// gst-rtsp-server for Tripod's live stream: one shared appsrc → h264parse → rtph264pay media at one
// path, its own GLib main loop thread, bounded queue, optional digest authentication.
#include "tripod_rtsp.h"

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/rtsp-server/rtsp-server.h>
#include <stdio.h>
#include <string.h>

/// Seconds a connection has to set up a session before it is closed.
#define TRIPOD_RTSP_SESSION_DEADLINE_SECONDS 10

struct tripod_rtsp {
    GMainContext *context;
    GMainLoop *loop;
    GThread *thread;
    GstRTSPServer *server;
    guint source_id;
    uint32_t max_queue_bytes;
    uint32_t max_clients;
    gint clients;           // atomic
    gint keyframe_wanted;   // atomic
    GMutex lock;            // guards the fields below
    GstRTSPMedia *media;    // the shared media while a client has it, or NULL
    GstAppSrc *appsrc;      // its source, or NULL
    gboolean waiting_for_keyframe;
    gboolean timestamps_known;
    int64_t offset_ns;      // timestamp − offset = the buffer's PTS
    int64_t last_pts_ns;
    uint64_t pushed;
    uint64_t dropped;
};

static void set_error(char *error, size_t size, const char *what, const GError *cause) {
    if (error && size) snprintf(error, size, "%s%s%s", what, cause ? ": " : "", cause ? cause->message : "");
}

static gpointer run_loop(gpointer data) {
    tripod_rtsp *self = data;
    g_main_context_push_thread_default(self->context);
    g_main_loop_run(self->loop);
    g_main_context_pop_thread_default(self->context);
    return NULL;
}

// Forgets the media and its source (under the lock); returns the media's reference, or NULL.
static GstRTSPMedia *forget_media(tripod_rtsp *self) {
    g_mutex_lock(&self->lock);
    GstRTSPMedia *media = self->media;
    self->media = NULL;
    if (self->appsrc) gst_object_unref(self->appsrc);
    self->appsrc = NULL;
    g_mutex_unlock(&self->lock);
    return media;
}

static void media_unprepared(GstRTSPMedia *media, gpointer data) {
    tripod_rtsp *self = data;
    g_signal_handlers_disconnect_by_data(media, self);
    GstRTSPMedia *held = forget_media(self);
    if (held) g_object_unref(held);
}

// A new shared media (the first client): its appsrc is fed from now on, from a keyframe.
static void media_configure(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data) {
    (void)factory;
    tripod_rtsp *self = data;
    GstElement *element = gst_rtsp_media_get_element(media);
    GstElement *source = gst_bin_get_by_name_recurse_up(GST_BIN(element), "src");
    gst_object_unref(element);
    if (!source) return;
    GstCaps *caps = gst_caps_new_simple("video/x-h264", "stream-format", G_TYPE_STRING, "byte-stream",
                                        "alignment", G_TYPE_STRING, "au", NULL);
    g_object_set(source, "is-live", TRUE, "format", GST_FORMAT_TIME, "do-timestamp", FALSE, "block", FALSE,
                 "max-bytes", (guint64)self->max_queue_bytes, "caps", caps, NULL);
    gst_caps_unref(caps);
    g_signal_connect(media, "unprepared", G_CALLBACK(media_unprepared), self);
    GstRTSPMedia *previous = forget_media(self);
    if (previous) { g_signal_handlers_disconnect_by_data(previous, self); g_object_unref(previous); }
    g_mutex_lock(&self->lock);
    self->media = g_object_ref(media);
    self->appsrc = GST_APP_SRC(source);
    self->waiting_for_keyframe = TRUE;
    self->timestamps_known = FALSE;
    g_mutex_unlock(&self->lock);
    g_atomic_int_set(&self->keyframe_wanted, 1);
}

static void client_closed(GstRTSPClient *client, gpointer data) {
    (void)client;
    tripod_rtsp *self = data;
    g_atomic_int_add(&self->clients, -1);
}

static void client_plays(GstRTSPClient *client, GstRTSPContext *context, gpointer data) {
    (void)client; (void)context;
    tripod_rtsp *self = data;
    g_atomic_int_set(&self->keyframe_wanted, 1);
}

// A connection that has set up no session by its deadline is closed (a client that never
// authenticates, or holds a slot without asking for anything).
static gboolean close_if_idle(gpointer data) {
    GstRTSPClient *client = data;
    GList *sessions = gst_rtsp_client_session_filter(client, NULL, NULL);
    if (!sessions) gst_rtsp_client_close(client);
    g_list_free_full(sessions, g_object_unref);
    return G_SOURCE_REMOVE;
}

// Closes a client beyond the bound (gst_rtsp_client_close) once the server has attached it.
static gboolean close_client(gpointer data) {
    gst_rtsp_client_close(data);
    return G_SOURCE_REMOVE;
}

// Counts clients; one beyond the bound is closed before it is heard, and each gets a deadline for
// its session. "client-connected" comes before the server attaches the client's watch: a client
// closed here would get none, so it would never say "closed" and its count (and the server's
// reference) would stay for good. It is closed from the loop's next turn instead, at a priority
// above its watch's, so no request of it is served first.
static void client_connected(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (void)server;
    tripod_rtsp *self = data;
    g_signal_connect(client, "closed", G_CALLBACK(client_closed), self);
    g_signal_connect(client, "play-request", G_CALLBACK(client_plays), self);
    if ((uint32_t)g_atomic_int_add(&self->clients, 1) >= self->max_clients) {
        GSource *now = g_idle_source_new();
        g_source_set_priority(now, G_PRIORITY_HIGH);
        g_source_set_callback(now, close_client, g_object_ref(client), g_object_unref);
        g_source_attach(now, self->context);
        g_source_unref(now);
        return;
    }
    GSource *deadline = g_timeout_source_new_seconds(TRIPOD_RTSP_SESSION_DEADLINE_SECONDS);
    g_source_set_callback(deadline, close_if_idle, g_object_ref(client), g_object_unref);
    g_source_attach(deadline, self->context);
    g_source_unref(deadline);
}

static gpointer init_gstreamer(gpointer data) {
    GError **error = data;
    return GINT_TO_POINTER(gst_init_check(NULL, NULL, error));
}

// Frees a server whose loop thread never started: its server, loop, context, lock and itself.
static void free_unstarted(tripod_rtsp *self) {
    g_object_unref(self->server);
    g_main_loop_unref(self->loop);
    g_main_context_unref(self->context);
    g_mutex_clear(&self->lock);
    g_free(self);
}

tripod_rtsp *tripod_rtsp_start(const char *address, int port, const char *path, const char *user, const char *password,
                               uint32_t max_queue_bytes, uint32_t max_sessions, char *error, size_t error_size) {
    static GOnce once = G_ONCE_INIT;
    static GError *init_error = NULL;
    g_once(&once, init_gstreamer, &init_error);
    if (!GPOINTER_TO_INT(once.retval)) { set_error(error, error_size, "gst_init_check", init_error); return NULL; }
    const char *needed[] = {"appsrc", "h264parse", "rtph264pay"};
    for (size_t i = 0; i < 3; i++) {
        GstElementFactory *f = gst_element_factory_find(needed[i]);
        if (!f) {
            char what[160];
            snprintf(what, sizeof what, "GStreamer element %s is not installed (gstreamer1.0-plugins-base, -good, -bad)", needed[i]);
            set_error(error, error_size, what, NULL);
            return NULL;
        }
        gst_object_unref(f);
    }

    tripod_rtsp *self = g_new0(tripod_rtsp, 1);
    g_mutex_init(&self->lock);
    self->max_queue_bytes = max_queue_bytes;
    self->max_clients = max_sessions;
    self->context = g_main_context_new();
    self->loop = g_main_loop_new(self->context, FALSE);
    self->server = gst_rtsp_server_new();
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    gst_rtsp_server_set_address(self->server, address);
    gst_rtsp_server_set_service(self->server, service);
    GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(self->server);
    gst_rtsp_session_pool_set_max_sessions(pool, max_sessions);
    g_object_unref(pool);
    g_signal_connect(self->server, "client-connected", G_CALLBACK(client_connected), self);

    GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
    gst_rtsp_media_factory_set_launch(factory,
        "( appsrc name=src ! h264parse config-interval=-1 ! rtph264pay name=pay0 pt=96 config-interval=-1 )");
    gst_rtsp_media_factory_set_shared(factory, TRUE);
    gst_rtsp_media_factory_set_protocols(factory, GST_RTSP_LOWER_TRANS_UDP | GST_RTSP_LOWER_TRANS_TCP);
    g_signal_connect(factory, "media-configure", G_CALLBACK(media_configure), self);
    if (user && password) {
        GstRTSPAuth *auth = gst_rtsp_auth_new();
        gst_rtsp_auth_set_supported_methods(auth, GST_RTSP_AUTH_DIGEST);
        GstRTSPToken *token = gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, "viewer", NULL);
        gst_rtsp_auth_add_digest(auth, user, password, token);
        gst_rtsp_token_unref(token);
        gst_rtsp_server_set_auth(self->server, auth);
        g_object_unref(auth);
        gst_rtsp_media_factory_add_role(factory, "viewer",
                                        GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                        GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
    }
    GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(self->server);
    gst_rtsp_mount_points_add_factory(mounts, path, factory);  // takes the factory
    g_object_unref(mounts);

    GError *cause = NULL;
    GSource *source = gst_rtsp_server_create_source(self->server, NULL, &cause);
    if (!source) {
        set_error(error, error_size, "gst_rtsp_server_create_source (bind)", cause);
        g_clear_error(&cause);
        free_unstarted(self);
        return NULL;
    }
    self->source_id = g_source_attach(source, self->context);
    g_source_unref(source);
    self->thread = g_thread_try_new("tripod-rtsp", run_loop, self, &cause);
    if (!self->thread) {
        set_error(error, error_size, "g_thread_try_new", cause);
        g_clear_error(&cause);
        GSource *attached = g_main_context_find_source_by_id(self->context, self->source_id);
        if (attached) g_source_destroy(attached);
        free_unstarted(self);
        return NULL;
    }
    return self;
}

int tripod_rtsp_port(tripod_rtsp *self) { return gst_rtsp_server_get_bound_port(self->server); }

int tripod_rtsp_push(tripod_rtsp *self, const uint8_t *bytes, size_t size, int64_t timestamp_ns, int keyframe) {
    g_mutex_lock(&self->lock);
    GstAppSrc *source = self->appsrc;
    if (!source) { g_mutex_unlock(&self->lock); return TRIPOD_RTSP_NO_CLIENT; }
    if (self->waiting_for_keyframe && !keyframe) {
        self->dropped++;
        g_mutex_unlock(&self->lock);
        return TRIPOD_RTSP_DROPPED;
    }
    if (gst_app_src_get_current_level_bytes(source) + size > self->max_queue_bytes
        || (self->timestamps_known && timestamp_ns - self->offset_ns <= self->last_pts_ns)) {
        // A client that cannot keep up (or a timestamp that went back: a new encoder): drop, and
        // start again at a keyframe so no client decodes from a missing reference.
        self->dropped++;
        self->waiting_for_keyframe = TRUE;
        g_mutex_unlock(&self->lock);
        g_atomic_int_set(&self->keyframe_wanted, 1);
        return TRIPOD_RTSP_DROPPED;
    }
    if (!self->timestamps_known) {
        // The first buffer is stamped with the pipeline's running time now; the rest keep their
        // SensorTimestamp spacing from it.
        int64_t running = 0;
        GstClock *clock = gst_element_get_clock(GST_ELEMENT(source));
        if (clock) {
            GstClockTime now = gst_clock_get_time(clock), base = gst_element_get_base_time(GST_ELEMENT(source));
            if (now > base) running = (int64_t)(now - base);
            gst_object_unref(clock);
        }
        self->offset_ns = timestamp_ns - running;
        self->timestamps_known = TRUE;
    }
    self->waiting_for_keyframe = FALSE;
    int64_t pts = timestamp_ns - self->offset_ns;
    self->last_pts_ns = pts;
    GstBuffer *buffer = gst_buffer_new_memdup(bytes, size);
    GST_BUFFER_PTS(buffer) = (GstClockTime)pts;
    GST_BUFFER_DTS(buffer) = (GstClockTime)pts;
    if (!keyframe) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    gst_object_ref(source);
    self->pushed++;
    g_mutex_unlock(&self->lock);
    gst_app_src_push_buffer(source, buffer);  // takes the buffer; flushing when the media stops
    gst_object_unref(source);
    return TRIPOD_RTSP_PUSHED;
}

int tripod_rtsp_take_keyframe_request(tripod_rtsp *self) {
    return g_atomic_int_compare_and_exchange(&self->keyframe_wanted, 1, 0);
}

void tripod_rtsp_counts(tripod_rtsp *self, uint64_t *pushed, uint64_t *dropped, uint32_t *clients) {
    g_mutex_lock(&self->lock);
    *pushed = self->pushed;
    *dropped = self->dropped;
    g_mutex_unlock(&self->lock);
    int count = g_atomic_int_get(&self->clients);
    *clients = count > 0 ? (uint32_t)count : 0;
}

static GstRTSPFilterResult remove_client(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (void)server; (void)client; (void)data;
    return GST_RTSP_FILTER_REMOVE;
}

static gboolean stop_in_loop(gpointer data) {
    tripod_rtsp *self = data;
    GstRTSPMedia *media = forget_media(self);
    if (media) {
        g_signal_handlers_disconnect_by_data(media, self);
        gst_rtsp_media_unprepare(media);
        g_object_unref(media);
    }
    gst_rtsp_server_client_filter(self->server, remove_client, NULL);
    GSource *source = g_main_context_find_source_by_id(self->context, self->source_id);
    if (source) g_source_destroy(source);
    g_main_loop_quit(self->loop);
    return G_SOURCE_REMOVE;
}

void tripod_rtsp_stop(tripod_rtsp *self) {
    if (!self) return;
    g_main_context_invoke(self->context, stop_in_loop, self);
    g_thread_join(self->thread);
    // What the closed clients left to do (their media's unprepare) runs here, on this thread.
    g_main_context_push_thread_default(self->context);
    while (g_main_context_iteration(self->context, FALSE)) {}
    g_main_context_pop_thread_default(self->context);
    GstRTSPMedia *media = forget_media(self);
    if (media) g_object_unref(media);
    g_object_unref(self->server);
    g_main_loop_unref(self->loop);
    g_main_context_unref(self->context);
    g_mutex_clear(&self->lock);
    g_free(self);
}
