# Helpers for the Tripod checks (sourced by checks/7x-tripod-*.sh).
# need_tripod: skip when the initramfs has no tripod binary.
need_tripod() {
  [ -x /usr/bin/tripod ] || { echo "tripod is not in the initramfs (tools/vboard --no-tripod, or its release build failed)"; exit 77; }
}
# tripod_run OUT ARGS...: runs tripod ARGS with output in OUT. A failure that says "not yet" is a skip
# (the capability is not built yet), any other failure a fail.
tripod_run() {
  out="$1"; shift
  if tripod "$@" > "$out" 2>&1; then cat "$out"; return 0; fi
  cat "$out"
  if grep -qi "not yet" "$out"; then echo "not built yet: $(grep -i -m1 "not yet" "$out")"; exit 77; fi
  echo "tripod $* failed: $(tail -n1 "$out")"
  exit 1
}
