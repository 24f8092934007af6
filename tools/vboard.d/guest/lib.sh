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
  local dir
  dir="$(gpio_sim_line "$1")" || { echo "no gpio-sim line named $1"; return 1; }
  echo pull-down > "$dir/pull"
  sleep "${2:-0.2}"
  echo pull-up > "$dir/pull"
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
