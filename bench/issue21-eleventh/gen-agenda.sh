#!/bin/bash
# usage: gen-agenda.sh DIST OUTDIR [SEED] ; the 24 agenda configurations of bench/issue21-tenth/gen.sh
# (CIR6/QRFA x single/PKG; meta none/tol/prob; local-good/local-bad) x 500 conversations, seed s21-lang
D=$1; O=$2; S=${3:-s21-lang}; mkdir -p $O; cd $O
for agent in local-good local-bad; do
 for meta in none tol prob; do
  for user in cir6-single cir6-pkg qrfa-single qrfa-pkg; do
   M=""; [ $meta != none ] && M="--meta $meta"
   name=${user}_${meta}_${agent}
   nice -n 10 node $D/cli.js simulate --user agenda --interaction ${user%-*} --preferences ${user#*-} $M --agent $agent --n 500 --seed $S --out $name.sim.jsonl --force -q > $name.log 2>&1
   echo "$name rc=$?"
  done
 done
done
