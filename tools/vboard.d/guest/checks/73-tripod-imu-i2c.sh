# timeout: 60
# Tripod through the i2c-dev IMU backend (I2C-block reads of the stub at 0x68).
# The lead replaces this skip with the real check once `tripod run` has this backend (docs/vboard.md).
. /vboard/lib.sh
need_tripod
echo "not built yet: tripod run has no check for the i2c-dev IMU backend (I2C-block reads of the stub at 0x68)"
exit 77
