#!/bin/sh
# Turns the bare guest into the virtual board: loads the drivers, names the gpio-sim lines like a real
# board's, presets the i2c-stub registers like an MPU-6050, binds the kernel's IIO driver to a second
# stub address, and writes the udev database entries libcamera needs. Writes /vboard/env for the checks.
set -eux
. /vboard/board.conf
step() { echo "setup: $*"; }

step "modules"
for m in configfs i2c-dev vimc vkms gpio-sim; do modprobe "$m"; done
# i2c-stub: the IMU Tripod drives over i2c-dev, and a second chip the kernel's inv_mpu6050 owns.
modprobe i2c-stub chip_addr="$IMU_ADDR,$IIO_ADDR"
mount -t configfs configfs /sys/kernel/config

step "gpio-sim lines"
chip=/sys/kernel/config/gpio-sim/vboard
mkdir "$chip" "$chip/bank0"
echo "$GPIO_LINES" > "$chip/bank0/num_lines"
i=0
for name in $GPIO_NAMES; do
  mkdir "$chip/bank0/line$i"
  echo "$name" > "$chip/bank0/line$i/name"
  i=$((i + 1))
done
echo 1 > "$chip/live"
gpio_dev="$(cat "$chip/dev_name")"
gpio_chip="$(cat "$chip/bank0/chip_name")"

step "i2c-stub registers"
bus=""
for a in /sys/bus/i2c/devices/i2c-*; do
  [ "$(cat "$a/name")" = "SMBus stub driver" ] && bus="${a##*-}"
done
[ -n "$bus" ] || { echo "no i2c-stub adapter"; exit 1; }
# busybox's own i2cset (by full path: Debian's i2c-tools would shadow it on PATH).
for addr in "$IMU_ADDR" "$IIO_ADDR"; do
  echo "$MPU6050_REGISTERS" | while read -r reg value; do
    [ -z "$reg" ] || /bin/i2cset -y "$bus" "$addr" "$reg" "$value"
  done
done

step "inv_mpu6050 on $IIO_ADDR"
modprobe inv-mpu6050-i2c
echo "mpu6050 $IIO_ADDR" > "/sys/bus/i2c/devices/i2c-$bus/new_device"
iio=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
  for d in /sys/bus/iio/devices/iio:device*; do
    [ -f "$d/name" ] && [ "$(cat "$d/name")" = mpu6050 ] && iio="$d"
  done
  [ -n "$iio" ] && break
  sleep 0.2
done
[ -n "$iio" ] || echo "setup: warning: inv_mpu6050 made no IIO device (the iio check reports it)"

step "udev database"
# libcamera lists only devices udev initialised; libudev calls a device initialised when
# /run/udev/data/c<major>:<minor> exists. No udevd runs here, so write the entries it would.
for dev in /sys/dev/char/*; do
  echo "I:$(cut -d' ' -f1 /proc/uptime | tr -d .)0000" > "/run/udev/data/c${dev##*/}"
done

cat > /vboard/env <<ENV
VBOARD_I2C_BUS=$bus
VBOARD_IMU_ADDR=$IMU_ADDR
VBOARD_IIO_ADDR=$IIO_ADDR
VBOARD_IIO_DEVICE=$iio
VBOARD_GPIO_CHIP=$gpio_chip
VBOARD_GPIO_SYSFS=/sys/devices/platform/$gpio_dev/$gpio_chip
VBOARD_BOARD=/usr/share/tripod/board/boards/vboard.json
ENV
cat /vboard/env
