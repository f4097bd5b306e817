#include "drivers/ucx/ucx_memory.hpp"

#include <cstring>

#include "core/error.hpp"
#include "drivers/ucx/ucx_worker.hpp"

namespace evb::ucx {

namespace {

template <class T>
void put(std::byte* out, T v) {
  std::memcpy(out, &v, sizeof v);
}
template <class T>
T get(const std::byte* in) {
  T v;
  std::memcpy(&v, in, sizeof v);
  return v;
}

}  // namespace

UcxRegistration::UcxRegistration(ucp_context_h context, void* base, size_t size,
                                 const std::string& prefix)
    : Registration(base, size), context_(context) {
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = base;
  params.length = size;
  if (!base) {
    params.field_mask |= UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.flags = UCP_MEM_MAP_ALLOCATE;
  }
  ucp_mem_h memh = nullptr;
  ucs_status_t st = ucp_mem_map(context_, &params, &memh);
  if (st != UCS_OK)
    throw Error(prefix + ": ucp_mem_map of " + std::to_string(size) + " bytes" +
                (base ? "" : " (allocating)") + " failed: " + status_text(st));
  descriptor_ = memh;
  if (!base) {
    ucp_mem_attr_t attr{};
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    st = ucp_mem_query(memh, &attr);
    if (st != UCS_OK || !attr.address || attr.length < size) {
      ucp_mem_unmap(context_, memh);
      throw Error(prefix + ": ucp_mem_query of allocated memory failed: " + status_text(st));
    }
    base_ = static_cast<std::byte*>(attr.address);
    base = attr.address;
  }
  void* rkey = nullptr;
  size_t rkey_size = 0;
  st = ucp_rkey_pack(context_, memh, &rkey, &rkey_size);
  if (st != UCS_OK) {
    ucp_mem_unmap(context_, memh);
    throw Error(prefix + ": ucp_rkey_pack failed: " + status_text(st));
  }
  packed_key_.resize(kKeyHeader + rkey_size);
  std::byte* p = packed_key_.data();
  put<uint32_t>(p, kKeyMagic);
  put<uint32_t>(p + 4, static_cast<uint32_t>(rkey_size));
  put<uint64_t>(p + 8, reinterpret_cast<uintptr_t>(base));
  put<uint64_t>(p + 16, size);
  std::memcpy(p + kKeyHeader, rkey, rkey_size);
  ucp_rkey_buffer_release(rkey);
}

UcxRegistration::~UcxRegistration() {
  ucp_mem_unmap(context_, memh());
}

std::string parse_key(std::span<const std::byte> bytes, KeyRecord* out) {
  if (bytes.size() < kKeyHeader)
    return "packed key of " + std::to_string(bytes.size()) + " bytes is too short";
  if (get<uint32_t>(bytes.data()) != kKeyMagic) return "not a ucx driver key (bad magic)";
  const uint32_t n = get<uint32_t>(bytes.data() + 4);
  if (n == 0 || n != bytes.size() - kKeyHeader)
    return "rkey length " + std::to_string(n) + " does not match the " +
           std::to_string(bytes.size()) + " bytes received";
  KeyRecord r;
  r.base = get<uint64_t>(bytes.data() + 8);
  r.size = get<uint64_t>(bytes.data() + 16);
  if (r.size == 0) return "the key covers no bytes";
  if (r.base + r.size < r.base) return "the key's region wraps around the address space";
  r.rkey = bytes.subspan(kKeyHeader);
  *out = r;
  return {};
}

}  // namespace evb::ucx
