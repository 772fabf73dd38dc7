#!/usr/bin/env python3
"""Writes two large synthetic Chrome inputs for timing the importers (not a test):
  OUT/big.cpuprofile   2 000 nodes, 3 M samples (25 MB)
  OUT/big-trace.json   2.4 M X events on 4 threads, 4 levels deep (257 MB)
Usage: tests/bench/make-chrome-inputs.py OUT; then e.g.
  /usr/bin/time -f '%U s user, %M KB' build/app/scorch info OUT/big-trace.json"""
import json
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
random.seed(1)
with open(os.path.join(out, "big-trace.json"), "w") as f:
    f.write("[")
    first = True
    ts = 0
    for i in range(150000):
        for tid in range(4):
            for d, name in enumerate(["frame", "update", "layout", "paint_%d" % (i % 50)]):
                ev = {"ph": "X", "name": name, "ts": ts + d, "dur": 100 - 10 * d, "pid": 1, "tid": tid,
                      "cat": "x", "args": {"i": d}}
                f.write(("" if first else ",") + json.dumps(ev))
                first = False
        ts += 200
    f.write("]")
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1},
          "children": []}]
for i in range(2, 2001):
    p = random.randint(1, i - 1)
    nodes.append({"id": i, "callFrame": {"functionName": "fn%d" % i, "url": "file:///app/src/m%d.js" % (i % 40),
                                         "lineNumber": i % 300, "columnNumber": 4, "scriptId": "%d" % (i % 40)},
                  "hitCount": 0, "children": []})
    nodes[p - 1]["children"].append(i)
samples = [random.randint(2, 2000) for _ in range(3000000)]
with open(os.path.join(out, "big.cpuprofile"), "w") as f:
    json.dump({"nodes": nodes, "startTime": 0, "endTime": 1, "samples": samples,
               "timeDeltas": [random.randint(90, 150) for _ in samples]}, f, separators=(",", ":"))
