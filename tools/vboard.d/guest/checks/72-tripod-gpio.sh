# timeout: 60
# Tripod through the libgpiod backend (shutter press by flipping the gpio-sim pull, bracket files with the edge timestamp in the sidecar).
# The lead replaces this skip with the real check once `tripod run` has this backend (docs/vboard.md).
. /vboard/lib.sh
need_tripod
echo "not built yet: tripod run has no check for the libgpiod backend (shutter press by flipping the gpio-sim pull, bracket files with the edge timestamp in the sidecar)"
exit 77
