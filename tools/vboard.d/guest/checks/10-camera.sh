# timeout: 120
# libcamera (Debian's 0.0.3, or the fork tools/vboard --libcamera packed) finds vimc's "Sensor B",
# lists its formats and streams 3 frames to files (cam from libcamera-tools, or the fork's cam).
export LIBCAMERA_LOG_LEVELS='*:ERROR'
cam -l | tee /tmp/cam-list
grep -q "Sensor B" /tmp/cam-list || { echo "cam -l does not list vimc's Sensor B"; exit 1; }
cam -c 1 --info > /tmp/cam-info
head -n 20 /tmp/cam-info
grep -q "RGB888\|BGR888" /tmp/cam-info || { echo "cam --info lists neither RGB888 nor BGR888 for vimc"; exit 1; }
mkdir -p /tmp/cam
cam -c 1 --stream role=viewfinder,width=640,height=480 --capture=3 --file=/tmp/cam/frame-#.bin
n="$(ls /tmp/cam | wc -l)"
ls -l /tmp/cam
[ "$n" -eq 3 ] || { echo "cam wrote $n frame files, expected 3"; exit 1; }
for f in /tmp/cam/*; do [ -s "$f" ] || { echo "$f is empty"; exit 1; }; done
echo "3 frames from vimc through libcamera, $(stat -c %s /tmp/cam/* | head -n1) bytes each"
