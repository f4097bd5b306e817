"""The shell a job script is made of (submit.job_script fills it in): the
preamble with its run_point function, the host list of each scheduler, the
rank placement, each launcher's command line and bootstrap, and what a
launcher is told for points under `on_failure: exclude`. Text only: the
values come from submit.py.
"""


PREAMBLE = r'''set -u
CAMPAIGN={campaign}
EVBENCH={evbench}
JOBID="${{SLURM_JOB_ID:-${{PBS_JOBID:-$$}}}}"
JOBNUM="${{JOBID%%[!0-9]*}}"; JOBNUM="${{JOBNUM:-$$}}"
# Rendezvous ports: base + 100 per job (mod 100 jobs) + point index; the
# default base keeps them below Linux's ephemeral range (32768-60999).
PORT_BASE=$(( {port} + (JOBNUM % 100) * 100 ))
cd "$CAMPAIGN" || exit 1
{modules}
# Hosts in rank order: node i of the campaign runs on line i.
HOSTS="$CAMPAIGN/jobs/{tag}.hosts.$JOBNUM"
{hosts_command}
echo "evbench-scan job $JOBID: $(wc -l < "$HOSTS") host(s): $(tr '\n' ' ' < "$HOSTS")"

# run_point ID NTASKS NODES PPN EVM INDEX TIMEOUT_S HOSTS{exclude_usage}
run_point() {{
  local id=$1 ntasks=$2 nodes=$3 ppn=$4 evm=$5 index=$6 limit=$7 hosts=$8
{exclude_setup}  local result="$CAMPAIGN/results/$id.json" part="$CAMPAIGN/results/$id.json.partial.$JOBNUM"
  local status_file="$CAMPAIGN/status/$id.json"
  if [ -s "$result" ] && grep -q '"status" *: *"ok"' "$result"; then
    echo "$id: done before"; return 0
  fi
  rm -f "$result" "$status_file"
  # The point's bind: core unless called as bind=none run_point ...
  local bind="${{bind:-core}}"
{bind_setup}  local ranks="$CAMPAIGN/jobs/$id.ranks"
  {ranks_command}
  {pre_launch}
  export EVBENCH_RENDEZVOUS="$(head -n 1 "$HOSTS"):$(( PORT_BASE + index % 100 ))"
  # A secret per point: only this point's ranks can join its rendezvous.
  export EVBENCH_RUN_ID="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  local start=$(date +%s)
  # The host's load around the point (docs/SCANS.md, "Host load"): this
  # host's load average and CPU counters, which include the point's own ranks.
  local la0 la1 cpu0 cpu1
  read -r la0 _ 2>/dev/null < /proc/loadavg; cpu0=$(head -n 1 /proc/stat 2>/dev/null)
  echo "$id: $ntasks ranks for $nodes node(s) on $hosts host(s), rendezvous $EVBENCH_RENDEZVOUS"
  {{
    echo "# job $JOBID, ranks: $(tr '\n' ' ' < "$ranks")"
    timeout --kill-after=10 "$limit" {launch} \
      "$EVBENCH" run "$CAMPAIGN/points/$id.yaml" --set bootstrap={bootstrap} --json "$part"
  }} > "$CAMPAIGN/logs/$id.log" 2>&1
  local code=$?
  local status=failed
  case $code in 0) status=ok ;; 2) status=config-error ;; 3) status=integrity ;; 124|137) status=timeout ;; esac
  if [ -s "$part" ]; then mv -f "$part" "$result"; else rm -f "$part"; [ $code -eq 0 ] && status=failed; fi
  read -r la1 _ 2>/dev/null < /proc/loadavg; cpu1=$(head -n 1 /proc/stat 2>/dev/null)
{exclude_status}  local took=$(( $(date +%s) - start ))
  printf '{{"point": "%s", "status": "%s", "exit_code": %d, "seconds": %d, "job": "%s", "started": %d, ' \
    "$id" "$status" "$code" $took "$JOBID" $start > "$status_file.tmp.$JOBNUM"
  printf '"load": {{"source": "job-raw", "loadavg_start": %s, "loadavg_end": %s, "cpu_start": "%s", ' \
    "${{la0:-null}}" "${{la1:-null}}" "$cpu0" >> "$status_file.tmp.$JOBNUM"
  printf '"cpu_end": "%s", "cpus": %d, "seconds": %d}}}}\n' "$cpu1" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 0)" \
    $took >> "$status_file.tmp.$JOBNUM"
  mv -f "$status_file.tmp.$JOBNUM" "$status_file"
  echo "$id: $status (exit $code)"
}}
'''

# The host list: --nodelist's file when given, else the scheduler's.
NODELIST_HOSTS = '''cp "{nodelist}" "$HOSTS"'''

SLURM_HOSTS = '''scontrol show hostnames "$SLURM_JOB_NODELIST" > "$HOSTS"'''

PBS_HOSTS = '''if [ -n "${PBS_NODEFILE:-}" ] && [ -r "$PBS_NODEFILE" ]; then
  awk '!seen[$1]++ {print $1}' "$PBS_NODEFILE" > "$HOSTS"
elif [ -n "${SLURM_JOB_NODELIST:-}" ]; then
  scontrol show hostnames "$SLURM_JOB_NODELIST" > "$HOSTS"
else
  hostname > "$HOSTS"
fi'''

RANKS = """awk -v n="$nodes" -v p="$ppn" -v e="$evm" -v H="$hosts" 'NR <= H {h[NR] = $1}
    END { if (NR < H) exit 1; for (i = 0; i < n; i++) for (j = 0; j < p; j++) print h[i % H + 1]; if (e) print h[1] }' \\
    "$HOSTS" > "$ranks" || { echo "$id: allocation has fewer than $hosts hosts"; return 1; }"""

# srun's binding flag for the point's bind (the mpirun launchers say it
# with the slots of the rankfile they write).
SRUN_BIND_SETUP = """  local cpu_bind={core}
  [ "$bind" = none ] && cpu_bind={none}
"""

RANKS_FROM_FILE = '''head -n "$ntasks" "{rankfile}" > "$ranks"'''

LAUNCH = {
    "srun-env": ('env SLURM_HOSTFILE="$ranks" srun --ntasks="$ntasks" --distribution=arbitrary '
                 '--overcommit {keep_going} $cpu_bind --mpi=none', "env"),
    "srun-pmix": ('env SLURM_HOSTFILE="$ranks" srun --ntasks="$ntasks" --distribution=arbitrary '
                  '--overcommit {keep_going} $cpu_bind --mpi=pmix', "mpi"),
    "mpirun": ('mpirun -np "$ntasks" --oversubscribe{keep_going} {placement} -x EVBENCH_RENDEZVOUS -x EVBENCH_RUN_ID',
               "mpi"),
    # Open MPI's rank variables handed to the env bootstrap as EVBENCH_RANK/SIZE,
    # which win over SLURM_PROCID inherited from a Slurm-launched orted.
    "mpirun-env": ('mpirun -np "$ntasks" --oversubscribe{keep_going} {placement} -x EVBENCH_RENDEZVOUS '
                   '-x EVBENCH_RUN_ID '
                   'sh -c \'EVBENCH_RANK=$OMPI_COMM_WORLD_RANK EVBENCH_SIZE=$OMPI_COMM_WORLD_SIZE exec "$0" "$@"\'',
                   "env"),
}

# What a launcher does when one of its tasks dies, and what it is told for a
# point under `on_failure: exclude`, where the others must go on without it
# (docs/SCANS.md, "Points under on_failure: exclude"): (the option of a
# default launch, the option of a launch that may be an exclude point's, the
# shell line choosing it in run_point). srun ends the step at a task's
# non-zero exit only with --kill-on-bad-exit=1 (ours, or KillOnBadExit=1 in
# slurm.conf), so exclude points get --kill-on-bad-exit=0 (--no-kill is about
# failed nodes, not tasks: it does not keep a step whose task was killed).
# Open MPI 4.1's mpirun aborts the job when a rank dies unless
# --enable-recovery is given (orte_abort_on_non_zero_status=0 alone lets the
# others finish but mpirun then never exits).
KEEP_GOING = {
    "srun": ("--kill-on-bad-exit=1", '--kill-on-bad-exit="$kill_on_bad_exit"',
             'local kill_on_bad_exit=1; [ "$on_failure" = exclude ] && kill_on_bad_exit=0'),
    "mpirun": ("", " $enable_recovery",
               'local enable_recovery=""; [ "$on_failure" = exclude ] && enable_recovery=--enable-recovery'),
}

# Launchers whose evbench bootstrap cannot go on without a rank: evbench's mpi
# bootstrap ends the run when one is gone (docs/USER_GUIDE.md, "Bootstraps"),
# whatever the launcher does (srun's PMIx cancels the step, mpirun
# --enable-recovery leaves the others waiting), so an exclude point is refused
# with them, naming the launcher to use instead.
NO_EXCLUDE = {"srun-pmix": "srun-env", "mpirun": "mpirun-env"}

EXCLUDE_SETUP = """  # A 9th argument `exclude`: the point runs under on_failure exclude, where a
  # task that dies (a killed BU) must not end the others' launch, and rank 0's
  # results decide whether the point is ok.
  local on_failure=${{9:-abort}}
  {choose}
"""

# A launch that ended because of a task killed (srun exits 128 + its signal)
# but not at the time limit (timeout's 124: a rank hung) is ok when rank 0's
# results say so.
EXCLUDE_STATUS = """  if [ "$on_failure" = exclude ] && [ $code -ne 0 ] && [ $code -ne 124 ] && [ -s "$result" ] && \\
     grep -q '"status" *: *"ok"' "$result"; then
    echo "$id: the launcher exited $code (a task was lost); under on_failure exclude the run went on and rank 0's results say ok"
    status=ok
  fi
"""
