"""evbench-scan: expand scan files, run or submit campaigns, collect and report."""
__version__ = "0.1.0"
