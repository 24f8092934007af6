#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
/* For hot-plug: the kernel's uevent netlink socket (NETLINK_KOBJECT_UEVENT, struct sockaddr_nl). */
#include <sys/socket.h>
#include <linux/netlink.h>
