#!/usr/bin/env python3
"""Reads the generated code of the reducer library and checks that every reducer loop
(10 datatypes x 4 operations, pairwise and over k sources: sum_float32, sum_many_float32)
is vectorised in its AVX2 (x86-64-v3) and AVX-512
(x86-64-v4) versions: each clone must use ymm / zmm registers. Exits 77 (skipped) where
there is nothing to check (not x86-64, no objdump, or a build without target_clones)."""
import re
import shutil
import subprocess
import sys
from collections import Counter

library = sys.argv[1]
if not shutil.which("objdump"):
    print("skipped: no objdump")
    sys.exit(77)
text = subprocess.run(["objdump", "-dC", library], capture_output=True, text=True, check=True).stdout
loops = re.compile(r"arlab::\(anonymous namespace\)::(sum|prod|min|max)_(\w+)\(.*\[clone \.arch_x86_64_(v3|v4)\]")
wide = Counter()
current = None
for line in text.splitlines():
    header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
    if header:
        match = loops.search(header.group(1))
        current = (match.group(1), match.group(2), match.group(3)) if match else None
        if current:
            wide[current] += 0
        continue
    if current and re.search(r"%[yz]mm", line):
        wide[current] += 1
if not wide:
    print("skipped: no x86-64-v3 / v4 clones in this build (not x86-64 GCC?)")
    sys.exit(77)
scalar = sorted("%s_%s (%s)" % key for key, uses in wide.items() if uses == 0)
print("%d reducer clones, %d without vector registers" % (len(wide), len(scalar)))
for name in scalar:
    print("  not vectorised:", name)
sys.exit(1 if scalar or len(wide) != 160 else 0)
