#!/bin/sh
# Writes simulated runs of 12 configurations (agenda CIR6/QRFA x single/PKG, meta tol/prob,
# target-free with and without meta, local-good and local-bad) with the build in the current
# directory to DIR, to `cmp` two builds' conversations byte for byte.
#   sh bench/issue21-tenth/identity.sh DIR [N]   (run from the worktree; N conversations, default 300)
set -e
out=$1; n=${2:-300}
mkdir -p "$out"
run() { name=$1; shift; node dist/cli.js simulate "$@" --n "$n" --seed sp10 --out "$out/$name.jsonl" --force -q; }
run cir6-pkg-good --user agenda --interaction cir6 --preferences pkg --agent local-good
run cir6-pkg-bad --user agenda --interaction cir6 --preferences pkg --agent local-bad
run cir6-single-good --user agenda --interaction cir6 --preferences single --agent local-good
run qrfa-single-bad --user agenda --interaction qrfa --preferences single --agent local-bad
run qrfa-pkg-good --user agenda --interaction qrfa --preferences pkg --agent local-good
run cir6-pkg-tol-good --user agenda --interaction cir6 --preferences pkg --meta tol --agent local-good
run cir6-single-prob-bad --user agenda --interaction cir6 --preferences single --meta prob --agent local-bad
run qrfa-pkg-prob-good --user agenda --interaction qrfa --preferences pkg --meta prob --agent local-good
run tf-good --user target-free --agent local-good
run tf-bad --user target-free --agent local-bad
run tf-tol-good --user target-free --meta tol --agent local-good
run tf-prob-bad --user target-free --meta prob --agent local-bad
