#!/bin/bash
# Output stores on this VM, A/B: ARLAB_SHM_OUTPUT_STORES=cached against streaming, twoshot alone,
# runs alternated, N = 2 and N = 4 (oversubscribed), private and --symmetric; built from b421568.
# ab.log is the output, medians.txt the medians of 3 runs (us) and every run's % of the roofline.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for i in 1 2 3; do
 for n in 2 4; do
 for mode in "" "--symmetric"; do
  for v in cached streaming; do
   echo "### $v n$n$mode run $i"
   mpirun -n $n --oversubscribe -x ARLAB_SHM_OUTPUT_STORES=$v /work/main/build/arlab bench -a twoshot -t shm $mode --roofline -b 4M -e 64M -f 4 -n 20 -r 3 -c 0 2>&1 | grep -E "^ +[0-9]"
  done
 done
 done
done
