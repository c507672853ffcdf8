#!/usr/bin/env python3
"""Side-by-side speed of several built trees, alternating runs (issue 21 item 6).

usage: sidebyside.py --rounds 5 --n 100 NAME=DIR [NAME=DIR ...] [--users target-free]
Each round runs `node dist/bench.js fidelity-classes -- --speed --n N` once in every DIR, in the
order given (then the next round), and records the bench's CPU and wall microseconds per turn, the
whole-process CPU (user+sys of the child) and the load average before the run. With --users it
passes --speed-users (only builds that have that option). Prints every run, then per build the
median and range, and per round the ratio of each build's CPU us/turn to the first build's.
"""
import os, re, resource, subprocess, sys, statistics, time


def main():
    a = sys.argv[1:]
    def opt(name, default):
        if name in a:
            i = a.index(name); v = a[i + 1]; del a[i:i + 2]; return v
        return default
    rounds, n, users = int(opt('--rounds', 5)), opt('--n', '100'), opt('--users', None)
    builds = [x.split('=', 1) for x in a]
    runs = {name: [] for name, _ in builds}
    for r in range(rounds):
        for name, d in builds:
            load = os.getloadavg()[0]
            cmd = ['node', 'dist/bench.js', 'fidelity-classes', '--', '--speed', '--n', n]
            if users: cmd += ['--speed-users', users]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.time()
            out = subprocess.run(cmd, cwd=d, capture_output=True, text=True, check=True).stdout
            wall = time.time() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            m = re.search(r'speed: (\d+) turns in ([\d.]+) s, ([\d.]+) us/turn wall, ([\d.]+) us/turn CPU', out)
            row = dict(turns=int(m[1]), wall=float(m[3]), cpu=float(m[4]), proc_cpu=proc_cpu, proc_wall=wall, load=load)
            runs[name].append(row)
            print(f"round {r + 1} {name:10} load {load:5.2f}  CPU {row['cpu']:7.1f}  wall {row['wall']:7.1f} us/turn  "
                  f"process {proc_cpu:6.2f} s CPU {wall:6.2f} s wall  ({row['turns']} turns)", flush=True)
    print('\nbuild       median CPU us/turn (range)   median wall us/turn (range)   median process CPU s   turns')
    for name, _ in builds:
        rs = runs[name]
        c = [x['cpu'] for x in rs]; w = [x['wall'] for x in rs]; p = [x['proc_cpu'] for x in rs]
        print(f"{name:10}  {statistics.median(c):7.1f} ({min(c):.1f}-{max(c):.1f})   "
              f"{statistics.median(w):7.1f} ({min(w):.1f}-{max(w):.1f})   {statistics.median(p):6.2f}   {rs[0]['turns']}")
    ref = builds[0][0]
    for name, _ in builds[1:]:
        ratios = [y['cpu'] / x['cpu'] for x, y in zip(runs[ref], runs[name])]
        wr = [y['wall'] / x['wall'] for x, y in zip(runs[ref], runs[name])]
        print(f"{name}/{ref} CPU per round: {', '.join(f'{x:.3f}' for x in ratios)}  median {statistics.median(ratios):.3f};"
              f" wall median {statistics.median(wr):.3f}")
    loads = [x['load'] for rs in runs.values() for x in rs]
    print(f"load average (1 min) before the runs: {min(loads):.2f}-{max(loads):.2f}")


if __name__ == '__main__':
    main()
