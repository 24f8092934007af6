// libmosquitto (Debian libmosquitto-dev): the MQTT client library of the Eclipse Mosquitto project.
#include <mosquitto.h>
