#include "drivers/mpi/mpi_transport.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace evb::mpi {
#if defined(OPEN_MPI)
namespace {

// Open MPI's component descriptor (mca_base_component_2_1_0_t, unchanged
// since 1.x): three ints, the project name (16 bytes), three ints, the type
// name (32), three ints, the component name (64). The project and type
// names are checked before the component name is believed.
constexpr size_t kProjectName = 12;
constexpr size_t kTypeName = 40;
constexpr size_t kComponentName = 84;

std::string component_name(const char* c, const char* project, const char* type) {
  if (c == nullptr) return "";
  if (strncmp(c + kProjectName, project, 16) != 0 || strncmp(c + kTypeName, type, 32) != 0)
    return "";
  return std::string(c + kComponentName, strnlen(c + kComponentName, 64));
}

// The PML Open MPI selected (the global its PML framework fills at MPI_Init).
std::string selected_pml() {
  const void* sym = dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component");
  return component_name(static_cast<const char*>(sym), "ompi", "pml");
}

// The BTL modules ob1 initialised: Open MPI's list
// mca_btl_base_modules_initialized of {opal_list_item_t, component*,
// module*}. Layouts of a non-debug build (a debug build starts every object
// with a magic number, recognised and refused): an object is 16 bytes
// (class pointer, reference count), a list item 40 (object, next, prev,
// item_free), the list's sentinel item follows its object header.
std::vector<std::string> initialised_btls() {
  std::vector<std::string> out;
  const char* list =
      static_cast<const char*>(dlsym(RTLD_DEFAULT, "mca_btl_base_modules_initialized"));
  if (list == nullptr) return out;
  uint64_t magic = 0;
  std::memcpy(&magic, list, sizeof magic);
  if (magic == 0xdeafbeeddeafbeedull) return out;  // OPAL_ENABLE_DEBUG layout
  const char* sentinel = list + 16;
  const char* item = nullptr;
  std::memcpy(&item, sentinel + 16, sizeof item);
  for (int n = 0; item != nullptr && item != sentinel && n < 64; ++n) {
    const char* component = nullptr;
    std::memcpy(&component, item + 40, sizeof component);
    const std::string name = component_name(component, "opal", "btl");
    if (name.empty()) return {};  // not the layout we expect: believe nothing
    if (name != "self") out.push_back(name);
    std::memcpy(&item, item + 16, sizeof item);
  }
  return out;
}

// The value of MCA parameter `name` as the job got it (MPI_T control
// variable, which includes OMPI_MCA_* and mpirun --mca), or empty.
std::string mca_parameter(const char* name) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return "";
  std::string value;
  int count = 0;
  MPI_T_cvar_get_num(&count);
  for (int i = 0; i < count && value.empty(); ++i) {
    char cname[256];
    char desc[8];
    int name_len = sizeof cname, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_info(i, cname, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                            &bind, &scope) != MPI_SUCCESS)
      continue;
    if (std::strcmp(cname, name) != 0 || type != MPI_CHAR) continue;
    MPI_T_cvar_handle handle;
    int n = 0;
    if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &n) != MPI_SUCCESS) continue;
    std::vector<char> buf(static_cast<size_t>(std::max(n, 1)) + 1, '\0');
    if (MPI_T_cvar_read(handle, buf.data()) == MPI_SUCCESS) value = buf.data();
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  if (value.empty()) {
    const std::string env = std::string("OMPI_MCA_") + name;
    if (const char* v = std::getenv(env.c_str())) value = v;
  }
  return value;
}

// Open MPI's component directory: beside libmpi, "openmpi/lib/openmpi3"
// (Debian's layout), "openmpi3" or "openmpi" (a default install).
std::string component_dir() {
  // A symbol only libmpi defines (a function's address may be the
  // executable's PLT entry): dladdr names the library it lives in.
  const void* sym = dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component");
  Dl_info info{};
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "";
  std::string lib = info.dli_fname;
  const size_t slash = lib.rfind('/');
  if (slash == std::string::npos) return "";
  lib.resize(slash);
  for (const char* sub : {"/openmpi/lib/openmpi3", "/openmpi3", "/openmpi"}) {
    std::string dir = lib + sub;
    if (access((dir + "/mca_pml_ob1.so").c_str(), F_OK) == 0) return dir;
  }
  return "";
}

}  // namespace
#endif

MpiTransport detect_transport() {
  MpiTransport t;
#if !defined(OPEN_MPI)
  return t;  // another MPI (the SMPI build): the variant stays "mpi"
#else
  t.pml = selected_pml();
  if (!t.pml.empty()) {
    t.how = "library";
    if (t.pml == "ob1") t.btls = initialised_btls();
    if (t.pml != "ob1" || !t.btls.empty()) return t;
  }
  // Not readable from the library: what the job asked for. A PML list names
  // the one chosen only when it names one; the BTL list is kept, self out.
  t.how = "mca parameters";
  const std::string pml = mca_parameter("pml");
  if (t.pml.empty() && !pml.empty() && pml.find(',') == std::string::npos && pml[0] != '^')
    t.pml = pml;
  const std::string btl = mca_parameter("btl");
  if (!btl.empty() && btl[0] != '^') {
    size_t at = 0;
    while (at <= btl.size()) {
      const size_t end = std::min(btl.find(',', at), btl.size());
      const std::string b = btl.substr(at, end - at);
      if (!b.empty() && b != "self") t.btls.push_back(b);
      at = end + 1;
    }
  }
  return t;
#endif
}

InstalledVariants installed_variants() {
  InstalledVariants v;
#if defined(OPEN_MPI)
  const std::string dir = component_dir();
  if (dir.empty()) return v;  // components built into libmpi, or not found: unknown
  const struct {
    const char* variant;
    const char* component;
  } known[] = {
      {"mpi/vader", "mca_btl_vader"}, {"mpi/tcp", "mca_btl_tcp"}, {"mpi/ucx", "mca_pml_ucx"}};
  for (const auto& k : known) {
    if (access((dir + "/" + k.component + ".so").c_str(), F_OK) == 0)
      v.usable.push_back(k.variant);
    else
      v.not_here.emplace_back(
          k.variant, std::string("Open MPI has no ") + k.component + " component in " + dir);
  }
#endif
  return v;
}

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

bool through_shared_memory(const MpiTransport& t, bool one_host) {
  return one_host && t.pml == "ob1" && (has(t.btls, "vader") || has(t.btls, "sm"));
}

std::string transport_variant(const MpiTransport& t, bool one_host) {
  if (t.pml.empty()) return "mpi";
  if (t.pml != "ob1") return "mpi/" + t.pml;
  // ob1 reaches a peer on the same host over vader (shared memory) when it
  // is there: its exclusivity is above tcp's. Across hosts the others carry it.
  if (one_host && has(t.btls, "vader")) return "mpi/vader";
  if (one_host && has(t.btls, "sm")) return "mpi/sm";
  std::string names;
  for (const std::string& b : t.btls)
    if (b != "vader" && b != "sm") names += (names.empty() ? "" : "+") + b;
  if (!names.empty()) return "mpi/" + names;
  return t.btls.empty() ? "mpi/ob1" : "mpi/" + t.btls.front();
}

}  // namespace evb::mpi
