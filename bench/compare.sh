#!/bin/bash
# arlab `auto` against the MPI library's own MPI_Allreduce, side by side in one run, with the
# hardware's bound: the tables and the plot of the README's performance section.
#
#   bench/compare.sh [-n RANKS] [-t TRANSPORT] [-b MIN] [-e MAX] [-r REPEATS] [-o DIR] [--tune]
#                    [--malloc-as-is] [--launcher "srun -N4 --ntasks-per-node=2"] [-- more bench flags]
#
# One `arlab bench -a auto,mpi --roofline -r REPEATS` run: every size times both algorithms on
# the same buffers, interleaved, REPEATS times, and reports the medians. DIR (default
# results/compare/<date>-N<ranks>-<transport>) receives:
#   table.txt    the bench tables           results.csv, results.json   every number
#   compare.md   side by side, and each performance target met or not (bench/compare.py)
#   busbw.png    busbw against size for auto, mpi and the roofline
#   command.txt  the command lines that made them
#   tuning.json  with --tune: `arlab tune` on the same launcher and transport first, so that
#                auto picks by the times measured there (README, "arlab tune and auto")
#
# The ranks run with glibc's malloc keeping freed memory (MALLOC_MMAP_THRESHOLD_ and
# MALLOC_TRIM_THRESHOLD_ at 4 GiB). Open MPI's MPI_Allreduce allocates a scratch buffer of the
# message's size on every call, and glibc serves 32 MiB and more with a fresh mmap, so each
# call faults in every page again: on VMs where page faults are slow that made MPI 10-20x
# slower from 32 MiB (README), a cost of the allocator, not of the all-reduce. arlab allocates
# nothing per call, so this only makes the baseline fairer. --malloc-as-is leaves glibc as it is.
# srun passes the two settings on; with --launcher "mpirun ..." add -x MALLOC_MMAP_THRESHOLD_
# -x MALLOC_TRIM_THRESHOLD_ to it (the default launcher does).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ranks=2 transport=shm min=8 max=64M repeats=5 dir="" launcher="" tune=0 malloc_as_is=0
extra=()
usage() { sed -n '4,6p' "$0" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -n) ranks=${2:?-n needs a number of ranks}; shift 2 ;;
    -t) transport=${2:?-t needs a transport}; shift 2 ;;
    -b) min=${2:?-b needs a size}; shift 2 ;;
    -e) max=${2:?-e needs a size}; shift 2 ;;
    -r) repeats=${2:?-r needs a count}; shift 2 ;;
    -o) dir=${2:?-o needs a directory}; shift 2 ;;
    --launcher) launcher=${2:?--launcher needs a command}; shift 2 ;;
    --tune) tune=1; shift ;;
    --malloc-as-is) malloc_as_is=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "compare.sh: unknown option '$1' (accepted: -n -t -b -e -r -o --tune --malloc-as-is --launcher, then -- and bench flags)" >&2; exit 2 ;;
  esac
done
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: -n $ranks: a positive number of ranks" >&2; exit 2; }
arlab="$here/build/arlab"
[ -x "$arlab" ] || { echo "compare.sh: $arlab is missing; run ./lab build first" >&2; exit 2; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3

malloc_env=""
if [ "$malloc_as_is" = 0 ]; then
  export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296  # srun passes them on
  malloc_env="-x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_"             # mpirun needs -x
fi
if [ -z "$launcher" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  launcher="mpirun -np $ranks $malloc_env"
  [ "$(nproc)" -lt "$ranks" ] && launcher="$launcher --oversubscribe"
fi
dir=${dir:-$here/results/compare/$(date -u +%Y%m%dT%H%M%SZ)-N$ranks-$transport}
mkdir -p "$dir"

: > "$dir/command.txt"
[ "$malloc_as_is" = 0 ] && echo "export MALLOC_MMAP_THRESHOLD_=$MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_=$MALLOC_TRIM_THRESHOLD_" >> "$dir/command.txt"
if [ "$tune" = 1 ]; then
  tune_command=($launcher "$arlab" tune -t "$transport" -o "$dir/tuning.json")
  echo "${tune_command[*]}" >> "$dir/command.txt"
  "${tune_command[@]}" || { echo "compare.sh: arlab tune failed; nothing compared" >&2; exit 1; }
  extra+=(--tuning "$dir/tuning.json")
fi
command=($launcher "$arlab" bench -a auto,mpi -t "$transport" -b "$min" -e "$max" -f 2 -r "$repeats" --roofline
         --csv "$dir/results.csv" --json "$dir/results.json" "${extra[@]}")
echo "${command[*]}" >> "$dir/command.txt"
# The bench's status counts: a wrong result fails the comparison, but what was measured stays.
status=0
"${command[@]}" | tee "$dir/table.txt" || status=$?
[ -s "$dir/results.csv" ] || { echo "compare.sh: the bench wrote no results (exit $status)" >&2; exit "${status/#0/1}"; }
"$python" "$here/bench/compare.py" "$dir/results.csv" > "$dir/compare.md"
cat "$dir/compare.md"
if "$python" -c 'import matplotlib' 2>/dev/null; then
  "$python" "$here/harness/plot.py" busbw "$dir/results.csv" -o "$dir/busbw.png"
else
  echo "compare.sh: no matplotlib for $python: busbw.png not drawn (apt-get install python3-matplotlib)" >&2
fi
echo "compare.sh: results in $dir"
exit "$status"
