# timeout: 90
# Tripod's DRM backend drives vkms: while tripod runs, a CRTC is active with a mode and a framebuffer
# on the primary plane in a format vkms offers (modetest -p reads the state back).
. /vboard/lib.sh
need_tripod
start_tripod vboard
sleep 2
tripod_status
modetest -M vkms -p > /tmp/planes 2>&1 || true
stop_tripod
cat /tmp/planes
grep -q ' display=none\| display=null\| display="null' /tmp/tripod-status && { echo "tripod opened no display (status: $(grep -o ' display=[^ ]*' /tmp/tripod-status))"; exit 1; }
# CRTC lines: "id fb pos size"; an active CRTC has a non-zero fb and a mode line below it.
awk '/^CRTCs:/ {c=1; next} /^Planes:/ {c=0} c && $1 ~ /^[0-9]+$/ && $2 != 0 {found=1} END {exit !found}' /tmp/planes \
  || { echo "no vkms CRTC has a framebuffer while tripod runs"; exit 1; }
echo "tripod set a mode on vkms and scans out a framebuffer"
