#!/bin/sh
# Runs every /vboard/checks/NN-name.sh in order and prints one line:
#   VBOARD-GUEST: pass|fail name=ok|fail|skip ...
# A check is a shell script: exit 0 = ok, 77 = skip, anything else = fail. Its last output line is the
# reason shown for a skip or a failure; all its output goes to the console log, prefixed by its name.
# A check named in /vboard/known-failures ("name: why") that fails is reported xfail and does not fail
# the run; one that passes is reported xpass and does fail it, so that the list stays true (remove the
# entry in the change that fixes it).
# Each runs with /vboard/env and /vboard/board.conf sourced, under a time limit (CHECK_TIMEOUT, s).
# vboard.only=a,b on the kernel command line (tools/vboard --only a,b) runs just those checks.
set -u
only="$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^vboard\.only=//p')"
overall=pass
summary=""
for check in /vboard/checks/*.sh; do
  name="$(basename "$check" .sh)"
  name="${name#[0-9][0-9]-}"
  if [ -n "$only" ]; then
    case ",$only," in *",$name,"*) ;; *) continue ;; esac
  fi
  limit="$(sed -n 's/^# *timeout: *\([0-9]*\).*/\1/p' "$check" | head -n1)"
  start="$(cut -d' ' -f1 /proc/uptime)"
  timeout "${limit:-60}" sh -c "set -a; . /vboard/board.conf; . /vboard/env; set +a; exec sh -eu $check" \
    > "/tmp/$name.log" 2>&1 </dev/null
  status=$?
  end="$(cut -d' ' -f1 /proc/uptime)"
  reason="$(tail -n1 "/tmp/$name.log")"
  case $status in
    0) result=ok ;;
    77) result=skip ;;
    143|124) result=fail; reason="timed out after ${limit:-60} s" ;;
    *) result=fail ;;
  esac
  known="$(sed -n "s/^$name: *//p" /vboard/known-failures 2>/dev/null | head -n1)"
  if [ -n "$known" ]; then
    case $result in
      fail) result=xfail; reason="known failure ($known): $reason" ;;
      ok) result=xpass; reason="listed in known-failures but passed: remove it from the list" ;;
    esac
  fi
  sed "s/^/$name: /" "/tmp/$name.log"
  echo "VBOARD-CHECK: $name=$result ($(awk "BEGIN{printf \"%.1f\", $end-$start}") s)${reason:+: $reason}"
  case $result in fail|xpass) overall=fail ;; esac
  summary="$summary $name=$result"
done
if [ -z "$summary" ]; then
  echo "VBOARD-CHECK: checks=fail: no check ran${only:+ (vboard.only=$only matched none)}"
  overall=fail; summary=" checks=fail"
fi
echo "VBOARD-GUEST: $overall$summary"
