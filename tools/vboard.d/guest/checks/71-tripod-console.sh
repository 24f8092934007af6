# timeout: 90
# `tripod run` on the virtual board serves its console on ttyS1; the host sends "status" and expects
# "ok ...", then "quit". Startup failures that say "not yet" are skips.
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
host_exchange tripod-console status ok quit
# The host sends quit after its exchange; give it the time it needs, then stop tripod ourselves.
stopped_by_us=0
for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
kill "$pid" 2>/dev/null && stopped_by_us=1
status=0; wait "$pid" || status=$?
cat /tmp/tripod-run.log
[ "$stopped_by_us" = 0 ] || { echo "tripod run did not stop after the host's quit; stopped it"; exit 1; }
[ "$status" = 0 ] || { echo "tripod run exited with status $status after quit"; exit 1; }
echo "tripod run served the console on ttyS1 and stopped on quit (the host reports the exchange)"
