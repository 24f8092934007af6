# timeout: 60
# Tripod through the IIO IMU backend (inv_mpu6050 on the stub at 0x69).
# The lead replaces this skip with the real check once `tripod run` has this backend (docs/vboard.md).
. /vboard/lib.sh
need_tripod
echo "not built yet: tripod run has no check for the IIO IMU backend (inv_mpu6050 on the stub at 0x69)"
exit 77
