# timeout: 20
# The kernel's inv_mpu6050 IIO driver, bound to the second i2c-stub chip, reads the preset samples.
[ -n "$VBOARD_IIO_DEVICE" ] || { dmesg | grep -i mpu | tail -n 5; echo "inv_mpu6050 made no IIO device"; exit 1; }
dev="$VBOARD_IIO_DEVICE"
set -- $GYRO_RAW
for axis in x y z; do
  got="$(cat "$dev/in_anglvel_${axis}_raw")"
  echo "in_anglvel_${axis}_raw = $got (preset $1)"
  [ "$got" = "$1" ] || { echo "in_anglvel_${axis}_raw is $got, expected $1"; exit 1; }
  shift
done
set -- $ACCEL_RAW
for axis in x y z; do
  got="$(cat "$dev/in_accel_${axis}_raw")"
  echo "in_accel_${axis}_raw = $got (preset $1)"
  [ "$got" = "$1" ] || { echo "in_accel_${axis}_raw is $got, expected $1"; exit 1; }
  shift
done
# No buffer here: inv_mpu6050 sets up its triggered buffer (scan_elements, /dev/iio:deviceN reads)
# only when the client has an IRQ, and `new_device` gives none; its buffer would read the chip's FIFO,
# which i2c-stub cannot emulate anyway. Only the sysfs raw values are available on this board.
if [ -e "$dev/scan_elements" ]; then buffer="with a buffer"; else buffer="sysfs raw values only (no IRQ, no buffer)"; fi
echo "$(basename "$dev") ($(cat "$dev/name")): gyro and accel raw values match the presets; $buffer"
