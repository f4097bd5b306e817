#pragma once
// libpsm2 as a process-wide resource: psm2_init once, psm2_finalize at
// process exit (PSM2 cannot be initialised again after it; drivers created
// one after another in one process, as in the conformance suite, share the
// first initialisation; PSM2_MULTI_EP is set unless the user set it), the
// probe, and the one conversion of PSM2 error codes into text.
#include <psm2.h>

#include <memory>
#include <string>

#include "drivers/api/registry.hpp"

namespace evb::psm2 {

// Holds the library initialised while it lives.
class Library {
 public:
  static std::shared_ptr<Library> acquire();  // throws evb::Error
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

 private:
  Library() = default;
};

std::string error_text(psm2_error_t e);  // "PSM2_MQ_TRUNCATION: ..."

// Whether libpsm2 can start here: it needs an hfi1 device (/dev/hfi1_0 and
// /sys/class/infiniband/hfi1_0) even for its shared-memory device.
DriverProbe probe_psm2();

// The variant a run names for the devices PSM2_DEVICES (null: unset) lets
// libpsm2 use: "psm2" for its default set (shm and hfi1), else the devices
// other than self: "psm2/shm" (scripts/with-psm2-shm.sh), "psm2/hfi1".
std::string psm2_variant(const char* devices);

}  // namespace evb::psm2
