#!/usr/bin/env python3
"""gen_stats.py -- reference values for tests/test_stats.c, computed in plain
Python independently of harness/stats.c, frozen into stats_reference.json.

    python3 tests/data/gen_stats.py > tests/data/stats_reference.json

Independent methods where it matters: Student's t p-value by numerical
integration of the t density (not by the incomplete beta), the confidence
sequence's e-value by integrating the t statistic's density over the
variance and the effect (not by its closed form), means and medians by the
statistics module.
"""
import json
import math
import random
import statistics


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


def chi2_pdf(v, df):
    if v <= 0:
        return 0.0
    return math.exp((df / 2 - 1) * math.log(v) - v / 2 - (df / 2) * math.log(2)
                    - math.lgamma(df / 2))


def simpson(f, a, b, steps):
    h = (b - a) / steps
    s = f(a) + f(b)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * f(a + i * h)
    return s * h / 3


def t_density_mixed(t, n, g, steps=2000):
    """density of the one-sample t statistic of n normal draws when the
    standardised effect is N(0, g) (g = 0: no effect), by integrating over the
    chi-square of the variance (v = w^2) and, for g > 0, over the effect"""
    nu = n - 1
    def given_effect(lam):
        def f(w):
            v = w * w
            sc = math.sqrt(v / nu)
            z = t * sc - lam
            return math.exp(-z * z / 2) / math.sqrt(2 * math.pi) * sc * chi2_pdf(v, nu) * 2 * w
        return simpson(f, 1e-12, math.sqrt(nu + 60 * math.sqrt(2 * nu) + 60), steps)
    if g == 0:
        return given_effect(0.0)
    sd = math.sqrt(g)
    def over_effect(d):
        return math.exp(-d * d / (2 * g)) / (sd * math.sqrt(2 * math.pi)) * given_effect(math.sqrt(n) * d)
    return simpson(over_effect, -9 * sd, 9 * sd, 300)


def main():
    rnd = random.Random(20261113)
    out = {"means": [], "deltas": [], "pearson": [], "evalue": []}

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

    for n, slope in ((5, 0.0), (10, 0.002), (12, -0.004), (30, 0.0005)):
        xs = list(range(n))
        ys = [slope * i + rnd.gauss(0, 0.01) for i in xs]
        out["pearson"].append(dict(x=xs, y=ys, **pearson(xs, ys)))

    # the mixture e-value of the confidence sequence (harness/analysis/confseq.h),
    # from its definition: the t statistic's density with the effect drawn from
    # N(0, g) over its density with no effect, each integrated numerically
    g = 2.0
    for n, t in ((4, 5.0), (5, 3.0), (6, -2.5), (10, 4.0), (12, 1.0), (24, 3.4), (30, 0.0)):
        e = t_density_mixed(t, n, g) / t_density_mixed(t, n, 0)
        out["evalue"].append({"n": n, "t": t, "g": g, "log_e": math.log(e)})

    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
