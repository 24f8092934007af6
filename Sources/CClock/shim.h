#include <sys/timex.h>
