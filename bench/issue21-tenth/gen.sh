#!/bin/bash
# usage: gen.sh DIST OUTDIR ; the 30 simulator configurations (agenda x4, target-free; meta none/tol/prob;
# local-good/local-bad) x 500 conversations, seed s21-lang, default catalog
D=$1; O=$2; mkdir -p $O; cd $O
for agent in local-good local-bad; do
 for meta in none tol prob; do
  for user in cir6-single cir6-pkg qrfa-single qrfa-pkg target-free; do
   if [ $user = target-free ]; then U="--user target-free"; else U="--user agenda --interaction ${user%-*} --preferences ${user#*-}"; fi
   M=""; [ $meta != none ] && M="--meta $meta"
   name=${user}_${meta}_${agent}
   nice -n 10 node $D/cli.js simulate $U $M --agent $agent --n 500 --seed s21-lang --out $name.sim.jsonl --force -q > $name.log 2>&1
   echo "$name rc=$?"
  done
 done
done
