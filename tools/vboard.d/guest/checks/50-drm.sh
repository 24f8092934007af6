# timeout: 60
# vkms: one connector, a mode set with a test pattern on an XR24 primary plane (modetest, libdrm-tests).
modetest -M vkms -c > /tmp/connectors || { cat /tmp/connectors; echo "modetest cannot open vkms"; exit 1; }
cat /tmp/connectors
id="$(awk '$0 ~ /connected/ && $0 ~ /Virtual-1/ {print $1; exit}' /tmp/connectors)"
[ -n "$id" ] || { echo "vkms has no connected Virtual-1 connector"; exit 1; }
modetest -M vkms -s "$id:1024x768@XR24" < /dev/null > /tmp/modeset 2>&1 || { cat /tmp/modeset; echo "modetest -s failed"; exit 1; }
cat /tmp/modeset
grep -q "setting mode 1024x768" /tmp/modeset || { echo "modetest did not set 1024x768"; exit 1; }
echo "vkms connector $id: 1024x768 XR24 set and scanned out"
