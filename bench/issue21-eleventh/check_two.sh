#!/bin/bash
# usage: check_two.sh DIST DIR ; runs `simlens check` (the DIST build's checker) on every run of DIR and
# prints, per file, the accepted-item-shown and no-silent-contradiction lines and the overall status.
D=$1; R=$2
for f in $R/*.sim.jsonl; do
  out=$(nice -n 10 node $D/cli.js check "$f" 2>&1)
  n=$(basename $f .sim.jsonl)
  a=$(echo "$out" | grep -E "^\S+\s+accepted-item-shown" | sed 's/  */ /g')
  s=$(echo "$out" | grep -E "^\S+\s+no-silent-contradiction" | sed 's/  */ /g')
  st=$(echo "$out" | grep -oE "(OK|FAILED[^(]*)\(" | head -1 | tr -d '(')
  echo "$n | $a | $s | $st"
done
