"""Running and submitting a campaign: points one after another on this host
(runner, with its progress line), rounds and when repeats: auto stops
(rounds), job scripts for Slurm and PBS and their submission (submit,
jobshell), paths a compute node cannot see (sharedpaths). Imports spec/,
results/ and report/ (the rule that stops repeats: auto)."""
