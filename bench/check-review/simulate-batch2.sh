#!/bin/bash
C=${SIMLENS_CLI:-dist/cli.js}
i=0
for spec in "agenda cir6 single none local-good" "agenda qrfa pkg none local-bad" "agenda cir6 pkg tol local-good" "agenda qrfa single prob local-bad" "target-free - - none local-good" "target-free - - tol local-bad"; do
 set -- $spec; i=$((i+1))
 args="--user $1"; [ "$2" != "-" ] && args="$args --interaction $2 --preferences $3"; [ "$4" != "none" ] && args="$args --meta $4"
 node $C simulate $args --agent $5 --n 80 --seed $((91000+i*37)) --out b2-$i.jsonl --force --concurrency 2 > b2-$i.log 2>&1
done
echo finished > done
