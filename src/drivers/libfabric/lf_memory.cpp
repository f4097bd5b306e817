#include "drivers/libfabric/lf_memory.hpp"

#include <bit>
#include <cstring>

#include "core/error.hpp"

namespace evb::libfabric {

static_assert(std::endian::native == std::endian::little, "packed keys are little-endian");

namespace {

constexpr uint8_t kFlagRaw = 1;
constexpr uint8_t kFlagVirt = 2;

template <class T>
void put(std::vector<std::byte>& out, size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}
template <class T>
T get(std::span<const std::byte> in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

}  // namespace

std::vector<std::byte> pack_key(const KeyRecord& r) {
  std::vector<std::byte> out(kKeyHeader + r.key.size());
  put<uint8_t>(out, 0, kKeyVersion);
  put<uint8_t>(out, 1,
               static_cast<uint8_t>((r.raw ? kFlagRaw : 0) | (r.virt_addr ? kFlagVirt : 0)));
  put<uint16_t>(out, 2, static_cast<uint16_t>(r.key.size()));
  put<uint32_t>(out, 4, 0);
  put<uint64_t>(out, 8, r.base);
  put<uint64_t>(out, 16, r.size);
  if (!r.key.empty()) std::memcpy(out.data() + kKeyHeader, r.key.data(), r.key.size());
  return out;
}

std::string parse_key(std::span<const std::byte> in, KeyRecord* out) {
  if (in.size() < kKeyHeader)
    return std::to_string(in.size()) + " bytes, a key has at least " + std::to_string(kKeyHeader);
  const auto version = get<uint8_t>(in, 0);
  if (version != kKeyVersion)
    return "key version " + std::to_string(version) + ", expected " + std::to_string(kKeyVersion);
  const auto flags = get<uint8_t>(in, 1);
  if ((flags & ~(kFlagRaw | kFlagVirt)) != 0) return "unknown key flags " + std::to_string(flags);
  const auto key_len = get<uint16_t>(in, 2);
  if (get<uint32_t>(in, 4) != 0) return "reserved bytes are not zero";
  if (in.size() != kKeyHeader + key_len)
    return std::to_string(in.size()) + " bytes, the header announces " +
           std::to_string(kKeyHeader + key_len);
  const bool raw = (flags & kFlagRaw) != 0;
  if (!raw && key_len != 8) return "a " + std::to_string(key_len) + "-byte key, expected 8";
  if (raw && (key_len == 0 || key_len > kMaxRawKey))
    return "a raw key of " + std::to_string(key_len) + " bytes";
  KeyRecord r;
  r.raw = raw;
  r.virt_addr = (flags & kFlagVirt) != 0;
  r.base = get<uint64_t>(in, 8);
  r.size = get<uint64_t>(in, 16);
  if (r.size == 0) return "an empty region";
  if (r.base + r.size < r.base) return "a region that wraps around the address space";
  r.key.resize(key_len);
  std::memcpy(r.key.data(), in.data() + kKeyHeader, key_len);
  *out = std::move(r);
  return {};
}

LfRegistration::LfRegistration(void* base, size_t size, Fid<fid_mr> mr,
                               std::vector<std::byte> packed)
    : Registration(base, size), mr_(std::move(mr)) {
  packed_key_ = std::move(packed);
  descriptor_ = fi_mr_desc(mr_.get());
}

LfRemoteKey::LfRemoteKey(PeerId peer, size_t size, uint64_t base, uint64_t key,
                         fid_domain* mapped_in)
    : RemoteKey(peer, size), base_(base), key_(key), mapped_in_(mapped_in) {}

LfRemoteKey::~LfRemoteKey() {
  if (mapped_in_) (void)fi_mr_unmap_key(mapped_in_, key_);
}

MemoryRegistrar::MemoryRegistrar(fid_domain* domain, fid_ep* ep, const fi_info& info)
    : domain_(domain),
      ep_(ep),
      mode_(info.domain_attr->mr_mode),
      key_size_(info.domain_attr->mr_key_size) {}

std::unique_ptr<LfRegistration> MemoryRegistrar::register_memory(void* base, size_t size,
                                                                 const std::string& context) {
  if (!base || size == 0) throw Error(context + ": register_memory: empty region");
  const uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  // Without FI_MR_PROV_KEY the application picks keys, unique per domain and
  // within the provider's key size.
  uint64_t requested = 0;
  if (!prov_key()) {
    requested = next_key_++;
    if (key_size_ < 8 && requested >> (8 * key_size_) != 0) {
      next_key_ = 1;
      requested = next_key_++;
    }
  }
  Fid<fid_mr> mr;
  int rc = fi_mr_reg(domain_, base, size, access, 0, requested, 0, mr.out(), nullptr);
  if (rc != 0)
    throw Error(context + ": fi_mr_reg of " + std::to_string(size) +
                " bytes failed: " + fi_error(rc));
  if (endpoint_bound()) {
    if (!ep_) throw Error(context + ": register_memory after shutdown");
    rc = fi_mr_bind(mr.get(), &ep_->fid, 0);
    if (rc != 0) throw Error(context + ": fi_mr_bind(ep) failed: " + fi_error(rc));
    rc = fi_mr_enable(mr.get());
    if (rc != 0) throw Error(context + ": fi_mr_enable failed: " + fi_error(rc));
  }

  KeyRecord r;
  r.virt_addr = virt_addr();
  r.size = size;
  r.base = virt_addr() ? reinterpret_cast<uint64_t>(base) : 0;
  if (raw()) {
    r.raw = true;
    uint64_t raw_base = 0;
    size_t len = key_size_;
    r.key.resize(len);
    rc = fi_mr_raw_attr(mr.get(), &raw_base, r.key.data(), &len, 0);
    if (rc == -FI_ETOOSMALL && len <= kMaxRawKey) {
      r.key.resize(len);
      rc = fi_mr_raw_attr(mr.get(), &raw_base, r.key.data(), &len, 0);
    }
    if (rc != 0 || len == 0 || len > kMaxRawKey)
      throw Error(context + ": fi_mr_raw_attr failed: " + fi_error(rc ? rc : -FI_EINVAL));
    r.key.resize(len);
    r.base = raw_base;
  } else {
    const uint64_t key = fi_mr_key(mr.get());
    if (key == FI_KEY_NOTAVAIL)
      throw Error(context + ": fi_mr_key: no key for the region (FI_KEY_NOTAVAIL)");
    r.key.resize(8);
    std::memcpy(r.key.data(), &key, 8);
  }
  return std::make_unique<LfRegistration>(base, size, std::move(mr), pack_key(r));
}

std::unique_ptr<LfRemoteKey> MemoryRegistrar::unpack(PeerId peer, std::span<const std::byte> bytes,
                                                     const std::string& context) const {
  KeyRecord r;
  const std::string why = parse_key(bytes, &r);
  if (!why.empty())
    throw Error(context + ": malformed key from rank " + std::to_string(peer) + ": " + why);
  if (r.raw != raw() || r.virt_addr != virt_addr())
    throw Error(context + ": key from rank " + std::to_string(peer) +
                " was made by a domain with " + (r.raw ? "raw" : "64-bit") + " keys and " +
                (r.virt_addr ? "virtual" : "offset") + " addressing, this one uses " +
                (raw() ? "raw" : "64-bit") + " keys and " + (virt_addr() ? "virtual" : "offset") +
                " addressing (different providers?)");
  if (r.size > SIZE_MAX)
    throw Error(context + ": key from rank " + std::to_string(peer) + ": region too large");
  if (!r.raw) {
    uint64_t key = 0;
    std::memcpy(&key, r.key.data(), 8);
    return std::make_unique<LfRemoteKey>(peer, static_cast<size_t>(r.size), r.base, key, nullptr);
  }
  uint64_t key = 0;
  const int rc = fi_mr_map_raw(domain_, r.base, r.key.data(), r.key.size(), &key, 0);
  if (rc != 0)
    throw Error(context + ": fi_mr_map_raw of the key from rank " + std::to_string(peer) +
                " failed: " + fi_error(rc));
  return std::make_unique<LfRemoteKey>(peer, static_cast<size_t>(r.size), r.base, key, domain_);
}

}  // namespace evb::libfabric
