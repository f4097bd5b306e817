#pragma once
// Output files named on the command line (--json, --write-order) are checked
// before anything starts: a run that measures for an hour and then cannot
// write its result has lost the hour. Nothing is created on the way: the
// directory must exist and be writable, and an existing file writable.
#include <string>

namespace evb {

// "" when `path` can be written (its directory exists and takes a new file,
// an existing file can be opened for writing); else the reason, e.g.
// "directory /x does not exist". A probe file made to find out is removed.
std::string output_path_problem(const std::string& path);

// Throws UsageError "OPTION PATH: cannot be written: REASON" when
// output_path_problem() finds one; an empty path is no output and passes.
void check_output_path(const std::string& option, const std::string& path);

}  // namespace evb
