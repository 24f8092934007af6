# timeout: 120
# Tripod's PIR sensor through libgpiod (board vboard: gpio.pir, line PIR of the gpio-sim chip): the
# line rises as an HC-SR501's output does (its gpio-sim pull flipped up, then down); tripod sees the
# rising edge, says `trigger.pir`, and the action (`trigger.action capture`) runs: `trigger.fired
# source=pir`, and a complete capture appears in /tmp/captures. Nothing fires before the line rises,
# and the falling edge is no trigger (one trigger.pir per rise). docs/triggers.md, "PIR sensor".
. /vboard/lib.sh
need_tripod
gpio_sim_line PIR > /dev/null || { echo "the guest has no gpio-sim line named PIR (board.conf GPIO_NAMES)"; exit 1; }
start_tripod vboard
tripod_status
wait_for_frames
for line in "set trigger.cooldown 0" "set trigger.action capture"; do
  tripod_ctl $line > /tmp/tripod-reply 2>&1
  cat /tmp/tripod-reply
  grep -q '^ok' /tmp/tripod-reply || { stop_tripod; echo "$line: $(tail -n1 /tmp/tripod-reply)"; exit 1; }
done
# Events go to the log while no stdio console is attached (the console here is ttyS1).
grep -q 'PIR:' /tmp/tripod-run.log && { stop_tripod; echo "tripod could not open the PIR line: $(grep -m1 'PIR:' /tmp/tripod-run.log)"; exit 1; }
sleep 1
if grep -q 'trigger\.pir' /tmp/tripod-run.log; then stop_tripod; echo "trigger.pir before the line rose"; exit 1; fi
# Earlier checks may have left captures in /tmp/captures: the one this trigger makes is new.
# (The list is never empty: busybox's grep -v -f with an empty pattern file prints nothing.)
{ echo /none; find /tmp/captures -name 'TRP_*.json'; } > /tmp/pir-captures-before
raise_line PIR 0.5
pir=""; fired=""
for _ in $(seq 30); do
  pir="$(grep -m1 'event trigger\.pir ' /tmp/tripod-run.log || true)"
  fired="$(grep -m1 'event trigger\.fired .*source=pir' /tmp/tripod-run.log || true)"
  [ -n "$pir" ] && [ -n "$fired" ] && break
  sleep 1
done
sidecar=""
[ -n "$fired" ] && for _ in $(seq 60); do
  sidecar="$(find /tmp/captures -name 'TRP_*.json' | sort | grep -vxF -f /tmp/pir-captures-before | head -n1 || true)"
  [ -n "$sidecar" ] && grep -q '"status" : "complete"' "$sidecar" && break
  sleep 1
done
sleep 1   # the falling edge, had it been a trigger, would have been logged by now
rises="$(grep -c 'event trigger\.pir ' /tmp/tripod-run.log || true)"
tripod_status || true
stop_tripod
[ -n "$pir" ] || { echo "no trigger.pir within 30 s of raising PIR"; exit 1; }
echo "$pir" | grep -q 'sequence=[0-9]' || { echo "trigger.pir names no frame: $pir"; exit 1; }
[ -n "$fired" ] || { echo "trigger.pir but no trigger.fired source=pir within 30 s: $(grep -m1 'trigger\.error' /tmp/tripod-run.log)"; exit 1; }
echo "$fired" | grep -q 'action=capture' || { echo "trigger.fired ran another action: $fired"; exit 1; }
[ "$rises" = 1 ] || { echo "$rises trigger.pir events for one rise and fall of the line (the falling edge is no trigger)"; exit 1; }
[ -n "$sidecar" ] && grep -q '"status" : "complete"' "$sidecar" || { echo "no new complete capture in /tmp/captures within 60 s of trigger.fired"; exit 1; }
echo "PIR rose -> $pir; $fired; $(basename "$sidecar" .json) complete"
