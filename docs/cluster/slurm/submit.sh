#!/bin/bash
# Queues the simulation array and the merge that waits for it:
#   N=100000 OUT=runs/sim.jsonl bash slurm/submit.sh
# The merge uses afterany, not afterok: a task that finished with some failed conversations exits 1
# (and Slurm calls it FAILED), but its part is complete; merge itself checks every task and lists
# what is missing. Use afterok if any failure should hold the merge back.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p logs "$(dirname "${OUT:-runs/sim.jsonl}")"
array=$(sbatch --parsable slurm/simulate.sbatch)
merge=$(sbatch --parsable --dependency="afterany:${array}" slurm/merge.sbatch)
echo "array job ${array}, merge job ${merge} (squeue -u \$USER; logs in logs/)"
