#!/usr/bin/env python3
"""Whole-process CPU per simulated turn of target-free users (with and without meta), alternating builds.

usage: tfspeed.py --rounds 3 --n 150 NAME=DIR [NAME=DIR ...]
Each round runs, in every DIR in turn, `node dist/cli.js simulate --user target-free [--meta tol]
--agent local-good|local-bad --n N --seed tf-speed` (4 configurations), and divides the child
processes' CPU time (user+sys, catalog build included) by the turns written. Prints per build the
median CPU us/turn and the range, and the median ratio to the first build per round.
"""
import json, os, resource, statistics, subprocess, sys, tempfile

CONFIGS = [['--agent', 'local-good'], ['--agent', 'local-bad'], ['--meta', 'tol', '--agent', 'local-good'], ['--meta', 'prob', '--agent', 'local-bad']]


def main():
    a = sys.argv[1:]
    def opt(name, default):
        if name in a:
            i = a.index(name); v = a[i + 1]; del a[i:i + 2]; return v
        return default
    rounds, n = int(opt('--rounds', 3)), opt('--n', '150')
    builds = [x.split('=', 1) for x in a]
    res = {b: [] for b, _ in builds}
    tmp = tempfile.mkdtemp(prefix='tfspeed-')
    for r in range(rounds):
        for name, d in builds:
            turns, before = 0, resource.getrusage(resource.RUSAGE_CHILDREN)
            for k, cfg in enumerate(CONFIGS):
                out = os.path.join(tmp, f'{name}-{k}.jsonl')
                subprocess.run(['node', 'dist/cli.js', 'simulate', '--user', 'target-free', *cfg, '--n', n, '--seed', 'tf-speed',
                                '--out', out, '--force', '-q'], cwd=d, check=True, capture_output=True)
                with open(out) as f:
                    turns += sum(len(json.loads(line)['turns']) for line in f if line.strip())
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            res[name].append(1e6 * cpu / turns)
            print(f"round {r + 1} {name:10} load {os.getloadavg()[0]:5.2f}  {1e6 * cpu / turns:7.1f} us/turn CPU ({turns} turns, {cpu:.2f} s)", flush=True)
    ref = builds[0][0]
    for name, _ in builds:
        v = res[name]
        ratio = statistics.median([y / x for x, y in zip(res[ref], v)])
        print(f"{name:10} median {statistics.median(v):7.1f} us/turn CPU ({min(v):.1f}-{max(v):.1f}), {name}/{ref} median {ratio:.3f}")


if __name__ == '__main__':
    main()
