# Shared by jobs/sweep and jobs/sweep-report (sourced).

# The last job of every point in SWEEP_DIR/jobs.txt (a resumed point has several).
latest_jobs() { tac "$1/jobs.txt" | awk '!seen[$1]++' | tac; }

# A job's state: sacct where accounting runs, else the controller's memory, else the point's
# own status file (written by jobs/allreduce-sweep.sbatch).
job_state() {  # JOBID POINT_DIR
  local s
  s=$(sacct -n -X -j "$1" -o State 2>/dev/null | head -1 | awk '{ print $1 }')
  [ -n "$s" ] || s=$(scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  if [ -z "$s" ]; then
    case $(cat "$2/status" 2>/dev/null) in
      done) s=COMPLETED ;;
      cancelled) s=CANCELLED ;;
      failed*) s=FAILED ;;
      running) s="ENDED (status running: killed?)" ;;
      *) s="UNKNOWN (no accounting, no status file)" ;;
    esac
  fi
  echo "$s"
}
