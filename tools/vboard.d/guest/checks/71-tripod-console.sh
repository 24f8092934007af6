# timeout: 90
# `tripod run` on the virtual board serves its console on ttyS1: the host sends "status" and expects
# "ok ...", then "quit" (which closes that console). SIGTERM must then stop tripod cleanly (status 0).
. /vboard/lib.sh
need_tripod
start_tripod vboard
exchanged=0
host_exchange tripod-console status ok quit && exchanged=1
stop_tripod
[ "$exchanged" = 1 ] || { echo "the host got no ok reply to status from tripod's serial console"; exit 1; }
echo "tripod run answered status on ttyS1 and stopped cleanly on SIGTERM"
