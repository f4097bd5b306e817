#include "drivers/psm2/psm2_library.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "core/error.hpp"

namespace evb::psm2 {

namespace {
std::mutex g_mutex;
// PSM2 cannot be initialised again once finalised (PSM2_IS_FINALIZED), so
// the first driver's initialisation lasts until the process exits.
std::shared_ptr<Library> g_library;

bool exists(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0;
}
}  // namespace

std::shared_ptr<Library> Library::acquire() {
  std::lock_guard lock(g_mutex);
  if (g_library) return g_library;
  // Several endpoints in one process (the in-process conformance ranks).
  ::setenv("PSM2_MULTI_EP", "1", 0);
  int major = PSM2_VERNO_MAJOR;
  int minor = PSM2_VERNO_MINOR;
  const psm2_error_t e = psm2_init(&major, &minor);
  if (e != PSM2_OK) throw Error("psm2: psm2_init failed: " + error_text(e));
  // Errors come back as return codes and completion statuses, never through
  // PSM2's default handler (which prints and may abort the process).
  psm2_error_register_handler(nullptr, PSM2_ERRHANDLER_NO_HANDLER);
  std::shared_ptr<Library> lib(new Library);
  g_library = lib;
  return lib;
}

Library::~Library() {
  psm2_finalize();
}

std::string error_text(psm2_error_t e) {
  const char* s = psm2_error_get_string(e);
  return std::to_string(static_cast<int>(e)) + " (" + (s ? s : "unknown") + ")";
}

DriverProbe probe_psm2() {
  DriverProbe p;
  p.library_version = "libpsm2 (API " + std::to_string(PSM2_VERNO_MAJOR) + "." +
                      std::to_string(PSM2_VERNO_MINOR) + ")";
  const char* devices = std::getenv("PSM2_DEVICES");
  p.details = std::string("PSM2_DEVICES=") + (devices ? devices : "(unset: self,shm,hfi1)");
  p.can_run = exists("/dev/hfi1_0") && exists("/sys/class/infiniband/hfi1_0");
  if (!p.can_run)
    p.reason =
        "built; libpsm2 needs an Omni-Path hfi1 device (/dev/hfi1_0) and none is here; "
        "scripts/with-psm2-shm.sh COMMAND runs its shared-memory device without one";
  return p;
}

std::string psm2_variant(const char* devices) {
  if (devices == nullptr) return "psm2";
  std::set<std::string> used;  // sorted, each once
  std::istringstream in(devices);
  for (std::string d; std::getline(in, d, ',');)
    if (!d.empty() && d != "self") used.insert(d);
  if (used.empty() || used == std::set<std::string>{"hfi1", "shm"}) return "psm2";
  std::string out;
  for (const std::string& d : used) out += (out.empty() ? "psm2/" : "+") + d;
  return out;
}

}  // namespace evb::psm2
