"""evbench-scan: expand scan files, run or submit campaigns, collect and report."""
# The version is evbench's: version.version() (one source, the top-level CMakeLists.txt).
