# timeout: 90
# Tripod's own IMU driver over i2c-dev reads the i2c-stub MPU-6050 at 0x68 (board vboard, imu.backend
# "i2c"): status names the IMU as running and the sample counter grows.
. /vboard/lib.sh
need_tripod
start_tripod vboard
tripod_status
first="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
sleep 3
tripod_status
second="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
stop_tripod
grep -q ' imu=none' /tmp/tripod-status && { echo "tripod has no IMU on the virtual board (see its notes in the log)"; exit 1; }
grep -q ' imu="[^"]*unavailable' /tmp/tripod-status && { echo "tripod's IMU is unavailable: $(grep -o 'imu="[^"]*"' /tmp/tripod-status)"; exit 1; }
[ -n "$first" ] && [ -n "$second" ] && [ "$second" -gt "$first" ] \
  || { echo "imu.samples did not grow over 3 s ($first -> $second)"; exit 1; }
echo "IMU over i2c-dev: $first -> $second samples in 3 s"
