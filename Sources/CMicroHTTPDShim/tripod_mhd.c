#include "tripod_mhd.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static char escaped_nul_marker;

void *tripod_mhd_escaped_nul_marker(void) { return &escaped_nul_marker; }

/// MHD_OPTION_URI_LOG_CALLBACK: sees the URL before it is unescaped; its result is the request's
/// first context (req_cls).
static void *mark_escaped_nul(void *context, const char *uri, struct MHD_Connection *connection) {
    (void)context;
    (void)connection;
    return (uri != NULL && strstr(uri, "%00") != NULL) ? &escaped_nul_marker : NULL;
}

struct MHD_Daemon *tripod_mhd_start(const struct sockaddr *address, tripod_mhd_limits limits,
                                    const char *certificate_pem, const char *key_pem,
                                    MHD_AccessHandlerCallback handler, void *handler_context,
                                    MHD_RequestCompletedCallback completed, void *completed_context,
                                    MHD_NotifyConnectionCallback notify, void *notify_context) {
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    uint16_t port;
    if (address->sa_family == AF_INET6) {
        flags |= MHD_USE_IPv6;  // IPv6 only: "::" is every IPv6 interface, 0.0.0.0 every IPv4 one
        port = ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    } else {
        port = ntohs(((const struct sockaddr_in *)address)->sin_port);
    }
    // HTTPS: the certificate and key as PEM text; without them the array is only its end.
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)certificate_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    int with_tls = certificate_pem != NULL && key_pem != NULL;
    if (with_tls) flags |= MHD_USE_TLS;
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_ARRAY, with_tls ? tls : &tls[2],
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, limits.connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.memory_limit_bytes,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_URI_LOG_CALLBACK, mark_escaped_nul, NULL,
                            MHD_OPTION_END);
}

int tripod_mhd_supports_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

uint16_t tripod_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

int tripod_mhd_client_address(struct MHD_Connection *connection, char *out, size_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr || capacity == 0) return 0;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)capacity) != NULL;
    }
    if (sa->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)capacity) != NULL;
    }
    return 0;
}

int tripod_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
