# Helpers for the checks: `. /vboard/lib.sh` (see docs/vboard.md, "Adding a check").
# busybox ash: functions use `local`, so they do not clobber a check's variables.
# need_tripod: skip when the initramfs has no tripod binary.
need_tripod() {
  [ -x /usr/bin/tripod ] || { echo "tripod is not in the initramfs (tools/vboard --no-tripod, or its release build failed)"; exit 77; }
}
# tripod_run OUT ARGS...: runs tripod ARGS with output in OUT. A failure that says "not yet" is a skip
# (the capability is not built yet), any other failure a fail.
tripod_run() {
  local out="$1"; shift
  if tripod "$@" > "$out" 2>&1; then cat "$out"; return 0; fi
  cat "$out"
  if grep -qi "not yet" "$out"; then echo "not built yet: $(grep -i -m1 "not yet" "$out")"; exit 77; fi
  echo "tripod $* failed: $(tail -n1 "$out")"
  exit 1
}
TRIPOD_SOCKET=/run/tripod.sock
# start_tripod [BOARD]: starts `tripod run` on the board (default vboard) in the background, console
# on ttyS1, captures in /tmp/captures, log in /tmp/tripod-run.log, and waits until `tripod ctl status`
# answers. A start-up failure that says "not yet" is a skip, any other a fail (the log is shown).
start_tripod() {
  # The root file system (the initramfs, in RAM) has little room left; captures and videos need
  # tens of MB free to start: they get a tmpfs of their own.
  mkdir -p /tmp/captures
  grep -q " /tmp/captures " /proc/mounts || mount -t tmpfs -o size=256m tmpfs /tmp/captures
  rm -f "$TRIPOD_SOCKET"   # a tripod killed by an earlier check leaves its socket behind
  # A crash prints a backtrace into the log (Swift's backtracer, when the initramfs has it).
  [ -x /usr/libexec/swift-backtrace-static ] && \
    export SWIFT_BACKTRACE="enable=yes,interactive=no,color=no,swift-backtrace=/usr/libexec/swift-backtrace-static"
  LIBCAMERA_LOG_LEVELS='*:ERROR' tripod run --board "${1:-vboard}" --console /dev/ttyS1 --captures /tmp/captures \
    --socket "$TRIPOD_SOCKET" > /tmp/tripod-run.log 2>&1 &
  TRIPOD_PID=$!
  local i=0
  while [ $i -lt 60 ]; do
    if ! kill -0 "$TRIPOD_PID" 2>/dev/null; then
      local status=0; wait "$TRIPOD_PID" || status=$?
      cat /tmp/tripod-run.log
      grep -qi "not yet" /tmp/tripod-run.log && { echo "not built yet: $(grep -i -m1 "not yet" /tmp/tripod-run.log)"; exit 77; }
      echo "tripod run exited with $status at start: $(tail -n1 /tmp/tripod-run.log)"
      exit 1
    fi
    tripod ctl --socket "$TRIPOD_SOCKET" status > /tmp/tripod-status 2>&1 && grep -q "^ok" /tmp/tripod-status && return 0
    sleep 0.5; i=$((i + 1))
  done
  cat /tmp/tripod-run.log
  echo "tripod run did not answer on its control socket within 30 s"
  exit 1
}
# tripod_ctl LINE...: one console line through the control socket; prints the reply.
tripod_ctl() {
  tripod ctl --socket "$TRIPOD_SOCKET" "$@"
}
# running PID: true while the process exists and has not exited. An exited child stays a zombie
# until this shell reaps it (busybox's sleep runs in-process, so a wait loop may never reap), and
# `kill -0` succeeds on a zombie: read the state from /proc instead.
running() {
  [ -r "/proc/$1/stat" ] || return 1
  [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]
}
# stop_tripod: SIGTERM, then expects a clean exit (status 0) within 30 s; fails the check otherwise,
# showing where each of tripod's threads waits.
stop_tripod() {
  kill -TERM "$TRIPOD_PID" 2>/dev/null || true
  local i=0 status=0
  while [ $i -lt 60 ] && running "$TRIPOD_PID"; do sleep 0.5; i=$((i + 1)); done
  if running "$TRIPOD_PID"; then
    cat /tmp/tripod-run.log
    grep State "/proc/$TRIPOD_PID/status"
    for t in /proc/"$TRIPOD_PID"/task/*; do echo "thread $(cat "$t/comm"): $(cat "$t/wchan" 2>/dev/null)"; done
    kill -KILL "$TRIPOD_PID" 2>/dev/null
    echo "tripod run did not exit within 30 s of SIGTERM"; exit 1
  fi
  wait "$TRIPOD_PID" || status=$?
  cat /tmp/tripod-run.log
  [ "$status" = 0 ] || { echo "tripod run exited with status $status after SIGTERM"; exit 1; }
}
# tripod_status: `status` through the control socket, saved in /tmp/tripod-status and printed.
# Fields are key=value; values with spaces or quotes are double-quoted with \" escapes.
tripod_status() {
  tripod_ctl status > /tmp/tripod-status 2>&1 || true
  cat /tmp/tripod-status
  grep -q "^ok" /tmp/tripod-status && return 0
  kill -0 "$TRIPOD_PID" 2>/dev/null && echo "tripod run is still running" || echo "tripod run has exited"
  cat /tmp/tripod-run.log
  echo "status failed: $(tail -n1 /tmp/tripod-status)"
  exit 1
}
# wait_for_frames: waits up to 10 s for the camera to stream (`status` shows frame=N, left in
# /tmp/tripod-status); otherwise stops tripod and fails the check.
wait_for_frames() {
  local i=0
  while [ $i -lt 20 ]; do
    tripod_ctl status > /tmp/tripod-status 2>&1
    grep -q ' frame=' /tmp/tripod-status && return 0
    sleep 0.5; i=$((i + 1))
  done
  cat /tmp/tripod-status
  stop_tripod
  echo "no streaming frame from vimc within 10 s of start"
  exit 1
}
# uptime_ns: CLOCK_BOOTTIME from /proc/uptime in nanoseconds (10 ms steps; equals CLOCK_MONOTONIC in
# a guest that never suspends).
uptime_ns() {
  # %.0f, not %d: busybox awk's %d is 32-bit and saturates after 2.1 s.
  awk '{ printf "%.0f\n", $1 * 1000000000 }' /proc/uptime
}
# gpio_sim_line NAME: the gpio-sim sysfs directory of a named line (holds pull and value).
gpio_sim_line() {
  local where
  where="$(gpiofind "$1")" || return 1
  set -- $where
  echo "$VBOARD_GPIO_SYSFS/sim_gpio$2"
}
# press_button NAME [SECONDS]: a press on an active-low button with a pull-up: the line goes low for
# SECONDS (default 0.2), then back high. libgpiod consumers see a falling then a rising edge.
press_button() {
  pulse_line "$1" pull-down "${2:-0.2}" pull-up
}
# raise_line NAME [SECONDS]: an active-high output (a PIR module's) goes high for SECONDS (default
# 0.5), then low: the gpio-sim line's pull flips up then down, so libgpiod consumers see a rising then
# a falling edge. With no consumer bias the line follows the pull (gpio-sim starts it pulled down).
raise_line() {
  pulse_line "$1" pull-up "${2:-0.5}" pull-down
}
# pulse_line NAME PULL SECONDS THEN: the gpio-sim line's pull goes to PULL for SECONDS, then to THEN
# (press_button and raise_line).
pulse_line() {
  local dir
  dir="$(gpio_sim_line "$1")" || { echo "no gpio-sim line named $1"; return 1; }
  echo "$2" > "$dir/pull"
  sleep "$3"
  echo "$4" > "$dir/pull"
}
# host_exchange NAME SEND EXPECT [THEN]: asks the host to send the line SEND on ttyS1 and expect a
# line starting with EXPECT (then send THEN), and waits for its verdict on ttyS2. The host records
# NAME=ok|fail in the final result; this returns 0 only for ok.
host_exchange() {
  local verdict=""
  stty -F /dev/ttyS2 115200 raw -echo
  exec 4<>/dev/ttyS2   # open before asking: the UART drops what arrives while the port is closed
  echo "VBOARD-HOST: $1|$2|$3|${4:-}" > /dev/console
  read -t 45 -r verdict <&4 || true
  exec 4<&-
  verdict="$(echo "$verdict" | tr -d '\r')"
  echo "host: ${verdict:-no verdict within 45 s}"
  [ "$verdict" = "$1=ok" ]
}
# imu_sample_matches REPLY "ax ay az" ACCEL_SCALE "gx gy gz" GYRO_SCALE: whether the `imu` reply's
# sample equals raw × scale on each axis (accel in m/s², gyro + bias in °/s; 1 % + 0.01 tolerance).
# Prints "ok" or the first axis that differs. (busybox awk: no ^ operator.)
imu_sample_matches() {
  awk -v imu="$1" -v araw="$2" -v as="$3" -v graw="$4" -v gs="$5" 'BEGIN {
    n = split(imu, f, " "); for (i = 1; i <= n; i++) { split(f[i], kv, "="); v[kv[1]] = kv[2] }
    if (v["accel"] == "" || v["gyro"] == "") { print "the imu reply has no sample: " imu; exit }
    split(araw, ar, " "); split(graw, gr, " "); split(v["accel"], a, ","); split(v["gyro"], g, ",")
    if (v["bias"] != "none") split(v["bias"], b, ","); else { b[1] = 0; b[2] = 0; b[3] = 0 }
    for (i = 1; i <= 3; i++) {
      ea = ar[i] * as; eg = gr[i] * gs
      da = a[i] - ea; if (da < 0) da = -da; ta = 0.01 * (ea < 0 ? -ea : ea) + 0.01
      dg = g[i] + b[i] - eg; if (dg < 0) dg = -dg; tg = 0.01 * (eg < 0 ? -eg : eg) + 0.01
      if (da > ta) { printf "accel axis %d is %s m/s2, expected %.3f\n", i, a[i], ea; exit }
      if (dg > tg) { printf "gyro axis %d is %s+%s deg/s, expected %.3f\n", i, g[i], b[i], eg; exit }
    }
    print "ok"
  }'
}
