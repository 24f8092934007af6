# timeout: 90
# Tripod's IIO backend reads the kernel's inv_mpu6050 on the stub at 0x69 (board vboard-iio): status
# names the IIO device, the sample counter grows, and `imu` gives the preset sample (ACCEL_RAW,
# GYRO_RAW) times the driver's own sysfs scales (orientation XYZ: chip axes are camera axes).
. /vboard/lib.sh
need_tripod
start_tripod vboard-iio
tripod_status
first="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
sleep 3
tripod_status
second="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
tripod_ctl imu > /tmp/tripod-imu 2>&1 || true
stop_tripod
cat /tmp/tripod-imu
dev="$VBOARD_IIO_DEVICE"   # the sysfs directory
ascale="$(cat "$dev/in_accel_scale")"; gscale="$(cat "$dev/in_anglvel_scale")"
grep -q 'imu="mpu6050 via IIO' /tmp/tripod-status || { echo "tripod's IMU is not the IIO mpu6050: $(grep -o ' imu=[^ ]*' /tmp/tripod-status)"; exit 1; }
grep -q ' imu="[^"]*unavailable' /tmp/tripod-status && { echo "tripod's IIO IMU is unavailable"; exit 1; }
[ -n "$first" ] && [ -n "$second" ] && [ "$second" -gt "$first" ] \
  || { echo "imu.samples did not grow over 3 s ($first -> $second)"; exit 1; }
# accel (m/s2) = raw × in_accel_scale; gyro + bias (deg/s) = raw × in_anglvel_scale (rad/s) × 180/pi.
verdict="$(imu_sample_matches "$(cat /tmp/tripod-imu)" "$ACCEL_RAW" "$ascale" \
  "$GYRO_RAW" "$(awk -v s="$gscale" 'BEGIN { print s * 57.29577951 }')")"
[ "$verdict" = ok ] || { echo "$verdict"; exit 1; }
echo "IMU through IIO: $first -> $second samples in 3 s; the sample matches the preset registers at the driver's scales"
