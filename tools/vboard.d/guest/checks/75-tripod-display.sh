# timeout: 60
# Tripod through the DRM backend (mode set on vkms, a frame converted to XR24).
# The lead replaces this skip with the real check once `tripod run` has this backend (docs/vboard.md).
. /vboard/lib.sh
need_tripod
echo "not built yet: tripod run has no check for the DRM backend (mode set on vkms, a frame converted to XR24)"
exit 77
