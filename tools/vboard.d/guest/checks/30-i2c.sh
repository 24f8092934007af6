# timeout: 20
# i2c-stub answers like an MPU-6050 at the IMU address: byte and I2C-block reads (busybox i2c applets
# by full path). SMBus word reads are not checked: i2c-stub keeps a separate 16-bit word per register,
# so a word read of 0x43 does not combine registers 0x43 and 0x44 as a real chip would.
bus="$VBOARD_I2C_BUS"; addr="$VBOARD_IMU_ADDR"
who="$(/bin/i2cget -y "$bus" "$addr" 0x75)"
[ "$who" = 0x68 ] || { echo "WHO_AM_I reads $who, expected 0x68"; exit 1; }
high="$(/bin/i2cget -y "$bus" "$addr" 0x43)"; low="$(/bin/i2cget -y "$bus" "$addr" 0x44)"
[ "$high$low" = 0x010x23 ] || { echo "GYRO_XOUT reads $high $low, expected 0x01 0x23"; exit 1; }
# Mode i reads all 256 registers in 32-byte I2C-block transfers (busybox takes no -r with it).
/bin/i2cdump -y "$bus" "$addr" i | tee /tmp/i2cdump.out
grep -Eq "^30: (.. ){11}01 02 ff 00 40 " /tmp/i2cdump.out && grep -q "^40: 00 f0 60 01 23 fe dc 00 42 " /tmp/i2cdump.out \
  || { echo "I2C-block read of 0x3b-0x48 does not match the presets"; exit 1; }
echo "i2c-$bus@$addr: WHO_AM_I, byte and I2C-block reads match the presets"
