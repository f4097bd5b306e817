"""A throw-away single-node Slurm cluster on this machine, for tests.

Everything lives in one temporary directory: munge key and socket, slurm.conf,
state and logs. munged, slurmctld and slurmd are started by hand (no systemd)
on free loopback ports and stopped again by their pids. Clients (sbatch,
srun, squeue, qsub) find the cluster through SLURM_CONF in `env`.
"""
import os
import shutil
import signal
import socket
import subprocess
import time

SLURM_CONF = """\
ClusterName=evbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge.sock
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool/%n
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=pmix
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
"""


def installed():
    return all(shutil.which(b) for b in ("munged", "slurmctld", "slurmd", "sbatch", "squeue"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    def __init__(self, directory, cpus=8):
        self.dir = directory
        self.cpus = cpus
        # The node is named after this host so that MPI launchers, which
        # compare host names, find the hosts of the allocation.
        self.node = socket.gethostname().split('.')[0]
        self.procs = {}
        self.env = dict(os.environ, SLURM_CONF=os.path.join(directory, "slurm.conf"))

    def _start(self, name, cmd):
        log = open(os.path.join(self.dir, name + ".out"), "w")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()

    def start(self, timeout=30):
        d = self.dir
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        os.chmod(d, 0o700)
        with open(os.path.join(d, "slurm.conf"), "w") as f:
            f.write(SLURM_CONF.format(dir=d, cpus=self.cpus, node=self.node, ctld_port=free_port(), slurmd_port=free_port()))
        self._start("munged", ["munged", "-F", "--force", "--key-file", key,
                               "--socket", os.path.join(d, "munge.sock"),
                               "--pid-file", os.path.join(d, "munged.pid"),
                               "--log-file", os.path.join(d, "munged.log"),
                               "--seed-file", os.path.join(d, "munged.seed")])
        self._wait(lambda: os.path.exists(os.path.join(d, "munge.sock")), timeout, "munged socket")
        conf = os.path.join(d, "slurm.conf")
        self._start("slurmctld", ["slurmctld", "-D", "-i", "-f", conf])
        self._wait(lambda: self._ok(["scontrol", "ping"], "UP"), timeout, "slurmctld")
        self._start("slurmd", ["slurmd", "-D", "-N", self.node, "-f", conf])
        self._wait(lambda: self._ok(["sinfo", "-h", "-o", "%T"], "idle"), timeout, "node idle")

    def _ok(self, cmd, word):
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError("%s exited with %s; see %s" % (name, proc.returncode, self.dir))
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env,
                                 universal_newlines=True, timeout=10).stdout
        except subprocess.TimeoutExpired:
            return False
        return word in out

    def _wait(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.2)
        raise RuntimeError("timed out waiting for %s; logs in %s" % (what, self.dir))

    def log_tail(self, name, lines=30):
        try:
            with open(os.path.join(self.dir, name)) as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def stop(self):
        """Cancel jobs, then stop the daemons this object started, by pid."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--user", "root"], env=self.env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=10)
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and self._ok(["squeue", "-h", "-o", "%i"], "") and \
                    subprocess.run(["squeue", "-h", "-o", "%i"], env=self.env, stdout=subprocess.PIPE,
                                   universal_newlines=True, timeout=10).stdout.strip():
                time.sleep(0.3)
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        self.procs.clear()
