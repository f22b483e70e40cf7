#!/usr/bin/env python3
"""gen_stats.py -- reference values for tests/test_stats.c, computed in plain
Python independently of harness/stats.c, frozen into stats_reference.json.

    python3 tests/data/gen_stats.py > tests/data/stats_reference.json

Independent methods where it matters: the exact Wilcoxon p by enumerating
every sign assignment (not by counting subsets), Student's t p-value by
numerical integration of the t density (not by the incomplete beta), means
and medians by the statistics module. The bootstrap must reproduce the same
random stream, so splitmix64 and the percentile rule are written again here.
"""
import itertools
import json
import math
import random
import statistics

MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def percentile(v, p):
    """numpy's default (linear) quantile of sorted v."""
    h = p * (len(v) - 1)
    i = int(math.floor(h))
    if i + 1 >= len(v):
        return v[-1]
    return v[i] + (h - i) * (v[i + 1] - v[i])


def bootstrap(x, B, level, seed):
    state, means = seed, []
    for _ in range(B):
        s = 0.0
        for _ in range(len(x)):
            state, r = splitmix64(state)
            s += x[r % len(x)]
        means.append(s / len(x))
    means.sort()
    return percentile(means, (1 - level) / 2), percentile(means, (1 + level) / 2)


def ranks(a):
    """average ranks (1-based) of a, ties shared"""
    order = sorted(range(len(a)), key=lambda i: a[i])
    r = [0.0] * len(a)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and a[order[j + 1]] == a[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + 1 + j + 1) / 2.0
        i = j + 1
    return r


def wilcoxon(x, exact_max=20):
    d = [v for v in x if v != 0]
    n = len(d)
    if n == 0:
        return {"n": 0, "w_plus": 0.0, "p": 1.0, "exact": 1}
    r = ranks([abs(v) for v in d])
    w = sum(rk for rk, v in zip(r, d) if v > 0)
    if n <= exact_max:
        le = ge = 0
        for signs in itertools.product((0, 1), repeat=n):
            s = sum(rk for rk, sg in zip(r, signs) if sg)
            le += s <= w + 1e-9
            ge += s >= w - 1e-9
        p = min(1.0, 2 * min(le, ge) / 2 ** n)
        return {"n": n, "w_plus": w, "p": p, "exact": 1}
    groups = {}
    for v in d:
        groups[abs(v)] = groups.get(abs(v), 0) + 1
    tie = sum(t ** 3 - t for t in groups.values())
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - tie / 48
    z = (w - mean) / math.sqrt(var)
    p = 2 * (1 - 0.5 * (1 + math.erf(abs(z) / math.sqrt(2))))
    return {"n": n, "w_plus": w, "p": p, "exact": 0}


def t_pdf(t, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return c * (1 + t * t / df) ** (-(df + 1) / 2)


def t_p2(t, df, steps=200000):
    """two-sided p by Simpson's rule over [0, |t|]"""
    a = abs(t)
    if a == 0:
        return 1.0
    h = a / steps
    s = t_pdf(0, df) + t_pdf(a, df)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, df)
    return 1 - 2 * s * h / 3


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    r = sxy / math.sqrt(sxx * syy)
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return {"r": r, "t": t, "p": t_p2(t, n - 2)}


def block_deltas(obs, harmonic):
    out_d, out_b = [], []
    for b in sorted({o[0] for o in obs}):
        base = [o[2] for o in obs if o[0] == b and o[1] == 0]
        new = [o[2] for o in obs if o[0] == b and o[1] == 1]
        if not base or not new:
            continue
        f = statistics.harmonic_mean if harmonic else statistics.fmean
        mb, mn = f(base), f(new)
        if mb == 0 and mn != 0:
            continue
        out_d.append(0.0 if mb == 0 else mn / mb - 1)
        out_b.append(b)
    return out_d, out_b


def more_blocks(n, mean, half, floor, cap=9999):
    target = abs(mean) if abs(mean) >= floor else floor - abs(mean)
    if n == 0 or target <= 0:
        return cap
    need = math.ceil(n * (half / target) ** 2)
    if need > n + cap:
        return cap
    return need - n if need > n else 1


def main():
    rnd = random.Random(20261113)
    out = {"means": [], "deltas": [], "bootstrap": [], "wilcoxon": [], "pearson": [],
           "more_blocks": []}

    for n in (1, 2, 5, 10, 11):
        x = [round(rnd.uniform(100, 1000), 3) for _ in range(n)]
        out["means"].append({"x": x, "mean": statistics.fmean(x),
                             "hmean": statistics.harmonic_mean(x),
                             "median": statistics.median(x)})

    # 001's ABBA pairs: position pairs of a two-arm block
    for harmonic in (0, 1):
        obs = []
        for b in range(8):
            for pos, arm in enumerate((0, 1, 1, 0) if b % 2 == 0 else (1, 0, 0, 1)):
                if b == 5 and arm == 1:
                    continue        # a block with no new-arm run is skipped
                eff = 0.95 if arm else 1.0
                obs.append([b, arm, round(4688.62 * eff * rnd.gauss(1, 0.02), 2)])
        rnd.shuffle(obs)
        d, bl = block_deltas(obs, harmonic)
        out["deltas"].append({"obs": obs, "harmonic": harmonic, "deltas": d, "blocks": bl})

    for n, mu, sd in ((3, 0.0, 0.01), (10, -0.05, 0.01), (12, 0.0, 0.03), (30, 0.02, 0.02)):
        x = [rnd.gauss(mu, sd) for _ in range(n)]
        for level in (0.95, 0.90):
            lo, hi = bootstrap(x, 2000, level, 0x9E3779B97F4A7C15)
            out["bootstrap"].append({"x": x, "B": 2000, "level": level,
                                     "seed": "9e3779b97f4a7c15", "lo": lo, "hi": hi})
    x = [rnd.gauss(0.01, 0.02) for _ in range(8)]
    lo, hi = bootstrap(x, 500, 0.95, 42)
    out["bootstrap"].append({"x": x, "B": 500, "level": 0.95, "seed": "2a", "lo": lo, "hi": hi})

    cases = [
        [rnd.gauss(0.0, 1) for _ in range(6)],
        [rnd.gauss(0.5, 1) for _ in range(10)],
        [rnd.gauss(-1, 1) for _ in range(12)],
        [1.0, -2.0, 3.0, 0.0, 0.0, 2.0, -1.0, 4.0, 2.0, 5.0, 3.0],   # zeros and ties
        [0.5, 0.5, 0.5, -0.5, 1.5, 1.5, 2.0, -2.0, 3.0, 0.5, 1.0, 1.0, 2.5, -1.0],
        [rnd.gauss(0.3, 1) for _ in range(16)],
        [0.0, 0.0, 0.0],
        [round(rnd.gauss(0.2, 1), 1) for _ in range(40)],     # normal approx, ties
        [rnd.gauss(0.4, 1) for _ in range(25)],
    ]
    for x in cases:
        out["wilcoxon"].append(dict(x=x, **wilcoxon(x)))

    for n, slope in ((5, 0.0), (10, 0.002), (12, -0.004), (30, 0.0005)):
        xs = list(range(n))
        ys = [slope * i + rnd.gauss(0, 0.01) for i in xs]
        out["pearson"].append(dict(x=xs, y=ys, **pearson(xs, ys)))

    for n, mean, half, floor in ((10, 0.03, 0.04, 0.02), (10, 0.005, 0.02, 0.02),
                                 (5, -0.05, 0.01, 0.02), (8, 0.019, 0.01, 0.02),
                                 (8, 0.02, 0.01, 0.02), (4, 0.0, 0.001, 0.02)):
        out["more_blocks"].append({"n": n, "mean": mean, "half": half, "floor": floor,
                                   "more": more_blocks(n, mean, half, floor)})

    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
