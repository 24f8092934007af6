# timeout: 90
# Tripod's own MPU-6050 driver over i2c-dev (board vboard, imu.backend "i2c" at 0x68): status names
# the IMU as running, the i2c-stub registers hold the configuration the driver writes (awake on the
# gyro PLL, FIFO enabled for gyro + accel, FIFO overflow and data-ready interrupts), and samples come
# in: FIFO_COUNT and one FIFO record are preset (board.conf), so every drain's I2C-block read of
# FIFO_R_W returns that record, and the driver's sample count grows.
. /vboard/lib.sh
need_tripod
start_tripod vboard
sleep 2
tripod_status
first="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
sleep 2
tripod_status
reg() { /bin/i2cget -y "$VBOARD_I2C_BUS" "$VBOARD_IMU_ADDR" "$1"; }
pwr="$(reg 0x6b)"; fifo_en="$(reg 0x23)"; user="$(reg 0x6a)"; int_en="$(reg 0x38)"
gyro_cfg="$(reg 0x1b)"; accel_cfg="$(reg 0x1c)"
tripod_ctl imu > /tmp/tripod-imu 2>&1 || true
stop_tripod
cat /tmp/tripod-imu
echo "PWR_MGMT_1=$pwr FIFO_EN=$fifo_en USER_CTRL=$user INT_ENABLE=$int_en"
second="$(sed -n 's/.* imu.samples=\([0-9]*\).*/\1/p' /tmp/tripod-status)"
echo "imu.samples: $first, then $second 2 s later; $(grep -o ' imu.still=[^ ]* imu.rate=[^ ]*' /tmp/tripod-status)"
grep -q ' imu="[^"]*on i2c-[0-9]*@0x68' /tmp/tripod-status || { echo "tripod's IMU is not the I2C chip at 0x68: $(grep -o ' imu=[^ ]*' /tmp/tripod-status)"; exit 1; }
grep -q ' imu="[^"]*unavailable' /tmp/tripod-status && { echo "tripod's I2C IMU is unavailable"; exit 1; }
[ "$pwr" = 0x01 ] && [ "$fifo_en" = 0x78 ] && [ "$user" = 0x40 ] && [ "$int_en" = 0x11 ] \
  || { echo "the chip's registers do not hold the driver's configuration"; exit 1; }
[ -n "$first" ] && [ -n "$second" ] && [ "$second" -gt "$first" ] \
  || { echo "no samples from the FIFO records i2c-stub returns (imu.samples $first -> $second)"; exit 1; }
# The decoded sample equals the preset record at the ranges the driver configured (board orientation
# XYZ: chip axes are camera axes): accel = raw × range/32768 × g; gyro + bias = raw × range/32768.
# Full-scale ranges by FS_SEL/AFS_SEL (bits 4:3 of GYRO_CONFIG/ACCEL_CONFIG).
arange="$(echo 2 4 8 16 | cut -d' ' -f$(( (accel_cfg >> 3 & 3) + 1 )))"
grange="$(echo 250 500 1000 2000 | cut -d' ' -f$(( (gyro_cfg >> 3 & 3) + 1 )))"
verdict="$(imu_sample_matches "$(cat /tmp/tripod-imu)" "$FIFO_ACCEL_RAW" "$(awk -v r="$arange" 'BEGIN { print r / 32768 * 9.80665 }')" \
  "$FIFO_GYRO_RAW" "$(awk -v r="$grange" 'BEGIN { print r / 32768 }')")"
[ "$verdict" = ok ] || { echo "$verdict"; exit 1; }
echo "MPU-6050 over i2c-dev: identified, configured, samples $first -> $second from I2C-block FIFO reads, values match the preset record (accel +-${arange}g, gyro +-${grange} deg/s)"
