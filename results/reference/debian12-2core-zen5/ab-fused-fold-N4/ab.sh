#!/bin/bash
# The fused N-way fold, A/B: base = a build of 9a756a8 (chained pairwise reduction) in a git
# worktree at /tmp/base, new = b421568 (its float32 loops; built from the tree just before that commit). Runs
# alternate base and new, private and --symmetric, 4 ranks on 2 cores. ab.log is the output,
# medians.txt the medians of the 4 runs per (buffers, size, placement), us.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for i in 1 2 3 4; do
 for mode in "" "--symmetric"; do
  for v in base new; do
   b=/tmp/base/build/arlab; [ $v = new ] && b=/work/main/build/arlab
   echo "### $v $mode run $i"
   mpirun -n 4 --oversubscribe $b bench -a twoshot -t shm $mode --roofline -b 16M -e 64M -f 4 -n 20 -r 3 2>&1 | grep -E "^ +[0-9]"
  done
 done
done
