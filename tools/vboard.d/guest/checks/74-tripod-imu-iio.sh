# timeout: 90
# Tripod's IIO backend reads the kernel's inv_mpu6050 on the stub at 0x69 (board vboard-iio): status
# names the IIO device and the sample counter grows.
. /vboard/lib.sh
need_tripod
start_tripod vboard-iio
tripod_status
first="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
sleep 3
tripod_status
second="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
stop_tripod
grep -q 'imu="mpu6050 via IIO' /tmp/tripod-status || { echo "tripod's IMU is not the IIO mpu6050: $(grep -o ' imu=[^ ]*' /tmp/tripod-status)"; exit 1; }
grep -q ' imu="[^"]*unavailable' /tmp/tripod-status && { echo "tripod's IIO IMU is unavailable"; exit 1; }
[ -n "$first" ] && [ -n "$second" ] && [ "$second" -gt "$first" ] \
  || { echo "imu.samples did not grow over 3 s ($first -> $second)"; exit 1; }
echo "IMU through IIO: $first -> $second samples in 3 s"
