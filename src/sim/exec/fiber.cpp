#include "sim/exec/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define EVB_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EVB_FIBER_ASAN 1
#endif
#endif

#ifdef EVB_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace evb::simexec {

namespace {

// AddressSanitizer must be told of every stack switch (its fake stacks and
// stack bounds); these compile to nothing without it.
void start_switch(void** fake, const void* bottom, size_t size) {
#ifdef EVB_FIBER_ASAN
  __sanitizer_start_switch_fiber(fake, bottom, size);
#else
  (void)fake;
  (void)bottom;
  (void)size;
#endif
}

void finish_switch(void* fake, const void** bottom, size_t* size) {
#ifdef EVB_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
  (void)fake;
  (void)bottom;
  (void)size;
#endif
}

}  // namespace

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : body_(std::move(body)) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t usable = (stack_bytes + page - 1) / page * page;
  mapped_ = usable + page;
  stack_ = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (stack_ == MAP_FAILED) {
    stack_ = nullptr;
    throw Error(std::string("sim: cannot map a fiber stack: ") + std::strerror(errno));
  }
  ::mprotect(stack_, page, PROT_NONE);  // the guard page: an overflow faults
  if (::getcontext(&context_) != 0)
    throw Error(std::string("sim: getcontext: ") + std::strerror(errno));
  context_.uc_stack.ss_sp = static_cast<char*>(stack_) + page;
  context_.uc_stack.ss_size = usable;
  context_.uc_link = nullptr;
  const auto self = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2,
              static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffu));
}

Fiber::~Fiber() {
  if (stack_) ::munmap(stack_, mapped_);
}

void Fiber::trampoline(unsigned hi, unsigned lo) {
  auto* self =
      reinterpret_cast<Fiber*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
  finish_switch(nullptr, &self->caller_bottom_, &self->caller_size_);
  self->body_();
  self->finished_ = true;
  // Back to the scheduler for good; this stack is not entered again.
  start_switch(nullptr, self->caller_bottom_, self->caller_size_);
  ::setcontext(&self->caller_);
}

void Fiber::resume() {
  if (finished_ || running_) return;
  running_ = true;
  start_switch(&fake_stack_, context_.uc_stack.ss_sp, context_.uc_stack.ss_size);
  ::swapcontext(&caller_, &context_);
  finish_switch(fake_stack_, nullptr, nullptr);
  running_ = false;
}

void Fiber::suspend() {
  void* fake = nullptr;
  start_switch(&fake, caller_bottom_, caller_size_);
  ::swapcontext(&context_, &caller_);
  finish_switch(fake, &caller_bottom_, &caller_size_);
}

}  // namespace evb::simexec
