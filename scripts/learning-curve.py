#!/usr/bin/env python3
"""The learning curve's table: held-out move matching against case-base size, from `eval
--outcomes` runs on the same positions (scripts/learning-curve.sh makes them).

Usage: learning-curve.py DIR TEST [NAME ...]
  DIR   the runs' folder: NAME.build.json (or NAME.cases: a number) and NAME.TEST.jsonl each
  TEST  rapid or accounts
Prints, a size a line: cases, positions, matching with its 95 % interval, mean log-likelihood,
the paired differences from the size before (matching, log-likelihood) with their intervals; then
the slope per doubling of the case base (least squares on log2 of the cases) of both, with a
paired bootstrap interval over positions, for all sizes and for the smaller and larger halves.
"""

import json
import math
import random
import sys


def cases_of(folder, name):
    try:
        return json.load(open(f"{folder}/{name}.build.json"))["cases"]
    except FileNotFoundError:
        return int(open(f"{folder}/{name}.cases").read())


def outcomes(folder, name, test):
    """The run's outcomes by position: its line in the sample (the runs sample the same
    positions in the same order), checked by the position and the human move."""
    rows = [json.loads(l) for l in open(f"{folder}/{name}.{test}.jsonl")]
    return {(i, r["fen"], r["human"]): r for i, r in enumerate(rows)}


def wilson(k, n, z=1.96):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def ll(r):
    p = r.get("probability")
    return math.log(max(p if p is not None else 0.0, 1e-6))


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def main():
    folder, test, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = [(n, cases_of(folder, n), outcomes(folder, n, test)) for n in names]
    keys = sorted(set.intersection(*(set(r[2]) for r in runs)))
    n = len(keys)
    print(f"{test}: {n} positions in every run")
    print(f"{'run':>8} {'cases':>10} {'matching':>22} {'mean LL':>8}   paired with the size before: matching; log-likelihood")

    def paired(a, b):
        d = [x - y for x, y in zip(a, b)]
        mean = sum(d) / n
        half_width = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) / math.sqrt(n)
        return mean, mean - half_width, mean + half_width

    matched = [[1 if o[k]["matched"] else 0 for k in keys] for _, _, o in runs]
    lls = [[ll(o[k]) for k in keys] for _, _, o in runs]
    for i, (name, cases, _) in enumerate(runs):
        m = matched[i]
        lo, hi = wilson(sum(m), n)
        line = f"{name:>8} {cases:>10,} {100 * sum(m) / n:6.2f} % ({100 * lo:5.2f}-{100 * hi:5.2f}) {sum(lls[i]) / n:8.3f}"
        if i > 0:
            dm, dl = paired(m, matched[i - 1]), paired(lls[i], lls[i - 1])
            line += (f"   {100 * dm[0]:+5.2f} points ({100 * dm[1]:+5.2f} to {100 * dm[2]:+5.2f});"
                     f" {dl[0]:+.3f} ({dl[1]:+.3f} to {dl[2]:+.3f})")
        print(line)
    xs = [math.log2(c) for _, c, _ in runs]

    def fit(values, idx, sample):
        ys = [sum(values[i][j] for j in sample) / len(sample) for i in idx]
        return slope([xs[i] for i in idx], ys)

    rng = random.Random(1)
    boots = [[rng.randrange(n) for _ in range(n)] for _ in range(1000)]
    half = len(runs) // 2
    for label, idx in [("all sizes", range(len(runs))), ("smaller half", range(0, half + 1)),
                       ("larger half", range(half, len(runs)))]:
        idx = list(idx)
        if len(idx) < 2:
            continue
        parts = []
        for values, scale, unit in [(matched, 100, " points"), (lls, 1, " nats")]:
            s = fit(values, idx, range(n))
            bs = sorted(fit(values, idx, b) for b in boots)
            parts.append(f"{scale * s:+.3f}{unit} (95 % {scale * bs[25]:+.3f} to {scale * bs[974]:+.3f})")
        print(f"slope per doubling, {label} ({runs[idx[0]][1]:,}-{runs[idx[-1]][1]:,} cases): "
              f"matching {parts[0]}; log-likelihood {parts[1]}")


if __name__ == "__main__":
    main()
