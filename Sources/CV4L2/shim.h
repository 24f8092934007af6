#include <linux/videodev2.h>

/* The ioctl numbers and control id are macro expressions Swift cannot import: as functions. */
static inline unsigned long tripod_vidioc_queryctrl(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long tripod_vidioc_g_ctrl(void) { return VIDIOC_G_CTRL; }
static inline unsigned long tripod_vidioc_s_ctrl(void) { return VIDIOC_S_CTRL; }
static inline unsigned int tripod_v4l2_cid_wide_dynamic_range(void) { return V4L2_CID_WIDE_DYNAMIC_RANGE; }
