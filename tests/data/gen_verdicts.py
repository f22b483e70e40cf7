#!/usr/bin/env python3
"""gen_verdicts.py -- reference verdicts for tests/test_stats.c (issue 29),
computed in plain Python independently of harness/analysis/verdict.c, frozen
into verdict_reference.json.

    python3 tests/data/gen_verdicts.py > tests/data/verdict_reference.json

Three rows of ops/s runs (ABBA blocks, 2 runs an arm, harmonic means): each
row's per-block log ratio, its mean and sd, the anytime-valid p (the larger
of the t-mixture e-value's and the sign-flip bettors'), the interval at 0.05
with the radius found by bisection on the e-value (not by the closed-form
inversion the C code uses), reaching to 0 while the sign-flip p is above
the level; then the
family: p = 1 under the minimum effect, Benjamini-Hochberg, the level
0.05 max(R, 1) / N every interval is redrawn at, and each verdict.
"""
import itertools
import json
import math
import random

ALPHA, G, MARGIN, MIN_EFFECT = 0.05, 2.0, 0.02, 0.01


def log_e(t, n):
    nu, c = n - 1, 1 + n * G
    if math.isinf(t):
        return nu / 2 * math.log(c)
    return -math.log(c) / 2 + (nu + 1) / 2 * (math.log(1 + t * t / nu) - math.log(1 + t * t / (c * nu)))


def radius(n, alpha):
    target = math.log(1 / alpha)
    if n < 2 or log_e(math.inf, n) <= target:
        return math.inf
    lo, hi = 0.0, 1.0
    while log_e(hi, n) < target:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if log_e(mid, n) < target else (lo, mid)
    return (lo + hi) / 2


BETS, CAP = (0.125, 0.25, 0.5, 1, 2, 4), 0.9


def signflip_p(d):
    """The sign-flip e-process as plain products of wealth: for each stake
    scale c and direction, multiply 1 +- min(CAP, c |x| / rms(|d[:i+1]|)) by
    the sign; e is their mean, p = min(1, 1 / e)."""
    return min(1.0, signflip_p_raw(d))


def signflip_p_raw(d):
    """1 / the sign-flip e-value (signflip_p's), not capped at 1."""
    wealth = [1.0] * (2 * len(BETS))
    for i, x in enumerate(d):
        rms = math.sqrt(sum(y * y for y in d[:i + 1]) / (i + 1))
        if x == 0:
            continue
        sign = 1 if x > 0 else -1
        for k, c in enumerate(BETS):
            b = min(CAP, c * abs(x) / rms)
            wealth[2 * k] *= 1 + b * sign
            wealth[2 * k + 1] *= 1 - b * sign
    return len(wealth) / sum(wealth)


def hmean(xs):
    return len(xs) / sum(1 / x for x in xs)


KAPPAS, PERM_SHARE = (0.5, 1, 2, 4, 8), 0.1


def perm_log_factors(base, new):
    """The within-block randomisation bettors of one block: every way of
    naming len(new) of the block's runs NEW scored by its log ratio of
    harmonic means T; for each kappa and sign, q(g) proportional to
    exp(kappa T(g) / S), S the rms of T about its mean; the factor is
    (number of labellings) q(the observed labelling)."""
    vals = list(base) + list(new)
    k, j = len(vals), len(new)
    labels = [c for c in itertools.combinations(range(k), j)]
    t = []
    for c in labels:
        nw = [vals[i] for i in c]
        bs = [vals[i] for i in range(k) if i not in c]
        t.append(math.log(hmean(nw) / hmean(bs)))
    obs = labels.index(tuple(range(k - j, k)))
    mean = sum(t) / len(t)
    s = math.sqrt(sum((x - mean) ** 2 for x in t) / len(t))
    out = []
    for kappa in KAPPAS:
        for sign in (1, -1):
            w = [math.exp(sign * kappa * (x - mean) / s) for x in t]
            out.append(math.log(len(t) * w[obs] / sum(w)))
    return out


def robust_p(d, blocks):
    """The robust test: PERM_SHARE of the wealth on the randomisation
    bettors (the mean of their products), the rest on the sign-flip ones."""
    lw = [0.0] * (2 * len(KAPPAS))
    for base, new in blocks:
        for i, f in enumerate(perm_log_factors(base, new)):
            lw[i] += f
    e_perm = sum(math.exp(x) for x in lw) / len(lw)
    e_sf = 1 / signflip_p_raw(d)
    return min(1.0, 1 / ((1 - PERM_SHARE) * e_sf + PERM_SHARE * e_perm))


def row(seed, blocks, effect, noise):
    rnd = random.Random(seed)
    obs = []
    for b in range(blocks):
        for pos in range(4):               # A B B A
            arm = 1 if pos in (1, 2) else 0
            v = 1000 * (1 + noise * rnd.gauss(0, 1)) * (1 + effect if arm else 1)
            obs.append([b, arm, round(v, 6)])
    d, runs = [], []
    for b in range(blocks):
        bs = [v for k, a, v in obs if k == b and a == 0]
        nw = [v for k, a, v in obs if k == b and a == 1]
        runs.append((bs, nw))
        d.append(math.log(hmean(nw) / hmean(bs)))
    n = len(d)
    m = sum(d) / n
    s = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    p_sym = robust_p(d, runs)
    p = max(min(1.0, math.exp(-log_e(m * math.sqrt(n) / s, n))), p_sym)
    return {"obs": obs, "est": m, "sd": s, "p": p, "p_sym": p_sym, "n": n}


def interval(r, alpha):
    """The t mixture's interval, reaching to 0 while the robust test keeps 0
    (as a quick rule draws it; an UNKNOWN's also reaches 0, below)."""
    h = radius(r["n"], alpha) * r["sd"] / math.sqrt(r["n"])
    lo, hi = r["est"] - h, r["est"] + h
    if r["p_sym"] > alpha:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return lo, hi


SAME_MIN = math.ceil(math.log(ALPHA) / (2 * math.log(1 - 1 / 20)))   # 30 units


def decide(r, q, lo, hi):
    """DIFFERENT on q; SAME needs SAME_MIN units (these rows have fewer)."""
    mg = math.log1p(MARGIN)
    if r["n"] >= 4 and q <= ALPHA:
        return "DIFFERENT"
    if r["n"] >= SAME_MIN and lo >= -mg and hi <= mg:
        return "SAME"
    return "UNKNOWN"


def main():
    rows = [row(1, 10, -0.06, 0.01), row(2, 6, 0.005, 0.002), row(3, 8, 0.03, 0.03)]
    for r in rows:
        lo, hi = interval(r, ALPHA)
        alone = decide(r, r["p"] if abs(r["est"]) >= math.log1p(MIN_EFFECT) else 1.0, lo, hi)
        if alone == "UNKNOWN":
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        r["lo"], r["hi"] = math.expm1(lo), math.expm1(hi)
        r["delta"] = math.expm1(r["est"])
    gated = [r["p"] if abs(r["est"]) >= math.log1p(MIN_EFFECT) else 1.0 for r in rows]
    N = len(rows)
    order = sorted(range(N), key=lambda i: gated[i])
    q, run = [0.0] * N, 1.0
    for rank in range(N, 0, -1):
        i = order[rank - 1]
        run = min(run, N * gated[i] / rank)
        q[i] = min(1.0, run)
    R = sum(1 for x in q if x <= ALPHA)
    level = ALPHA * max(R, 1) / N
    for i, r in enumerate(rows):
        lo, hi = interval(r, level)
        r["q"], r["alpha_used"] = q[i], level
        r["kind"] = decide(r, q[i], lo, hi)
        if r["kind"] == "UNKNOWN":
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        r["adj_lo"], r["adj_hi"] = math.expm1(lo), math.expm1(hi)
    print(json.dumps({"margin": MARGIN, "min_effect": MIN_EFFECT, "rows": rows}, indent=1))


main()
