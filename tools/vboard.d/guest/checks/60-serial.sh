# timeout: 40
# QEMU's second serial line (ttyS1) reaches the host: the host sends "status", this answers "ok".
# The host's side of the exchange is requested with a VBOARD-HOST line on the console.
stty -F /dev/ttyS1 115200 raw -echo
exec 3<>/dev/ttyS1
echo "VBOARD-HOST: serial|status|ok" > /dev/console
while read -t 30 -r line <&3; do
  line="$(echo "$line" | tr -d '\r')"
  echo "received: $line"
  if [ "$line" = status ]; then
    echo "ok vboard serial line" >&3
    echo "answered status on ttyS1"
    exit 0
  fi
done
echo "nothing came from the host on ttyS1 within 30 s"
exit 1
