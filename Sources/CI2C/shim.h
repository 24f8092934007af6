#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
