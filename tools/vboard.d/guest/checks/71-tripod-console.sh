# timeout: 90
# `tripod run` on the virtual board serves its console on ttyS1: the host sends "status" and expects
# "ok ...", then "quit" (which closes that console). SIGTERM must then stop tripod cleanly (status 0).
# A startup failure that says "not yet" is a skip.
. /vboard/lib.sh
need_tripod
export LIBCAMERA_LOG_LEVELS='*:ERROR'
mkdir -p /tmp/captures
tripod run --board vboard --console /dev/ttyS1 --captures /tmp/captures --socket /run/tripod.sock \
  > /tmp/tripod-run.log 2>&1 &
pid=$!
sleep 3
if ! kill -0 "$pid" 2>/dev/null; then
  status=0; wait "$pid" || status=$?
  cat /tmp/tripod-run.log
  grep -qi "not yet" /tmp/tripod-run.log && { echo "not built yet: $(grep -i -m1 "not yet" /tmp/tripod-run.log)"; exit 77; }
  echo "tripod run exited with $status before the host could talk to it"
  exit 1
fi
exchanged=0
host_exchange tripod-console status ok quit && exchanged=1
kill -TERM "$pid"
for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
killed=0
kill -KILL "$pid" 2>/dev/null && killed=1
status=0; wait "$pid" || status=$?
cat /tmp/tripod-run.log
[ "$exchanged" = 1 ] || { echo "the host got no ok reply to status from tripod's serial console"; exit 1; }
[ "$killed" = 0 ] || { echo "tripod run did not stop within 20 s of SIGTERM"; exit 1; }
[ "$status" = 0 ] || { echo "tripod run exited with status $status after SIGTERM"; exit 1; }
echo "tripod run answered status on ttyS1 and stopped cleanly on SIGTERM"
