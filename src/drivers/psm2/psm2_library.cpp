#include "drivers/psm2/psm2_library.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

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
  std::vector<std::string> used;
  const std::string all(devices);
  size_t from = 0;
  while (from <= all.size()) {
    size_t comma = all.find(',', from);
    if (comma == std::string::npos) comma = all.size();
    const std::string d = all.substr(from, comma - from);
    if (!d.empty() && d != "self" && std::find(used.begin(), used.end(), d) == used.end())
      used.push_back(d);
    from = comma + 1;
  }
  std::sort(used.begin(), used.end());
  if (used.empty() || used == std::vector<std::string>{"hfi1", "shm"}) return "psm2";
  std::string out = "psm2/";
  for (size_t i = 0; i < used.size(); ++i) out += (i ? "+" : "") + used[i];
  return out;
}

}  // namespace evb::psm2
