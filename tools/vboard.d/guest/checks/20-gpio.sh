# timeout: 30
# gpio-sim lines named like a real board's, seen through libgpiod (Debian's gpiod tools): a level
# follows the simulated pull, an edge reaches gpiomon, and an output line drives the simulator.
. /vboard/lib.sh
sim="$VBOARD_GPIO_SYSFS"
where="$(gpiofind SHUTTER)"          # "gpiochipN OFFSET"
echo "SHUTTER is $where"
set -- $where
chip="$1"; line="$2"
led="$(gpiofind LED | cut -d' ' -f2)"
gpioinfo "$chip"
echo pull-down > "$sim/sim_gpio$line/pull"
[ "$(gpioget "$chip" "$line")" = 0 ] || { echo "SHUTTER does not read 0 with pull-down"; exit 1; }
echo pull-up > "$sim/sim_gpio$line/pull"
[ "$(gpioget "$chip" "$line")" = 1 ] || { echo "SHUTTER does not read 1 with pull-up"; exit 1; }
# A press: the button pulls the line low. gpiomon must report one falling edge.
gpiomon --num-events=1 --falling-edge "$chip" "$line" > /tmp/gpiomon.out &
mon=$!
sleep 1
press_button SHUTTER 0.5
for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$mon" 2>/dev/null || break; sleep 0.5; done
kill "$mon" 2>/dev/null || true
cat /tmp/gpiomon.out
grep -q "FALLING EDGE offset: $line " /tmp/gpiomon.out || { echo "gpiomon saw no falling edge on SHUTTER"; exit 1; }
# The LED: libgpiod drives the line, the simulator sees the level.
gpioset --mode=time --sec=3 "$chip" "$led=1" &
set_pid=$!
sleep 1
value="$(cat "$sim/sim_gpio$led/value")"
kill "$set_pid" 2>/dev/null || true
[ "$value" = 1 ] || { echo "LED line reads $value in gpio-sim after gpioset 1"; exit 1; }
echo "SHUTTER level and falling edge, LED output: ok on $chip"
