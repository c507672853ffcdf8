#!/bin/bash
# usage: gen.sh DIST OUTDIR ; 24 agenda configurations x 500, seed s21b-fresh
D=$1; O=$2; mkdir -p $O; cd $O
for agent in local-good local-bad; do
 for meta in none tol prob; do
  for user in cir6-single cir6-pkg qrfa-single qrfa-pkg; do
   U="--user agenda --interaction ${user%-*} --preferences ${user#*-}"
   M=""; [ $meta != none ] && M="--meta $meta"
   name=${user}_${meta}_${agent}
   nice -n 10 node $D/cli.js simulate $U $M --agent $agent --n 500 --seed s21b-fresh --out $name.sim.jsonl --force -q > $name.log 2>&1
   echo "$name rc=$?"
  done
 done
done
