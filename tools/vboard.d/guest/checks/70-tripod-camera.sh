# timeout: 120
# Tripod's libcamera backend (Sources/LinuxHardware/Libcamera*) finds vimc and lists its formats.
. /vboard/lib.sh
need_tripod
export LIBCAMERA_LOG_LEVELS='*:ERROR'
# tripod version fails when the libcamera loaded is not the one it was compiled against.
tripod_run /tmp/tripod-version version
tripod_run /tmp/tripod-formats formats --board vboard --json
grep -qi "RGB888\|BGR888\|\"width\"" /tmp/tripod-formats || { echo "tripod formats lists no vimc format"; exit 1; }
echo "tripod lists vimc's formats through libcamera"
