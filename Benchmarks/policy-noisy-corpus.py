#!/usr/bin/env python3
"""Writes a copy of a GPX corpus with receiver noise added, to see how the reporting policies
fare on noisier receivers than the corpus's (its devices smooth their positions).

Usage: policy-noisy-corpus.py SOURCE_DIR DEST_DIR WHITE_M CORRELATED_M TIME_CONSTANT_S

Every trkpt's position moves by white Gaussian noise of WHITE_M metres (one sigma per axis)
plus a first-order Gauss-Markov error of CORRELATED_M metres per axis whose correlation decays
with TIME_CONSTANT_S seconds between fixes (how a receiver's error wanders). Everything else
(times, speeds, courses, file names) stays, so the corpus split and modes are the same. The noise
is seeded by the file name: the same arguments give the same copy. Standard library only.

Example (BENCHMARKS.md, branch policy7):
  python3 Benchmarks/policy-noisy-corpus.py ../shared/traces/corpus /tmp/noisy 3 0 1
  .build/release/whereabouts-eval --summary --max-silence 1000000 /tmp/noisy
Keep the copy out of the repository: the corpus's licences are in its MANIFEST.md.
"""
import datetime
import math
import os
import random
import re
import sys

EARTH_RADIUS = 6371008.8  # metres, the sphere WhereaboutsCore's Geodesy uses
TRKPT = re.compile(r'<trkpt lat="([-\d.]+)" lon="([-\d.]+)"(.*?</trkpt>)', re.S)
TIME = re.compile(r"<time>([^<]+)</time>")


def noisy(text, rng, white, correlated, time_constant):
    state = {"east": 0.0, "north": 0.0, "time": None}

    def move(match):
        latitude, longitude, rest = float(match.group(1)), float(match.group(2)), match.group(3)
        found = TIME.search(rest)
        time = datetime.datetime.fromisoformat(found.group(1).replace("Z", "+00:00")).timestamp() if found else None
        if state["time"] is None or time is None:
            keep = 0.0
        else:
            keep = math.exp(-max(time - state["time"], 0.0) / time_constant)
        fresh = math.sqrt(1 - keep * keep)
        state["east"] = keep * state["east"] + fresh * rng.gauss(0, correlated)
        state["north"] = keep * state["north"] + fresh * rng.gauss(0, correlated)
        state["time"] = time
        east = state["east"] + rng.gauss(0, white)
        north = state["north"] + rng.gauss(0, white)
        latitude2 = latitude + math.degrees(north / EARTH_RADIUS)
        longitude2 = longitude + math.degrees(east / (EARTH_RADIUS * math.cos(math.radians(latitude))))
        return '<trkpt lat="%.7f" lon="%.7f"%s' % (latitude2, longitude2, rest)

    return TRKPT.sub(move, text)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    source, destination = sys.argv[1], sys.argv[2]
    white, correlated, time_constant = (float(value) for value in sys.argv[3:6])
    if white < 0 or correlated < 0 or time_constant <= 0:
        sys.exit("The noise must be at least 0 m and the time constant more than 0 s.")
    os.makedirs(destination, exist_ok=True)
    written = 0
    for name in sorted(os.listdir(source)):
        if not name.endswith(".gpx"):
            continue
        with open(os.path.join(source, name)) as file:
            text = file.read()
        with open(os.path.join(destination, name), "w") as file:
            file.write(noisy(text, random.Random(name), white, correlated, time_constant))
        written += 1
    print(f"{written} tracks written to {destination}", file=sys.stderr)


if __name__ == "__main__":
    main()
