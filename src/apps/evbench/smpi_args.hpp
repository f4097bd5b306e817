#pragma once
// smpirun joins the program's arguments into one unquoted shell word list
// (PROC_ARGS in /usr/bin/smpirun), so an argument with a space or a glob
// character reaches evbench-smpi split or expanded. `evbench sim` passes
// the free text it must (the platform name, which may name a rank order
// file) through smpi_arg_encode, and evbench-smpi decodes it.
#include <string>
#include <string_view>

namespace evb {

// `text` with whitespace, glob characters and '%' as %XX (hex).
std::string smpi_arg_encode(std::string_view text);
// The inverse; throws UsageError on a malformed escape.
std::string smpi_arg_decode(std::string_view text);

}  // namespace evb
