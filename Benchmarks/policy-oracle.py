#!/usr/bin/env python3
"""Hindsight oracles for issue 12: how few reports could a message anchored at the fix need?

A planar-3D replica (positions on the sphere as 3D points, straight-line extrapolation; wire
rounding and tst flooring left out) of dead reckoning's live-error rule at epsilon, without a
silence limit. For every accepted fix i it computes how far a report at i reaches (the last fix
still within epsilon of the display) for a set of candidate velocities, and a dynamic programme
picks the fewest reports, each with its best candidate:

  dr       the last two fixes' velocity (dead reckoning's optimum; calibrates the replica)
  experts  bounded's estimators: receiver speed along the last-two heading (when the fix has a
           speed), least squares through the fix over 2 s and 8 s, hold, and the last two fixes
  line     any straight line from the fix through a later fix (up to 60 fixes ahead), and hold:
           the best a fix-anchored constant-velocity message can do with perfect foresight

  greedy   the same candidates, but reports made where the last report's display misses (the
           online timing), each with the candidate that reaches furthest: a clairvoyant choice of
           the velocity only

Prints per track (standard error) and totals per half and mode: online dead reckoning, the DR
optimum, the estimators' and the lines' optima, the estimators' and the lines' greedy counts.

Usage: policy-oracle.py CORPUS_DIR [EPSILON]    (HALF=A or HALF=B for one half only)
Needs numpy (Debian: python3-numpy); not part of the tests. Results: BENCHMARKS.md, "Bounded on
the corpus: a parked receiver, hindsight oracles, what limits the targets".
"""
import glob, math, os, re, sys, statistics
import numpy as np

R = 6_371_008.8


def fnv1a(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


MODES = ["walk", "run", "cycle", "car", "bus", "train", "boat", "plane", "mixed", "unknown"]
PT = re.compile(r'<trkpt lat="([^"]+)" lon="([^"]+)">(.*?)</trkpt>', re.S)


def parse_time(s):
    from datetime import datetime
    s = s.strip().replace("Z", "+00:00")
    return datetime.fromisoformat(s).timestamp()


def read(path):
    text = open(path).read()
    fixes = []
    for lat, lon, body in PT.findall(text):
        m = re.search(r"<time>([^<]+)</time>", body)
        if not m:
            continue
        sp = re.search(r"<speed>([^<]+)</speed>", body)
        fixes.append((parse_time(m.group(1)), float(lat), float(lon), float(sp.group(1)) if sp else None))
    # The evaluator's filters, simplified: strictly newer, at most 100 m/s from the last accepted.
    out = []
    for f in fixes:
        if out:
            t0, la0, lo0, _ = out[-1]
            if f[0] <= t0:
                continue
            d = hav(la0, lo0, f[1], f[2])
            if d / (f[0] - t0) > 100:
                continue
        out.append(f)
    return out


def hav(la1, lo1, la2, lo2):
    p1, p2 = math.radians(la1), math.radians(la2)
    dp, dl = p2 - p1, math.radians(lo2 - lo1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(min(1, math.sqrt(a)))


def xyz(fixes):
    la = np.radians([f[1] for f in fixes])
    lo = np.radians([f[2] for f in fixes])
    return np.stack([R * np.cos(la) * np.cos(lo), R * np.cos(la) * np.sin(lo), R * np.sin(la)], axis=1)


def reach(P, T, i, V, eps):
    """The last index a report at i covers, for each candidate velocity in V (k x 3)."""
    n = len(T)
    best = np.full(len(V), i)
    alive = np.ones(len(V), bool)
    start, step = i + 1, 16
    while start < n and alive.any():
        stop = min(n, start + step)
        dt = T[start:stop] - T[i]
        pred = P[i][None, None, :] + V[alive][:, None, :] * dt[None, :, None]
        err = np.linalg.norm(pred - P[start:stop][None, :, :], axis=2)
        miss = err > eps
        anymiss = miss.any(axis=1)
        first = np.where(anymiss, miss.argmax(axis=1), stop - start)
        idx = np.where(alive)[0]
        best[idx] = start + first - 1
        alive[idx[anymiss]] = False
        start, step = stop, min(step * 2, 128)
    return best


def ls(P, T, i, window):
    """Least squares through the fix: v = sum(tau p) / sum(tau^2) over the fixes within window s."""
    j = i
    while j - 1 >= 0 and T[i] - T[j - 1] <= window:
        j -= 1
    if j == i:
        j = i - 1
    tau = T[j:i] - T[i]
    d = P[j:i] - P[i]
    return (tau[:, None] * d).sum(0) / (tau ** 2).sum()


def along(speed, vdr):
    """The receiver's speed along the last two fixes' heading."""
    n = np.linalg.norm(vdr)
    return vdr / n * speed if n > 0 else np.zeros(3)


def dp(reaches):
    """The fewest reports covering every fix: cost[i] = 1 + min(cost[k]) for k in i+1...reach[i]+1,
    from the end, with a stack of candidates of strictly falling cost (as OfflineOptimum.swift)."""
    n = len(reaches)
    cost = [0] * n
    stack = []
    for i in range(n - 1, -1, -1):
        if reaches[i] >= n - 1:
            cost[i] = 1
        else:
            limit = reaches[i] + 1
            lo, hi, found = 0, len(stack) - 1, len(stack) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                if stack[mid] <= limit:
                    found = mid
                    hi = mid - 1
                else:
                    lo = mid + 1
            cost[i] = 1 + cost[stack[found]]
        while stack and cost[stack[-1]] >= cost[i]:
            stack.pop()
        stack.append(i)
    return cost[0]


def online_dr(P, T, eps):
    n, count, i = len(T), 1, 0
    while True:
        v = (P[i] - P[i - 1]) / (T[i] - T[i - 1]) if i > 0 else np.zeros(3)
        r = reach(P, T, i, v[None, :], eps)[0]
        if r >= n - 1:
            return count
        i, count = r + 1, count + 1


def track(path, eps):
    fixes = read(path)
    if len(fixes) < 2:
        return None
    P, T = xyz(fixes), np.array([f[0] for f in fixes])
    n = len(T)
    zero = np.zeros(3)
    r_dr, r_ex, r_line = [0] * n, [0] * n, [0] * n
    for i in range(n):
        vdr = (P[i] - P[i - 1]) / (T[i] - T[i - 1]) if i > 0 else zero
        cands = [vdr]
        rd = reach(P, T, i, np.array(cands), eps)
        r_dr[i] = int(rd[0])
        ex = [vdr, zero]
        if i > 0:
            sp = fixes[i][3]
            if sp is not None:
                ex.append(along(sp, vdr))
            ex.append(ls(P, T, i, 2))
            ex.append(ls(P, T, i, 8))
        re_ = reach(P, T, i, np.array(ex), eps)
        r_ex[i] = int(re_.max())
        ahead = min(n - 1, i + 60)
        line = [zero, vdr] + [(P[j] - P[i]) / (T[j] - T[i]) for j in range(i + 1, ahead + 1)]
        rl = reach(P, T, i, np.array(line), eps)
        r_line[i] = int(max(rl.max(), r_ex[i]))
    def greedy(r):
        i, c = 0, 1
        while r[i] < n - 1:
            i, c = r[i] + 1, c + 1
        return c
    return online_dr(P, T, eps), dp(r_dr), dp(r_ex), dp(r_line), n, greedy(r_ex), greedy(r_line)


def main():
    folder = sys.argv[1]
    eps = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
    rows = []
    only = os.environ.get("HALF")
    for path in sorted(glob.glob(os.path.join(folder, "*.gpx"))):
        name = os.path.basename(path)
        if only and ("A" if fnv1a(name) & 1 == 0 else "B") != only:
            continue
        got = track(path, eps)
        if got is None:
            continue
        half = "A" if fnv1a(name) & 1 == 0 else "B"
        stem = name.split(".")[0].lower().split("-")
        mode = next((w for w in stem if w in MODES), "other")
        rows.append((name, half, mode) + got)
        print(name, half, mode, *got, flush=True, file=sys.stderr)
    def show(label, rs):
        if not rs:
            return
        dr, dro, exo, lo, n, gex, gline = (sum(r[k] for r in rs) for k in range(3, 10))
        print(f"{label:8} tracks {len(rs):3}  fixes {n:7}  online DR {dr:6}  DR optimum {dro:6} ({dro/dr:.3f})"
              f"  experts oracle {exo:6} ({exo/dr:.3f})  line oracle {lo:6} ({lo/dr:.3f})"
              f"  experts greedy {gex:6} ({gex/dr:.3f})  line greedy {gline:6} ({gline/dr:.3f})")
    show("all", rows)
    show("half A", [r for r in rows if r[1] == "A"])
    show("half B", [r for r in rows if r[1] == "B"])
    for m in MODES:
        show(m, [r for r in rows if r[2] == m])


if __name__ == "__main__":
    main()
