// libmicrohttpd's daemon start and its info queries are variadic C functions, which Swift cannot
// call; these are the fixed-argument forms the browser remote uses.
#ifndef TRIPOD_MHD_H
#define TRIPOD_MHD_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The limits a daemon is started with.
typedef struct {
    unsigned int connection_limit;       ///< MHD_OPTION_CONNECTION_LIMIT
    unsigned int per_ip_limit;           ///< MHD_OPTION_PER_IP_CONNECTION_LIMIT
    unsigned int idle_timeout_seconds;   ///< MHD_OPTION_CONNECTION_TIMEOUT
    size_t memory_limit_bytes;           ///< MHD_OPTION_CONNECTION_MEMORY_LIMIT (request line + headers)
} tripod_mhd_limits;

/// MHD_start_daemon with a thread per connection (MHD_USE_THREAD_PER_CONNECTION |
/// MHD_USE_INTERNAL_POLLING_THREAD), bound to `address` (MHD_OPTION_SOCK_ADDR): a sockaddr_in, or a
/// sockaddr_in6 (then MHD_USE_IPv6, IPv6 only), with
/// `limits`, the access handler, MHD_OPTION_NOTIFY_COMPLETED and MHD_OPTION_NOTIFY_CONNECTION
/// (each connection's start and close, on libmicrohttpd's threads). With `certificate_pem` and
/// `key_pem` (NUL-terminated PEM text, both or neither) it serves HTTPS (MHD_USE_TLS,
/// MHD_OPTION_HTTPS_MEM_CERT, MHD_OPTION_HTTPS_MEM_KEY). Every request's raw URL is first read by
/// MHD_OPTION_URI_LOG_CALLBACK: one that holds an escaped NUL ("%00") starts with its request
/// context set to `tripod_mhd_escaped_nul_marker()` instead of NULL, because libmicrohttpd hands
/// the access handler the URL unescaped, as a C string, which the NUL would cut short.
/// NULL when it cannot start.
struct MHD_Daemon *tripod_mhd_start(const struct sockaddr *address, tripod_mhd_limits limits,
                                    const char *certificate_pem, const char *key_pem,
                                    MHD_AccessHandlerCallback handler, void *handler_context,
                                    MHD_RequestCompletedCallback completed, void *completed_context,
                                    MHD_NotifyConnectionCallback notify, void *notify_context);

/// The request context a request starts with when its raw URL holds "%00" (see tripod_mhd_start):
/// a fixed address that is never a request's own state.
void *tripod_mhd_escaped_nul_marker(void);

/// 1 when this libmicrohttpd was built with TLS (MHD_is_feature_supported(MHD_FEATURE_TLS)).
int tripod_mhd_supports_tls(void);

/// The port the daemon listens on (MHD_get_daemon_info, MHD_DAEMON_INFO_BIND_PORT); 0 if unknown.
uint16_t tripod_mhd_bound_port(struct MHD_Daemon *daemon);

/// The client's IPv4 or IPv6 address as text (MHD_get_connection_info,
/// MHD_CONNECTION_INFO_CLIENT_ADDRESS, then inet_ntop); 1 on success.
int tripod_mhd_client_address(struct MHD_Connection *connection, char *out, size_t capacity);

/// The connection's socket (MHD_get_connection_info, MHD_CONNECTION_INFO_CONNECTION_FD); -1 if unknown.
int tripod_mhd_connection_fd(struct MHD_Connection *connection);

#ifdef __cplusplus
}
#endif
#endif
