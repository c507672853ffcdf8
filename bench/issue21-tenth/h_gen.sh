#!/bin/bash
# usage: h_gen.sh DIST OUTDIR [SEED] ; the 16 agenda meta configurations (tol|prob x cir6|qrfa x
# single|pkg x local-good|local-bad) and the 4 target-free meta ones (tol|prob x agent), 500 each.
D=$1; O=$2; S=${3:-h21-fresh}; mkdir -p $O; cd $O
for agent in local-good local-bad; do
 for meta in tol prob; do
  for user in cir6-single cir6-pkg qrfa-single qrfa-pkg tf; do
   if [ $user = tf ]; then U="--user target-free"; else U="--user agenda --interaction ${user%-*} --preferences ${user#*-}"; fi
   name=${user}_${meta}_${agent}
   nice -n 10 node $D/cli.js simulate $U --meta $meta --agent $agent --n 500 --seed $S --out $name.sim.jsonl --force -q > $name.log 2>&1
   echo "$name rc=$?"
  done
 done
done
