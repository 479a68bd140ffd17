#!/usr/bin/env python3
"""Writes a copy of a GPX corpus that keeps every N-th track point, to see how the reporting
policies fare on sparser sampling than the corpus's (most of its tracks log every second).

Usage: policy-sparse-corpus.py SOURCE_DIR DEST_DIR N

The first point of each file and every N-th after it stay, unchanged; the rest of each file
(metadata, names) and MANIFEST.md are copied as they are, so the corpus split and modes are the
same. Standard library only.

Example (BENCHMARKS.md, "the lag of a moving report"):
  python3 Benchmarks/policy-sparse-corpus.py ../shared/traces/corpus /tmp/sparse5 5
  .build/release/whereabouts-eval --summary --max-silence 1000000 /tmp/sparse5
Keep the copy out of the repository: the corpus's licences are in its MANIFEST.md.
"""
import glob
import os
import re
import shutil
import sys

TRKPT = re.compile(r"<trkpt .*?</trkpt>", re.S)


def thin(text, every):
    points = list(TRKPT.finditer(text))
    if not points:
        return text
    kept = [match.group(0) for index, match in enumerate(points) if index % every == 0]
    return text[: points[0].start()] + "\n".join(kept) + text[points[-1].end():]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, destination, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if every < 1:
        sys.exit("N must be at least 1")
    os.makedirs(destination, exist_ok=True)
    paths = sorted(glob.glob(os.path.join(source, "*.gpx")))
    for path in paths:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        with open(os.path.join(destination, os.path.basename(path)), "w", encoding="utf-8") as file:
            file.write(thin(text, every))
    manifest = os.path.join(source, "MANIFEST.md")
    if os.path.exists(manifest):
        shutil.copy(manifest, destination)
    print(f"{len(paths)} tracks written to {destination}, every {every}th point kept")


if __name__ == "__main__":
    main()
