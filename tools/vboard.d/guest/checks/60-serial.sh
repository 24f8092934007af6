# timeout: 60
# QEMU's second serial line (ttyS1) reaches the host: a busybox responder answers "status" with "ok",
# and the host (asked through host_exchange) must see that reply.
. /vboard/lib.sh
stty -F /dev/ttyS1 115200 raw -echo
(
  exec 3<>/dev/ttyS1
  while read -t 50 -r line <&3; do
    line="$(echo "$line" | tr -d '\r')"
    echo "ttyS1 received: $line"
    [ "$line" = status ] && echo "ok vboard serial line" >&3
  done
) &
responder=$!
sleep 0.2
status=0
host_exchange serial status ok || status=1
kill "$responder" 2>/dev/null || true
[ "$status" = 0 ] || { echo "the host got no ok reply on ttyS1"; exit 1; }
echo "status/ok round trip host -> ttyS1 -> host"
