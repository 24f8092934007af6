# timeout: 120
# Tripod through libgpiod: a press of SHUTTER, made by flipping the gpio-sim line's pull, triggers a
# capture; its files appear in /tmp/captures, the sidecar's trigger time is the edge's time, and the
# frame is saved with its settings unreported (vimc has no exposure metadata).
. /vboard/lib.sh
need_tripod
start_tripod vboard
tripod_status
grep -q 'shutter=.*SHUTTER' /tmp/tripod-status || { stop_tripod; echo "tripod opened no SHUTTER line (status says shutter=none)"; exit 1; }
# The camera streams: regular frames arrive before any capture (status shows frame=N).
wait_for_frames
before="$(uptime_ns)"
press_button SHUTTER 0.3
after="$(uptime_ns)"
sidecar=""
for _ in $(seq 60); do
  sidecar="$(find /tmp/captures -name 'TRP_*.json' | head -n1)"
  [ -n "$sidecar" ] && grep -q '"status" : "complete"' "$sidecar" && break
  sleep 1
done
tripod_status || true
stop_tripod
[ -n "$sidecar" ] || { echo "no capture appeared in /tmp/captures within 60 s of the press"; exit 1; }
find /tmp/captures -type f | xargs ls -l
cat "$sidecar"
grep -q '"status" : "complete"' "$sidecar" || { echo "the bracket in $sidecar did not complete"; exit 1; }
stamp="$(sed -n 's/.*"startMonotonicNanoseconds" : \([0-9]*\).*/\1/p' "$sidecar")"
[ -n "$stamp" ] || { echo "the sidecar has no startMonotonicNanoseconds"; exit 1; }
# The edge lies between the two /proc/uptime readings (10 ms resolution: allow 20 ms either side).
slack=20000000
[ "$stamp" -ge $((before - slack)) ] && [ "$stamp" -le $((after + slack)) ] \
  || { echo "trigger time $stamp ns is outside the press window [$before, $after] ns"; exit 1; }
# The frame's file: listed in the sidecar, on disk at the listed size, a JPEG (FF D8 FF). vimc
# reports no exposure, so the sidecar must not claim one ("actual" absent).
dir="$(dirname "$sidecar")"
name="$(sed -n 's/.*"name" : "\([^"]*\.jpg\)".*/\1/p' "$sidecar" | head -n1)"
[ -n "$name" ] && [ -s "$dir/$name" ] || { echo "the sidecar lists no JPEG, or $dir/$name is missing or empty"; exit 1; }
listed="$(sed -n 's/.*"bytes" : \([0-9]*\).*/\1/p' "$sidecar" | head -n1)"
[ "$listed" = "$(wc -c < "$dir/$name" | tr -d ' ')" ] || { echo "$name has $(wc -c < "$dir/$name") bytes, the sidecar says $listed"; exit 1; }
[ "$(head -c 3 "$dir/$name" | od -An -tx1 | tr -d ' \n')" = "ffd8ff" ] || { echo "$name does not start like a JPEG"; exit 1; }
! grep -q '"actual"' "$sidecar" || { echo "the sidecar claims actual settings vimc never reported"; exit 1; }
grep -q '"make" : "unknown"' "$sidecar" || { echo "the sidecar names a maker for vimc, which has no sensor database entry"; exit 1; }
echo "press -> $(basename "$sidecar" .json) complete with $name ($listed bytes, settings unreported), trigger stamped at the edge ($stamp ns in [$before, $after])"
