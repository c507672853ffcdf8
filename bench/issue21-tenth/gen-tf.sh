#!/bin/bash
# usage: gen-tf.sh DIST OUTDIR [SEED] ; the 6 target-free configurations x 500 (seed d10-fresh)
D=$1; O=$2; S=${3:-d10-fresh}; mkdir -p $O; cd $O
for agent in local-good local-bad; do
 for meta in none tol prob; do
   M=""; [ $meta != none ] && M="--meta $meta"
   name=tf_${meta}_${agent}
   nice -n 10 node $D/cli.js simulate --user target-free $M --agent $agent --n 500 --seed $S --out $name.sim.jsonl --force -q > $name.log 2>&1
   echo "$name rc=$?"
 done
done
